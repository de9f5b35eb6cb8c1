"""``multiple``: the body holds several commands, one per line.

The dispatcher runs the lines (see :func:`pbm_emergo.commands.dispatcher.command_lines`);
this class gives ``multiple`` its place in the registry and in ``help``.
"""

from __future__ import annotations

from pbm_emergo.commands.base import Command, CommandError, Context, Result


class MultipleCommand(Command):
    name = "multiple"
    description = "as the Subject: every line of the body is a command (at most 30)"
    details = (
        "Write 'multiple' as the Subject and one command per line in the body. Reading "
        "stops at a signature line ('-- '), a line 'end', or quoted text. The reply lists "
        "the result of each line (Results), the lines not run (Unprocessed) and how many "
        "were left out (Ignored); board mails go out as usual."
    )

    def process(self, ctx: Context, args: list[str]) -> Result:
        raise CommandError("'multiple' works only as the Subject of a mail, not inside one.")
