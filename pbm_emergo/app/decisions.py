"""Carrying out a decision of :mod:`pbm_emergo.game`: its changes handed to the unit of
work, its events rendered into mails, its refusal turned into a :class:`Refused`.

The decisions say what happened (a board changed, a queued move failed, a game was
declined); the mails they become are drawn here, through the board mail of
:mod:`pbm_emergo.app.boards` and the templates, so that the core knows no template.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pbm_emergo.app.boards import board_mails
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.game.board import BoardState
from pbm_emergo.game.decision import Decision, Refusal
from pbm_emergo.game.events import BoardChanged, Event, GameDeclined, QueuedMoveFailed
from pbm_emergo.rules.reasons import Reason
from pbm_emergo.views import i18n
from pbm_emergo.views.board_mail import board_style_of, board_view
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render, render_in


def carry_out(
    ctx: UnitOfWork, state: BoardState, decide: Callable[[], Decision]
) -> Result:
    """``decide()`` on the board read as ``state``: its changes go to ``ctx``, its events
    become the result's mails; a refusal becomes :class:`Refused` (the error reply shows
    ``state``'s board when the refusal asks for it)."""
    try:
        decision = decide()
    except Refusal as refusal:
        raise refused(state, refusal, board_style_of(state, ctx.sender)) from None
    return result_of(ctx, decision)


def result_of(ctx: UnitOfWork, decision: Decision) -> Result:
    """The changes of ``decision`` handed to ``ctx``; its summary and mails."""
    for change in decision.changes:
        ctx.write(change)
    summary = decision.summary
    # Said in the sender's language before the mails to others are rendered in theirs.
    summary_said = said(summary) if isinstance(summary, Reason) else None
    return Result(
        summary=str(summary),
        summary_said=summary_said,
        replies=event_mails(ctx, decision.events),
    )


def refused(state: BoardState, refusal: Refusal, style: str = "diagram") -> Refused:
    """The error reply of ``refusal`` on the board read as ``state`` (``style``: how the
    board is shown to the sender, ``list`` or ``diagram``)."""
    return Refused(
        said(refusal.reason_value or refusal.reason),
        board=state.number,
        board_text=board_view(state, style=style).text if refusal.with_board else None,
        template=refusal.template,
        writes=list(refusal.changes),
        **said_details(refusal.details),
    )


def said_details(details: dict[str, Any]) -> dict[str, Any]:
    """An error template's variables, the reasons among them said in the reader's language."""
    return {name: said(v) if isinstance(v, Reason) else v for name, v in details.items()}


def event_mails(ctx: UnitOfWork, events: Iterable[Event]) -> list[Reply]:
    """The mails of ``events``, in their order."""
    replies: list[Reply] = []
    for event in events:
        match event:
            case BoardChanged():
                replies += board_mails(
                    ctx, event.state, comment=event.comment, commenter=event.commenter,
                    headline=event.headline,
                )
            case QueuedMoveFailed():
                replies += queued_move_mails(ctx, event)
            case GameDeclined():
                replies += declined_mails(event)
    return replies


def queued_move_mails(ctx: UnitOfWork, failure: QueuedMoveFailed) -> list[Reply]:
    """The error mail, with the board, to a player whose queued move could not be played."""
    address = failure.player.address
    if address is None:
        return []
    state = failure.state
    view = board_view(state, now=ctx.now)
    with i18n.speaking(failure.player.language):  # the player's language, not the mover's
        body = render(
            "error/queued_move.txt.j2",
            userid=failure.player.userid,
            number=state.number,
            notation=failure.notation,
            why=said(failure.why_value or failure.why),
            your_turn=state.active
            and state.to_move is not None
            and state.seat(state.to_move).id == failure.player.id,
            board_text=view.text,
        )
    return [
        Reply(
            to=address, subject=f"Emergo Board {state.number} Error", body=body,
            board=state.number, solicited=True,
        )
    ]


def declined_mails(declined: GameDeclined) -> list[Reply]:
    """The mail to both players of a declined game: the board is removed."""
    state = declined.state
    number = state.number
    words = dict(
        number=number,
        white=state.white.userid,
        black=state.black.userid,
        decliner=declined.decliner.userid,
        comment=declined.comment,
    )
    subject = f"Emergo Board {number} declined"
    recipients: dict[str, str | None] = {}
    for seat in (state.white, state.black):
        if seat.address and seat.address.lower() not in {r.lower() for r in recipients}:
            # The decliner's own copy in the language of their mail's replies.
            own = seat.id == declined.decliner.id
            recipients[seat.address] = i18n.current() if own else seat.language
    # The challenger's own game: not charged to the decliner (app.budget).
    return [
        Reply(to=r, subject=subject, body=render_in(language, "declined.txt.j2", **words),
              board=number, solicited=True)
        for r, language in recipients.items()
    ]
