"""The account requests: ``signup``, ``change password``, ``change address``, ``confirm``,
``signoff``, ``vacation``, ``board``."""

from __future__ import annotations

from pbm_emergo.app.addresses import change_addresses, confirm_address
from pbm_emergo.app.blocks import set_block
from pbm_emergo.app.board_style import set_board_style
from pbm_emergo.app.context import Context
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.membership import change_password, delete_account, signoff, signup
from pbm_emergo.app.resets import forgot, reset
from pbm_emergo.app.resolve import login
from pbm_emergo.app.results import Result
from pbm_emergo.app.vacations import set_vacation
from pbm_emergo.game.requests import (
    BlockRequest,
    BoardStyleRequest,
    ChangeAddressRequest,
    ChangePasswordRequest,
    ConfirmRequest,
    DeleteRequest,
    ForgotRequest,
    ResetRequest,
    SignoffRequest,
    SignupRequest,
    VacationRequest,
)


@handles(SignupRequest)
def signup_request(ctx: Context, request: SignupRequest) -> Result:
    # No login: the account does not exist yet.
    return signup(
        ctx, request.userid, request.password.text, list(request.addresses),
        language=request.language,
    )


@handles(ChangePasswordRequest)
def change_password_request(ctx: Context, request: ChangePasswordRequest) -> Result:
    return change_password(ctx, login(ctx, request).account, request.new.text)


@handles(ChangeAddressRequest)
def change_address_request(ctx: Context, request: ChangeAddressRequest) -> Result:
    return change_addresses(ctx, login(ctx, request).account, list(request.addresses))


@handles(ConfirmRequest)
def confirm_request(ctx: Context, request: ConfirmRequest) -> Result:
    return confirm_address(ctx, request.code.text)


@handles(SignoffRequest)
def signoff_request(ctx: Context, request: SignoffRequest) -> Result:
    return signoff(ctx, login(ctx, request).account)


@handles(VacationRequest)
def vacation_request(ctx: Context, request: VacationRequest) -> Result:
    return set_vacation(ctx, login(ctx, request), request.days)


@handles(DeleteRequest)
def delete_request(ctx: Context, request: DeleteRequest) -> Result:
    return delete_account(ctx, login(ctx, request).account)


@handles(ForgotRequest)
def forgot_request(ctx: Context, request: ForgotRequest) -> Result:
    # No login: the player has forgotten the password.
    return forgot(ctx, request.userid)


@handles(ResetRequest)
def reset_request(ctx: Context, request: ResetRequest) -> Result:
    # No login: the code, mailed to a registered address, stands for the password.
    return reset(ctx, request.code.text, request.new.text)


@handles(BlockRequest)
def block_request(ctx: Context, request: BlockRequest) -> Result:
    return set_block(ctx, login(ctx, request).account, request.other, on=request.on)
@handles(BoardStyleRequest)
def board_style_request(ctx: Context, request: BoardStyleRequest) -> Result:
    return set_board_style(ctx, login(ctx, request).account, request.style)
