"""A player's settings of how the server talks to them: ``timezone``, ``notify digest``,
``language``."""

from __future__ import annotations

from datetime import timedelta

from pbm_emergo.app.context import Context
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.resolve import login
from pbm_emergo.app.results import Result
from pbm_emergo.game.digest import digest_slot
from pbm_emergo.game.languages import NAMES
from pbm_emergo.game.requests import DigestRequest, LanguageRequest, TimezoneRequest
from pbm_emergo.game.setting_changes import DigestSet, LanguageSet, TimezoneSet
from pbm_emergo.views import i18n
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.templating import render


@handles(TimezoneRequest)
def timezone_request(ctx: Context, request: TimezoneRequest) -> Result:
    player = login(ctx, request)
    # A name of the time zone database, not a password typed in the wrong place.
    ctx.reveal(request.written, request.zone)
    ctx.write(TimezoneSet(player.id, request.zone))
    return Result(
        said=lambda: i18n._(
            "%(userid)s reads times in %(zone)s",
            userid=player.userid, zone=request.zone,
        ),
        answer=render(
            "timezone.txt.j2",
            userid=player.userid,
            zone=request.zone,
            now=i18n.moment(ctx.now, request.zone),
        ),
        answer_subject=f"Emergo: {player.userid} reads times in {request.zone}",
    )


@handles(DigestRequest)
def digest_request(ctx: Context, request: DigestRequest) -> Result:
    player = login(ctx, request)
    ctx.write(DigestSet(player.id, request.hour, ctx.now))
    hour = request.hour
    next_at = None
    if hour is not None:
        slot = digest_slot(hour, player.seat.timezone, ctx.now) + timedelta(days=1)
        next_at = i18n.moment(slot, player.seat.timezone)
    return Result(
        said=lambda: (
            i18n._("%(userid)s gets a digest a day at %(hour)s:00", userid=player.userid,
                   hour=hour)
            if hour is not None
            else i18n._("%(userid)s gets a board mail for every move again",
                        userid=player.userid)
        ),
        answer=render(
            "notify_digest.txt.j2",
            userid=player.userid,
            hour=hour,
            zone=player.seat.timezone,
            next_at=next_at,
        ),
        answer_subject=(
            f"Emergo: digest of {player.userid} at {hour}:00"
            if hour is not None
            else f"Emergo: digest of {player.userid} off"
        ),
    )


@handles(LanguageRequest)
def language_request(ctx: Context, request: LanguageRequest) -> Result:
    player = login(ctx, request)
    ctx.write(LanguageSet(player.id, request.language))
    # The answer is the first reply in the new language.
    with speaking(request.language):
        return Result(
            said=lambda: i18n._(
                "%(userid)s reads replies in %(language)s",
                userid=player.userid, language=request.language,
            ),
            answer=render(
                "language.txt.j2", userid=player.userid, language=NAMES[request.language]
            ),
            answer_subject=i18n._("Emergo: %(userid)s reads replies in %(language)s",
                             userid=player.userid, language=NAMES[request.language]),
        )
