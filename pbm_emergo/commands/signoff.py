"""``signoff userid password``: leave the server; active games are resigned."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, Grammar
from pbm_emergo.game.requests import SignoffRequest


class SignoffCommand(Command):
    name = "signoff"
    grammar = Grammar(USERID, PASSWORD)
    description = "leave the server: your active games are resigned, your history is kept"

    def request(self, args: Arguments) -> SignoffRequest:
        userid, password = args.login()
        return self.made(SignoffRequest, userid=userid, password=password)
