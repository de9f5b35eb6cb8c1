"""``change password userid old new``."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Result
from pbm_emergo.db import credentials, players
from pbm_emergo.game.accounts import authenticate, check_password
from pbm_emergo.views.templating import render


class ChangePasswordCommand(Command):
    name = "change password"
    argument_description = "userid old new"
    description = "change your password"
    secret_args = (1, 2)
    credential_args = (0, 1)
    min_args = max_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        userid, old, new = args
        player = authenticate(ctx, userid, old)
        check_password(new)
        player_id, old_hash = player.id, player.password_hash
        new_hash = players.hash_password(new)

        def store(session: Session) -> None:
            # Only over the hash the old password was checked against.
            players.store_password_hash(session, player_id, new_hash, expected_hash=old_hash)
            credentials.cache().remember(player_id, new_hash, new)

        ctx.write(store)
        return Result(
            summary=f"changed the password of {player.userid}",
            answer=render("changed.txt.j2", userid=player.userid, what="password", addresses=[]),
            answer_subject=f"Emergo: password of {player.userid} changed",
        )
