"""The requests about challenges: ``emergo challenge``, ``emergo seek`` / ``seeks``,
``emergo accept`` / ``reject`` / ``limit``, ``emergo rematch``."""

from __future__ import annotations

from pbm_emergo.app import resolve
from pbm_emergo.app.challenges import (
    accept_challenges,
    challenge,
    limit_challenges,
    reject_challenges,
    rematch,
    seek,
    seekers,
)
from pbm_emergo.app.context import Context
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.resolve import login, login_seated
from pbm_emergo.app.results import Result
from pbm_emergo.game.requests import (
    ChallengeRequest,
    PolicyRequest,
    RematchRequest,
    SeekRequest,
    SeeksRequest,
)


@handles(ChallengeRequest)
def challenge_request(ctx: Context, request: ChallengeRequest) -> Result:
    return challenge(ctx, request.white, request.black, request.options)


@handles(SeekRequest)
def seek_request(ctx: Context, request: SeekRequest) -> Result:
    return seek(ctx, login(ctx, request).account, request.count)


@handles(SeeksRequest)
def seeks_request(ctx: Context, request: SeeksRequest) -> Result:
    return seekers(ctx)


@handles(PolicyRequest)
def policy_request(ctx: Context, request: PolicyRequest) -> Result:
    player = login(ctx, request)
    if request.policy == "accept":
        return accept_challenges(ctx, player)
    if request.policy == "reject":
        return reject_challenges(ctx, player)
    return limit_challenges(ctx, player, request.limit)


@handles(RematchRequest)
def rematch_request(ctx: Context, request: RematchRequest) -> Result:
    read = resolve.board_read(ctx, request.board, alone=True)
    player = login_seated(ctx, request.userid, request.password, read)
    return rematch(ctx, read.snapshot.state, player)
