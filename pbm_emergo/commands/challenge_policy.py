"""What ``emergo accept``, ``emergo reject`` and ``emergo limit`` share: a player's policy
towards challenges (:mod:`pbm_emergo.app.challenges`). A refused challenge gets an error
mail to the challenger; the challenged player is not told."""

from __future__ import annotations

from pbm_emergo.app.boards import parse_board_ref
from pbm_emergo.commands.base import Arguments, Command, Context, Result, UsageError
from pbm_emergo.commands.grammar import PASSWORD, USERID, Grammar
from pbm_emergo.db.models import Player


class PolicyCommand(Command):
    section = "emergo"
    grammar = Grammar(USERID, PASSWORD)

    def check_value(self, args: Arguments) -> None:
        """Raise a usage error if the arguments after the password are wrong (checked
        before the password)."""

    def set_policy(self, ctx: Context, player: Player, args: Arguments) -> Result:
        """Store the logged-in player's policy: the call into the game for this command."""
        raise NotImplementedError

    @classmethod
    def misread(cls, args: list[str]) -> UsageError | None:
        keyword = cls.name.split()[-1]
        if keyword in ("accept", "reject") and args and parse_board_ref(args[0]) is not None:
            # `emergo accept 101 bob PASSWORD`: meant for a draw offer or a take-back.
            return cls.usage_error(
                f"To {keyword} a draw offer or a take-back request on a board, write "
                f"'emergo move {args[0]} USERID PASSWORD {keyword}'; 'emergo {keyword} "
                "USERID PASSWORD' is about challenges."
            )
        return None

    def process(self, ctx: Context, args: Arguments) -> Result:
        self.check_value(args)
        return self.set_policy(ctx, args.login(), args)
