"""``all show userid [active|next]``: every board of a player in one mail (pbmserv's
command of all the games; here every game is Emergo)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import USERID, WORD, Grammar, named, optional
from pbm_emergo.game.requests import AllShowRequest

FILTERS = ("active", "next")


class AllShowCommand(Command):
    name = "all show"
    grammar = Grammar(USERID, optional(named(WORD, "active|next")))
    description = (
        "every active board of the player in one mail (next: those where it is their turn)"
    )
    details = (
        "'all show alice' sends every board alice plays on that is under way, each as "
        "its board mail shows it, in one mail; 'all show alice next' only those where it "
        "is alice's turn."
    )
    section = "emergo"

    def request(self, args: Arguments) -> AllShowRequest:
        which = (args.optional_word("active") or "active").lower()
        if which not in FILTERS:
            raise self.usage_error()
        return self.made(AllShowRequest, userid=args.word("userid"), which=which)
