"""``help [topic]``: the command summary, generated from the registry."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from pbm_emergo.commands import masking, registry
from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import WORD, Grammar, named, repeated
from pbm_emergo.game.requests import CommandHelp, HelpRequest
from pbm_emergo.game.words import MASK, Known


class HelpCommand(Command):
    name = "help"
    grammar = Grammar(repeated(named(WORD, "topic"), 0, 3, shown="[topic]"))
    description = "this summary; 'help emergo' gives the rules and 'help COMMAND' one command"
    details = (
        "Without a topic: the list of commands. 'help rules' teaches the rules of Emergo with "
        "pictures; 'help emergo' is the Emergo help page (the rules, the board, the "
        "notation, the commands); 'help move' or 'help change password' describes "
        "one command."
    )

    def request(self, args: Arguments) -> HelpRequest:
        topic = " ".join(a.lower() for a in args)
        entries = registry.help_entries()
        if topic == "emergo":
            return self.made(HelpRequest, entries=entries, emergo=True)
        if topic == "rules":
            return self.made(HelpRequest, entries=entries, rules=True)
        if topic:
            command = find_topic(topic)
            if command is not None:
                return self.made(
                    HelpRequest,
                    entries=entries,
                    topic=CommandHelp(
                        name=command.name,
                        usage=textwrap.fill(
                            command.usage(), HELP_WIDTH, subsequent_indent="    ",
                            break_long_words=False, break_on_hyphens=False,
                        ),
                        description=command.description,
                        details=command.details or command.description,
                    ),
                )
        return self.made(
            HelpRequest,
            entries=entries,
            unknown_topic=shown_topic(args.words, args.known) if topic else None,
        )


# A command's usage is wrapped to fit a mail reader's window (its details are wrapped
# where they are said, in the reader's language: views/command_help.py).
HELP_WIDTH = 72


def shown_topic(words: Sequence[str], known: Known) -> str:
    """An unknown topic as the reply may echo it: a word that may be a password (``help
    PASSWORD``) is masked. Lower-cased, it would slip past the scrubbing of replies, which
    matches a password as written."""
    return " ".join(
        word.lower() if masking.is_public(word, known) else MASK for word in words
    )


def find_topic(topic: str) -> type[Command] | None:
    """The command a help topic names: its full name, or its last word (``move``)."""
    table = registry.by_name()
    if topic in table:
        return table[topic]
    if f"emergo {topic}" in table:
        return table[f"emergo {topic}"]
    return None
