"""``help [topic]`` and ``emergo help``: the help texts, from the registry's entries the
request carries."""

from __future__ import annotations

from pbm_emergo.app.context import Context
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.results import Result
from pbm_emergo.game.requests import CommandHelp, HelpEntry, HelpRequest
from pbm_emergo.rules import Position, render_board
from pbm_emergo.views import i18n
from pbm_emergo.views.command_help import details_text
from pbm_emergo.views.player_rules import player_rules_text
from pbm_emergo.views.templating import render


def emergo_help_text(ctx: Context, entries: tuple[HelpEntry, ...]) -> str:
    """The Emergo help page (also ``help emergo``): the rules for players, the notation,
    the commands."""
    return render(
        "emergo_help.txt.j2",
        address=ctx.config.address,
        rules=player_rules_text(ctx.config.web_url),
        board=render_board(Position()),
        commands=[entry.shown() for entry in entries],
    )


def _described(topic: CommandHelp) -> dict[str, str | None]:
    """What ``help COMMAND`` says of the command beside its usage: in English its details
    (its description where it has none); in the other languages its description from the
    catalogs, then its details from the catalogs where they go beyond it."""
    if i18n.current() == i18n.DEFAULT:
        return {"description": None, "details": details_text(topic.details)}
    more = topic.details.split() != topic.description.split()
    details = details_text(topic.details) if more else None
    return {"description": i18n._(topic.description), "details": details}


@handles(HelpRequest)
def help_texts(ctx: Context, request: HelpRequest) -> Result:
    if request.rules:
        return Result(
            said=lambda: i18n._("sent the rules"),
            answer=render(
                "rules.txt.j2",
                address=ctx.config.address,
                rules=player_rules_text(ctx.config.web_url),
            ),
            answer_subject="Emergo rules",
        )
    if request.emergo:
        return Result(
            said=lambda: i18n._("sent the Emergo help page"),
            answer=emergo_help_text(ctx, request.entries),
            answer_subject="Emergo help",
        )
    topic = request.topic
    if topic is not None:
        return Result(
            said=lambda: i18n._("sent the help for %(command)s", command=topic.name),
            answer=render("help_command.txt.j2", usage=topic.usage, **_described(topic)),
            answer_subject=f"Emergo help: {topic.name}",
        )
    return Result(
        said=lambda: i18n._("sent the command summary"),
        answer=render(
            "help.txt.j2",
            address=ctx.config.address,
            commands=[entry.shown() for entry in request.entries],
            unknown_topic=request.unknown_topic,
        ),
        answer_subject="Emergo help",
    )
