"""Vacations: a break from all of one's games.

From now for DAYS days the player gets no reminder and loses no game on time, on any board,
and the clocks of their boards stop (:mod:`pbm_emergo.app.timers`); their opponents'
board mails say until when. Each calendar year allows ``vacation_days`` days (30 unless the
operator sets ``PBM_EMERGO_VACATION_DAYS``), counted in the year a vacation starts. A new
vacation replaces the current one; ending it early counts only the days it began.
"""

from __future__ import annotations

from datetime import datetime

from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import vacations
from pbm_emergo.db.reads.snapshot import PlayerRead
from pbm_emergo.db.reads.vacations import CurrentVacation, current_vacation
from pbm_emergo.game.vacations import VacationAsked, decide_vacation
from pbm_emergo.rules.reasons import Reason
from pbm_emergo.views import i18n
from pbm_emergo.views.board_mail import at
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render


def set_vacation(ctx: UnitOfWork, player: PlayerRead, days: int | None) -> Result:
    """Start a vacation of ``days`` days from now (replacing the current one), or end the
    current one now (``days`` None), as :func:`pbm_emergo.game.vacations.decide_vacation`
    decides on the player's vacation as read (its end on their seat, the current one and
    the days taken this year)."""
    allowance, now = ctx.config.vacation_days, ctx.now
    current = current_vacation(ctx.session, player.id, now)
    asked = VacationAsked(
        player.id, player.userid, days,
        None if current is None else (current.starts_at, current.days),
        vacations.days_taken(ctx.session, player.id, now.year), allowance,
        player.seat.vacation_until,
    )
    decided = decide_vacation(asked, now)
    if isinstance(decided, Reason):
        raise Refused(said(decided))
    ctx.write(decided.change)
    words = dict(userid=player.userid, allowance=allowance, year=now.year)
    until = decided.until
    if until is None:
        return Result(
            said=lambda: i18n._("ended the vacation of %(userid)s", userid=player.userid),
            answer=render(
                "vacation.txt.j2", **words, until=None, days=0, left=decided.left,
                replaced=None,
            ),
            answer_subject=f"Emergo: vacation of {player.userid} ended",
        )
    return Result(
        summary=f"{player.userid} is on vacation until {at(until)}",
        summary_said=i18n._(
            "%(userid)s is on vacation until %(until)s",
            userid=player.userid, until=i18n.moment(until, "UTC"),
        ),
        answer=render(
            "vacation.txt.j2", **words, until=i18n.moment(until, "UTC"), days=days,
            left=decided.left, replaced=_ends(current, now),
        ),
        answer_subject=f"Emergo: {player.userid} on vacation until {until:%Y-%m-%d}",
    )


def _ends(current: CurrentVacation | None, now: datetime) -> str | None:
    if current is None:
        return None
    return i18n.moment(current.ends_at, "UTC") if current.ends_at > now else None
