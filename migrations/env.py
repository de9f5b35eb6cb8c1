"""Alembic environment: migrates the server's own database.

The URL comes from (first match): ``alembic -x url=...``; the URL the caller put in
``config.attributes["database_url"]`` (``pbm-emergo db upgrade``, tests); else the server's
configuration (``PBM_EMERGO_DATABASE_URL``, ``PBM_EMERGO_CONFIG``, or the SQLite default under
``PBM_EMERGO_DATA_DIR``), so ``alembic upgrade head`` from the repository root migrates the
same database the server uses.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import pool

from pbm_emergo.config import load_config
from pbm_emergo.db.models import Base
from pbm_emergo.db.session import create_engine_for, durable_writes, normalise_url
from pbm_emergo.db.types import UTCDateTime

config = context.config
target_metadata = Base.metadata


def database_url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        url = config.attributes.get("database_url")
    if not url:
        url = load_config().effective_database_url
    return normalise_url(url)


def render_item(type_: str, obj: Any, autogen_context: Any) -> str | bool:
    # Our UTCDateTime decorator is stored as a plain timezone-aware DateTime.
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        compare_type=True,
        render_as_batch=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    # Foreign keys off on SQLite while migrating: batch operations copy and drop tables.
    engine = create_engine_for(database_url(), foreign_keys=False, poolclass=pool.NullPool)
    try:
        # A migration said done is on the disk (on PostgreSQL, as on SQLite, the server's
        # other commits need not be: db/session.py durable_writes).
        with durable_writes(engine).connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                compare_type=True,
                render_as_batch=True,
                render_item=render_item,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
