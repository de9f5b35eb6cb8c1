"""A forgotten password: ``forgot`` mails a one-time code to the player's registered
addresses, ``reset`` sets a new password with it.

``forgot`` answers the same whatever happens, so that nobody learns from it whether a
userid exists, has addresses, or was sent a code: the code goes only to the registered
addresses, at most :data:`~pbm_emergo.game.resets.RESETS_PER_DAY` a day for one player,
and only when the mails fit the sender's budget of mails to others (:mod:`app.budget`).
Only the code's hash is stored, the mail that carries it leaves the outbox once sent, and
``reset`` masks both its words wherever the line is shown. A reset tells every registered
address.
"""

from __future__ import annotations

from pbm_emergo.app.accounts import check_password
from pbm_emergo.app.addresses import code_key, new_code
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import players, resets
from pbm_emergo.db.reads.accounts import account_by_id, read_account
from pbm_emergo.game.account_changes import (
    LoginFailuresCleared,
    PasswordHashStored,
    PasswordResetMailed,
    PasswordResetUsed,
)
from pbm_emergo.game.resets import (
    RESET_TIME,
    RESET_WINDOW,
    RESETS_PER_DAY,
    may_mail_code,
    reset_refusal,
)
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render


def forgot(ctx: UnitOfWork, userid: str) -> Result:
    """Mail a reset code to the registered addresses of ``userid`` when it may be sent; the
    answer is the same either way."""
    same_answer = Result(
        said=lambda: i18n._("asked for a reset code for %(userid)s", userid=userid),
        answer=render("forgot.txt.j2", userid=userid, days=RESET_TIME.days),
        answer_subject="Emergo: forgotten password",
    )
    player = read_account(ctx.session, userid)
    if player is None or not player.active or not player.addresses:
        return same_answer
    if not may_mail_code(resets.mailed_since(ctx.session, player.id, ctx.now - RESET_WINDOW),
                         ctx.now):  # fmt: skip
        return same_answer
    code = new_code()
    # In the player's language: whoever asked may be anyone.
    with i18n.speaking(player.language):
        notice = render(
            "notice/reset_code.txt.j2",
            userid=player.userid,
            requested_by=ctx.sender,
            code=code,
            server=ctx.config.address,
            expires=i18n.moment(ctx.now + RESET_TIME, "UTC"),
        )
    mails = [
        Reply(
            to=address,
            subject=f"Emergo: a code to set the password of {player.userid}",
            body=notice,
            secret=True,
        )
        for address in player.addresses
    ]
    if not ctx.budget.fits(mails):
        return same_answer
    ctx.write(
        PasswordResetMailed(
            player.id, players.code_hash(code_key(code)), ctx.sender, ctx.now,
            expires_at=ctx.now + RESET_TIME, since=ctx.now - RESET_WINDOW,
            per_day=RESETS_PER_DAY,
        )
    )  # fmt: skip
    same_answer.replies = mails
    return same_answer


def reset(ctx: UnitOfWork, code: str, new: str) -> Result:
    """Set the password of the player the reset ``code`` was mailed for to ``new``; each
    registered address is told."""
    check_password(new)
    found = resets.find_reset(ctx.session, players.code_hash(code_key(code)))
    refusal = reset_refusal(found, ctx.now)
    if refusal is not None or found is None:
        raise Refused(said(refusal) if refusal is not None else "")
    player = account_by_id(ctx.session, found.player_id)
    if player is None or not player.active:
        raise Refused(i18n._("The account this code was mailed for is closed."))
    # The slow hash is made here, before the write transaction.
    new_hash = players.hash_password(new)
    ctx.write(PasswordResetUsed(found.id, ctx.now))
    ctx.write(PasswordHashStored(player.id, new_hash, player.password_hash, password=new))
    # Whoever holds the code reads the player's mail: the old locks have no point.
    ctx.write(LoginFailuresCleared(player.id))
    subject = f"Emergo: password of {player.userid} changed"
    # The answer in the sender's language, the registered addresses told in the player's.
    body = render(
        "reset.txt.j2", userid=player.userid, sender=ctx.sender, at=i18n.moment(ctx.now, "UTC")
    )
    with i18n.speaking(player.language):
        told = render(
            "reset.txt.j2",
            userid=player.userid,
            sender=ctx.sender,
            at=i18n.moment(ctx.now, "UTC"),
        )
    sender = ctx.sender.lower()
    return Result(
        said=lambda: i18n._(
            "set a new password for %(userid)s with a reset code", userid=player.userid
        ),
        answer=body,
        answer_subject=subject,
        replies=[
            # Every registered address is told, in the player's language.
            Reply(to=address, subject=subject, body=told)
            for address in player.addresses
            if players.address_key(address) != sender
        ],
    )
