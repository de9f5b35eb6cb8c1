"""Joining and leaving the server, and the password: signup, signoff, a new password.

A new account's addresses other than the one the request came from are registered once
their owners confirm them (:mod:`pbm_emergo.app.addresses`). Signing off resigns every
active game; the player's history is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbm_emergo.app.accounts import (
    check_not_lookalike,
    check_password,
    check_userid,
)
from pbm_emergo.app.addresses import (
    CONFIRM_TIME,
    Waiting,
    check_addresses,
    is_sender,
    own_code_values,
    request_confirmations,
    sender_vouches_for,
)
from pbm_emergo.app.addresses import (
    Request as ConfirmationRequest,
)
from pbm_emergo.app.play import resign_all
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import players, reads
from pbm_emergo.db.reads.accounts import Account, read_account
from pbm_emergo.game.account_changes import (
    AccountClosed,
    PasswordHashStored,
    PlayerCreated,
    SignedOff,
)
from pbm_emergo.game.numbers import START_RATING
from pbm_emergo.game.sentences import Said
from pbm_emergo.views import i18n
from pbm_emergo.views.templating import render


def signup(
    ctx: UnitOfWork, userid: str, password: str, addresses: Sequence[str] = (),
    *, language: str | None = None,
) -> Result:
    """Create the account ``userid``; ``addresses`` default to the sender's. ``language``:
    of the player's replies (None: the language the reply to this mail is written in, its
    Content-Language or its words' where they tell one, when that is not English; else none
    chosen).

    The sender's address is registered at once only when our MTA proved the mail came
    from it; otherwise the answer is the code that registers it (and nothing else goes to
    it until the code comes back), so a forged From registers nobody.
    """
    check_userid(userid)
    check_password(password)
    checked = check_addresses(ctx.config, list(addresses) or [ctx.sender])
    ctx.reveal(userid, *addresses)  # a valid new userid and addresses are not secrets
    if read_account(ctx.session, userid) is not None:
        raise Refused(
            i18n._("The userid %(userid)s is already taken; please choose another.", userid=userid)
        )
    check_not_lookalike(ctx, userid)
    userid = userid.strip()
    # Only an address proven to be the sender's is registered at once; the others are
    # registered when their owners confirm them (see game.addresses).
    now_ = [a for a in checked if sender_vouches_for(ctx, a)]
    waiting = [Waiting(a, i) for i, a in enumerate(checked) if not sender_vouches_for(ctx, a)]
    request = request_confirmations(ctx, userid, waiting, player_id=None)
    # The slow hash is made here, before the write transaction.
    password_hash = players.hash_password(password)
    # The account, its codes, and the password remembered as one just checked.
    if language is None and i18n.current() != i18n.DEFAULT:
        language = i18n.current()
    ctx.write(PlayerCreated(
        userid, tuple(now_), ctx.now, password_hash,
        request.confirmations(ctx, replaces=False), password=password, language=language,
    ))  # fmt: skip
    with i18n.speaking(language or i18n.current()):
        return _signed_up(ctx, userid, request, now_, waiting)


def _signed_up(
    ctx: UnitOfWork, userid: str, request: ConfirmationRequest, now_: list[str],
    waiting: list[Waiting],
) -> Result:
    """The answer to a signup."""
    if request.own_code is not None:
        # The sender's address was not proven (so nothing is registered at once): the
        # first mail to it is its code, and nothing else.
        return Result(
            said=lambda: i18n._(
                "created the account %(userid)s, waiting for its address", userid=userid
            ),
            answer=render(
                "signup_code.txt.j2",
                userid=userid,
                waiting=[w.address for w in waiting if not is_sender(ctx, w.address)],
                **own_code_values(ctx, request.own_code),
            ),
            answer_subject=f"Emergo: confirm your address for {userid}",
            replies=request.mails,
        )
    return Result(
        said=lambda: i18n._("created the account %(userid)s", userid=userid),
        answer=render(
            "signup.txt.j2",
            userid=userid,
            addresses=now_,
            waiting=[w.address for w in waiting],
            days=CONFIRM_TIME.days,
            forged=not ctx.sender_trusted,
            rating=START_RATING,
            address=ctx.config.address,
        ),
        answer_subject=f"Emergo: welcome {userid}",
        replies=request.mails,
    )


def signoff(ctx: UnitOfWork, player: Account) -> Result:
    """Sign the player off; each of their active games is resigned."""
    resigned = reads.active_board_numbers(ctx.session, player.id)
    replies = resign_all(
        ctx, player.id, resigned, Said.of("signed_off_resigned", userid=player.userid)
    )
    ctx.write(SignedOff(player.id, ctx.now))
    return Result(
        said=lambda: i18n._("signed off %(userid)s", userid=player.userid),
        answer=render("signoff.txt.j2", userid=player.userid, resigned=resigned),
        answer_subject=f"Emergo: goodbye {player.userid}",
        replies=replies,
    )


def delete_account(ctx: UnitOfWork, player: Account) -> Result:
    """Close the player's own account: each active game resigned, then the row kept for the
    finished games with everything that reaches the person removed (the operator's
    closing, :func:`pbm_emergo.db.support.close_account`), so the addresses are free and
    the userid logs in no more."""
    resigned = reads.active_board_numbers(ctx.session, player.id)
    replies = resign_all(
        ctx, player.id, resigned, Said.of("closed_account_resigned", userid=player.userid)
    )
    ctx.write(AccountClosed(player.id, ctx.now))
    return Result(
        said=lambda: i18n._("closed the account %(userid)s", userid=player.userid),
        answer=render(
            "deleted.txt.j2", userid=player.userid, resigned=resigned
        ),
        answer_subject=f"Emergo: account {player.userid} closed",
        replies=replies,
    )


def change_password(ctx: UnitOfWork, player: Account, new: str) -> Result:
    """Replace the player's password (the one they logged in with, checked against the
    account's hash as read) by ``new``."""
    check_password(new)
    new_hash = players.hash_password(new)
    # Only over the hash the old password was checked against; the new one remembered.
    ctx.write(PasswordHashStored(player.id, new_hash, player.password_hash, password=new))
    return Result(
        said=lambda: i18n._("changed the password of %(userid)s", userid=player.userid),
        answer=render("changed.txt.j2", userid=player.userid, what="password", addresses=[]),
        answer_subject=f"Emergo: password of {player.userid} changed",
    )
