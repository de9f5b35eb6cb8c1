"""A board's stored analysis as the public may see it (the web view's board page): the
engine's value after every move from Ohs's point of view, its marks, and the better move
for the moves that lost. The engine's notes are public; the players' comments are not in it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from pbm_emergo.db import analyses
from pbm_emergo.robot.analysis import CLAMP, Report
from pbm_emergo.robot.search import WIN

#: The marks of the labels, as in the analysis mail.
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


@dataclass(frozen=True)
class MoveNote:
    """The engine's note on one move. ``ohs_score``: the value after the move for Ohs, in
    hundredths of a man, cut to +-``CLAMP`` (beyond: a position won or lost by force)."""

    number: int
    side: int  # 0 Ohs, 1 Eks: who played it
    played: str
    ohs_score: int
    forced: bool  # the value is a win (or, when negative, a loss) for Ohs by force
    label: str  # "", "inaccuracy", "mistake" or "blunder"
    mark: str  # "", "?!", "?" or "??"
    loss: int  # hundredths of a man
    best: str | None  # the better move, for a labelled move only
    line: tuple[str, ...]  # the better line from it (empty unless ``best``)


@dataclass(frozen=True)
class BoardAnalysis:
    """The notes on every move of the board, in order."""

    notes: tuple[MoveNote, ...]

    def by_number(self) -> dict[int, MoveNote]:
        return {note.number: note for note in self.notes}


def board_analysis(session: Session, number: int) -> BoardAnalysis | None:
    """The stored analysis of board ``number``, None if nobody has had it analysed yet."""
    data = analyses.stored_report(session, number)
    if data is None:
        return None
    notes = []
    for verdict in Report.from_data(data).verdicts:
        ohs = verdict.score if verdict.side == 0 else -verdict.score
        labelled = bool(verdict.label)
        notes.append(MoveNote(
            number=verdict.number,
            side=verdict.side,
            played=verdict.played,
            ohs_score=max(-CLAMP, min(CLAMP, ohs)),
            forced=abs(ohs) >= WIN // 2,
            label=verdict.label,
            mark=MARKS.get(verdict.label, ""),
            loss=verdict.loss,
            best=verdict.best if labelled else None,
            line=verdict.line if labelled else (),
        ))
    return BoardAnalysis(tuple(notes))


__all__ = ["MARKS", "BoardAnalysis", "MoveNote", "board_analysis"]
