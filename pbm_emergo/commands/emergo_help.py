"""``emergo help``: the rules, the empty board, the notation and the commands."""

from __future__ import annotations

from pbm_emergo.commands import registry
from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import Grammar, rest
from pbm_emergo.game.requests import HelpRequest


class EmergoHelpCommand(Command):
    name = "emergo help"
    grammar = Grammar(rest())  # "emergo help move" is "help move"
    description = "the rules of Emergo, the empty board, the notation and the commands"
    section = "emergo"

    def request(self, args: Arguments) -> HelpRequest:
        if args:  # "emergo help move" is "help move"
            help_command = registry.by_name()["help"]
            words = list(args)
            help_command.check_arguments(words)
            found = help_command().request(help_command.bind(words, args.known))
            assert isinstance(found, HelpRequest)
            return found
        return self.made(HelpRequest, entries=registry.help_entries(), emergo=True)
