"""``delete userid password``: close one's own account for good."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, Grammar
from pbm_emergo.game.requests import DeleteRequest


class DeleteCommand(Command):
    name = "delete"
    grammar = Grammar(USERID, PASSWORD)
    description = "close your account: active games are resigned, finished ones stay"
    details = (
        "Closes your account for good: your active games are resigned (the reply names "
        "them), your finished games stay in the records with your name shown as "
        "'USERID (closed)', your addresses are freed for another account, and the userid "
        "can no longer log in."
    )

    def request(self, args: Arguments) -> DeleteRequest:
        userid, password = args.login()
        return self.made(DeleteRequest, userid=userid, password=password)
