"""Helpers shared by the test folders (import them as ``tests.support.<module>``).

- ``mail``: free ports, a recording SMTP relay, command mails, sending, waiting.
- ``utf8_relay``: a relay that does or does not offer SMTPUTF8.
- ``mailer``: ``Mailer``, command mails straight to the command layer on a simulated clock.
- ``post``: ``Post``, the real server seen from outside (listener, workers, relay).
- ``clock``: ``Clock``, a clock the test moves, and ``START``.
- ``servers``: ``pbm-emergo web`` / ``serve`` run as subprocesses on free ports.
- ``search``: move sequences found with the rules engine (eliminations, blocks, repetitions).
- ``leaks``: looking for a secret in relayed mail, logs and every database column.
- ``fixtures``: the pytest plugin (registered in tests/conftest.py) with the fixtures that
  several folders use.
"""
