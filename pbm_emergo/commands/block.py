"""``block userid password other`` and ``unblock userid password other``: refuse, or
accept again, another player's challenges, messages and chat (they are not told)."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, Grammar, named
from pbm_emergo.game.requests import BlockRequest


class BlockCommand(Command):
    name = "block"
    grammar = Grammar(USERID, PASSWORD, named(USERID, "other"))
    description = "refuse another player's challenges, messages and chat (they are not told)"
    details = (
        "The player OTHER can no longer challenge you (the challenge is refused as when you "
        "refuse every challenge), and their messages and chat no longer reach you (they "
        "are answered as if they had). Nobody tells them that you block them. "
        "'unblock USERID PASSWORD OTHER' ends it."
    )
    on = True

    def request(self, args: Arguments) -> BlockRequest:
        userid, password = args.login()
        return self.made(
            BlockRequest, userid=userid, password=password, other=args.word("other"), on=self.on
        )


class UnblockCommand(BlockCommand):
    name = "unblock"
    description = "accept another player's challenges, messages and chat again"
    details = "Ends a 'block' of the player OTHER."
    on = False
