"""An event read as values: its terms and where it stands (:func:`read_event`,
:func:`event_by_id`, :func:`events_with_status`), who entered (:func:`entries_of`; with
their players' userids, ratings, languages and addresses: :func:`entrants_of`), its
pairings with their boards' status and winner (:func:`pairings_of`), a player's boards
under way in it (:func:`active_boards_in`), and what events still have to tell their
players (:func:`news_to_tell`). Plain rows, no object made."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import (
    BOARD_ACTIVE,
    Board,
    Event,
    EventEntry,
    EventNews,
    EventPairing,
    Player,
    PlayerAddress,
)


@dataclass(frozen=True)
class EventRead:
    """An event's terms and where it stands: what joining and withdrawing check, what its
    rounds are opened with, and what its table shows."""

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
    rounds: int | None  # the Swiss rounds, or a round robin's or league's cycles
    robots: str  # the robot policy (``none``, ``fill``)
    rated: bool
    league: str | None  # a league's name, shared by its seasons
    season: int | None
    current_round: int  # the round being played (0 before the start)


@dataclass(frozen=True)
class EntryRead:
    """A player's entry in an event, and when they withdrew (None: still in)."""

    player_id: int
    withdrawn_at: datetime | None


_EVENT_FIELDS = (
    Event.id, Event.name, Event.format, Event.status, Event.max_players, Event.starts_at,
    Event.join_password_hash, Event.nag_days, Event.forfeit_days, Event.total_days,
    Event.timebank_hours, Event.increment_hours, Event.weekends_off, Event.rounds,
    Event.robots, Event.rated, Event.league, Event.season, Event.current_round,
)


@dataclass(frozen=True)
class EntrantRead:
    """A player's entry with what the event's table, its pairings and its mails need of
    the player: their userid, rating, language and the address board mails go to."""

    player_id: int
    userid: str
    userid_key: str
    rating: int
    language: str | None
    address: str | None  # the first registered address (None: none)
    seed: int
    division: int
    withdrawn_at: datetime | None


@dataclass(frozen=True)
class PairingRead:
    """One game of a round, with its board's status and winner (None: no board, a bye or
    a game decided without one)."""

    id: int
    round_number: int
    division: int
    game: int
    white_id: int
    black_id: int | None
    board_number: int | None
    result: str | None  # white, black, draw or bye once decided (None: being played)
    board_status: str | None
    board_winner: str | None


def read_event(session: Session, name: str) -> EventRead | None:
    """The event called ``name`` (case-insensitively), or None."""
    row = session.execute(
        select(*_EVENT_FIELDS).where(func.lower(Event.name) == name.lower())
    ).one_or_none()
    return None if row is None else EventRead(**row._mapping)


def event_by_id(session: Session, event_id: int) -> EventRead | None:
    """The event ``event_id`` as it stands now (a stage's writes applied), or None."""
    row = session.execute(select(*_EVENT_FIELDS).where(Event.id == event_id)).one_or_none()
    return None if row is None else EventRead(**row._mapping)


def events_with_status(session: Session, statuses: Sequence[str]) -> list[EventRead]:
    """The events with one of ``statuses``, oldest first."""
    rows = session.execute(
        select(*_EVENT_FIELDS).where(Event.status.in_(statuses)).order_by(Event.id)
    )
    return [EventRead(**row._mapping) for row in rows]


def entries_of(session: Session, event_id: int) -> list[EntryRead]:
    """The entries of an event, withdrawn ones too, in seed order."""
    rows = session.execute(
        select(EventEntry.player_id, EventEntry.withdrawn_at)
        .join(Player, Player.id == EventEntry.player_id)
        .where(EventEntry.event_id == event_id)
        .order_by(EventEntry.seed)
    )
    return [EntryRead(player_id, withdrawn_at) for player_id, withdrawn_at in rows]


def entrants_of(session: Session, event_id: int) -> list[EntrantRead]:
    """The entries of an event, withdrawn ones too, in seed order, with their players."""
    first_address = (
        select(PlayerAddress.address)
        .where(PlayerAddress.player_id == Player.id)
        .order_by(PlayerAddress.position, PlayerAddress.id)
        .limit(1)
        .scalar_subquery()
    )
    rows = session.execute(
        select(
            EventEntry.player_id, Player.userid, Player.userid_key, Player.rating,
            Player.language, first_address.label("address"), EventEntry.seed,
            EventEntry.division, EventEntry.withdrawn_at,
        )
        .join(Player, Player.id == EventEntry.player_id)
        .where(EventEntry.event_id == event_id)
        .order_by(EventEntry.seed)
    )  # fmt: skip
    return [EntrantRead(**row._mapping) for row in rows]


def pairings_of(session: Session, event_id: int) -> list[PairingRead]:
    """Every pairing of the event with its board's status and winner, by round, division
    and game."""
    rows = session.execute(
        select(
            EventPairing.id, EventPairing.round_number, EventPairing.division,
            EventPairing.game, EventPairing.white_id, EventPairing.black_id,
            EventPairing.board_number, EventPairing.result,
            Board.status.label("board_status"), Board.winner.label("board_winner"),
        )
        .outerjoin(Board, Board.number == EventPairing.board_number)
        .where(EventPairing.event_id == event_id)
        .order_by(
            EventPairing.round_number,
            EventPairing.division,
            EventPairing.game,
            EventPairing.id,
        )
    ).all()  # fmt: skip
    return [PairingRead(**row._mapping) for row in rows]


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


@dataclass(frozen=True)
class NewsRead:
    """What an event still has to tell its players (the ``event_news`` table)."""

    id: int
    event_id: int
    kind: str
    board_number: int | None
    round_number: int | None


_NEWS = select(
    EventNews.id, EventNews.event_id, EventNews.kind, EventNews.board_number,
    EventNews.round_number,
).order_by(EventNews.id)


def news_to_tell(session: Session) -> list[NewsRead]:
    """Every event's news not told yet, oldest first."""
    return [NewsRead(**row._mapping) for row in session.execute(_NEWS)]


__all__ = [
    "EntrantRead", "EntryRead", "EventRead", "NewsRead", "PairingRead", "active_boards_in",
    "entrants_of", "entries_of", "event_by_id", "events_with_status", "news_to_tell",
    "pairings_of", "read_event",
]

