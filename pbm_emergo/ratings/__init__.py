"""Glicko-2 ratings, by the ``glicko2`` library, for the pure game layer's values.

The game's decisions (:mod:`pbm_emergo.game`) import only the standard library, so the
rating computation is done here and handed to them as values: :func:`game_rating` is a
:class:`~pbm_emergo.game.ratings.RatingModel`, :func:`outcomes` the changes of each result a
board may end with, read with the board. Each rated game is a rating period of its own, for
both players (as lichess does): a player's deviation shrinks with every rated game and their
rating moves by how surprising the result was. Why Glicko-2 and this library:
docs/ratings.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import glicko2

from pbm_emergo.game.board import BLACK, WHITE
from pbm_emergo.game.ratings import GameRating, Rated

__all__ = ["game_rating", "outcomes"]

# The three results a game may end with: Ohs (white) wins, Eks (black) wins, a draw.
RESULTS: tuple[str | None, ...] = (WHITE, BLACK, None)


def _after(player: Rated, opponent: Rated, score: float) -> tuple[int, float, float]:
    """``player``'s rating, deviation and volatility after one game scoring ``score`` (1,
    0.5, 0) against ``opponent``, both as they stood before it."""
    rated = glicko2.Player(rating=player.rating, rd=player.deviation, vol=player.volatility)
    rated.update_player([opponent.rating], [opponent.deviation], [score])
    return round(rated.rating), float(rated.rd), float(rated.vol)


def game_rating(white: Rated, black: Rated, winner: str | None) -> GameRating:
    """The Glicko-2 changes of a rated game ``white`` and ``black`` finished with
    ``winner`` (``"white"``, ``"black"``, None for a draw)."""
    white_score = 0.5 if winner is None else (1.0 if winner == WHITE else 0.0)
    white_rating, white_deviation, white_volatility = _after(white, black, white_score)
    black_rating, black_deviation, black_volatility = _after(black, white, 1 - white_score)
    return GameRating(
        white_before=white.rating,
        black_before=black.rating,
        white_change=white_rating - white.rating,
        black_change=black_rating - black.rating,
        white_deviation=white_deviation,
        black_deviation=black_deviation,
        white_volatility=white_volatility,
        black_volatility=black_volatility,
    )


def outcomes(white: Rated, black: Rated) -> tuple[tuple[str | None, GameRating], ...]:
    """The changes of each result a rated game of ``white`` and ``black`` may end with."""
    return _outcomes(
        _Standing(white.rating, white.deviation, white.volatility, white.rated_games),
        _Standing(black.rating, black.deviation, black.volatility, black.rated_games),
    )


@dataclass(frozen=True)
class _Standing:
    """A standing as a value (hashable): :class:`~pbm_emergo.game.ratings.Rated`."""

    rating: int
    deviation: float
    volatility: float
    rated_games: int


# Every move of a rated game reads the same two standings until the game ends: its outcomes
# are worked out once (they depend on nothing else).
@lru_cache(maxsize=1024)
def _outcomes(white: _Standing, black: _Standing) -> tuple[tuple[str | None, GameRating], ...]:
    return tuple((winner, game_rating(white, black, winner)) for winner in RESULTS)
