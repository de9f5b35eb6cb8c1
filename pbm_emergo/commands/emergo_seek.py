"""``emergo seek userid password [N|off]`` (say you want N more games) and ``emergo
seeks`` (who is seeking). Each challenge of a seeking player takes one off their count."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named, optional
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.numbers import MAX_SEEK
from pbm_emergo.game.requests import SeekRequest, SeeksRequest


class SeekCommand(Command):
    name = "emergo seek"
    grammar = Grammar(USERID, PASSWORD, optional(named(WORD, "N|off")))
    description = "say that you want N more games (default 1); off: none"
    details = (
        f"Lists you in 'emergo seeks' and in the Seeking column of 'emergo standings' as "
        f"wanting N more games (1 to {MAX_SEEK}; 1 if you leave N out). Each challenge of "
        "you takes one off; 'off' (or 0) takes you off the list."
    )
    section = "emergo"

    def request(self, args: Arguments) -> SeekRequest:
        count = 1
        given = args.optional_word("n")
        if given is not None:
            word = given.lower()
            if word == "off":
                count = 0
            elif word.isascii() and word.isdigit() and int(word) <= MAX_SEEK:
                count = int(word)
            else:
                raise self.usage_error(unfit("seek_number", num=MAX_SEEK))
        userid, password = args.login()
        return self.made(SeekRequest, userid=userid, password=password, count=count)


class SeeksCommand(Command):
    name = "emergo seeks"
    description = "the players seeking games, with their ratings"
    details = (
        "Lists the players who said (with emergo seek) that they want more games: how many, "
        "their rating (provisional or not) and how many boards they play now. Challenge "
        "one with 'emergo challenge YOURID THEIRID'."
    )
    section = "emergo"

    def request(self, args: Arguments) -> SeeksRequest:
        return self.made(SeeksRequest)
