"""The reset codes of forgotten passwords (``forgot``, ``reset``): stored as hashes, used
once."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import PasswordReset
from pbm_emergo.db.session import rowcount
from pbm_emergo.game.resets import ResetCode


def mailed_since(session: Session, player_id: int, since: datetime) -> list[datetime]:
    """When the player's reset codes mailed after ``since`` were mailed."""
    return list(
        session.scalars(
            select(PasswordReset.created_at).where(
                PasswordReset.player_id == player_id, PasswordReset.created_at > since
            )
        )
    )


def add_reset(
    session: Session,
    player_id: int,
    code_hash: str,
    requested_by: str,
    now: datetime,
    *,
    expires_at: datetime,
    since: datetime,
    per_day: int,
) -> None:
    """Store a mailed code; Conflict when ``per_day`` codes were mailed since ``since``
    meanwhile."""
    count = session.scalar(
        select(func.count())
        .select_from(PasswordReset)
        .where(PasswordReset.player_id == player_id, PasswordReset.created_at > since)
    )
    if (count or 0) >= per_day:
        raise Conflict("Another reset code was mailed for the player meanwhile.")
    session.add(
        PasswordReset(
            player_id=player_id,
            code_hash=code_hash,
            requested_by=requested_by,
            created_at=now,
            expires_at=expires_at,
        )
    )
    session.flush()


def find_reset(session: Session, code_hash: str) -> ResetCode | None:
    """The reset code whose hash is ``code_hash``, or None."""
    row = session.scalar(select(PasswordReset).where(PasswordReset.code_hash == code_hash))
    if row is None:
        return None
    return ResetCode(row.id, row.player_id, row.expires_at, row.used_at)


def use_reset(session: Session, reset_id: int, now: datetime) -> None:
    """Mark the code used; Conflict when it was used meanwhile."""
    result = session.execute(
        update(PasswordReset)
        .where(PasswordReset.id == reset_id, PasswordReset.used_at.is_(None))
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The reset code was used meanwhile.")
