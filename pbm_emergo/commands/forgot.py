"""``forgot userid``: a one-time code to set a new password, mailed to the player's
registered addresses (see :mod:`pbm_emergo.app.resets`)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import USERID, Grammar
from pbm_emergo.game.requests import ForgotRequest
from pbm_emergo.game.resets import RESET_TIME, RESETS_PER_DAY


class ForgotCommand(Command):
    name = "forgot"
    grammar = Grammar(USERID)
    description = (
        "forgotten your password? a code to set a new one is mailed to you (also forgot password)"
    )
    details = (
        "Mails a one-time code to the registered addresses of the userid, and only there; "
        "the answer to your mail is the same whether or not the userid exists. Send "
        f"'reset CODE NEWPASSWORD' within {RESET_TIME.days} day to set a new password; "
        f"each code works once. At most {RESETS_PER_DAY} codes a day are mailed for one "
        "userid."
    )

    def request(self, args: Arguments) -> ForgotRequest:
        return self.made(ForgotRequest, userid=args.word("userid"))


class ForgotPasswordCommand(ForgotCommand):
    """``forgot password userid``, as people write it."""

    name = "forgot password"
    description = "the same as forgot"
    listed = False
