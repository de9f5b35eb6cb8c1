"""Blocking a player (``block``, ``unblock``): the blocker's side. What a block refuses is
checked where a challenge, a message or a chat is made (:mod:`app.challenges`,
:mod:`app.handlers.social`); the decisions are :mod:`pbm_emergo.game.blocks`."""

from __future__ import annotations

from pbm_emergo.app.accounts import require_account
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import blocks
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.game.blocks import block_change, block_refusal
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said


def set_block(ctx: UnitOfWork, player: Account, other_userid: str, *, on: bool) -> Result:
    """``player`` blocks (``on``) or unblocks the player ``other_userid`` (an active
    player's account, or a Refused)."""
    other = require_account(ctx, other_userid)
    blocked = blocks.blocks(ctx.session, player.id, other.id)
    refusal = block_refusal(player.id, other.id, on=on, blocked=blocked)
    if refusal is not None:
        raise Refused(said(refusal))
    change = block_change(player.id, other.id, ctx.now, on=on, blocked=blocked)
    if change is not None:
        ctx.write(change)
    if on:
        answer = i18n._(
            "%(userid)s blocks %(other)s: their challenges, messages and chat to you are "
            "refused from now on, and they are not told. Send 'unblock %(userid)s PASSWORD "
            "%(other)s' to end it.",
            userid=player.userid, other=other.userid,
        )
    else:
        answer = i18n._(
            "%(userid)s no longer blocks %(other)s: their challenges, messages and chat "
            "reach you again.",
            userid=player.userid, other=other.userid,
        )
    return Result(
        said=lambda: i18n._("blocked %(userid)s", userid=other.userid)
        if on
        else i18n._("unblocked %(userid)s", userid=other.userid),
        answer=answer + "\n",
        answer_subject=f"Emergo: {'block' if on else 'unblock'} {other.userid}",
    )
