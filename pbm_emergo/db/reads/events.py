"""An event as entering and leaving it read it, as values: its terms and where it stands
(:func:`read_event`), who entered (:func:`entries_of`), and a player's boards under way in
it (:func:`active_boards_in`). Plain rows, no object made."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import BOARD_ACTIVE, Board, Event, EventEntry, EventPairing, Player


@dataclass(frozen=True)
class EventRead:
    """An event's terms and status, as joining and withdrawing check them."""

    id: int
    name: str
    format: str
    status: str
    max_players: int | None
    starts_at: datetime | None
    join_password_hash: str | None  # a private event's (None: anyone may join)
    nag_days: int
    forfeit_days: int
    total_days: int | None
    timebank_hours: int | None
    increment_hours: int | None
    weekends_off: bool


@dataclass(frozen=True)
class EntryRead:
    """A player's entry in an event, and when they withdrew (None: still in)."""

    player_id: int
    withdrawn_at: datetime | None


_EVENT_FIELDS = (
    Event.id, Event.name, Event.format, Event.status, Event.max_players, Event.starts_at,
    Event.join_password_hash, Event.nag_days, Event.forfeit_days, Event.total_days,
    Event.timebank_hours, Event.increment_hours, Event.weekends_off,
)


def read_event(session: Session, name: str) -> EventRead | None:
    """The event called ``name`` (case-insensitively), or None."""
    row = session.execute(
        select(*_EVENT_FIELDS).where(func.lower(Event.name) == name.lower())
    ).one_or_none()
    return None if row is None else EventRead(**row._mapping)


def entries_of(session: Session, event_id: int) -> list[EntryRead]:
    """The entries of an event, withdrawn ones too, in seed order."""
    rows = session.execute(
        select(EventEntry.player_id, EventEntry.withdrawn_at)
        .join(Player, Player.id == EventEntry.player_id)
        .where(EventEntry.event_id == event_id)
        .order_by(EventEntry.seed)
    )
    return [EntryRead(player_id, withdrawn_at) for player_id, withdrawn_at in rows]


def active_boards_in(session: Session, event_id: int, player_id: int) -> list[int]:
    """The numbers of the event's active boards ``player_id`` plays on, in the order of
    their pairings (by round, division and game)."""
    return list(session.scalars(
        select(Board.number)
        .join(EventPairing, EventPairing.board_number == Board.number)
        .where(
            EventPairing.event_id == event_id,
            Board.status == BOARD_ACTIVE,
            or_(Board.white_player_id == player_id, Board.black_player_id == player_id),
        )
        .order_by(
            EventPairing.round_number,
            EventPairing.division,
            EventPairing.game,
            EventPairing.id,
        )
    ))  # fmt: skip


__all__ = ["EntryRead", "EventRead", "active_boards_in", "entries_of", "read_event"]
