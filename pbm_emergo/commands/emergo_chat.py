"""``emergo chat board userid password``: a player's mail body goes to the board's other
player and its subscribers (Subject ``Emergo chat N userid``)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, Grammar
from pbm_emergo.game.requests import ChatRequest


class ChatCommand(Command):
    name = "emergo chat"
    grammar = Grammar(BOARD, USERID, PASSWORD)
    description = "send the body of your mail to the board's players and subscribers"
    details = (
        "Sends the body of your mail (up to a signature or quoted text) to both players of "
        "the board and to everyone subscribed to it, with the Subject 'Emergo chat N "
        "USERID'. Only the board's two players may chat on it (others write to a player "
        "with 'message'); you get a copy. To answer a chat, "
        "reply to it and write 'emergo chat N USERID PASSWORD' as the first line of the "
        "body, your text below it."
    )
    section = "emergo"

    def request(self, args: Arguments) -> ChatRequest:
        userid, password = args.login()
        return self.made(ChatRequest, board=args.board(), userid=userid, password=password)
