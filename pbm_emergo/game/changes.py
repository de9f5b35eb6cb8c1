"""What a decision stores: one frozen value per distinct write, each carrying what its
re-check in the write transaction needs (:func:`pbm_emergo.db.apply.apply` applies them).
Here the changes of a game's moves; those of the accounts in
:mod:`pbm_emergo.game.account_changes`, those around the games (challenges, queues,
reminders, subscriptions, analyses) in :mod:`pbm_emergo.game.board_changes`, a player's
settings in :mod:`pbm_emergo.game.setting_changes`. ``Change``
and ``CHANGE_TYPES`` cover them all: every write of the shell is one of them.

A change says what the decision relied on (the move count it read, ``boards.queued`` as
read, that there was no open vote, the ratings it announced); the data layer's write
re-checks it and raises ``Conflict`` (or ``StaleMoveError``) when it no longer holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbm_emergo.game.account_changes import ACCOUNT_CHANGE_TYPES, AccountChange
from pbm_emergo.game.blocks import BlockAdded, BlockRemoved
from pbm_emergo.game.board_changes import BOARD_CHANGE_TYPES, BoardChange
from pbm_emergo.game.event_changes import EVENT_CHANGE_TYPES, EventChange
from pbm_emergo.game.notes import NoteAdded
from pbm_emergo.game.ratings import GameRating
from pbm_emergo.game.setting_changes import SETTING_CHANGE_TYPES, SettingChange
from pbm_emergo.rules import Position, Termination


@dataclass(frozen=True)
class MoveStored:
    """A move made on ``board`` as move ``expected_ply + 1``: the board's position,
    repetition keys and turn after it (``to_move`` None: the move ended the game), and the
    moves table row. ``expected_queued``: ``boards.queued`` as read (re-checked when not
    None); ``expected_no_votes``: no open vote was read (re-checked when true)."""

    board: int
    expected_ply: int
    position: Position
    repetition: tuple[str, ...]
    to_move: str | None
    player_id: int
    notation: str
    comment: str | None
    played_at: datetime
    autoplayed: str | None = None
    expected_queued: bool | None = None
    expected_no_votes: bool = False


@dataclass(frozen=True)
class VotesDropped:
    """The board's open votes dropped: all of them, or all but ``keep_draw_of``'s draw
    offer (a player's own move does not withdraw their offer)."""

    board: int
    keep_draw_of: int | None = None


@dataclass(frozen=True)
class VoteOpened:
    """A draw offer or undo request recorded (a vote of that kind stored meanwhile
    conflicts)."""

    board: int
    kind: str
    player_id: int
    ply: int
    at: datetime


@dataclass(frozen=True)
class VoteRemoved:
    """An answered vote removed (gone already: conflict)."""

    board: int
    kind: str
    player_id: int


@dataclass(frozen=True)
class MovesTakenBack:
    """The moves after ``position`` (the game replayed up to the move before the first one
    taken back) removed, with the board's queued moves; the board must still be active at
    ``expected_ply`` moves."""

    board: int
    expected_ply: int
    position: Position
    repetition: tuple[str, ...]


@dataclass(frozen=True)
class QueueTaken:
    """The queued moves a chain played or cleared, by id (one gone already: conflict)."""

    board: int
    item_ids: tuple[int, ...]


@dataclass(frozen=True)
class GameFinished:
    """The game ended: the board finished, the result counted, and for a rated board the
    ratings moved by ``expected_rating`` (the changes the mails announce; re-checked when
    not None); ``rated`` False: the game did not count for rating, the board is stored as
    unrated. The board must still be active, and at ``expected_ply`` moves when that is not
    None (the move count the decision read, or reached by the moves stored before it), so
    that a game ended off the mail path (on time, by a robot, by the operator) is not ended
    over a move that came meanwhile."""

    board: int
    winner: str | None
    termination: Termination
    at: datetime
    expected_rating: GameRating | None = None
    rated: bool = True
    expected_ply: int | None = None


@dataclass(frozen=True)
class BoardDeclined:
    """A new game declined: the board removed, unrated; it must still be at
    ``expected_ply`` moves."""

    board: int
    expected_ply: int


MoveChange = (
    MoveStored | VotesDropped | VoteOpened | VoteRemoved | MovesTakenBack | QueueTaken
    | GameFinished | BoardDeclined
)
MOVE_CHANGE_TYPES = (
    MoveStored, VotesDropped, VoteOpened, VoteRemoved, MovesTakenBack, QueueTaken,
    GameFinished, BoardDeclined,
)
Change = (
    MoveChange
    | AccountChange
    | BoardChange
    | BlockAdded
    | BlockRemoved
    | NoteAdded
    | EventChange
    | SettingChange
)
# What players do for themselves, beside the accounts and the boards.
SELF_SERVICE_CHANGE_TYPES = (BlockAdded, BlockRemoved, NoteAdded)
CHANGE_TYPES = (
    MOVE_CHANGE_TYPES
    + ACCOUNT_CHANGE_TYPES
    + BOARD_CHANGE_TYPES
    + SELF_SERVICE_CHANGE_TYPES
    + EVENT_CHANGE_TYPES
    + SETTING_CHANGE_TYPES
)
