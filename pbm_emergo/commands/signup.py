"""``signup userid password [address ...]``: create an account."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Refused, Result
from pbm_emergo.db import credentials, players
from pbm_emergo.db.models import START_RATING
from pbm_emergo.game.accounts import check_password, check_userid, find_player
from pbm_emergo.game.addresses import (
    CONFIRM_TIME,
    Waiting,
    check_addresses,
    request_confirmations,
    sender_vouches_for,
)
from pbm_emergo.views.templating import render


class SignupCommand(Command):
    name = "signup"
    argument_description = "userid password [address ...]"
    description = "create an account; the addresses default to the one you write from"
    details = (
        "Creates the account USERID with PASSWORD. A userid has 2 to 16 characters (letters, "
        "digits, _ and -) and starts with a letter; command words are reserved. Give the "
        "mail addresses you will play from; without any, the address of this mail is used. "
        "An address other than the one you write from is registered once its owner "
        "confirms it: it is mailed a code, to send back as 'confirm CODE'. "
        "Passwords are stored only as argon2id hashes and never shown."
    )
    secret_args = (1,)
    min_args = 2

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        userid, password, *given = args
        check_userid(userid)
        check_password(password)
        addresses = check_addresses(ctx.config, given or [ctx.sender])
        ctx.reveal(userid, *given)  # a valid new userid and addresses are not secrets
        if find_player(ctx, userid) is not None:
            raise Refused(f"The userid {userid} is already taken; please choose another.")
        userid = userid.strip()
        # Only the address this mail came from is registered at once; the others are
        # registered when their owners confirm them (see commands.addresses).
        now_ = [a for a in addresses if sender_vouches_for(ctx, a)]
        waiting = [
            Waiting(a, i) for i, a in enumerate(addresses) if not sender_vouches_for(ctx, a)
        ]
        request = request_confirmations(ctx, userid, waiting, player_id=None)
        # The slow hash is made here, before the write transaction.
        password_hash = players.hash_password(password)
        now = ctx.now

        def store(session: Session) -> None:
            player = players.create_player(
                session, userid, None, now_, now, password_hash=password_hash
            )
            request.store(player.id, ctx, replaces=False)(session)
            # The password just set is as good as one just checked.
            credentials.cache().remember(player.id, password_hash, password)

        ctx.write(store)
        return Result(
            summary=f"created the account {userid}",
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
