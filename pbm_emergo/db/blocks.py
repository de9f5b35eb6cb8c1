"""Blocks between players (``block``, ``unblock``)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Block


def blocks(session: Session, player_id: int, blocked_id: int) -> bool:
    """Whether ``player_id`` blocks ``blocked_id``."""
    return (
        session.scalar(
            select(Block.id).where(Block.player_id == player_id, Block.blocked_id == blocked_id)
        )
        is not None
    )


def blockers_of(session: Session, blocked_id: int, among: Collection[int]) -> set[int]:
    """Those of the players ``among`` who block ``blocked_id``."""
    if not among:
        return set()
    return set(
        session.scalars(
            select(Block.player_id).where(
                Block.blocked_id == blocked_id, Block.player_id.in_(list(among))
            )
        )
    )


def add_block(session: Session, player_id: int, blocked_id: int, now: datetime) -> None:
    """Store the block, unless it is there already."""
    if not blocks(session, player_id, blocked_id):
        session.add(Block(player_id=player_id, blocked_id=blocked_id, created_at=now))
        session.flush()


def remove_block(session: Session, player_id: int, blocked_id: int) -> None:
    session.execute(
        delete(Block)
        .where(Block.player_id == player_id, Block.blocked_id == blocked_id)
        .execution_options(synchronize_session=False)
    )
