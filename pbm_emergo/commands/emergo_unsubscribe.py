"""``emergo unsubscribe board|all userid password`` (``emergo unsub``): stop watching a
board's mails, or every board's."""

from __future__ import annotations

from pbm_emergo.commands.base import Command, Context, Result
from pbm_emergo.commands.emergo_subscribe import board_target
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.game.social import unsubscribe


class UnsubscribeCommand(Command):
    name = "emergo unsubscribe"
    grammar = Grammar(named(WORD, "board|all"), USERID, PASSWORD)
    description = "stop that board's mails (all: every subscription) (emergo unsub)"
    details = (
        "Ends a subscription (see emergo subscribe). 'all' ends every one of them: the "
        "one to every board and those to single boards. 'emergo unsub' is short for it."
    )
    section = "emergo"

    def process(self, ctx: Context, args: list[str]) -> Result:
        return unsubscribe(ctx, board_target(args[0], "emergo unsubscribe"), args[1], args[2])


class UnsubCommand(UnsubscribeCommand):
    name = "emergo unsub"
    description = "the same as emergo unsubscribe"
    listed = False
