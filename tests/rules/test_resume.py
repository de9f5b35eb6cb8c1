"""Game.resume and Game.repetition_history: a game continued from its stored state.

The server keeps a board's ``Position.to_text()`` and ``Game.repetition_history()``; a game
resumed from them must go on exactly as the game replayed from its moves would. Replays here
count repetitions the naive way (every position since the start), so the short history is
checked against the rule itself, not against itself.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbm_emergo.rules import (
    BLACK,
    WHITE,
    BlockedRule,
    Game,
    GameOverError,
    IllegalMoveError,
    Move,
    Outcome,
    Position,
    Termination,
)

from .helpers import position, random_game

GAMES: dict[str, dict[str, object]] = json.loads(
    (Path(__file__).parent / "data" / "games.json").read_text()
)

# Black to move; the two captures free a man each and empty no cell, and the position
# comes back after 12 plies (found by a breadth-first search over the legal moves).
CYCLE_START = "x 0 0 44 b5=o1,e4=o1x1,f4=x1"
CYCLE = [
    "f4xd4", "b5-a5", "d4-c4", "a5-b5", "c4-c5", "b5xd5",
    "e4-e3", "c5-b5", "e3-f3", "d5-d4", "f3-f4", "d4-e4",
]
# Two lone men stepping to and fro: the start position recurs every 4 plies.
SHUFFLE_START = "o 0 0 30 a5=o1,i5=x1"
SHUFFLE = ["a5-b5", "i5-h5", "b5-a5", "h5-i5"]


def stored_moves(ending: str) -> list[str]:
    moves = GAMES[ending]["moves"]
    assert isinstance(moves, list)
    return [str(m) for m in moves]


def key_class(key: str) -> tuple[int, int]:
    """The repetition class of a key text, through the public API (a ply makes it a text)."""
    side, white, black, columns = key.split(" ")
    return Position.from_text(f"{side} {white} {black} 0 {columns}").repetition_class()


def naive_class(pos: Position) -> tuple[int, int]:
    return pos.in_hand(WHITE) + pos.in_hand(BLACK), len(pos.columns())


class Replay:
    """A game replayed from its moves, with the state after every ply and naive verdicts."""

    def __init__(
        self,
        moves: list[Move] | list[str],
        start: Position | None = None,
        blocked: BlockedRule = "loss",
    ) -> None:
        game = Game(blocked) if start is None else Game.resume(start, [start.key_text()], blocked)
        self.texts = [game.position.to_text()]
        self.histories = [game.repetition_history()]
        self.outcomes: list[Outcome | None] = [game.outcome()]
        for move in moves:
            game.play(move)
            self.texts.append(game.position.to_text())
            self.histories.append(game.repetition_history())
            self.outcomes.append(game.outcome())
        self.game = game
        self.moves = game.moves

    def check_naively(self) -> None:
        """Repetition and history as the rules say, from every position since the start."""
        positions = self.game.positions
        seen: Counter[tuple[object, ...]] = Counter()
        for i, pos in enumerate(positions):
            seen[pos.key()] += 1
            outcome = self.outcomes[i]
            if seen[pos.key()] == 3:
                assert outcome == Outcome(None, Termination.REPETITION)
            elif pos.legal_moves():
                assert outcome is None
            else:
                assert outcome is not None and outcome.termination != Termination.REPETITION
            # The pair (men in hand, occupied cells) never goes up ...
            assert pos.repetition_class() == naive_class(pos)
            if i:
                assert pos.repetition_class() <= positions[i - 1].repetition_class()
            # ... and the history is every position since it last went down.
            first = i
            while first and positions[first - 1].repetition_class() == pos.repetition_class():
                first -= 1
            assert self.histories[i] == tuple(p.key_text() for p in positions[first : i + 1])


def check_resumed_everywhere(replay: Replay) -> None:
    """At every ply, resume from the stored state and play on: the same game to the end."""
    moves = replay.moves
    for k in range(len(moves) + 1):
        game = Game.resume(
            Position.from_text(replay.texts[k]), replay.histories[k], replay.game.blocked
        )
        assert game.resumed_at == k + replay.game.resumed_at
        assert game.outcome() == replay.outcomes[k]
        assert game.repetition_history() == replay.histories[k]
        for i, move in enumerate(moves[k:], start=k + 1):
            assert str(game.play(move)) == str(move)
            assert game.position.to_text() == replay.texts[i]
            assert game.repetition_history() == replay.histories[i]
            assert game.outcome() == replay.outcomes[i]
        assert game.positions[1:] == replay.game.positions[k + 1 :]
        assert game.moves == moves[k:]


def shuffling_game(choices: list[int], shuffle: int) -> list[Move]:
    """A game the choices describe; with ``shuffle`` in 1..4, a side often steps back the
    step it made last (when legal), so that positions repeat and games end by repetition."""
    game = Game()
    last: dict[str, Move] = {}
    for choice in choices:
        if game.outcome() is not None:
            break
        legal = game.position.legal_moves()
        side = game.position.to_move
        move = legal[choice % len(legal)]
        back = last.get(side)
        if back is not None and back.kind == "step" and choice % 4 < shuffle:
            undo = Move("step", (back.cells[1], back.cells[0]))
            if undo in legal:
                move = undo
        last[side] = move
        game.play(move)
    return game.moves


# ------------------------------------------------------------------ property tests


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=30, max_size=160),
    st.integers(min_value=0, max_value=4),
)
def test_a_game_resumed_at_any_ply_goes_on_as_the_replayed_game(
    choices: list[int], shuffle: int
) -> None:
    replay = Replay(shuffling_game(choices, shuffle))
    replay.check_naively()
    check_resumed_everywhere(replay)


@pytest.mark.parametrize("seed", range(6))
def test_histories_of_long_random_games_follow_the_rule(seed: int) -> None:
    positions = list(random_game(seed))
    moves = [
        next(m for m in a.legal_moves() if a.play(m) == b)
        for a, b in zip(positions, positions[1:], strict=False)
    ]
    replay = Replay(moves)
    assert replay.game.positions == positions
    replay.check_naively()


@pytest.mark.parametrize("ending", sorted(GAMES))
@pytest.mark.parametrize("blocked", ["loss", "draw"])
def test_the_stored_games_resumed_at_every_ply(ending: str, blocked: BlockedRule) -> None:
    replay = Replay(stored_moves(ending), blocked=blocked)
    outcome = replay.outcomes[-1]
    assert outcome is not None and outcome.termination == Termination(ending)
    assert (outcome.winner is None) == (
        blocked == "draw" and ending in ("blocked", "no legal entry")
        or ending == "threefold repetition"
    )
    replay.check_naively()
    check_resumed_everywhere(replay)


# ------------------------------------------------------------------ constructed repetitions


def test_captures_that_empty_no_cell_can_be_undone() -> None:
    start = Position.from_text(CYCLE_START)
    replay = Replay(CYCLE * 2, start)
    replay.check_naively()
    keys = [Position.from_text(t).key_text() for t in replay.texts]
    assert keys[12] == keys[0] and keys[24] == keys[0]
    assert replay.outcomes[24] == Outcome(None, Termination.REPETITION)
    assert replay.outcomes[:24] == [None] * 24
    # Both captures kept the earlier positions: the history has all 25 of them.
    assert replay.histories[24] == tuple(keys)
    assert {Position.from_text(t).repetition_class() for t in replay.texts} == {(0, 3)}


@pytest.mark.parametrize("start, cycle", [(CYCLE_START, CYCLE), (SHUFFLE_START, SHUFFLE)])
def test_a_threefold_repetition_is_found_after_resuming_in_the_middle_of_it(
    start: str, cycle: list[str]
) -> None:
    replay = Replay(cycle * 2, Position.from_text(start))
    end = len(cycle) * 2
    assert replay.outcomes[end] == Outcome(None, Termination.REPETITION)
    for k in range(1, end):
        game = Game.resume(Position.from_text(replay.texts[k]), replay.histories[k])
        for move in (cycle * 2)[k : end - 1]:
            game.play(move)
            assert game.outcome() is None
        game.play((cycle * 2)[end - 1])
        assert game.outcome() == Outcome(None, Termination.REPETITION)
        # Without its history the resumed game could not know: it goes on.
        forgetful = Game.resume(
            Position.from_text(replay.texts[k]), [Position.from_text(replay.texts[k]).key_text()]
        )
        for move in (cycle * 2)[k:end]:
            forgetful.play(move)
        assert forgetful.outcome() is None


def test_the_second_occurrence_resumed_needs_one_more() -> None:
    start = Position.from_text(SHUFFLE_START)
    game = Game.resume(start, [start.key_text()])
    for move in SHUFFLE:
        game.play(move)
    history = game.repetition_history()
    assert len(history) == 5 and history[0] == history[-1]
    again = Game.resume(Position.from_text(game.position.to_text()), history)
    assert again.outcome() is None
    for move in SHUFFLE:
        again.play(move)
    assert again.outcome() == Outcome(None, Termination.REPETITION)
    with pytest.raises(GameOverError):
        again.play("a5-b5")


# ------------------------------------------------------------------ bounded history


def test_an_entry_forgets_every_earlier_position() -> None:
    game = Game()
    assert game.repetition_history() == ("o 12 12 -",)
    for move in ["e4", "d6", "c3"]:
        game.play(move)
        assert game.repetition_history() == (game.position.key_text(),)


def test_a_capture_that_empties_a_cell_forgets_every_earlier_position() -> None:
    # White's e4 takes the lone black man on e3 (landing on e2): e3 is empty afterwards.
    start = position({"e4": "o1", "e3": "x1", "a5": "x1"}, to_move=WHITE)
    game = Game.resume(start, [start.key_text()])
    assert [str(m) for m in game.position.legal_moves()] == ["e4xe2"]
    game.play("e4xe2")
    assert game.position.repetition_class() == (0, 2)
    assert game.repetition_history() == (game.position.key_text(),)


@pytest.mark.parametrize("seed", range(4))
def test_the_history_is_no_longer_than_the_moves_since_the_last_drop(seed: int) -> None:
    positions = list(random_game(seed))
    game = Game()
    since = 0
    for before, after in zip(positions, positions[1:], strict=False):
        move = next(m for m in before.legal_moves() if before.play(m) == after)
        game.play(move)
        if move.kind == "enter":
            assert game.repetition_history() == (after.key_text(),)
        since = 0 if after.repetition_class() != before.repetition_class() else since + 1
        history = game.repetition_history()
        assert len(history) == since + 1
        assert {key_class(key) for key in history} == {after.repetition_class()}


# ------------------------------------------------------------------ the API


def test_a_resumed_game_knows_only_what_it_played() -> None:
    played = Game.from_moves(["e4", "d6", "c3", "g7"])
    pos = Position.from_text(played.position.to_text())
    game = Game.resume(pos, played.repetition_history())
    assert game.position is pos and game.positions == [pos] and game.moves == []
    assert game.resumed_at == 4 and game.position.ply == 4
    move = game.play("E7")
    assert str(move) == "e7" and game.moves == [move]
    assert game.position.ply == game.resumed_at + len(game.moves) == 5
    assert game.positions == [pos, game.position]
    assert game.position == Game.from_moves(["e4", "d6", "c3", "g7", "e7"]).position
    assert Game().resumed_at == 0


def test_resuming_at_the_start_keeps_e5_closed() -> None:
    game = Game.resume(Position.from_text(Position().to_text()), ["o 12 12 -"])
    assert len(game.position.legal_moves()) == 40
    with pytest.raises(IllegalMoveError):
        game.play("e5")


@pytest.mark.parametrize("ending", sorted(GAMES))
def test_resuming_a_finished_game_gives_its_outcome(ending: str) -> None:
    blocked: BlockedRule
    for blocked in ("loss", "draw"):
        played = Game.from_moves(stored_moves(ending), blocked=blocked)
        game = Game.resume(
            Position.from_text(played.position.to_text()),
            played.repetition_history(),
            blocked=blocked,
        )
        assert game.outcome() == played.outcome() is not None
        with pytest.raises(GameOverError):
            game.play("a5")


def test_a_full_key_list_is_accepted_and_shortened() -> None:
    played = Game.from_moves(["e4", "d6", "c3", "g7"])
    everything = [p.key_text() for p in played.positions]
    game = Game.resume(played.position, everything)
    assert game.repetition_history() == played.repetition_history() == (everything[-1],)


def test_key_text_is_to_text_without_the_ply_and_exact() -> None:
    pos = Position.from_text("x 7 6 11 c4=o3x5,d4=o2")
    assert pos.key_text() == "x 7 6 c4=o3x5,d4=o2"
    assert Position().key_text() == "o 12 12 -"
    by_text: dict[str, tuple[object, ...]] = {}
    by_key: dict[tuple[object, ...], str] = {}
    for seed in range(3):
        for p in random_game(seed):
            text = p.key_text()
            assert by_text.setdefault(text, p.key()) == p.key()
            assert by_key.setdefault(p.key(), text) == text
            assert text.isascii() and "\n" not in text
            words = p.to_text().split(" ")
            assert text == " ".join(words[:3] + words[4:])


@pytest.mark.parametrize(
    "history, why",
    [
        ([], "empty"),
        (["o 11 11 e4=o1,d6=x1"], "ends with"),  # not in cell order: not the key text
        (["x 11 11 d6=x1,e4=o1"], "ends with"),  # the wrong side to move
        (["o 11 11 -", "o 11 11 d6=x1,e4=o1"], "same side"),
        (["o 11 11 d6=x1,e4=o1", "x 12 11 e4=o1", "o 11 11 d6=x1,e4=o1"], "cannot follow"),
        (["x 11 11 0 d6=x1", "o 11 11 d6=x1,e4=o1"], "not a position key"),  # a ply
        (["x 11 11 d6=x01", "o 11 11 d6=x1,e4=o1"], "not a position key"),
        (["garbage", "o 11 11 d6=x1,e4=o1"], "not a position key"),
    ],
)
def test_a_history_that_cannot_be_the_positions_is_rejected(history: list[str], why: str) -> None:
    pos = Position.from_text("o 11 11 2 d6=x1,e4=o1")
    with pytest.raises(ValueError, match=why):
        Game.resume(pos, history)


def test_a_history_longer_than_the_game_or_already_over_is_rejected() -> None:
    pos = Position.from_text(SHUFFLE_START)
    key = pos.key_text()
    other = pos.play("a5-b5").key_text()
    young = Position.from_text(SHUFFLE_START.replace(" 30 ", " 1 "))
    assert young.key_text() == key
    with pytest.raises(ValueError, match="keys in the repetition history"):
        Game.resume(young, [key, other, key])
    Game.resume(Position.from_text(SHUFFLE_START.replace(" 30 ", " 2 ")), [key, other, key])
    # The start position a third time before the end: that game ended there.
    seen3 = Game.resume(pos, [key])
    for move in SHUFFLE * 2:
        seen3.play(move)
    history = list(seen3.repetition_history())
    assert seen3.outcome() is not None
    after = seen3.position.play("a5-b5")
    with pytest.raises(ValueError, match="third time before the end"):
        Game.resume(after, [*history, after.key_text()])
    with pytest.raises(TypeError):
        Game.resume(pos, key)
    with pytest.raises(ValueError, match="blocked"):
        Game.resume(pos, [key], blocked="maybe")  # type: ignore[arg-type]


def test_the_blocked_option_applies_to_a_resumed_game() -> None:
    moves = stored_moves("blocked")
    before = Game.from_moves(moves[:-1])
    loser = Game.from_moves(moves).position.to_move
    winner = WHITE if loser == BLACK else BLACK
    assert winner == GAMES["blocked"]["winner"]
    for blocked, expected in (("loss", Outcome(winner, Termination.BLOCKED)),
                              ("draw", Outcome(None, Termination.BLOCKED))):
        game = Game.resume(before.position, before.repetition_history(), blocked)  # type: ignore[arg-type]
        game.play(moves[-1])
        assert game.outcome() == expected
