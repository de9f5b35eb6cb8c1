"""``emergo autoplay userid password on|off``: forced moves played for the player.

With autoplay on, whenever the player is to move and has exactly one legal move (frequent
in Emergo, where captures are compulsory), the server plays it for them at once, marked
``(Forced)`` (:mod:`pbm_emergo.app.autoplay`). Switching it on also plays the forced
moves due now on the player's boards.
"""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.requests import AutoplayRequest


class AutoplayCommand(Command):
    name = "emergo autoplay"
    grammar = Grammar(USERID, PASSWORD, named(WORD, "on|off"))
    description = "on: your forced moves (your only legal move) are played for you (Forced)"
    details = (
        "With autoplay on, whenever it is your turn on a board and you have exactly one legal "
        "move (a compulsory capture with one route, say), the server plays it for you at once "
        "and marks it (Forced) in the move list; chains of forced and queued moves are played "
        "in one go and the board mail lists every move. Switching it on also plays the "
        "forced moves due now on your boards. Default: off."
    )
    section = "emergo"

    def request(self, args: Arguments) -> AutoplayRequest:
        setting = args.word("on").lower()
        if setting not in ("on", "off"):
            raise self.usage_error(unfit("autoplay_on_off"))
        userid, password = args.login()
        return self.made(AutoplayRequest, userid=userid, password=password, on=setting == "on")
