"""What the operations around the games store: new boards and what challenges may do,
queued moves and autoplay, reminders, subscriptions, analyses. One frozen value per
distinct write, each carrying what its re-check in the write transaction needs
(:func:`pbm_emergo.db.apply.apply` applies them; a re-check that fails raises
``Conflict``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbm_emergo.game.board import QueueItem
from pbm_emergo.game.challenges import ChallengeTerms

# --- challenges --------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardCreated:
    """A new board ``number`` (taken meanwhile: conflict), ``white_id`` against
    ``black_id``, on the challenge's terms; ``reserved``: the number was set aside for it
    beforehand, so nobody else can take it."""

    number: int
    white_id: int
    black_id: int
    at: datetime
    terms: ChallengeTerms
    # A game of an event: the event and its round.
    event_id: int | None = None
    event_round: int | None = None
    reserved: bool = False


@dataclass(frozen=True)
class RobotGamesUnderLimit:
    """Stores nothing: the person still has fewer than ``limit`` active boards against
    the robots ``robot_ids`` (else conflict, so that two mails at once cannot both take
    the last place)."""

    person_id: int
    robot_ids: tuple[int, ...]
    limit: int


@dataclass(frozen=True)
class SeekTaken:
    """A challenge answered one of the games the player seeks: one fewer sought."""

    player_id: int


@dataclass(frozen=True)
class SeekingSet:
    """The player seeks ``count`` more games (0: none)."""

    player_id: int
    count: int


@dataclass(frozen=True)
class ChallengePolicySet:
    """Whether the player refuses every challenge, and the limit of active boards past
    which they refuse them (None: no limit)."""

    player_id: int
    refuses: bool
    board_limit: int | None


# --- moves in advance --------------------------------------------------------------------


@dataclass(frozen=True)
class QueueReplaced:
    """The player's queue on ``board`` replaced by ``items``; the board must still be
    active at ``expected_ply`` moves."""

    board: int
    player_id: int
    expected_ply: int
    items: tuple[QueueItem, ...]
    at: datetime


@dataclass(frozen=True)
class QueueCleared:
    """The player's queue on ``board`` removed."""

    board: int
    player_id: int


@dataclass(frozen=True)
class AutoplaySet:
    """The player's autoplay switched on or off."""

    player_id: int
    on: bool


# --- clocks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReminderSent:
    """A reminder to move on ``board`` sent at ``at``. When ``expected_ply`` is not None the
    board must still be active at that move count (a move meanwhile: the reminder is void)
    with its last reminder still ``expected_last`` (another scheduler run reminded first:
    no second reminder)."""

    board: int
    at: datetime
    expected_ply: int | None = None
    expected_last: datetime | None = None


# --- spectators --------------------------------------------------------------------------


@dataclass(frozen=True)
class SubscriptionAdded:
    """The player subscribed to the mails of ``board`` (None: of every board)."""

    player_id: int
    board: int | None
    at: datetime


@dataclass(frozen=True)
class SubscriptionsRemoved:
    """The player's subscriptions to ``boards`` ended (None: the one to every board)."""

    player_id: int
    boards: tuple[int | None, ...]


@dataclass(frozen=True)
class NotificationsToggled:
    """The final board mails the player asked for: those of ``on`` added, those of
    ``off`` removed (None: of every game)."""

    player_id: int
    on: tuple[int | None, ...]
    off: tuple[int | None, ...]
    at: datetime


# --- analyses ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalysisRequested:
    """An analysis of ``board`` queued for the player, answered to ``address``; the player
    must still have asked for fewer than ``limit`` since ``since``, and not for this board
    meanwhile."""

    board: int
    player_id: int
    address: str
    at: datetime
    limit: int
    since: datetime


# --- submitted moves (emergo submit, emergo confirm) ------------------------------------


@dataclass(frozen=True)
class MoveSubmitted:
    """``player_id``'s submitted move on ``board``, replacing any earlier one: ``notation``
    as it will be played, the mail's ``comment``, and the id of the board's last move as
    read (0: none), which the confirmation compares."""

    board: int
    player_id: int
    notation: str
    comment: str | None
    last_move_id: int
    at: datetime


@dataclass(frozen=True)
class SubmittedMoveDropped:
    """``player_id``'s submitted move on ``board`` removed (played, or no longer valid);
    none there is no conflict."""

    board: int
    player_id: int


@dataclass(frozen=True)
class AnalysisFinished:
    """The analysis request ``request_id`` answered at ``at``, with the board's ``report``
    (the data of :class:`pbm_emergo.robot.analysis.Report`) for the one that keeps it,
    None for the others; answered meanwhile: conflict."""

    request_id: int
    report: dict[str, object] | None
    at: datetime


# --- how a player's board mails show the position --------------------------------------


@dataclass(frozen=True)
class BoardStyleSet:
    """The player's board mails show the position as ``style``: ``diagram`` or ``list``."""

    player_id: int
    style: str


BoardChange = (
    BoardCreated | RobotGamesUnderLimit | SeekTaken | SeekingSet | ChallengePolicySet
    | QueueReplaced | QueueCleared | AutoplaySet | ReminderSent | SubscriptionAdded
    | SubscriptionsRemoved | NotificationsToggled | AnalysisRequested
    | MoveSubmitted | SubmittedMoveDropped
    | AnalysisFinished
    | BoardStyleSet
)
BOARD_CHANGE_TYPES = (
    BoardCreated, RobotGamesUnderLimit, SeekTaken, SeekingSet, ChallengePolicySet,
    QueueReplaced, QueueCleared, AutoplaySet, ReminderSent, SubscriptionAdded,
    SubscriptionsRemoved, NotificationsToggled, AnalysisRequested,
    MoveSubmitted, SubmittedMoveDropped,
    AnalysisFinished,
    BoardStyleSet,
)
