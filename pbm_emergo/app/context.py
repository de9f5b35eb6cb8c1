"""The unit of work a mail's command lines run in, and the refusals every handler shares."""

from __future__ import annotations

from dataclasses import dataclass, field

from pbm_emergo.app.results import Refused
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.game.requests import Request
from pbm_emergo.game.words import Known
from pbm_emergo.views import i18n


@dataclass
class Context(UnitOfWork):
    """A unit of work run for the command lines of one mail: what masking found of them."""

    # The userids and boards of the mail's command lines that exist (see masking).
    known: Known = field(default_factory=Known)
    # True for a line of a `multiple` mail (app.lines).
    in_multiple: bool = False


def usage_error(request: Request, reason: str | None = None) -> Refused:
    """The refusal of a request whose words do not fit its command after all (a value the
    shell checks in order with its look-ups); the reply shows how the command is written."""
    return Refused(
        reason
        or i18n._(
            "The command %(command)s needs these arguments: %(usage)s.",
            command=request.command, usage=request.usage,
        ),
        template="error/usage.txt.j2",
        usage=request.usage,
    )
