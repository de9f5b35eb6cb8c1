"""What the daily digests (:mod:`pbm_emergo.app.digests`) read of the players who asked for
one, as values: one statement of plain rows, no object made."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, Table, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Player, PlayerAddress

_PLAYERS = cast(Table, Player.__table__)
_ADDRESSES = cast(Table, PlayerAddress.__table__)


@dataclass(frozen=True)
class DigestPlayer:
    """A player with a daily digest, as the scheduler decides and writes it."""

    id: int
    userid: str
    language: str | None
    timezone: str
    digest_hour: int
    last_digest_at: datetime | None
    address: str | None  # their first registered address, where the digest goes


# The players with a digest who have not signed off, a row an address of each (NULL for
# one with none), by player, their addresses in order.
_DIGEST_PLAYERS: Select[Any] = (
    select(
        _PLAYERS.c.id, _PLAYERS.c.userid, _PLAYERS.c.language, _PLAYERS.c.timezone,
        _PLAYERS.c.digest_hour, _PLAYERS.c.last_digest_at, _ADDRESSES.c.address,
    )
    .outerjoin(_ADDRESSES, _ADDRESSES.c.player_id == _PLAYERS.c.id)
    .where(_PLAYERS.c.digest_hour.is_not(None), _PLAYERS.c.signed_off_at.is_(None))
    .order_by(_PLAYERS.c.id, _ADDRESSES.c.position, _ADDRESSES.c.id)
)


def digest_players(session: Session) -> list[DigestPlayer]:
    """The players with a daily digest (who have not signed off), by id."""
    found: dict[int, DigestPlayer] = {}
    for row in session.execute(_DIGEST_PLAYERS):
        if row.id not in found:  # the first row of a player has their first address
            found[row.id] = DigestPlayer(
                id=row.id, userid=row.userid, language=row.language, timezone=row.timezone,
                digest_hour=row.digest_hour, last_digest_at=row.last_digest_at,
                address=row.address,
            )
    return list(found.values())


__all__ = ["DigestPlayer", "digest_players"]
