"""The requests about leagues and tournaments: ``emergo events``, ``event``, ``join``,
``withdraw``."""

from __future__ import annotations

from pbm_emergo.app.context import Context
from pbm_emergo.app.events import (
    create_private_event,
    join,
    list_events,
    show_event,
    withdraw,
)
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.resolve import login
from pbm_emergo.app.results import Result
from pbm_emergo.game.requests import (
    EventCreateRequest,
    EventRequest,
    EventsRequest,
    JoinRequest,
    WithdrawRequest,
)


@handles(EventsRequest)
def events_request(ctx: Context, request: EventsRequest) -> Result:
    return list_events(ctx)


@handles(EventRequest)
def event_request(ctx: Context, request: EventRequest) -> Result:
    return show_event(ctx, request.name)


@handles(JoinRequest)
def join_request(ctx: Context, request: JoinRequest) -> Result:
    player = login(ctx, request).account
    given = request.event_password.text if request.event_password is not None else None
    return join(ctx, request.name, player, given)


@handles(WithdrawRequest)
def withdraw_request(ctx: Context, request: WithdrawRequest) -> Result:
    return withdraw(ctx, request.name, login(ctx, request).account)


@handles(EventCreateRequest)
def event_create_request(ctx: Context, request: EventCreateRequest) -> Result:
    player = login(ctx, request).account
    return create_private_event(
        ctx,
        player,
        request.name,
        request.event_format,
        request.event_password.text,
        request.options,
    )
