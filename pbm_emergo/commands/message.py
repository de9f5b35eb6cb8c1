"""``message userid password to [to ...]``: relay the body to other players (Subject
``Message from userid``), at their registered address, which the sender never sees."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, Grammar, named, repeated
from pbm_emergo.game.requests import MessageRequest


class MessageCommand(Command):
    name = "message"
    grammar = Grammar(USERID, PASSWORD, named(USERID, "to"), repeated(named(USERID, "to"), 0))
    description = "send the body of your mail to those players (Subject 'Message from userid')"
    details = (
        "Sends the body of your mail (up to a signature or quoted text) to each player "
        "named after your password, at their registered address, with the Subject "
        "'Message from USERID'. Neither side sees the other's address. Players that do "
        "not exist are named in the reply; the others still get the message."
    )

    def request(self, args: Arguments) -> MessageRequest:
        userid, password = args.login()
        return self.made(
            MessageRequest, userid=userid, password=password, to=tuple(args.words_of("to"))
        )
