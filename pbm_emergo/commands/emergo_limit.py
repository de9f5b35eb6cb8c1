"""``emergo limit userid password N|off``: refuse challenges once you have N active boards."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments
from pbm_emergo.commands.challenge_policy import PolicyCommand
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.numbers import MAX_LIMIT


class LimitCommand(PolicyCommand):
    name = "emergo limit"
    grammar = Grammar(USERID, PASSWORD, named(WORD, "N|off"))
    description = "refuse challenges once you have N active boards; off: no limit"
    details = (
        f"Challenges of you are refused while you have N (0 to {MAX_LIMIT}) or more active "
        "boards: the challenger gets an error mail, you are not told. 'off' removes the "
        "limit. Setting a limit also ends an 'emergo reject'."
    )

    def limit(self, args: Arguments) -> int | None:
        word = args.word("n").lower()
        if word != "off" and not (word.isascii() and word.isdigit() and int(word) <= MAX_LIMIT):
            raise self.usage_error(unfit("limit_number", num=MAX_LIMIT))
        return None if word == "off" else int(word)
