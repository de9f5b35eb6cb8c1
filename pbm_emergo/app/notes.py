"""Private notes on games (``emergo note``): kept for their writer, shown to them alone
under ``emergo show`` and ``emergo record`` (the decisions: :mod:`pbm_emergo.game.notes`)."""

from __future__ import annotations

from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import notes
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.game.board import BoardState
from pbm_emergo.game.notes import NoteAdded, clean_note, note_refusal
from pbm_emergo.views import i18n
from pbm_emergo.views.notes import notes_text
from pbm_emergo.views.reasons import said


def add_note(ctx: UnitOfWork, player: Account, board: BoardState, text: str) -> Result:
    """Keep ``text`` (or, when empty, the mail's comment) as ``player``'s note on
    ``board``, after its latest move."""
    note = clean_note(text or ctx.comment)
    count = notes.note_count(ctx.session, board.number, player.id)
    refusal = note_refusal(note, count)
    if refusal is not None:
        raise Refused(said(refusal), board=board.number)
    ctx.write(NoteAdded(board.number, player.id, board.ply, note, ctx.now))
    return Result(
        said=lambda: i18n._("kept a note on board %(board)s", board=board.number),
        answer=i18n.ngettext(
            "Your note on board %(board)s (after move %(move)s) is kept: %(num)s note of "
            "yours on it. It follows the board, for you alone, when you send 'emergo show' "
            "or 'emergo record' for it from a registered address.",
            "Your note on board %(board)s (after move %(move)s) is kept: %(num)s notes of "
            "yours on it. It follows the board, for you alone, when you send 'emergo show' "
            "or 'emergo record' for it from a registered address.",
            count + 1, board=board.number, move=board.ply,
        )
        + "\n",
        answer_subject=f"Emergo Board {board.number} note",
        answer_board=board.number,
    )


def shown_notes(ctx: UnitOfWork, number: int) -> str:
    """The notes on board ``number`` of the player(s) whose registered address the request
    came from (and passed its domain's checks), as text; "" for none. The answer goes to
    that address alone."""
    if not ctx.sender_trusted or not ctx.sender:
        return ""
    return notes_text(notes.notes_for_address(ctx.session, number, ctx.sender))
