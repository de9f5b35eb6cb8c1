"""The one list of mail commands. ``help`` is generated from it, the dispatcher looks
commands up in it. Add a command by writing its module and naming its class here."""

from __future__ import annotations

import importlib
from functools import cache

from pbm_emergo.commands.base import Command

# "module:Class", in the order `help` lists them.
COMMANDS = [
    "help:HelpCommand",
    "signup:SignupCommand",
    "change_password:ChangePasswordCommand",
    "change_address:ChangeAddressCommand",
    "confirm:ConfirmCommand",
    "signoff:SignoffCommand",
    "vacation:VacationCommand",
    "list_games:ListCommand",
    "message:MessageCommand",
    "multiple:MultipleCommand",
    "emergo_help:EmergoHelpCommand",
    "challenge:ChallengeCommand",
    "move:MoveCommand",
    "move:ResignCommand",
    "queue:QueueCommand",
    "autoplay:AutoplayCommand",
    "show:ShowCommand",
    "games:GamesCommand",
    "moves:MovesCommand",
    "record:RecordCommand",
    "preview:PreviewCommand",
    "chat:ChatCommand",
    "subscribe:SubscribeCommand",
    "subscribe:SubCommand",
    "subscribe:UnsubscribeCommand",
    "subscribe:UnsubCommand",
    "notify:NotifyCommand",
    "standings:StandingsCommand",
    "standings:RatingsCommand",
    "history:HistoryCommand",
    "seek:SeekCommand",
    "seek:SeeksCommand",
    "refuse:AcceptCommand",
    "refuse:RejectCommand",
    "refuse:LimitCommand",
]


@cache
def all_commands() -> tuple[type[Command], ...]:
    """Every command class, in help order."""
    found: list[type[Command]] = []
    for spec in COMMANDS:
        module_name, _, class_name = spec.partition(":")
        module = importlib.import_module(f"pbm_emergo.commands.{module_name}")
        found.append(getattr(module, class_name))
    return tuple(found)


def by_name() -> dict[str, type[Command]]:
    """Command words (lower case, single spaces) -> command class."""
    return {command.name: command for command in all_commands()}


def help_entries() -> list[dict[str, str]]:
    """Usage and description of each listed command, for help texts."""
    return [
        {"usage": c.usage(), "description": c.description, "section": c.section}
        for c in all_commands()
        if c.listed
    ]


def lookup(words: list[str]) -> tuple[type[Command] | None, int]:
    """The command named by the first words of ``words`` and how many words it used.

    Two-word names (``emergo move``, ``change password``) win over one-word ones.
    """
    table = by_name()
    lowered = [w.lower() for w in words[:2]]
    if len(lowered) == 2 and " ".join(lowered) in table:
        return table[" ".join(lowered)], 2
    if lowered and lowered[0] in table:
        return table[lowered[0]], 1
    return None, 0
