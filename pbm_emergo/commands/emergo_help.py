"""``emergo help``: the rules, the empty board, the notation and the commands."""

from __future__ import annotations

from pbm_emergo.commands import registry
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import Grammar, rest
from pbm_emergo.rules import Position, render_board
from pbm_emergo.views.templating import render


def emergo_help_text(ctx: Context) -> str:
    """The Emergo help page (also ``help emergo``)."""
    return render(
        "emergo_help.txt.j2",
        address=ctx.config.address,
        board=render_board(Position(), white_name="Ohs", black_name="Eks"),
        commands=registry.help_entries(),
    )


class EmergoHelpCommand(Command):
    name = "emergo help"
    grammar = Grammar(rest())  # "emergo help move" is "help move"
    description = "the rules of Emergo, the empty board, the notation and the commands"
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        if args:  # "emergo help move" is "help move"
            help_command = registry.by_name()["help"]
            words = list(args)
            help_command.check_arguments(words)
            return help_command().process(ctx, help_command.bind(ctx, words))
        return Result(
            summary="sent the Emergo help page",
            answer=emergo_help_text(ctx),
            answer_subject="Emergo help",
        )
