"""``emergo events``, ``emergo event NAME``, ``emergo join NAME userid password`` and
``emergo withdraw NAME userid password``: leagues and tournaments."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.game.requests import EventRequest, EventsRequest, JoinRequest, WithdrawRequest


class EventsCommand(Command):
    name = "emergo events"
    description = "the leagues and tournaments open for entries or under way"
    details = (
        "Lists the events (round robins, Swiss tournaments, knock-outs and league seasons) "
        "that take entries or are being played: their format, players, round and start. "
        "'emergo event NAME' shows one; 'emergo join NAME USERID PASSWORD' enters it."
    )
    section = "emergo"

    def request(self, args: Arguments) -> EventsRequest:
        return self.made(EventsRequest)


class EventCommand(Command):
    name = "emergo event"
    grammar = Grammar(named(WORD, "name"))
    description = "an event's table, crosstable and each player's next games"
    details = (
        "Sends the standings of the event NAME: points (1 a win, ½ a draw), then the "
        "tie-break (Sonneborn-Berger in a round robin or league, Buchholz in a Swiss), the "
        "crosstable (each player's results against each other one, * while a game is "
        "played), the clock the event is played on, and each player's boards under way."
    )
    section = "emergo"

    def request(self, args: Arguments) -> EventRequest:
        return self.made(EventRequest, name=args.word("name"))


class JoinCommand(Command):
    name = "emergo join"
    grammar = Grammar(named(WORD, "name"), USERID, PASSWORD)
    description = "enter the event NAME"
    details = (
        "Enters you in the event NAME while it takes entries ('emergo events' lists them). "
        "When it starts, at its start time or when it is full, your boards of the first "
        "round come by mail like a challenge's, and those of each next round when it opens."
    )
    section = "emergo"

    def request(self, args: Arguments) -> JoinRequest:
        userid, password = args.login()
        return self.made(JoinRequest, name=args.word("name"), userid=userid, password=password)


class WithdrawCommand(Command):
    name = "emergo withdraw"
    grammar = Grammar(named(WORD, "name"), USERID, PASSWORD)
    description = "leave the event NAME"
    details = (
        "Takes you out of the event NAME. Before it starts, your entry is simply removed. "
        "Once it has started, your boards under way in it are resigned and your games of "
        "the rounds still to come count as losses; your results so far stay in the table."
    )
    section = "emergo"

    def request(self, args: Arguments) -> WithdrawRequest:
        userid, password = args.login()
        return self.made(
            WithdrawRequest, name=args.word("name"), userid=userid, password=password
        )
