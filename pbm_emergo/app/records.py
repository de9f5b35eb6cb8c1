"""A board's game record file as a mail attachment (:mod:`pbm_emergo.game.records`)."""

from __future__ import annotations

from pbm_emergo.db.reads.analysis import BoardAnalysis
from pbm_emergo.game.board import BoardState
from pbm_emergo.game.records import board_record, record_filename
from pbm_emergo.views.reply_mail import Attachment

__all__ = ["record_attachment"]


def record_attachment(
    state: BoardState, site: str, options: str, analysis: BoardAnalysis | None = None
) -> Attachment:
    """The record as a file for a mail (``board-N.emergo``, text/plain), with the engine's
    notes when the board was analysed."""
    notes = analysis.notes if analysis is not None else ()
    return Attachment(
        record_filename(state.number),
        board_record(state, site=site, options=options, notes=notes),
    )
