"""The game record file: a plain-text record of one Emergo game, modelled on PGN.

Tag pairs (``[Name "value"]``, one a line), a blank line, then the moves in the server's
notation with their move numbers, ``{comments}``, the engine's notes inside a comment
(``[%eval +0.40]``, ``[%best e4]``), the marks ``?!``, ``?`` and ``??``, and the result::

    [Event "Emergo board 101"]
    [White "alice"]
    [Black "bob"]
    [Result "1-0"]

    1. e5 {[%eval +0.10]} e4 2. e3 ... 1-0

:func:`format_record` writes a :class:`GameRecord`, :func:`parse_record` reads one back
(the same value: they round-trip), :func:`replay` plays its moves on the rules. Every
failure is a :class:`RecordError` (a ValueError) that names the line and, for a move,
its number. ``docs/record.md`` describes the format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pbm_emergo.rules.errors import MoveError
from pbm_emergo.rules.game import Game
from pbm_emergo.rules.position import BLACK, WHITE

#: The result tokens: Ohs (White) won, Eks (Black) won, a draw, not finished.
WHITE_WINS = "1-0"
BLACK_WINS = "0-1"
DRAW = "1/2-1/2"
UNFINISHED = "*"
RESULTS = (WHITE_WINS, BLACK_WINS, DRAW, UNFINISHED)
MARKS = ("?!", "?", "??")
#: The line length the movetext is wrapped to.
LINE_LENGTH = 79

_TAG_NAME = re.compile(r"[A-Za-z0-9_]+", re.ASCII)
_TAG_LINE = re.compile(r'\[([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]', re.ASCII)
_TOKEN = re.compile(
    r"(?P<result>1-0|0-1|1/2-1/2|\*)"
    r"|(?P<number>[0-9]+)(?P<dots>\.\.\.|\.)"
    r"|(?P<move>[a-iA-I][1-9](?:[-x:][a-iA-I][1-9])*[xX]?)(?P<mark>\?\?|\?!|\?)?"
)
_EVAL = re.compile(r"([+-]?)([0-9]+)\.([0-9]{2})|#([+-])", re.ASCII)
_NOTE = re.compile(r"\[%(eval|best)\s+([^\]]*)\]")


class RecordError(ValueError):
    """A record that cannot be read or replayed; ``line`` is where (1 is the first line),
    ``move`` the move number when a move is at fault."""

    def __init__(self, message: str, *, line: int, move: int | None = None) -> None:
        where = f"line {line}" + (f", move {move}" if move is not None else "")
        super().__init__(f"{where}: {message}")
        self.line = line
        self.move = move
        self.reason = message


@dataclass(frozen=True)
class RecordedMove:
    """One move of a record: its notation, the engine's mark and value after it (from
    Ohs's point of view, in hundredths of a man; ``forced``: a win by force, then ``value``
    is +1 for Ohs or -1 for Eks), the engine's better move, and a comment.

    ``line`` is where a parsed move stood; it is not part of the value."""

    notation: str
    mark: str = ""
    value: int | None = None
    forced: bool = False
    best: str | None = None
    comment: str = ""
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if self.mark and self.mark not in MARKS:
            raise ValueError(f"not a mark: {self.mark!r}")
        if self.forced:
            if not self.value:
                raise ValueError("a forced value says who wins: +1 or -1")
            object.__setattr__(self, "value", 1 if self.value > 0 else -1)
        # Whitespace in a comment is not significant (as in PGN): one space between words.
        object.__setattr__(self, "comment", " ".join(self.comment.split()))


@dataclass(frozen=True)
class GameRecord:
    """A game as its record holds it: the tag pairs in order, the moves, the result."""

    tags: tuple[tuple[str, str], ...]
    moves: tuple[RecordedMove, ...]
    result: str = UNFINISHED

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise ValueError(f"not a result: {self.result!r}")
        names = [name for name, _ in self.tags]
        for name in names:
            if not _TAG_NAME.fullmatch(name):
                raise ValueError(f"not a tag name: {name!r}")
        if len(set(names)) != len(names):
            raise ValueError("a tag occurs twice")

    def tag(self, name: str) -> str | None:
        """The value of tag ``name``, None if the record has none."""
        return dict(self.tags).get(name)


def result_token(winner: str | None, finished: bool = True) -> str:
    """The result token of a game: ``winner`` is ``"white"``, ``"black"`` or None (a draw)."""
    if not finished:
        return UNFINISHED
    return {WHITE: WHITE_WINS, BLACK: BLACK_WINS, None: DRAW}[winner]


# -- writing -----------------------------------------------------------------------------


def format_record(record: GameRecord) -> str:
    """The record as text: the tag pairs, a blank line, the movetext wrapped at
    :data:`LINE_LENGTH` characters, a final newline."""
    lines = []
    for name, value in record.tags:
        if any(ch in value for ch in "\r\n"):
            raise ValueError(f"the tag {name} holds a line break")
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'[{name} "{escaped}"]')
    words: list[str] = []
    after_comment = False
    for i, move in enumerate(record.moves):
        number = i // 2 + 1
        if i % 2 == 0:
            words.append(f"{number}.")
        elif after_comment:
            words.append(f"{number}...")
        words.append(move.notation + move.mark)
        pieces = _comment_pieces(move)
        after_comment = bool(pieces)
        if pieces:
            pieces[0] = "{" + pieces[0]
            pieces[-1] += "}"
            words.extend(pieces)
    words.append(record.result)
    movetext: list[str] = []
    current = ""
    for word in words:
        if current and len(current) + 1 + len(word) > LINE_LENGTH:
            movetext.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    movetext.append(current)
    head = "\n".join(lines) + "\n\n" if lines else ""
    return head + "\n".join(movetext) + "\n"


def _comment_pieces(move: RecordedMove) -> list[str]:
    """The comment after a move, in the pieces a line may break between: each engine note
    whole, then the words of the comment."""
    pieces = []
    if move.value is not None:
        pieces.append(f"[%eval {_value_text(move.value, move.forced)}]")
    if move.best is not None:
        pieces.append(f"[%best {move.best}]")
    if move.comment:
        # A backslash takes the next character as it is: so "}" cannot end the comment and
        # "[" cannot start an engine note.
        pieces.extend(re.sub(r"([\\}\[])", r"\\\1", move.comment).split(" "))
    return pieces


def _value_text(value: int, forced: bool) -> str:
    if forced:
        return "#+" if value > 0 else "#-"
    sign = "-" if value < 0 else "+"
    return f"{sign}{abs(value) // 100}.{abs(value) % 100:02d}"


# -- reading -----------------------------------------------------------------------------


def parse_record(text: str) -> GameRecord:
    """The record in ``text``; RecordError (with the line) if it is not one.

    Tag pairs first, one a line; then the movetext. Move numbers may be left out, but one
    that is written must be right (``N.`` before Ohs's move, ``N...`` before Eks's). The
    movetext ends with the result, which must agree with a ``Result`` tag. Moves are checked
    for their syntax only: :func:`replay` checks that they are legal."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    tags: list[tuple[str, str]] = []
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if not stripped:
            index += 1
            continue
        if not stripped.startswith("["):
            break
        match = _TAG_LINE.fullmatch(stripped)
        if match is None:
            raise RecordError(
                f'not a tag pair: {_shown(stripped)} (write [Name "value"])', line=index + 1
            )
        name, value = match[1], re.sub(r"\\(.)", r"\1", match[2])
        if any(name == known for known, _ in tags):
            raise RecordError(f"the tag {name} occurs twice", line=index + 1)
        tags.append((name, value))
        index += 1
    start_line = index + 1
    moves, result, result_line = _movetext("\n".join(lines[index:]), start_line)
    tagged = dict(tags).get("Result")
    if tagged is not None and tagged != result:
        raise RecordError(
            f'the moves end with the result {result}, but the tag Result says "{tagged}"',
            line=result_line,
        )
    return GameRecord(tuple(tags), tuple(moves), result)


def _movetext(text: str, first_line: int) -> tuple[list[RecordedMove], str, int]:
    moves: list[RecordedMove] = []
    comments: list[str] = []
    pending: dict[str, object] | None = None  # the move read last, its notes still to come
    result: str | None = None
    result_line = first_line
    pos = 0

    def line_at(at: int) -> int:
        return first_line + text.count("\n", 0, at)

    def close() -> None:
        nonlocal pending
        if pending is not None:
            moves.append(_recorded(pending, comments))
            comments.clear()
            pending = None

    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        line = line_at(pos)
        if result is not None:
            raise RecordError(
                f"{_shown(text[pos:].split()[0])} after the result {result}", line=line
            )
        if text[pos] == "{":
            end, body, notes = _comment(text, pos, line_at)
            if pending is None:
                raise RecordError("a comment before the first move", line=line)
            for kind, value in notes:
                _note(pending, kind, value, line)
            if body:
                comments.append(body)
            pos = end
            continue
        match = _TOKEN.match(text, pos)
        end = match.end() if match else pos
        # A token ends at a space, a comment or the end; a move number may touch its move.
        ends = end >= len(text) or text[end].isspace() or text[end] == "{"
        if match is None or not (ends or match["number"]):
            word = text[pos:].split()[0] if text[pos:].split() else text[pos:]
            raise RecordError(
                f"{_shown(word)} is not a move, a move number, a comment or a result",
                line=line,
            )
        ply = len(moves) + (pending is not None)
        if match["result"]:
            close()
            result, result_line = match["result"], line
        elif match["number"]:
            close()
            number, black = int(match["number"]), match["dots"] == "..."
            expected = len(moves) // 2 + 1
            if black != (len(moves) % 2 == 1) or number != expected:
                wanted = f"{expected}..." if len(moves) % 2 else f"{expected}."
                raise RecordError(
                    f"the move number {match[0]} stands where {wanted} belongs",
                    line=line,
                    move=len(moves) + 1,
                )
        else:
            close()
            pending = {
                "notation": match["move"].lower(),
                "mark": match["mark"] or "",
                "line": line,
                "move": ply + 1,
            }
        pos = end
    close()
    if result is None:
        raise RecordError(
            "the moves do not end with a result (1-0, 0-1, 1/2-1/2 or *)",
            line=line_at(len(text.rstrip())),
        )
    return moves, result, result_line


def _comment(
    text: str, start: int, line_at: Callable[[int], int]
) -> tuple[int, str, list[tuple[str, str]]]:
    """The comment opening at ``start``: where it ends, its text, its engine notes."""
    out: list[str] = []
    notes: list[tuple[str, str]] = []
    pos = start + 1
    while pos < len(text):
        ch = text[pos]
        if ch == "\\" and pos + 1 < len(text):
            out.append(text[pos + 1])
            pos += 2
            continue
        if ch == "}":
            return pos + 1, " ".join("".join(out).split()), notes
        if text.startswith("[%", pos):
            note = _NOTE.match(text, pos)
            if note is None:
                raise RecordError(
                    "an engine note is [%eval VALUE] or [%best MOVE]", line=line_at(pos)
                )
            notes.append((note[1], note[2].strip()))
            pos = note.end()
            continue
        out.append(ch)
        pos += 1
    raise RecordError("a comment { is not closed by }", line=line_at(start))


def _note(pending: dict[str, object], kind: str, value: str, line: int) -> None:
    move = pending["move"]
    assert isinstance(move, int)
    if ("value" if kind == "eval" else kind) in pending:
        raise RecordError(f"two [%{kind}] notes on one move", line=line, move=move)
    if kind == "best":
        found = _TOKEN.fullmatch(value)
        if found is None or not found["move"]:
            raise RecordError(f"[%best {value}]: not a move", line=line, move=move)
        pending["best"] = value.lower()
        return
    match = _EVAL.fullmatch(value)
    if match is None:
        raise RecordError(
            f"[%eval {value}]: a value is like +1.25 or -0.40, or #+ / #- for a win by force",
            line=line,
            move=move,
        )
    if match[4]:
        pending["value"], pending["forced"] = (1 if match[4] == "+" else -1), True
    else:
        hundredths = int(match[2]) * 100 + int(match[3])
        pending["value"] = -hundredths if match[1] == "-" else hundredths
        pending["forced"] = False


def _recorded(pending: dict[str, object], comments: list[str]) -> RecordedMove:
    value = pending.get("value")
    best = pending.get("best")
    line = pending["line"]
    assert isinstance(line, int)
    return RecordedMove(
        notation=str(pending["notation"]),
        mark=str(pending["mark"]),
        value=value if isinstance(value, int) else None,
        forced=bool(pending.get("forced", False)),
        best=best if isinstance(best, str) else None,
        comment=" ".join(comments),
        line=line,
    )


def _shown(word: str) -> str:
    return repr(word if len(word) <= 40 else word[:37] + "...")


# -- replaying ---------------------------------------------------------------------------


def replay(record: GameRecord) -> Game:
    """The game after the record's moves, each checked on the rules; RecordError (with
    the line and the move number) for an illegal move, a ``Blocked`` tag that is neither
    ``loss`` nor ``draw``, or a result the final position contradicts (the board ended the
    game one way and the record says another; a game the board did not end may have any
    result: a resignation, a forfeit, an agreed draw)."""
    blocked = record.tag("Blocked") or "loss"
    if blocked not in ("loss", "draw"):
        raise RecordError(f'the tag Blocked is "loss" or "draw", not "{blocked}"', line=1)
    game = Game(blocked="draw" if blocked == "draw" else "loss")
    for number, move in enumerate(record.moves, start=1):
        try:
            game.play(move.notation)
        except MoveError as err:
            raise RecordError(f"{move.notation}: {err}", line=move.line, move=number) from None
    outcome = game.outcome()
    if outcome is not None:
        ended = result_token(outcome.winner)
        if record.result != ended:
            last = record.moves[-1].line if record.moves else 1
            raise RecordError(
                f"the moves end the game ({outcome.termination}) with {ended}, but the "
                f"record says {record.result}",
                line=last,
                move=len(record.moves),
            )
    return game


__all__ = [
    "BLACK_WINS",
    "DRAW",
    "MARKS",
    "RESULTS",
    "UNFINISHED",
    "WHITE_WINS",
    "GameRecord",
    "RecordError",
    "RecordedMove",
    "format_record",
    "parse_record",
    "replay",
    "result_token",
]
