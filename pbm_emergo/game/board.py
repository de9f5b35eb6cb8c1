"""A board as plain values: its seats, moves, votes and queue, as read once per operation.

A :class:`BoardState` is everything a board mail shows; a :class:`BoardSnapshot` adds what
the decisions need beyond it (the repetition history to resume the game, the queued moves,
``boards.queued`` as read). The data layer builds them (:mod:`pbm_emergo.db.reads.snapshot`)
and stores the words defined here (sides, statuses, how a move was autoplayed).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from pbm_emergo.game.numbers import RATED_MOVES_EACH, START_DEVIATION, START_VOLATILITY
from pbm_emergo.game.ratings import GameRating, Standing, counts_for_rating
from pbm_emergo.rules import BLACK as BLACK
from pbm_emergo.rules import WHITE as WHITE
from pbm_emergo.rules import BlockedRule, Game, Position, Termination

# The sides are the rules' words.
SIDES = (WHITE, BLACK)

BOARD_ACTIVE = "active"
BOARD_FINISHED = "finished"
BOARD_STATUSES = (BOARD_ACTIVE, BOARD_FINISHED)

# How the server played a move for its player (moves.autoplayed; NULL: their own command).
AUTOPLAYED_QUEUED = "queued"
AUTOPLAYED_FORCED = "forced"
AUTOPLAYED = (AUTOPLAYED_QUEUED, AUTOPLAYED_FORCED)
# How a move the server played for its player is marked in the move list.
AUTOPLAYED_MARKS = {AUTOPLAYED_QUEUED: "(Auto)", AUTOPLAYED_FORCED: "(Forced)"}


def other_side(side: str) -> str:
    return BLACK if side == WHITE else WHITE


@dataclass(frozen=True)
class Seat:
    """A player on a board: as a board mail shows them, and what the decisions need of
    them (their rated-game count for the rating change, their autoplay flag)."""

    id: int
    userid: str
    rating: int
    address: str | None  # where their board mails go (the first registered address)
    vacation_until: datetime | None = None
    rated_games: int = 0
    autoplay: bool = False
    timezone: str = "UTC"  # the IANA time zone the player reads times in (`timezone`)
    # The Glicko-2 rating deviation and volatility beside ``rating``.
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY
    # notify digest: the changes others make come in the player's daily digest, not a mail
    # each (game/digest.py).
    digest: bool = False
    board_style: str = "diagram"  # how their board mails show the position: or "list"
    language: str | None = None  # the language of their replies (None: not chosen)

    def on_vacation(self, now: datetime) -> bool:
        return self.vacation_until is not None and self.vacation_until > now

    @property
    def standing(self) -> Standing:
        """The player's rating as the rating model reads it."""
        return Standing(self.rating, self.rated_games, self.deviation, self.volatility)

    def rated(self, standing: Standing) -> Seat:
        """The seat with the player's rating now ``standing``."""
        return dataclasses.replace(
            self, rating=standing.rating, rated_games=standing.rated_games,
            deviation=standing.deviation, volatility=standing.volatility,
        )


@dataclass(frozen=True)
class PlayedMove:
    number: int
    player_id: int
    notation: str
    played_at: datetime
    autoplayed: str | None = None  # "queued" or "forced": played by the server for them

    @property
    def label(self) -> str:
        """The move as the move list shows it: ``e4xc4 (Auto)`` for a queued move."""
        mark = AUTOPLAYED_MARKS.get(self.autoplayed or "")
        return f"{self.notation} {mark}" if mark else self.notation


@dataclass(frozen=True)
class OpenVote:
    kind: str  # "draw" or "undo"
    player_id: int
    ply: int  # the board's move count when it was made


@dataclass(frozen=True)
class QueueItem:
    """One queued move: ``notation`` for ``player_id``, played as move ``number``; with
    ``if_move``, only if the opponent's move before it is ``if_move``. ``id`` is 0 until
    stored."""

    player_id: int
    notation: str
    number: int
    if_move: str | None = None
    id: int = 0


@dataclass(frozen=True)
class BoardState:
    """Everything a board mail shows, as plain values (see the module docstring)."""

    number: int
    white: Seat
    black: Seat
    rated: bool
    blocked_rule: str
    nag_days: int
    forfeit_days: int
    created_at: datetime
    status: str
    ply: int
    to_move: str | None
    winner: str | None
    outcome_reason: str | None
    position: Position
    moves: tuple[PlayedMove, ...]
    votes: tuple[OpenVote, ...]
    rating: GameRating | None  # the rating changes of a finished rated game
    # Each player's total thinking time (--totaltime), and for such boards the players'
    # vacations that the clock leaves out: (player id, start, end).
    total_days: int | None = None
    vacations: tuple[tuple[int, datetime, datetime], ...] = ()
    # False when the board's read found no subscription to it or to every board: its
    # mails then go to the players (and, at the end, those who asked) without a look.
    watched: bool = True
    # When the two players last finished a game against each other that moved ratings
    # (None: none, or not read: read only for a rated board whose game may end rated soon,
    # see ``may_end_rated``).
    pair_rated_at: datetime | None = None
    # A game of a league or tournament: resigning before one's first move resigns it (a
    # loss in the event's table), it does not decline the board.
    in_event: bool = False
    # When the player to move was last reminded of the board (boards.last_reminder_at).
    last_reminder_at: datetime | None = None
    # The rating changes of each result the game may end with now (winner "white",
    # "black", None for a draw), computed by the shell's rating model from the players'
    # standings as read: the decisions take the one of the result (:meth:`rating_if`).
    rating_outcomes: tuple[tuple[str | None, GameRating], ...] = ()
    # A capped time bank (-timebank=, -increment=: hours; None: none), and whether the
    # clock stops at weekends in the player's time zone (-weekends).
    timebank_hours: int | None = None
    increment_hours: int | None = None
    weekends_off: bool = False
    finished_at: datetime | None = None  # when the game ended, as read (None: under way)

    @property
    def active(self) -> bool:
        return self.status == BOARD_ACTIVE

    def moves_of(self, player_id: int) -> int:
        """How many moves ``player_id`` made on the board."""
        return sum(1 for move in self.moves if move.player_id == player_id)

    def rates_at(self, now: datetime) -> bool:
        """Whether the game, ending at ``now`` as it stands, moves ratings
        (:func:`~pbm_emergo.game.ratings.counts_for_rating`)."""
        return self.rated and counts_for_rating(
            self.moves_of(self.white.id), self.moves_of(self.black.id), self.pair_rated_at, now
        )

    def rating_if(self, winner: str | None) -> GameRating | None:
        """The rating changes if the game ends now with ``winner`` (None: not read)."""
        return next((r for w, r in self.rating_outcomes if w == winner), None)

    def seat(self, side: str) -> Seat:
        return self.white if side == WHITE else self.black

    def side_of(self, player_id: int) -> str | None:
        if player_id == self.white.id:
            return WHITE
        if player_id == self.black.id:
            return BLACK
        return None

    def opponent(self, player_id: int) -> Seat:
        return self.black if player_id == self.white.id else self.white

    def replace(self, **changes: object) -> BoardState:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def finished(
        self, winner: str | None, termination: Termination, rating: GameRating | None
    ) -> BoardState:
        """The state once the game ended so (ratings moved by ``rating``; None on a rated
        board: it ended unrated)."""
        white, black = self.white, self.black
        if rating is not None:
            white = white.rated(white.standing.after(rating, white=True))
            black = black.rated(black.standing.after(rating, white=False))
        return self.replace(
            status=BOARD_FINISHED,
            to_move=None,
            winner=winner,
            outcome_reason=termination.value,
            votes=(),
            rating=rating,
            rated=rating is not None,
            white=white,
            black=black,
        )


@dataclass(frozen=True)
class BoardSnapshot:
    """A board as one operation read it: its :class:`BoardState`, and what resuming its
    game and playing its queued moves need."""

    state: BoardState
    # The keys of the positions that can still recur (boards.repetition); None for a board
    # stored before they were kept: its game is then replayed from its moves.
    repetition: tuple[str, ...] | None = None
    queued: bool = False  # boards.queued as read: the board has queued moves
    queue: tuple[QueueItem, ...] = ()  # read only when ``queued`` and a move may play them

    @property
    def number(self) -> int:
        return self.state.number

    @property
    def blocked(self) -> BlockedRule:
        return "draw" if self.state.blocked_rule == "draw" else "loss"

    def game(self) -> Game:
        """The board's game as read, ready to go on."""
        if self.repetition is not None:
            return Game.resume(self.state.position, list(self.repetition), blocked=self.blocked)
        return self.replayed(len(self.state.moves))

    def replayed(self, upto: int) -> Game:
        """The board's game replayed from its moves, only the first ``upto`` of them."""
        notations = [m.notation for m in self.state.moves][: max(upto, 0)]
        return Game.from_moves(notations, blocked=self.blocked)


def may_end_rated(rated: bool, ply: int, queued: bool, autoplay: bool) -> bool:
    """Whether an active board's next operation may end its game with ratings moved, so
    that the read needs ``pair_rated_at``: a rated board one move short of
    ``RATED_MOVES_EACH`` moves each, or one whose queued moves or autoplay may play several
    moves at once."""
    return rated and (ply >= 2 * RATED_MOVES_EACH - 1 or queued or autoplay)
