"""``emergo unsubscribe board|all userid password`` (``emergo unsub``): stop watching a
board's mails, or every board's."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.emergo_subscribe import subscription
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.game.requests import SubscriptionRequest


class UnsubscribeCommand(Command):
    name = "emergo unsubscribe"
    grammar = Grammar(named(WORD, "board|all"), USERID, PASSWORD)
    description = "stop that board's mails (all: every subscription) (emergo unsub)"
    details = (
        "Ends a subscription (see emergo subscribe). 'all' ends every one of them: the "
        "one to every board and those to single boards. 'emergo unsub' is short for it."
    )
    section = "emergo"

    def request(self, args: Arguments) -> SubscriptionRequest:
        return subscription(type(self), args, subscribe=False)



class UnsubCommand(UnsubscribeCommand):
    name = "emergo unsub"
    description = "the same as emergo unsubscribe"
    listed = False
