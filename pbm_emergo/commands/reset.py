"""``reset CODE NEWPASSWORD``: set a new password with the code ``forgot`` mailed."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import NEW_PASSWORD, Grammar, named, secret
from pbm_emergo.game.requests import Password, ResetRequest
from pbm_emergo.game.resets import RESET_TIME


class ResetCommand(Command):
    name = "reset"
    grammar = Grammar(secret("CODE"), named(NEW_PASSWORD, "NEWPASSWORD"))
    description = "set a new password with the code 'forgot' mailed to you"
    details = (
        f"Sets the password of the userid the code was mailed for, within {RESET_TIME.days} "
        "day of 'forgot'; each code works once. Every registered address of the player is "
        "told."
    )

    def request(self, args: Arguments) -> ResetRequest:
        return self.made(
            ResetRequest, code=Password(args.word("code")), new=Password(args.word("newpassword"))
        )
