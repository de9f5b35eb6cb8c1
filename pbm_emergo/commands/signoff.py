"""``signoff userid password``: leave the server; active games are resigned."""

from __future__ import annotations

from pbm_emergo.app.membership import signoff
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import PASSWORD, USERID, Grammar


class SignoffCommand(Command):
    name = "signoff"
    grammar = Grammar(USERID, PASSWORD)
    description = "leave the server: your active games are resigned, your history is kept"

    def process(self, ctx: Context, args: Arguments) -> Result:
        return signoff(ctx, args.login())
