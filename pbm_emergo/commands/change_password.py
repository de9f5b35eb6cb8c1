"""``change password userid old new``."""

from __future__ import annotations

from pbm_emergo.app.membership import change_password
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import NEW_PASSWORD, PASSWORD, USERID, Grammar, named


class ChangePasswordCommand(Command):
    name = "change password"
    grammar = Grammar(USERID, named(PASSWORD, "old"), named(NEW_PASSWORD, "new"))
    description = "change your password"

    def process(self, ctx: Context, args: Arguments) -> Result:
        return change_password(ctx, args.login(), args.word("new"))
