"""Ratings on values: what a finished rated game does to its two players' Glicko-2 ratings,
and which games count.

The computation itself is a library's (Glicko-2, called by :mod:`pbm_emergo.ratings`, outside
this pure package): the shell hands its results in as values, the rating changes of a
board's possible results read with the board (``BoardState.rating_outcomes``), or a
:class:`RatingModel` where one decision ends several games in a row (:func:`resign_all
<pbm_emergo.game.play.resign_all>`). The numbers (start values, the provisional deviation)
are :mod:`pbm_emergo.game.numbers`'; :mod:`pbm_emergo.db.ratings` stores the results.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from pbm_emergo.game.numbers import (
    PAIR_RATED_DAYS,
    PROVISIONAL_DEVIATION,
    RATED_MOVES_EACH,
    START_DEVIATION,
    START_VOLATILITY,
)


@dataclass(frozen=True)
class GameRating:
    """The ratings of a game's two players before it ended, and their changes; with the
    rating deviations and volatilities after it (None where not known: a finished game's
    history keeps the ratings only)."""

    white_before: int
    black_before: int
    white_change: int
    black_change: int
    white_deviation: float | None = None
    black_deviation: float | None = None
    white_volatility: float | None = None
    black_volatility: float | None = None


class Rated(Protocol):
    """A player's standing: their rating, its deviation and volatility, and how many rated
    games made it."""

    @property
    def rating(self) -> int: ...

    @property
    def deviation(self) -> float: ...

    @property
    def volatility(self) -> float: ...

    @property
    def rated_games(self) -> int: ...


class RatingModel(Protocol):
    """The rating changes of a rated game ``white`` and ``black`` finished with ``winner``
    (``"white"``, ``"black"``, None for a draw)."""

    def __call__(self, white: Rated, black: Rated, winner: str | None) -> GameRating: ...


@dataclass(frozen=True)
class Standing:
    rating: int
    rated_games: int
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY

    def after(self, rating: GameRating, white: bool) -> Standing:
        """The standing once the game rated by ``rating`` counted (``white``: on its white
        side)."""
        if white:
            change, deviation, volatility = (
                rating.white_change,
                rating.white_deviation,
                rating.white_volatility,
            )
        else:
            change, deviation, volatility = (
                rating.black_change,
                rating.black_deviation,
                rating.black_volatility,
            )
        return Standing(
            self.rating + change,
            self.rated_games + 1,
            self.deviation if deviation is None else deviation,
            self.volatility if volatility is None else volatility,
        )


def is_provisional(player: Rated) -> bool:
    """Whether the rating is still uncertain: its deviation is above
    ``PROVISIONAL_DEVIATION``."""
    return player.deviation > PROVISIONAL_DEVIATION


def rating_text(rating: int, provisional: bool) -> str:
    """A rating as every list shows it: the word "provisional" after it while it is
    (the standings put such players under their own heading instead)."""
    return f"{rating} provisional" if provisional else str(rating)


def counts_for_rating(
    white_moves: int, black_moves: int, pair_rated_at: datetime | None, now: datetime
) -> bool:
    """Whether a rated board's game ending at ``now`` moves ratings: only when each player
    made at least ``RATED_MOVES_EACH`` moves on it (``white_moves``, ``black_moves``, the
    move that ends it included), and its two players' last game against each other that
    moved ratings (``pair_rated_at``, when it finished; None: none) finished
    ``PAIR_RATED_DAYS`` days or more before. Else it ends unrated, so that two accounts
    cannot farm points with short or repeated games."""
    if min(white_moves, black_moves) < RATED_MOVES_EACH:
        return False
    return pair_rated_at is None or now - pair_rated_at >= timedelta(days=PAIR_RATED_DAYS)
