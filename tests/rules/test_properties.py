"""Properties over random games (hypothesis): every position visited is checked in full.

A game is drawn as a list of choices; at each ply the choice picks one of the legal moves.
The engine's legal moves are compared with the slow reference generator on every position.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm_emergo.rules import BLACK, CELLS, WHITE, Move, Position

from . import reference
from .helpers import to_reference

RIM = {c for c in CELLS if len(reference.neighbours(c)) < 4}

# Long enough to reach the stepping stage: random games last about 120 plies.
GAMES = st.lists(st.integers(min_value=0, max_value=10_000), min_size=40, max_size=300)
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def walk(choices: list[int]) -> list[tuple[Position, Move | None]]:
    """The positions of the game the choices describe, each with the move played from it."""
    pos = Position()
    visited: list[tuple[Position, Move | None]] = []
    for choice in choices:
        legal = pos.legal_moves()
        if not legal:
            break
        move = legal[choice % len(legal)]
        visited.append((pos, move))
        pos = pos.play(move)
    visited.append((pos, None))
    return visited


@SETTINGS
@given(GAMES)
def test_random_games(choices: list[int]) -> None:
    check_game(walk(choices))


@SETTINGS
@given(st.randoms(use_true_random=False))
def test_uniformly_random_games(rng: random.Random) -> None:
    choices = [rng.randrange(10_000) for _ in range(300)]
    check_game(walk(choices))


def check_game(visited: list[tuple[Position, Move | None]]) -> None:
    for pos, played in visited:
        legal = pos.legal_moves()
        notations = [str(m) for m in legal]

        # Same legal moves as the reference, in notation order, no duplicates.
        ref = to_reference(pos)
        assert notations == ref.legal_moves(), pos.to_text()
        assert pos.capture_size() == ref.capture_size()
        assert len(set(legal)) == len(legal)

        # Men are conserved: 12 of each colour, on the board or in hand.
        for side in (WHITE, BLACK):
            on_board = sum(
                col.own if col.owner == side else col.prisoners
                for col in pos.columns().values()
            )
            assert on_board + pos.in_hand(side) == 12
        assert sum(c.height for c in pos.columns().values()) + pos.in_hand(WHITE) + pos.in_hand(
            BLACK
        ) == 24

        # The text form round-trips exactly.
        text = pos.to_text()
        again = Position.from_text(text)
        assert again.to_text() == text
        assert again.key() == pos.key() and again.ply == pos.ply
        assert [str(m) for m in again.legal_moves()] == notations

        # Never a non-capture while a capture exists; captures are all of the same size.
        kinds = {m.kind for m in legal}
        if pos.capture_size():
            assert kinds == {"capture"}
            assert {len(m.cells) - 1 for m in legal} == {pos.capture_size()}
        else:
            assert "capture" not in kinds
        if kinds == {"enter"}:
            vacant_rim = {c for c in RIM if pos.column(c) is None}
            assert vacant_rim <= set(notations)

        # Every notation parses back to its move, at both levels.
        for move in legal:
            assert pos.parse_move(str(move)) == move
            assert Move.from_text(str(move)) == move

        # Every legal move plays (checked in full for the one the game goes on with).
        for move in legal:
            after = pos.play(move)
            assert after.to_move != pos.to_move and after.ply == pos.ply + 1
        if played is not None:
            after = pos.play(played)
            assert to_reference(after) == ref.play(str(played))
            assert pos.to_text() == text  # the old position is unchanged
