"""``change password userid old new``."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import NEW_PASSWORD, PASSWORD, USERID, Grammar, named
from pbm_emergo.game.requests import ChangePasswordRequest, Password


class ChangePasswordCommand(Command):
    name = "change password"
    grammar = Grammar(USERID, named(PASSWORD, "old"), named(NEW_PASSWORD, "new"))
    description = "change your password"

    def request(self, args: Arguments) -> ChangePasswordRequest:
        userid, password = args.login()
        return self.made(
            ChangePasswordRequest, userid=userid, password=password,
            new=Password(args.word("new")),
        )
