"""``confirm CODE``: register an address whose owner got a code for it (see
:mod:`pbm_emergo.app.addresses`)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import Grammar, secret
from pbm_emergo.game.requests import ConfirmRequest, Password


class ConfirmCommand(Command):
    name = "confirm"
    grammar = Grammar(secret("CODE"))
    description = "confirm an address given to signup or change address (the code was mailed to it)"
    details = (
        "An address given to signup or change address is mailed a one-time code and "
        "nothing else, unless the mail was proven to come from it. Sending 'confirm CODE' "
        "(from any address) within 7 days registers it; the code works once. For a new "
        "account it is the last step of signing up."
    )

    def request(self, args: Arguments) -> ConfirmRequest:
        return self.made(ConfirmRequest, code=Password(args.word("code")))
