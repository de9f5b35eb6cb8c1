"""``change address userid password address ...``: replace the registered addresses."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named, repeated
from pbm_emergo.game.requests import ChangeAddressRequest


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

    def request(self, args: Arguments) -> ChangeAddressRequest:
        userid, password = args.login()
        return self.made(
            ChangeAddressRequest, userid=userid, password=password,
            addresses=tuple(args.words_of("address")),
        )
