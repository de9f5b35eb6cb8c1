"""What ``emergo accept``, ``emergo reject`` and ``emergo limit`` share: a player's policy
towards challenges (:mod:`pbm_emergo.app.challenges`). A refused challenge gets an error
mail to the challenger; the challenged player is not told."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command, UsageError
from pbm_emergo.commands.grammar import PASSWORD, USERID, Grammar
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.requests import PolicyRequest, parse_board_ref


class PolicyCommand(Command):
    section = "emergo"
    grammar = Grammar(USERID, PASSWORD)

    def limit(self, args: Arguments) -> int | None:
        """The value after the password (checked before the password: a usage error if it
        is wrong); None when there is none."""
        return None

    @classmethod
    def misread(cls, args: list[str]) -> UsageError | None:
        keyword = cls.name.split()[-1]
        if keyword in ("accept", "reject") and args and parse_board_ref(args[0]) is not None:
            # `emergo accept 101 bob PASSWORD`: meant for a draw offer or a take-back.
            return cls.usage_error(
                unfit("accept_reject_on_board", keyword=keyword, board=args[0])
            )
        return None

    def request(self, args: Arguments) -> PolicyRequest:
        limit = self.limit(args)
        userid, password = args.login()
        return self.made(
            PolicyRequest, userid=userid, password=password, policy=self.name.split()[-1],
            limit=limit,
        )
