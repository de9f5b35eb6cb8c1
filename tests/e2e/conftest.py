"""Fixtures shared by the end-to-end tests: the server with a relay and a clock
(defined with the account security tests, where they started)."""

from e2e.test_accounts_security import clock, make_post  # noqa: F401 - fixtures by name
