"""Asking for the engine's analysis of a finished game (``emergo analyse``), decided on
values: who may ask, whether the request waits already, the daily limit, and how long the
analysis takes to come.

The shell reads the board and the player (:class:`AnalysisAsk`), asks
:func:`analysis_refusal`, sends a stored analysis at once (free), and otherwise reads the
requests waiting and the player's count of the day for :func:`decide_analysis_request`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm_emergo.game.board_changes import AnalysisRequested
from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

__all__ = [
    "DAY",
    "AlreadyQueued",
    "AnalysisAsk",
    "AnalysisLimits",
    "AnalysisQueued",
    "analysis_refusal",
    "decide_analysis_request",
    "seconds_per_move",
    "wait_minutes",
]

#: The window of the daily limit.
DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class AnalysisAsk:
    """A logged-in player's request for the analysis of a board, as read: the board (its
    number, whether it is still played, its players' ids and userids, its moves) and the
    player who asks."""

    board: int
    active: bool
    white_id: int
    black_id: int
    white: str
    black: str
    ply: int
    player_id: int
    userid: str


@dataclass(frozen=True, slots=True)
class AnalysisLimits:
    """The operator's settings: analyses a player may ask for in a day, and the engine's
    time a position and a whole game (``Config.analyses_per_day``,
    ``analysis_seconds_per_move``, ``analysis_seconds_per_game``)."""

    per_day: int
    seconds_per_move: float
    seconds_per_game: float


@dataclass(frozen=True, slots=True)
class AlreadyQueued:
    """The player asked for this board's analysis already: nothing more counted; it comes
    within about ``minutes``."""

    minutes: int


@dataclass(frozen=True, slots=True)
class AnalysisQueued:
    """The request is queued (``change`` stores it): the player's ``number``-th of the
    ``limit`` of the day, within about ``minutes``."""

    change: AnalysisRequested
    minutes: int
    number: int
    limit: int


def seconds_per_move(limits: AnalysisLimits, moves: int) -> float:
    """The search time of one position: the setting, less for a long game (the cap of a
    game is shared by its positions, one more than its moves)."""
    per_game = max(0.01, limits.seconds_per_game)
    return max(0.01, min(limits.seconds_per_move, per_game / (moves + 1)))


def wait_minutes(limits: AnalysisLimits, ply: int, boards_before: int) -> int:
    """How long, at most, an analysis of a game of ``ply`` moves takes to come after the
    ``boards_before`` other boards waiting, in whole minutes (the robots' moves in between
    counted in)."""
    own = seconds_per_move(limits, ply) * (ply + 1)
    seconds = own + boards_before * limits.seconds_per_game
    return max(1, math.ceil(seconds * 1.5 / 60))


def analysis_refusal(ask: AnalysisAsk) -> Reason | None:
    """Why the request is refused before anything is read, or None: a game still played
    (the engine's verdict would be advice), or a board the player did not play on."""
    if ask.active:
        return refusal("analysis_active", number=ask.board)
    if ask.player_id not in (ask.white_id, ask.black_id):
        return refusal(
            "analysis_stranger",
            userid=ask.userid, number=ask.board, white=ask.white, black=ask.black,
        )
    return None


def decide_analysis_request(
    ask: AnalysisAsk,
    waiting: Sequence[tuple[int, int]],
    used: int,
    limits: AnalysisLimits,
    now: datetime,
    address: str,
) -> AlreadyQueued | AnalysisQueued | Reason:
    """What a request that passed :func:`analysis_refusal`, for a board with no stored
    analysis, comes to: ``waiting`` are the requests queued (board, player), ``used`` the
    player's requests within the last :data:`DAY`; the analysis is answered to
    ``address``."""
    boards_before = len({board for board, _ in waiting} - {ask.board})
    minutes = wait_minutes(limits, ask.ply, boards_before)
    if (ask.board, ask.player_id) in waiting:
        return AlreadyQueued(minutes)
    limit = max(0, limits.per_day)
    if used >= limit:
        return refusal("analysis_over_limit", userid=ask.userid, num=limit)
    since = now - DAY
    change = AnalysisRequested(ask.board, ask.player_id, address, now, limit, since)
    return AnalysisQueued(change, minutes, used + 1, limit)
