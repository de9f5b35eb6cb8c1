"""``multiple``: the body holds several commands, one per line.

The shell runs the lines (read once, on receipt:
:func:`pbm_emergo.commands.text.command_lines`) and writes the report of a ``multiple`` mail
(:mod:`pbm_emergo.app.multiple`); this module gives ``multiple`` its place in the registry
and in ``help``.
"""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import Grammar, rest
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.requests import Request, Unfit


class MultipleCommand(Command):
    name = "multiple"
    grammar = Grammar(rest())  # refused in a body, whatever follows
    description = "as the Subject: every line of the body is a command (at most 30)"
    details = (
        "Write 'multiple' as the Subject and one command per line in the body. Reading "
        "stops at a signature line ('-- '), a line 'end', or quoted text. The reply lists "
        "the result of each line (Results), the lines not run (Unprocessed) and how many "
        "were left out (Ignored); board mails go out as usual. An answer given for an "
        "earlier line is not repeated, and the reply is at most 64 kB: long answers are "
        "left out or cut, with a line that says so."
    )

    def request(self, args: Arguments) -> Request:
        raise Unfit(unfit("multiple_inside"))
