"""``vacation userid password DAYS|off``: a break from all of one's games.

From now for DAYS days the player gets no reminder and loses no game on time, on any board,
and the clocks of their boards stop (:mod:`pbm_emergo.app.timers`); their opponents'
board mails say until when. Each calendar year allows ``vacation_days`` days (30 unless the
operator sets ``PBM_EMERGO_VACATION_DAYS``), counted in the year a vacation starts. A new
vacation replaces the current one; ``off`` ends it now; a vacation ended early counts only
the days it began.
"""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.requests import VacationRequest


class VacationCommand(Command):
    name = "vacation"
    grammar = Grammar(USERID, PASSWORD, named(WORD, "DAYS|off"))
    description = "no reminders and no loss on time for DAYS days (30 days a year); off ends it"
    details = (
        "From now for DAYS days you get no reminder and lose no game on time, on any of your "
        "boards, and their clocks stop while it lasts; your opponents' board mails say until "
        "when. You have 30 days a calendar year (the server may allow another number); a "
        "vacation counts in the year it starts. A new vacation replaces the current one; "
        "'vacation userid PASSWORD off' ends it now, and the days not begun are given back."
    )

    def request(self, args: Arguments) -> VacationRequest:
        setting = args.word("days").lower()
        if setting != "off" and not (setting.isascii() and setting.isdigit() and len(setting) <= 4):
            raise self.usage_error(unfit("vacation_days"))
        userid, password = args.login()
        return self.made(
            VacationRequest, userid=userid, password=password,
            days=None if setting == "off" else int(setting),
        )
