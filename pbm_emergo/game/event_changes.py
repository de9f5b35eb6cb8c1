"""The writes of leagues and tournaments: one frozen value per write, each with the
re-check it needs (the data layer raises Conflict when it no longer holds)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class EventCreated:
    """A new event ``name`` (taken meanwhile: conflict), on these terms."""

    name: str
    event_format: str
    at: datetime
    rounds: int | None
    max_players: int | None
    starts_at: datetime | None
    nag_days: int
    forfeit_days: int
    total_days: int | None
    robots: str
    rated: bool
    owner_id: int | None = None
    join_password_hash: str | None = None
    league: str | None = None
    season: int | None = None
    # The time bank and the weekend pause of its games (see BoardState).
    timebank_hours: int | None = None
    increment_hours: int | None = None
    weekends_off: bool = False


@dataclass(frozen=True)
class SeasonOpened:
    """A league's next season: the event ``event`` (its name taken meanwhile: conflict),
    open with its players entered, each in their division (``entries``: ``(player_id,
    division)``), and the news of it to tell them."""

    event: EventCreated
    entries: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class EntryAdded:
    """``player_id`` enters the open event ``event_id`` (already in, the event no longer
    open, or full: conflict); ``division`` for a league's carried-over entries."""

    event_id: int
    player_id: int
    at: datetime
    max_players: int | None
    division: int = 1


@dataclass(frozen=True)
class EntryWithdrawn:
    """``player_id`` leaves ``event_id``: an open event forgets the entry, a running one
    keeps it, marked withdrawn."""

    event_id: int
    player_id: int
    at: datetime


@dataclass(frozen=True)
class EventStatusSet:
    """The event's status moves on from ``expected`` (else conflict)."""

    event_id: int
    expected: str
    status: str
    at: datetime


@dataclass(frozen=True)
class PairingPlanned:
    """A game of a round: white against black (None: a bye for white) on ``board``
    (None: a bye, or a board still to open); ``result`` for a bye."""

    white_id: int
    black_id: int | None
    board: int | None
    result: str | None = None
    division: int = 1
    game: int = 1


@dataclass(frozen=True)
class RoundOpened:
    """Round ``number`` of ``event_id`` opens with ``pairings``; the event's current round
    must still be ``expected`` (``number - 1``, or ``number`` when a knock-out's deciders
    join the round), else conflict: two schedulers cannot both open it."""

    event_id: int
    number: int
    at: datetime
    pairings: tuple[PairingPlanned, ...]
    expected: int


@dataclass(frozen=True)
class PairingDecided:
    """The game of pairing ``pairing_id`` ended with ``result`` (decided already: conflict)."""

    pairing_id: int
    result: str


@dataclass(frozen=True)
class RoundFinished:
    """Round ``number`` of ``event_id`` has ended."""

    event_id: int
    number: int
    at: datetime


@dataclass(frozen=True)
class DivisionsSet:
    """A league's first season: each entry's division, ``(player_id, division)``, while
    the event is still open (else conflict)."""

    event_id: int
    divisions: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class NewsToTell:
    """Something ``event_id``'s players are to be told (``kind``: one of
    :data:`~pbm_emergo.game.tournaments.NEWS_KINDS`; ``board`` and ``round_number`` for a
    round's new board), stored with the changes that make it news and mailed once they are
    committed."""

    event_id: int
    kind: str
    at: datetime
    board: int | None = None
    round_number: int | None = None


@dataclass(frozen=True)
class NewsTold:
    """The news ``news_id`` is mailed (told already: conflict, so it goes out once)."""

    news_id: int


EventChange = (
    EventCreated
    | SeasonOpened
    | EntryAdded
    | EntryWithdrawn
    | EventStatusSet
    | RoundOpened
    | PairingDecided
    | RoundFinished
    | DivisionsSet
    | NewsToTell
    | NewsTold
)
EVENT_CHANGE_TYPES = (
    EventCreated,
    SeasonOpened,
    EntryAdded,
    EntryWithdrawn,
    EventStatusSet,
    RoundOpened,
    PairingDecided,
    RoundFinished,
    DivisionsSet,
    NewsToTell,
    NewsTold,
)
