"""The one list of mail commands. ``help`` is generated from it, a command line's command is
looked up in it. Add a command by writing its module and naming its class here."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from functools import cache

from pbm_emergo.commands.base import Command
from pbm_emergo.game.requests import HelpEntry
from pbm_emergo.telemetry.metrics import NOT_A_COMMAND, NOT_ANSWERED

# "module:Class", in the order `help` lists them.
COMMANDS = [
    "help:HelpCommand",
    "signup:SignupCommand",
    "change_password:ChangePasswordCommand",
    "change_address:ChangeAddressCommand",
    "confirm:ConfirmCommand",
    "signoff:SignoffCommand",
    "vacation:VacationCommand",
    "list:ListCommand",
    "message:MessageCommand",
    "multiple:MultipleCommand",
    "emergo_help:EmergoHelpCommand",
    "emergo_challenge:ChallengeCommand",
    "emergo_move:MoveCommand",
    "emergo_move:ResignCommand",
    "emergo_queue:QueueCommand",
    "emergo_autoplay:AutoplayCommand",
    "emergo_show:ShowCommand",
    "emergo_games:GamesCommand",
    "emergo_moves:MovesCommand",
    "emergo_record:RecordCommand",
    "emergo_analyse:AnalyseCommand",
    "emergo_analyse:AnalyzeCommand",
    "emergo_preview:PreviewCommand",
    "emergo_chat:ChatCommand",
    "emergo_subscribe:SubscribeCommand",
    "emergo_subscribe:SubCommand",
    "emergo_unsubscribe:UnsubscribeCommand",
    "emergo_unsubscribe:UnsubCommand",
    "emergo_notify:NotifyCommand",
    "emergo_standings:StandingsCommand",
    "emergo_standings:RatingsCommand",
    "emergo_history:HistoryCommand",
    "emergo_seek:SeekCommand",
    "emergo_seek:SeeksCommand",
    "emergo_accept:AcceptCommand",
    "emergo_reject:RejectCommand",
    "emergo_limit:LimitCommand",
    "delete:DeleteCommand",
    "forgot:ForgotCommand",
    "forgot:ForgotPasswordCommand",
    "reset:ResetCommand",
    "block:BlockCommand",
    "block:UnblockCommand",
    "emergo_note:NoteCommand",
    "emergo_rematch:RematchCommand",
    "emergo_showas:ShowAsCommand",
    "all_show:AllShowCommand",
    "emergo_submit:SubmitCommand",
    "emergo_confirm:ConfirmMoveCommand",
    "emergo_events:EventsCommand",
    "emergo_events:EventCommand",
    "emergo_events:JoinCommand",
    "emergo_events:WithdrawCommand",
    "emergo_events:EventCreateCommand",
    "timezone:TimezoneCommand",
    "notify_digest:NotifyDigestCommand",
    "board:BoardStyleCommand",
    "reply_language:LanguageCommand",
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


@cache  # every command line looks its words up here
def by_name() -> Mapping[str, type[Command]]:
    """Command words (lower case, single spaces) -> command class."""
    return {command.name: command for command in all_commands()}


@cache
def help_entries() -> tuple[HelpEntry, ...]:
    """Usage and description of each listed command, for help texts."""
    return tuple(
        HelpEntry(usage=c.usage(), description=c.description, section=c.section)
        for c in all_commands()
        if c.listed
    )


# How close a mistyped command word must be to one of ours to be suggested (difflib's
# ratio: "mvoe" to "move" is 0.75, "chalenge" to "challenge" 0.94).
NEAR = 0.7


def nearest(words: list[str]) -> str | None:
    """The command a mistyped command line most likely meant ("emergo move" for
    ``emergo mvoe``, "signup" for ``sigup``), or None when nothing is near."""
    names = list(by_name())
    lowered = [w.lower() for w in words[:2]]
    if not lowered:
        return None
    if lowered[0] == "emergo" and len(lowered) == 2:
        seconds = {n.split(" ", 1)[1]: n for n in names if n.startswith("emergo ")}
        close = difflib.get_close_matches(lowered[1], list(seconds), n=1, cutoff=NEAR)
        return seconds[close[0]] if close else None
    # A one-word command, or the first word of a two-word one ("chnage password").
    firsts = {n.split(" ", 1)[0]: n for n in reversed(names)}
    close = difflib.get_close_matches(lowered[0], list(firsts), n=1, cutoff=NEAR)
    if not close:
        return None
    if close[0] == "emergo":
        if lowered[0] == "emergo":
            return None
        meant = f"emergo {lowered[1]}" if len(lowered) == 2 else ""
        return meant if meant in names else "emergo help"
    named = [n for n in names if n.split(" ", 1)[0] == close[0]]
    if len(lowered) == 2 and any(" " in n for n in named):
        exact = f"{close[0]} {lowered[1]}"
        if exact in named:
            return exact
    return named[0] if len(named) == 1 or " " not in named[0] else close[0]


def lookup(words: list[str]) -> tuple[type[Command] | None, int]:
    """The command named by the first words of ``words`` and how many words it used.

    Longer names win: ``emergo event create`` over ``emergo event``, two-word names
    (``emergo move``, ``change password``) over one-word ones.
    """
    table = by_name()
    lowered = [w.lower() for w in words[:3]]
    if len(lowered) == 3 and " ".join(lowered) in table:
        return table[" ".join(lowered)], 3
    lowered = lowered[:2]
    if len(lowered) == 2 and " ".join(lowered) in table:
        return table[" ".join(lowered)], 2
    if lowered and lowered[0] in table:
        return table[lowered[0]], 1
    return None, 0


def command_label(shown: str | None, not_answered: bool = False) -> str:
    """The command of a mail for the metrics' ``command`` label: its command words as
    registered (``emergo move``, ``signup``...), ``unknown`` for anything else,
    ``not-answered`` for a mail deliberately not run. Command words are never masked, so the
    stored command line (``subject``) is enough; a bounded set of values."""
    if not_answered:
        return NOT_ANSWERED
    command, _ = lookup((shown or "").split()[:3])
    return command.name if command is not None else NOT_A_COMMAND
