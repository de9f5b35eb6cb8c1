"""Ratings: storing the Glicko-2 changes of a finished rated game, and the rating history.

The computation is the Glicko-2 library's (:mod:`pbm_emergo.ratings`), its numbers (start
values, the provisional deviation) the pure core's (:mod:`pbm_emergo.game.numbers`,
:mod:`pbm_emergo.game.ratings`, re-exported here); this module stores them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import WHITE, Player, RatingChange
from pbm_emergo.game.numbers import (
    PROVISIONAL_DEVIATION,
    START_DEVIATION,
    START_RATING,
    START_VOLATILITY,
)
from pbm_emergo.game.ratings import (
    GameRating,
    Rated,
    Standing,
    is_provisional,
    rating_text,
)
from pbm_emergo.ratings import game_rating, outcomes

__all__ = [
    "PROVISIONAL_DEVIATION",
    "START_DEVIATION",
    "START_RATING",
    "START_VOLATILITY",
    "GameRating",
    "Rated",
    "Standing",
    "game_rating",
    "history_of_board",
    "is_provisional",
    "outcomes",
    "rating_text",
    "record_result",
]


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
    for player, standing in (
        (white, _standing(white).after(rating, white=True)),
        (black, _standing(black).after(rating, white=False)),
    ):
        session.add(
            RatingChange(
                player_id=player.id,
                board_number=board_number,
                rating_before=player.rating,
                rating_after=standing.rating,
                created_at=now,
            )
        )
        player.rating = standing.rating
        player.deviation = standing.deviation
        player.volatility = standing.volatility
        player.rated_games = standing.rated_games
    return rating


def _standing(player: Player) -> Standing:
    return Standing(player.rating, player.rated_games, player.deviation, player.volatility)


def history_of_board(session: Session, board_number: int) -> dict[int, RatingChange]:
    """The rating history lines a finished board made, by player id."""
    return {
        change.player_id: change
        for change in session.scalars(
            select(RatingChange).where(RatingChange.board_number == board_number)
        )
    }


