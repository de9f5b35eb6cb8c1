"""``emergo events``, ``emergo event NAME``, ``emergo join NAME userid password`` and
``emergo withdraw NAME userid password``: leagues and tournaments."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import (
    PASSWORD,
    USERID,
    WORD,
    Grammar,
    named,
    optional,
    rest,
    secret,
)
from pbm_emergo.game.requests import (
    EventCreateRequest,
    EventRequest,
    EventsRequest,
    JoinRequest,
    Password,
    WithdrawRequest,
)


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
    grammar = Grammar(named(WORD, "name"), USERID, PASSWORD, optional(secret("EVENTPASSWORD")))
    description = "enter the event NAME (a private one with its EVENTPASSWORD)"
    details = (
        "Enters you in the event NAME while it takes entries ('emergo events' lists them). "
        "When it starts, at its start time or when it is full, your boards of the first "
        "round come by mail like a challenge's, and those of each next round when it opens. "
        "A private event (made with 'emergo event create') also needs the event's own "
        "password, which its creator gave you."
    )
    section = "emergo"

    def request(self, args: Arguments) -> JoinRequest:
        userid, password = args.login()
        given = args.optional_word("eventpassword")
        return self.made(
            JoinRequest,
            name=args.word("name"),
            userid=userid,
            password=password,
            event_password=Password(given) if given is not None else None,
        )


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
        return self.made(WithdrawRequest, name=args.word("name"), userid=userid, password=password)


class EventCreateCommand(Command):
    name = "emergo event create"
    grammar = Grammar(
        named(WORD, "NAME"),
        USERID,
        PASSWORD,
        named(WORD, "FORMAT"),
        secret("EVENTPASSWORD"),
        rest(
            "[--rounds=N] [--max-players=N] [--starts=+Nd] [--nagtime=D] [--forfeittime=D] "
            "[--totaltime=D] [-timebank=240h] [-increment=36h] [-weekends] [-unrated]"
        ),
    )
    description = "create a private event (round-robin, swiss or knockout) others join"
    details = (
        "Creates the private event NAME in the FORMAT round-robin, swiss or knockout; "
        "players join it with 'emergo join NAME USERID PASSWORD EVENTPASSWORD' (give them "
        "the event's password yourself; you join it too, the same way). Options: "
        "--rounds=N (a Swiss's rounds; a round robin played twice: 2), --max-players=N "
        "(at most 16; full starts it), --starts=+Nd or +Nh (the start, at most 30 days "
        "ahead; without it the event starts when full), and the clock of a challenge: "
        "--nagtime=D, --forfeittime=D, --totaltime=D, -timebank=240h, -increment=36h, "
        "-weekends, -unrated. A player has at most two "
        "private events open or running at a time."
    )
    section = "emergo"

    def request(self, args: Arguments) -> EventCreateRequest:
        userid, password = args.login()
        return self.made(
            EventCreateRequest,
            name=args.word("name"),
            userid=userid,
            password=password,
            event_format=args.word("format"),
            event_password=Password(args.word("eventpassword")),
            options=tuple(args.words[5:]),
        )
