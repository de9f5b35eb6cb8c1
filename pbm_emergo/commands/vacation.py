"""``vacation userid password DAYS|off``: a break from all of one's games.

From now for DAYS days the player gets no reminder and loses no game on time, on any board,
and the clocks of their boards stop (:mod:`pbm_emergo.game.timers`); their opponents'
board mails say until when. Each calendar year allows ``vacation_days`` days (30 unless the
operator sets ``PBM_EMERGO_VACATION_DAYS``), counted in the year a vacation starts. A new
vacation replaces the current one; ``off`` ends it now; a vacation ended early counts only
the days it began.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Refused, Result
from pbm_emergo.db import vacations
from pbm_emergo.db.models import Vacation
from pbm_emergo.game.accounts import authenticate
from pbm_emergo.game.boards import at
from pbm_emergo.views.templating import render


class VacationCommand(Command):
    name = "vacation"
    argument_description = "userid password DAYS|off"
    description = "no reminders and no loss on time for DAYS days (30 days a year); off ends it"
    details = (
        "From now for DAYS days you get no reminder and lose no game on time, on any of your "
        "boards, and their clocks stop while it lasts; your opponents' board mails say until "
        "when. You have 30 days a calendar year (the server may allow another number); a "
        "vacation counts in the year it starts. A new vacation replaces the current one; "
        "'vacation userid PASSWORD off' ends it now, and the days not begun are given back."
    )
    secret_args = (1,)
    credential_args = (0, 1)
    min_args = max_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        setting = args[2].lower()
        if setting != "off" and not (setting.isdigit() and len(setting) <= 4):
            raise self.usage_error(
                "Write a number of days or off after the password: vacation userid password "
                "DAYS|off."
            )
        player = authenticate(ctx, args[0], args[1])
        allowance, year, now = ctx.config.vacation_days, ctx.now.year, ctx.now
        current = vacations.current_vacation(ctx.session, player.id, now)
        taken = vacations.days_taken(ctx.session, player.id, year)
        if current is not None and current.starts_at.year == year:
            # The current vacation, ended now, counts only the days it began.
            taken -= current.days - vacations.days_begun(current.starts_at, now)
        left = max(allowance - taken, 0)
        player_id, expected = player.id, player.vacation_until
        words = dict(userid=player.userid, allowance=allowance, year=year)
        if setting == "off":
            if current is None:
                raise Refused(f"{player.userid} is not on vacation.")
            ctx.write(lambda s: vacations.end_vacation(s, player_id, now, expected=expected))
            return Result(
                summary=f"ended the vacation of {player.userid}",
                answer=render(
                    "vacation.txt.j2", **words, until=None, days=0, left=left, replaced=None
                ),
                answer_subject=f"Emergo: vacation of {player.userid} ended",
            )
        days = int(setting)
        if days < 1:
            raise Refused("A vacation lasts at least 1 day.")
        if days > left:
            raise Refused(
                f"You asked for {days} days of vacation, but {player.userid} has "
                f"{_days(left)} left for {year} (of {allowance} a year); nothing was changed."
            )
        until = now + timedelta(days=days)

        def store(session: Session) -> None:
            vacations.start_vacation(session, player_id, now, days, expected=expected)

        ctx.write(store)
        return Result(
            summary=f"{player.userid} is on vacation until {at(until)}",
            answer=render(
                "vacation.txt.j2", **words, until=at(until), days=days, left=left - days,
                replaced=_ends(current, now),
            ),
            answer_subject=f"Emergo: {player.userid} on vacation until {until:%Y-%m-%d}",
        )


def _days(n: int) -> str:
    return "1 day" if n == 1 else f"{n} days"


def _ends(current: Vacation | None, now: datetime) -> str | None:
    if current is None:
        return None
    return at(current.ends_at) if current.ends_at > now else None
