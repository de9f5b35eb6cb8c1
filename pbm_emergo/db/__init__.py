"""Persistence: the SQLAlchemy models, engine and session setup, and the data layer by
aggregate.

- :mod:`pbm_emergo.db.models`: the schema (documented for operators in docs/schema.md).
- :mod:`pbm_emergo.db.session`: engines, sessions (``read_sessions`` for reading units of
  work), migrations (``upgrade_to_head``).
- :mod:`pbm_emergo.db.players`: players and credentials (passwords, addresses, lock-outs);
  :mod:`pbm_emergo.db.credentials`: the verified-credential cache.
- :mod:`pbm_emergo.db.games`: boards, moves and votes.
- :mod:`pbm_emergo.db.ratings`: Elo ratings and their history.
- :mod:`pbm_emergo.db.queues`: the inbound and outbound mail queues.
- :mod:`pbm_emergo.db.reports`: read-only reports for the admin CLI.
- :mod:`pbm_emergo.db.errors`: what the data layer refuses (``Conflict``: start over).
"""
