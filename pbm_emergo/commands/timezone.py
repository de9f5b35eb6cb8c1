"""``timezone userid password ZONE``: the time zone the player reads the times of their
reminders and losses on time in (an IANA name such as ``Europe/Amsterdam``; ``UTC``, the
default, to go back)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.clock import timezone_named
from pbm_emergo.game.requests import TimezoneRequest


class TimezoneCommand(Command):
    name = "timezone"
    grammar = Grammar(USERID, PASSWORD, named(WORD, "ZONE"))
    description = "the time zone of the times in your board mails (Europe/Amsterdam; UTC)"
    details = (
        "Board mails, reminders and the board's web page say when the next reminder comes "
        "and from when the game is lost on time if the player to move does not move; they "
        "give those times in that player's time zone. ZONE is a name of the IANA time zone "
        "database, such as Europe/Amsterdam, America/New_York or Asia/Tokyo (any letter "
        "case); UTC, the default, goes back."
    )

    def request(self, args: Arguments) -> TimezoneRequest:
        word = args.word("zone")
        zone = timezone_named(word)
        if zone is None:
            raise self.usage_error(unfit("no_time_zone"))
        userid, password = args.login()
        return self.made(TimezoneRequest, userid=userid, password=password, zone=zone, written=word)
