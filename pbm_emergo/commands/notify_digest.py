"""``notify digest userid password HOUR|off``: one mail a day, at HOUR of the player's time
zone, listing every board waiting for their move, instead of a board mail for each move of
their opponents (:mod:`pbm_emergo.game.digest`)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.requests import DigestRequest


class NotifyDigestCommand(Command):
    name = "notify digest"
    grammar = Grammar(USERID, PASSWORD, named(WORD, "HOUR|off"))
    description = "one mail a day at HOUR (0-23, your time zone) with every board waiting for you"
    details = (
        "Instead of a board mail for every move of your opponents, one mail a day at HOUR "
        "(0 to 23, in your time zone: see 'timezone') lists every board waiting for your "
        "move: its picture, the time left, and a reply with one 'emergo move' line per "
        "board. Fill in your password and your moves, delete the lines you do not want, "
        "and send it back: every move line is played. The answers to your own commands, "
        "new boards, the end of a game and reminders still come at once. 'off' goes back "
        "to a board mail for every move."
    )

    def request(self, args: Arguments) -> DigestRequest:
        word = args.word("hour").lower()
        if word != "off" and not (word.isascii() and word.isdigit() and int(word) <= 23):
            raise self.usage_error(unfit("digest_hour"))
        userid, password = args.login()
        return self.made(
            DigestRequest,
            userid=userid,
            password=password,
            hour=None if word == "off" else int(word),
        )
