"""``change address userid password address ...``: replace the registered addresses."""

from __future__ import annotations

from pbm_emergo.commands.accounts import authenticate, check_addresses
from pbm_emergo.commands.base import Command, Context, Result
from pbm_emergo.db import players
from pbm_emergo.messages import Reply
from pbm_emergo.render import render


class ChangeAddressCommand(Command):
    name = "change address"
    argument_description = "userid password address ..."
    description = "replace your registered addresses"
    details = (
        "Replaces all your registered addresses with the ones given. Board mails go to the "
        "first one. The addresses dropped are told of the change."
    )
    secret_args = (1,)
    credential_args = (0, 1)
    min_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        userid, password, *addresses = args
        player = authenticate(ctx, userid, password)
        fresh = check_addresses(addresses)
        old = [a.address for a in player.addresses]
        player_id, now = player.id, ctx.now
        ctx.write(lambda s: players.replace_addresses(s, player_id, fresh, now))
        new = [a.strip() for a in fresh]
        body = render("changed.txt.j2", userid=player.userid, what="addresses", addresses=new)
        dropped = [a for a in old if a.lower() not in {n.lower() for n in new}]
        notices = [
            Reply(to=a, subject=f"Emergo: addresses of {player.userid} changed", body=body)
            for a in dropped
            if a.lower() != ctx.sender
        ]
        return Result(
            summary=f"changed the addresses of {player.userid}",
            answer=body,
            answer_subject=f"Emergo: addresses of {player.userid} changed",
            replies=notices,
        )
