"""Fixtures of the operations tests: the mail fixtures (a config on the shared test
database, on SQLite and PostgreSQL; a recording relay)."""

from mail.conftest import config, relay, session_factory  # noqa: F401 - fixtures by name
