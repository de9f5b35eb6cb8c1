"""``change address userid password address ...``: replace the registered addresses."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Result
from pbm_emergo.db import players
from pbm_emergo.game.accounts import authenticate
from pbm_emergo.game.addresses import (
    CONFIRM_TIME,
    Waiting,
    check_addresses,
    request_confirmations,
    sender_vouches_for,
)
from pbm_emergo.game.messages import Reply
from pbm_emergo.views.templating import render


class ChangeAddressCommand(Command):
    name = "change address"
    argument_description = "userid password address ..."
    description = "replace your registered addresses"
    details = (
        "Replaces all your registered addresses with the ones given. Board mails go to the "
        "first one. The addresses dropped are told of the change. A new address other than "
        "the one you write from is registered once its owner confirms it: it is mailed a "
        "code, to send back as 'confirm CODE'. If every address given is new, your old "
        "addresses stay until the first new one is confirmed."
    )
    secret_args = (1,)
    credential_args = (0, 1)
    min_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        userid, password, *given = args
        player = authenticate(ctx, userid, password)
        fresh = check_addresses(ctx.config, given)
        ctx.reveal(*given)  # valid addresses are not secrets
        registered = {a.address_key for a in player.addresses}
        at_once = [a for a in fresh if a.lower() in registered or sender_vouches_for(ctx, a)]
        waiting = [Waiting(a, i) for i, a in enumerate(fresh) if a not in at_once]
        request = request_confirmations(ctx, player.userid, waiting, player_id=player.id)
        # With no address usable now, the old ones stay until a new one is confirmed:
        # a player is never left without an address by a typing mistake.
        replaces = not at_once
        old = [a.address for a in player.addresses]
        new = at_once if at_once else old
        player_id, now, kept = player.id, ctx.now, request.kept
        store_waiting = request.store(player_id, ctx, replaces=replaces)

        def store(session: Session) -> None:
            if at_once:
                players.replace_addresses(session, player_id, at_once, now)
            players.drop_confirmations(session, player_id, keep=kept)
            store_waiting(session)

        ctx.write(store)
        body = render(
            "addresses_changed.txt.j2",
            userid=player.userid,
            addresses=new,
            waiting=[w.address for w in waiting],
            stay=replaces and bool(waiting),
            days=CONFIRM_TIME.days,
        )
        subject = f"Emergo: addresses of {player.userid} changed"
        dropped = [a for a in old if a.lower() not in {n.lower() for n in new}]
        notices = [
            Reply(to=a, subject=subject, body=body) for a in dropped if a.lower() != ctx.sender
        ]
        return Result(
            summary=f"changed the addresses of {player.userid}",
            answer=body,
            answer_subject=subject,
            replies=notices + request.mails,
        )
