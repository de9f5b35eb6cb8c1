"""A player's settings of how the server talks to them: ``timezone``."""

from __future__ import annotations

from pbm_emergo.app.context import Context
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.resolve import login
from pbm_emergo.app.results import Result
from pbm_emergo.game.clock import local_time
from pbm_emergo.game.requests import TimezoneRequest
from pbm_emergo.game.setting_changes import TimezoneSet
from pbm_emergo.views.templating import render


@handles(TimezoneRequest)
def timezone_request(ctx: Context, request: TimezoneRequest) -> Result:
    player = login(ctx, request)
    # A name of the time zone database, not a password typed in the wrong place.
    ctx.reveal(request.written, request.zone)
    ctx.write(TimezoneSet(player.id, request.zone))
    return Result(
        summary=f"{player.userid} reads times in {request.zone}",
        answer=render(
            "timezone.txt.j2",
            userid=player.userid,
            zone=request.zone,
            now=local_time(ctx.now, request.zone),
        ),
        answer_subject=f"Emergo: {player.userid} reads times in {request.zone}",
    )
