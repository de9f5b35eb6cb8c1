"""``confirm CODE``: register an address whose owner got a code for it (see
:mod:`pbm_emergo.game.addresses`)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import Grammar, secret
from pbm_emergo.game.addresses import confirm_address


class ConfirmCommand(Command):
    name = "confirm"
    grammar = Grammar(secret("CODE"))
    description = (
        "confirm an address that was registered from another address (the code was mailed to it)"
    )
    details = (
        "When an address is given to signup or change address in a mail from another "
        "address, the server mails it a one-time code and nothing else. Sending "
        "'confirm CODE' (from any address) within 7 days registers it; the code works once."
    )

    def process(self, ctx: Context, args: Arguments) -> Result:
        return confirm_address(ctx, args.word("code"))
