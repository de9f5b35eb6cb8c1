"""A board's game record (:mod:`pbm_emergo.rules.record`) made of its state: what the last
board mail of a game, ``emergo record`` and the web view's ``/boards/N.record`` send."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from pbm_emergo.game.board import BoardState
from pbm_emergo.rules.record import GameRecord, RecordedMove, format_record, result_token

__all__ = ["EngineNote", "board_record", "record_filename", "record_of"]


class EngineNote(Protocol):
    """What a record takes of the engine's note on one move
    (:class:`pbm_emergo.db.reads.analysis.MoveNote` is one)."""

    @property
    def number(self) -> int: ...
    @property
    def played(self) -> str: ...
    @property
    def mark(self) -> str: ...
    @property
    def ohs_score(self) -> int: ...
    @property
    def forced(self) -> bool: ...
    @property
    def best(self) -> str | None: ...


def record_filename(number: int) -> str:
    """The record's file name: ``board-101.emergo``."""
    return f"board-{number}.emergo"


def record_of(
    state: BoardState, *, site: str, options: str, notes: Iterable[EngineNote] = ()
) -> GameRecord:
    """The record of the board as it stands (``options``: the board's options in words),
    with the engine's ``notes`` on its moves when it was analysed. The players' comments
    stay out: the record is as public as the board's web page."""
    by_number = {note.number: note for note in notes}
    moves = []
    for played in state.moves:
        note = by_number.get(played.number)
        if note is None or note.played != played.notation:
            moves.append(RecordedMove(played.notation))
            continue
        forced = note.forced and note.ohs_score != 0
        moves.append(
            RecordedMove(
                played.notation,
                mark=note.mark,
                value=note.ohs_score,
                forced=forced,
                best=note.best,
            )
        )
    result = result_token(state.winner, finished=not state.active)
    tags = [
        ("Event", f"Emergo board {state.number}"),
        ("Site", site),
        ("Date", state.created_at.strftime("%Y.%m.%d")),
        ("Board", str(state.number)),
        ("White", state.white.userid),
        ("Black", state.black.userid),
        ("Result", result),
    ]
    if not state.active and state.outcome_reason:
        tags.append(("Termination", state.outcome_reason))
    tags += [
        ("Blocked", "draw" if state.blocked_rule == "draw" else "loss"),
        ("Rated", "yes" if state.rated else "no"),
        ("Options", options),
    ]
    return GameRecord(tuple(tags), tuple(moves), result)


def board_record(
    state: BoardState, *, site: str, options: str, notes: Iterable[EngineNote] = ()
) -> str:
    """:func:`record_of` as the text of the file."""
    return format_record(record_of(state, site=site, options=options, notes=notes))
