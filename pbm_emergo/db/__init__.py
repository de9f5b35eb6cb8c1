"""Persistence: the SQLAlchemy models, engine and session setup, and the data layer by
aggregate.

- :mod:`pbm_emergo.db.models`: the schema (documented for operators in docs/schema.md).
- :mod:`pbm_emergo.db.session`: engines, sessions (``read_sessions`` for reading units of
  work), migrations (``upgrade_to_head``).
- :mod:`pbm_emergo.db.players`: players and credentials (passwords, addresses, lock-outs);
  :mod:`pbm_emergo.db.credentials`: the verified-credential cache.
- :mod:`pbm_emergo.db.games`: boards, moves and votes.
- :mod:`pbm_emergo.db.apply`: the changes of a decision of :mod:`pbm_emergo.game` written,
  each with its re-check; :mod:`pbm_emergo.db.reads.snapshot`: the board snapshot the
  decisions take.
- :mod:`pbm_emergo.db.ratings`: storing Elo ratings and their history.
- :mod:`pbm_emergo.db.inbox`, :mod:`pbm_emergo.db.outbox`: the mail queues;
  :mod:`pbm_emergo.db.claims`: who holds a claim on them, and the release of stale claims.
- :mod:`pbm_emergo.db.challenges`, :mod:`pbm_emergo.db.vacations`,
  :mod:`pbm_emergo.db.spectators`, :mod:`pbm_emergo.db.autoplay`: the smaller aggregates.
- :mod:`pbm_emergo.db.reads`: the read models shared by the mail commands, the web view and
  admin (one player row, one active-board count, one list of finished games, one standings
  rule).
- :mod:`pbm_emergo.db.errors`: what the data layer refuses (``Conflict``: start over).
"""
