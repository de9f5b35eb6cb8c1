"""``emergo challenge u1 u2 [options]``: open a new board; u1 plays Ohs and moves first."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import USERID, WORD, Grammar, named, optional
from pbm_emergo.game.requests import ChallengeRequest


class ChallengeCommand(Command):
    name = "emergo challenge"
    grammar = Grammar(
        named(USERID, "u1"),
        named(USERID, "u2"),
        # The options, in any order.
        optional(named(WORD, "-unrated")),
        optional(named(WORD, "-blocked=draw")),
        optional(named(WORD, "--nagtime=DAYS")),
        optional(named(WORD, "--forfeittime=DAYS")),
        optional(named(WORD, "--totaltime=DAYS")),
        optional(named(WORD, "-timebank=240h")),
        optional(named(WORD, "-increment=36h")),
        optional(named(WORD, "-weekends")),
    )
    description = "open a new board; u1 plays Ohs and moves first, u2 plays Eks"
    details = (
        "Opens a new board between the players u1 and u2; u1 plays Ohs (white) and moves "
        "first. Send it from a registered address of u1 or u2. Options: -unrated (no rating "
        "change), -blocked=draw (a blocked player draws instead of losing), --nagtime=DAYS "
        "(a reminder after that many days without a move, default 7, at least 1), "
        "--forfeittime=DAYS (the game is lost after that many days without a move, default "
        "28, at least 3, and longer than the nag time), --totaltime=DAYS (each player's "
        "total thinking time over the game, at least 3; running out loses on time), "
        "-timebank=240h (a capped time bank: each player starts with that much, in hours "
        "or days (10d), at least 3 days; each move's thinking time is taken from it, and "
        "running out loses on time), -increment=36h (what each move adds to the bank, up "
        "to its cap), -weekends (the clock stops on Saturdays and Sundays in each "
        "player's time zone). Vacations stop the clock too. No game "
        "is lost on time until a day after a reminder was mailed to the player. Both players "
        "get the board."
    )
    section = "emergo"

    def request(self, args: Arguments) -> ChallengeRequest:
        # The options come in any order: read as one list, not part by part.
        return self.made(
            ChallengeRequest, white=args.word("u1"), black=args.word("u2"),
            options=args.words[2:],
        )
