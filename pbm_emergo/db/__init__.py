"""Persistence: the SQLAlchemy models, engine and session setup, and the service layer.

- :mod:`pbm_emergo.db.models`: the schema (documented for operators in docs/schema.md).
- :mod:`pbm_emergo.db.session`: engines, sessions, migrations (``upgrade_to_head``).
- :mod:`pbm_emergo.db.service`: players, boards and moves.
- :mod:`pbm_emergo.db.queues`: the inbound and outbound mail queues.
"""
