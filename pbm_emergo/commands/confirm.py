"""``confirm CODE``: register an address whose owner got a code for it (see
:mod:`pbm_emergo.game.addresses`)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Refused, Result
from pbm_emergo.db import players
from pbm_emergo.db.models import Player
from pbm_emergo.game.addresses import code_key
from pbm_emergo.game.messages import Reply
from pbm_emergo.views.templating import render


class ConfirmCommand(Command):
    name = "confirm"
    argument_description = "CODE"
    description = (
        "confirm an address that was registered from another address (the code was mailed to it)"
    )
    details = (
        "When an address is given to signup or change address in a mail from another "
        "address, the server mails it a one-time code and nothing else. Sending "
        "'confirm CODE' (from any address) within 7 days registers it; the code works once."
    )
    secret_args = (0,)
    min_args = max_args = 1

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        confirmation = players.find_confirmation(
            ctx.session, players.code_hash(code_key(args[0]))
        )
        if confirmation is None or confirmation.expires_at <= ctx.now:
            raise Refused(
                "No address is waiting for this code: it was used already, it expired (a "
                "code is valid for 7 days), or it was mistyped."
            )
        player = ctx.session.get(Player, confirmation.player_id)
        if player is None or not player.active:
            raise Refused("The player this code was for has signed off.")
        old = [a.address for a in player.addresses]
        new = players.addresses_once_confirmed(old, confirmation)
        confirmation_id, now = confirmation.id, ctx.now

        def store(session: Session) -> None:
            players.confirm_address(session, confirmation_id, now)

        ctx.write(store)
        body = render(
            "confirmed.txt.j2",
            userid=player.userid,
            address=confirmation.address,
            addresses=new,
        )
        subject = f"Emergo: addresses of {player.userid} changed"
        dropped = [a for a in old if a.lower() not in {n.lower() for n in new}]
        return Result(
            summary=f"confirmed {confirmation.address} for {player.userid}",
            answer=body,
            answer_subject=subject,
            replies=[
                Reply(to=a, subject=subject, body=body)
                for a in dropped
                if a.lower() != ctx.sender
            ],
        )
