"""Snapshots for the decisions' tests: boards made of plain values from a list of moves,
without a database."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime, timedelta

from pbm_emergo.game.board import (
    BOARD_ACTIVE,
    BOARD_FINISHED,
    BoardSnapshot,
    BoardState,
    OpenVote,
    PlayedMove,
    QueueItem,
    Seat,
)
from pbm_emergo.game.ratings import GameRating
from pbm_emergo.rules import BLACK, WHITE, Game, Termination

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
# What the shell's rating model says each result would do (its results come to the game as
# values; these are made up, as the decisions only pass them on): the winner's change, and
# the deviation after the game.
WIN_CHANGE, DRAW_CHANGE, DEVIATION_AFTER = 40, 3, 200.0
ALICE = Seat(1, "alice", 1600, "alice@example.org", rated_games=30)
BOB = Seat(2, "bob", 1650, "bob@example.org", rated_games=5)
CAROL_ID = 3


def outcome_rating(winner: str | None, white: Seat = ALICE, black: Seat = BOB) -> GameRating:
    """The rating changes a board of ``white`` and ``black`` was read with for ``winner``."""
    white_change = {WHITE: WIN_CHANGE, BLACK: -WIN_CHANGE, None: DRAW_CHANGE}[winner]
    return GameRating(
        white.rating, black.rating, white_change, -white_change,
        DEVIATION_AFTER, DEVIATION_AFTER, 0.06, 0.06,
    )


def rating_outcomes(white: Seat, black: Seat) -> tuple[tuple[str | None, GameRating], ...]:
    return tuple((w, outcome_rating(w, white, black)) for w in (WHITE, BLACK, None))


def seat_of_ply(ply: int) -> Seat:
    """Who makes move ``ply + 1``: alice (Ohs, white) moves first."""
    return ALICE if ply % 2 == 0 else BOB


def snapshot(
    moves: list[str] | tuple[str, ...] = (),
    *,
    votes: tuple[OpenVote, ...] = (),
    queue: tuple[QueueItem, ...] = (),
    autoplay: frozenset[int] = frozenset(),
    rated: bool = True,
    blocked_rule: str = "loss",
    finished: tuple[str | None, Termination] | None = None,
    resumed: bool = True,
    white: Seat = ALICE,
    black: Seat = BOB,
) -> BoardSnapshot:
    """Board 101 after ``moves`` (white's first), with the given votes and queued moves;
    ``autoplay``: the ids of the players with autoplay on; ``finished``: the game ended so;
    ``resumed``: the board keeps its repetition keys (else it is replayed from its moves)."""
    game = Game.from_moves(moves, blocked="draw" if blocked_rule == "draw" else "loss")
    white = dataclasses.replace(white, autoplay=white.id in autoplay)
    black = dataclasses.replace(black, autoplay=black.id in autoplay)
    outcome = game.outcome()
    status, winner, reason = BOARD_ACTIVE, None, None
    if finished is not None:
        status, winner, reason = BOARD_FINISHED, finished[0], finished[1].value
    elif outcome is not None:
        status, winner, reason = BOARD_FINISHED, outcome.winner, outcome.termination.value
    state = BoardState(
        number=101,
        white=white,
        black=black,
        rated=rated,
        blocked_rule=blocked_rule,
        nag_days=7,
        forfeit_days=28,
        created_at=NOW - timedelta(days=1),
        status=status,
        ply=len(moves),
        to_move=game.position.to_move if status == BOARD_ACTIVE else None,
        winner=winner,
        outcome_reason=reason,
        position=game.position,
        moves=tuple(
            PlayedMove(i + 1, (white if i % 2 == 0 else black).id, str(m),
                       NOW - timedelta(hours=len(moves) - i))
            for i, m in enumerate(game.moves)
        ),
        votes=votes,
        rating=None,
        rating_outcomes=rating_outcomes(white, black) if rated and status == BOARD_ACTIVE else (),
    )
    return BoardSnapshot(
        state=state,
        repetition=tuple(game.repetition_history()) if resumed else None,
        queued=bool(queue),
        queue=queue,
    )


def random_game(seed: int, length: int) -> list[str]:
    """A game of up to ``length`` random legal moves (fewer if it ends first)."""
    rng = random.Random(seed)
    game = Game()
    while len(game.moves) < length and game.outcome() is None:
        game.play(rng.choice(game.position.legal_moves()))
    return [str(m) for m in game.moves]
