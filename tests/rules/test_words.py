"""The position in words (``board USERID PASSWORD list``) says every position exactly: the
words of each position of the test corpus of games (data/games.json) are read back by a
parser written here from the documented wording, and compared with the rules engine."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbm_emergo.rules import CELLS, Game, Position, position_words

GAMES: dict[str, dict[str, object]] = json.loads(
    (Path(__file__).parent / "data" / "games.json").read_text()
)
# Columns with prisoners of either colour, both hands empty.
EXAMPLE = "o 0 0 30 c5=x1,d4=x2o2,e4=o3,e5=x1,c4=o3x5,d6=x1"

_ROW = re.compile(r"Row ([a-i]):( empty)?")
_PIECE = re.compile(
    r"  ([a-i][1-9]): (Ohs|Eks) (?:man|column of ([1-9][0-9]?))"
    r"(?:, ([1-9][0-9]?) (Ohs|Eks) prisoners?)?"
)
_HANDS = re.compile(r"In hand: Ohs ([0-9]+), Eks ([0-9]+)")
_LAST = re.compile(r"Last move: (\S+), by (Ohs|Eks)")
_TO_MOVE = re.compile(r"(Ohs|Eks) to move, ([0-9]+) legal moves?")
_LETTER = {"Ohs": "o", "Eks": "x"}


def read_words(text: str) -> tuple[Position, str | None, int]:
    """The position the words describe (ply 0: the words do not say it), the last move and
    the number of legal moves they announce. Any line out of the wording fails."""
    lines = text.rstrip("\n").split("\n")
    rows: list[str] = []
    pieces: list[str] = []
    hands = last = mover = to_move = count = None
    for line in lines:
        if match := _ROW.fullmatch(line):
            rows.append(match[1])
        elif match := _PIECE.fullmatch(line):
            cell, owner, own, prisoners, enemy = match.groups()
            assert cell[0] == rows[-1], f"{cell} listed under row {rows[-1]}"
            assert own is None or int(own) >= 2, line  # one man is "man", not "column of 1"
            code = f"{_LETTER[owner]}{own or 1}"
            if prisoners:
                assert enemy != owner, line
                code += f"{_LETTER[enemy]}{prisoners}"
            pieces.append(f"{cell}={code}")
        elif match := _HANDS.fullmatch(line):
            hands = (match[1], match[2])
        elif match := _LAST.fullmatch(line):
            last, mover = match[1], match[2]
        elif match := _TO_MOVE.fullmatch(line):
            to_move, count = match[1], int(match[2])
            assert line.endswith("move" if count == 1 else "moves"), line
        else:
            raise AssertionError(f"a line out of the wording: {line!r}")
    assert rows == list("abcdefghi")
    assert hands is not None and to_move is not None and count is not None
    if last is not None:
        assert mover != to_move
    cells = [p.split("=")[0] for p in pieces]
    assert cells == sorted(cells, key=CELLS.index)
    text = f"{_LETTER[to_move]} {hands[0]} {hands[1]} 0 {','.join(pieces) or '-'}"
    return Position.from_text(text), last, count


def positions_of(moves: list[str]) -> list[tuple[Position, str | None]]:
    position = Position()
    found: list[tuple[Position, str | None]] = [(position, None)]
    for move in moves:
        position = position.play(move)
        found.append((position, move))
    return found


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_position_of_the_corpus_reads_back(name: str) -> None:
    moves = [str(m) for m in GAMES[name]["moves"]]  # type: ignore[attr-defined]
    assert Game.from_moves(moves).position.ply == len(moves)
    for position, last in positions_of(moves):
        read, said_last, count = read_words(position_words(position, last))
        assert read.key() == position.key(), position.to_text()
        assert said_last == last
        assert count == len(position.legal_moves())


def test_the_worked_example_in_words() -> None:
    position = Position.from_text(EXAMPLE)
    words = position_words(position)
    assert "  c4: Ohs column of 3, 5 Eks prisoners\n" in words
    assert "  d4: Eks column of 2, 2 Ohs prisoners\n" in words
    assert "  c5: Eks man\n" in words
    assert "Row a: empty\n" in words
    assert "In hand: Ohs 0, Eks 0\n" in words
    assert words.endswith(f"Ohs to move, {len(position.legal_moves())} legal moves\n")
    assert read_words(words)[0].key() == position.key()


def test_the_words_fit_72_columns() -> None:
    for name in GAMES:
        moves = [str(m) for m in GAMES[name]["moves"]]  # type: ignore[attr-defined]
        for position, last in positions_of(moves):
            assert max(map(len, position_words(position, last).splitlines())) <= 72
