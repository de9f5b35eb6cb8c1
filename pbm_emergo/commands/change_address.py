"""``change address userid password address ...``: replace the registered addresses."""

from __future__ import annotations

from pbm_emergo.app.addresses import change_addresses
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named, repeated


class ChangeAddressCommand(Command):
    name = "change address"
    grammar = Grammar(USERID, PASSWORD, repeated(named(WORD, "address")))
    description = "replace your registered addresses"
    details = (
        "Replaces all your registered addresses with the ones given. Board mails go to the "
        "first one. The addresses dropped are told of the change. A new address is "
        "registered once its owner confirms it: it is mailed a code (the address you write "
        "from gets it in the answer), to send back as 'confirm CODE'; only mail your mail "
        "host proved to come from an address registers it at once. If every address given "
        "is new, your old addresses stay until the first new one is confirmed."
    )

    def process(self, ctx: Context, args: Arguments) -> Result:
        return change_addresses(ctx, args.login(), args.words_of("address"))
