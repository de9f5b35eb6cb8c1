"""Ratings: Elo changes of a finished rated game and the rating history.

The numbers (start rating, K factors, provisional games) are defined here and in
:mod:`pbm_emergo.db.models` (the start rating, a column default) and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import START_RATING, WHITE, Player, RatingChange
from pbm_emergo.game.numbers import K_FACTOR as K_FACTOR
from pbm_emergo.game.numbers import K_FACTOR_PROVISIONAL as K_FACTOR_PROVISIONAL
from pbm_emergo.game.numbers import PROVISIONAL_GAMES as PROVISIONAL_GAMES

__all__ = [
    "K_FACTOR",
    "K_FACTOR_PROVISIONAL",
    "PROVISIONAL_GAMES",
    "START_RATING",
    "GameRating",
    "Rated",
    "Standing",
    "elo_change",
    "game_rating",
    "history_of_board",
    "is_provisional",
    "record_result",
]


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


def record_result(
    session: Session,
    board_number: int,
    white: Player,
    black: Player,
    winner: str | None,
    rated: bool,
    now: datetime,
    *,
    expected: GameRating | None = None,
) -> GameRating | None:
    """Count the result for both players (won/lost/drawn) and, for a rated game, change
    their ratings with a rating_history line each. ``white``/``black`` are the players as
    locked in this transaction. ``expected``: the ratings a reply was written with; if the
    players' ratings moved since (another game of theirs ended), Conflict."""
    if winner is None:
        white.drawn += 1
        black.drawn += 1
    elif winner == WHITE:
        white.won += 1
        black.lost += 1
    else:
        black.won += 1
        white.lost += 1
    if not rated:
        return None
    rating = game_rating(white, black, winner)
    if expected is not None and rating != expected:
        raise Conflict("The players' ratings changed meanwhile.")
    for player, change in ((white, rating.white_change), (black, rating.black_change)):
        session.add(
            RatingChange(
                player_id=player.id,
                board_number=board_number,
                rating_before=player.rating,
                rating_after=player.rating + change,
                created_at=now,
            )
        )
        player.rating += change
        player.rated_games += 1
    return rating


def history_of_board(session: Session, board_number: int) -> dict[int, RatingChange]:
    """The rating history lines a finished board made, by player id."""
    return {
        change.player_id: change
        for change in session.scalars(
            select(RatingChange).where(RatingChange.board_number == board_number)
        )
    }


