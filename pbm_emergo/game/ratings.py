"""Elo ratings: the changes a finished rated game makes to its two players' ratings.

The numbers (start rating, K factors, provisional games) are defined here and nowhere else;
:mod:`pbm_emergo.db.ratings` stores what they compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from pbm_emergo.game.numbers import (
    K_FACTOR,
    K_FACTOR_PROVISIONAL,
    PAIR_RATED_DAYS,
    PROVISIONAL_GAMES,
    RATED_MOVES_EACH,
)
from pbm_emergo.rules import WHITE


def elo_change(rating: int, opponent: int, score: float, k: int) -> int:
    """The Elo rating change for a player scoring ``score`` (1, 0.5, 0) against ``opponent``."""
    expected = 1 / (1 + 10 ** ((opponent - rating) / 400))
    return round(k * (score - expected))


@dataclass(frozen=True)
class GameRating:
    """The ratings of a game's two players before it ended, and their changes."""

    white_before: int
    black_before: int
    white_change: int
    black_change: int

    def lines(self, white: str, black: str) -> list[str]:
        """ "alice 1600 -> 1616 (+16)" for each player."""
        return [
            f"{name} {before} -> {before + change} ({change:+d})"
            for name, before, change in (
                (white, self.white_before, self.white_change),
                (black, self.black_before, self.black_change),
            )
        ]


class Rated(Protocol):
    """A player's standing: their rating and how many rated games made it."""

    @property
    def rating(self) -> int: ...

    @property
    def rated_games(self) -> int: ...


@dataclass(frozen=True)
class Standing:
    rating: int
    rated_games: int

    def after(self, change: int) -> Standing:
        return Standing(self.rating + change, self.rated_games + 1)


def is_provisional(player: Rated) -> bool:
    return player.rated_games < PROVISIONAL_GAMES


def rating_text(rating: int, provisional: bool) -> str:
    """A rating as every list shows it: the word "provisional" after it while it is
    (the standings put such players under their own heading instead)."""
    return f"{rating} provisional" if provisional else str(rating)


def game_rating(white: Rated, black: Rated, winner: str | None) -> GameRating:
    """The Elo changes of a rated game ``white`` and ``black`` finished with ``winner``
    (K=32, 64 while a player's rating is provisional)."""
    white_score = 0.5 if winner is None else (1.0 if winner == WHITE else 0.0)
    k_white = K_FACTOR_PROVISIONAL if is_provisional(white) else K_FACTOR
    k_black = K_FACTOR_PROVISIONAL if is_provisional(black) else K_FACTOR
    return GameRating(
        white_before=white.rating,
        black_before=black.rating,
        white_change=elo_change(white.rating, black.rating, white_score, k_white),
        black_change=elo_change(black.rating, white.rating, 1 - white_score, k_black),
    )


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
