"""Leagues and tournaments: the writes of events, their entries, rounds and pairings, and
the counts of entries and of a player's private events (the events themselves are read as
values in :mod:`pbm_emergo.db.reads.events`).

Functions take the caller's ``Session`` and open no transaction. Writes computed from an
earlier read re-check it and raise :class:`~pbm_emergo.db.errors.Conflict` when it changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import Event, EventEntry, EventNews, EventPairing, EventRound
from pbm_emergo.db.session import rowcount
from pbm_emergo.game.event_changes import PairingPlanned
from pbm_emergo.game.tournaments import EVENT_OPEN, EVENT_RUNNING, EVENT_UNDER_WAY

__all__ = [
    "add_entry",
    "add_news",
    "by_name",
    "create_event",
    "decide_pairing",
    "drop_news",
    "finish_round",
    "open_round",
    "set_status",
    "withdraw_entry",
]


def create_event(
    session: Session,
    name: str,
    event_format: str,
    at: datetime,
    **terms: object,
) -> Event:
    """A new open event (Conflict if the name is taken, in any case)."""
    if by_name(session, name) is not None:
        raise Conflict(f"There is already an event called {name}.")
    event = Event(name=name, format=event_format, status=EVENT_OPEN, created_at=at, **terms)
    session.add(event)
    session.flush()
    return event


def by_name(session: Session, name: str) -> Event | None:
    """The event called ``name`` (case-insensitively)."""
    return session.scalars(
        select(Event).where(func.lower(Event.name) == name.lower())
    ).one_or_none()


def add_entry(
    session: Session,
    event_id: int,
    player_id: int,
    at: datetime,
    *,
    max_players: int | None,
    division: int = 1,
) -> None:
    """Enter ``player_id``; Conflict if the event is no longer open, is full, or they are in."""
    status = session.scalar(select(Event.status).where(Event.id == event_id))
    if status != EVENT_OPEN:
        raise Conflict("The event is no longer open for entries.")
    count = session.scalar(
        select(func.count()).select_from(EventEntry).where(EventEntry.event_id == event_id)
    )
    if max_players is not None and (count or 0) >= max_players:
        raise Conflict("The event is full.")
    taken = session.scalar(
        select(EventEntry.id).where(
            EventEntry.event_id == event_id, EventEntry.player_id == player_id
        )
    )
    if taken is not None:
        raise Conflict("You are in this event already.")
    seed = session.scalar(
        select(func.coalesce(func.max(EventEntry.seed), 0)).where(EventEntry.event_id == event_id)
    )
    session.add(
        EventEntry(
            event_id=event_id,
            player_id=player_id,
            seed=(seed or 0) + 1,
            division=division,
            joined_at=at,
        )
    )
    session.flush()


def withdraw_entry(session: Session, event_id: int, player_id: int, at: datetime) -> None:
    """An open event forgets the entry; a running one marks it withdrawn."""
    status = session.scalar(select(Event.status).where(Event.id == event_id))
    if status == EVENT_OPEN:
        session.execute(
            delete(EventEntry).where(
                EventEntry.event_id == event_id, EventEntry.player_id == player_id
            )
        )
        return
    result = session.execute(
        update(EventEntry)
        .where(
            EventEntry.event_id == event_id,
            EventEntry.player_id == player_id,
            EventEntry.withdrawn_at.is_(None),
        )
        .values(withdrawn_at=at)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("You have left this event already.")


def set_status(session: Session, event_id: int, expected: str, status: str, at: datetime) -> None:
    """Move the event from ``expected`` to ``status`` (Conflict if it moved meanwhile)."""
    values: dict[str, object] = {"status": status}
    if status == EVENT_RUNNING:
        values["started_at"] = at
    elif expected == EVENT_RUNNING or status != EVENT_OPEN:
        values["finished_at"] = at
    result = session.execute(
        update(Event)
        .where(Event.id == event_id, Event.status == expected)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The event changed meanwhile.")


def open_round(
    session: Session,
    event_id: int,
    number: int,
    at: datetime,
    planned: Sequence[PairingPlanned],
    *,
    expected: int,
) -> None:
    """Round ``number`` with its pairings; the event's current round goes from ``expected``
    to ``number`` (Conflict if it is no longer ``expected``). A round opened again (a
    knock-out's deciders) only adds pairings."""
    result = session.execute(
        update(Event)
        .where(Event.id == event_id, Event.current_round == expected)
        .values(current_round=number)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The event moved on meanwhile.")
    exists = session.scalar(
        select(EventRound.id).where(EventRound.event_id == event_id, EventRound.number == number)
    )
    if exists is None:
        session.add(EventRound(event_id=event_id, number=number, started_at=at))
    else:
        session.execute(
            update(EventRound)
            .where(EventRound.id == exists)
            .values(finished_at=None)
            .execution_options(synchronize_session=False)
        )
    for p in planned:
        session.add(
            EventPairing(
                event_id=event_id,
                round_number=number,
                division=p.division,
                game=p.game,
                white_id=p.white_id,
                black_id=p.black_id,
                board_number=p.board,
                result=p.result,
            )
        )
    session.flush()


def decide_pairing(session: Session, pairing_id: int, result: str) -> None:
    """The result of a pairing's game (Conflict if it had one)."""
    done = session.execute(
        update(EventPairing)
        .where(EventPairing.id == pairing_id, EventPairing.result.is_(None))
        .values(result=result)
        .execution_options(synchronize_session=False)
    )
    if rowcount(done) != 1:
        raise Conflict("The game's result was stored meanwhile.")


def finish_round(session: Session, event_id: int, number: int, at: datetime) -> None:
    session.execute(
        update(EventRound)
        .where(EventRound.event_id == event_id, EventRound.number == number)
        .values(finished_at=at)
        .execution_options(synchronize_session=False)
    )


def entry_counts(session: Session, event_ids: Sequence[int]) -> dict[int, int]:
    if not event_ids:
        return {}
    rows = session.execute(
        select(EventEntry.event_id, func.count())
        .where(EventEntry.event_id.in_(event_ids))
        .group_by(EventEntry.event_id)
    )
    return {event_id: count for event_id, count in rows}


def open_events_of_owner(session: Session, owner_id: int) -> int:
    """How many private events ``owner_id`` has open or running (their number is bounded)."""
    return int(
        session.scalar(
            select(func.count())
            .select_from(Event)
            .where(Event.owner_id == owner_id, Event.status.in_(EVENT_UNDER_WAY))
        )
        or 0
    )


def set_divisions(session: Session, event_id: int, divisions: Sequence[tuple[int, int]]) -> None:
    """Each entry's division, ``(player_id, division)``, while the event is open."""
    status = session.scalar(select(Event.status).where(Event.id == event_id))
    if status != EVENT_OPEN:
        raise Conflict("The event has started meanwhile.")
    for player_id, division in divisions:
        session.execute(
            update(EventEntry)
            .where(EventEntry.event_id == event_id, EventEntry.player_id == player_id)
            .values(division=division)
            .execution_options(synchronize_session=False)
        )


def add_news(
    session: Session, event_id: int, kind: str, at: datetime, *, board: int | None = None,
    round_number: int | None = None,
) -> None:
    """Store what the event's players are to be told (mailed after this commits)."""
    session.execute(
        insert(EventNews).values(
            event_id=event_id, kind=kind, board_number=board, round_number=round_number,
            created_at=at,
        )
    )


def drop_news(session: Session, news_id: int) -> None:
    """The news ``news_id`` is told: removed (Conflict if it is gone: told meanwhile)."""
    result = session.execute(delete(EventNews).where(EventNews.id == news_id))
    if rowcount(result) != 1:
        raise Conflict("The event's news was told meanwhile.")
