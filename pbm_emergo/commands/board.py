"""``board userid password list|diagram``: how the text part of the player's board mails
shows the position. ``list`` says it in words, row by row, for a screen reader
(:mod:`pbm_emergo.rules.words`); ``diagram`` (the default) draws the ASCII diamond."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.requests import BoardStyleRequest

STYLES = ("list", "diagram")


class BoardStyleCommand(Command):
    name = "board"
    grammar = Grammar(USERID, PASSWORD, named(WORD, "list|diagram"))
    description = "list: your board mails say the position in words (for screen readers)"
    details = (
        "With 'list', the text part of your board mails lists the position row by row in "
        "words instead of drawing the diamond, one piece a line ('e4: Ohs column of 3, 1 Eks "
        "prisoner': three Ohs men on top of one Eks man), then the men in hand, the last move "
        "and how many legal moves the player to move has. 'diagram' brings the diamond back "
        "(the default)."
    )

    def request(self, args: Arguments) -> BoardStyleRequest:
        style = args.word("list").lower()
        if style not in STYLES:
            raise self.usage_error(unfit("board_style"))
        userid, password = args.login()
        return self.made(BoardStyleRequest, userid=userid, password=password, style=style)
