"""The mail language as the shell uses it: a command line to a request, and what of a line
may be shown.

:data:`LANGUAGE` is what the mail layer hands the shell's dispatcher
(:func:`pbm_emergo.app.dispatcher.dispatch`, whose ``Language`` protocol it fulfils), so
that the shell runs command lines without importing the command layer: it asks here for each
line's request (:meth:`MailLanguage.request`), or the reason it has none
(:class:`~pbm_emergo.game.requests.Unfit`), and for the masking of what it echoes.
"""

from __future__ import annotations

from collections.abc import Iterable

from pbm_emergo.commands import masking, registry
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.commands.text import masked
from pbm_emergo.game.requests import Request, Unfit
from pbm_emergo.game.words import Known
from pbm_emergo.rules.reasons import Reason

# A command line with more arguments than this is refused before its command reads them.
MAX_ARGS = 40


def unknown_command(words: list[str], meant: str | None = None, *, alone: bool = False) -> Unfit:
    """The refusal of a line that names no command (``words`` as they may be shown:
    masked), with the command it most likely meant; ``alone``: the mail's only command
    line, answered with where to start when it is near no command."""
    if alone and meant is None and not (words and words[0].lower() == "emergo"):
        return Unfit(
            unfit("start_here"),
            template="error/start_here.txt.j2",
            start_here=True,
        )
    unknown: str | None = None  # the words named as no command (the shell words the reason)
    reason: str | Reason
    if words and words[0].lower() == "emergo" and len(words) == 1:
        reason = unfit("emergo_alone_meant", meant=meant) if meant else unfit("emergo_alone")
    else:
        if words and words[0].lower() == "emergo":
            unknown = " ".join(words[:2]).lower()
        else:
            unknown = words[0].lower() if words else None
        reason = f"There is no command '{unknown}'." if unknown else "There is no command."
        if meant is not None:
            reason += f" Did you mean '{meant}'?"
    return Unfit(
        reason,
        template="error/unknown_command.txt.j2",
        commands=[entry.shown() for entry in registry.help_entries()],
        unknown=unknown,
        meant=meant,
    )


class MailLanguage:
    """The command layer's side of the dispatcher's ``Language``: pure functions of a
    command line and the words known to exist."""

    def request(self, line: str, known: Known, *, alone: bool) -> Request:
        """The request of one command line, or :class:`Unfit`: it names no command
        (``alone``: it is the mail's only command line), has too many arguments, or they
        do not fit the command. ``known``: the userids and boards found to exist."""
        words = line.split()
        command, used = registry.lookup(words)
        if command is None:
            raise unknown_command(
                masking.mask_words(words, known), registry.nearest(words), alone=alone
            )
        args = words[used:]
        if len(args) > MAX_ARGS:
            raise Unfit(unfit("too_many_arguments", num=MAX_ARGS))
        command.check_arguments(args)
        return command().request(command.bind(args, known))

    def masked(self, line: str, known: Known) -> str:
        """``line`` as it may be echoed (see :func:`pbm_emergo.commands.text.masked`)."""
        return masked(line, known)

    def mask_commands(self, text: str, known: Known) -> str:
        """A comment with its command lines masked (see :mod:`masking`)."""
        return masking.mask_commands(text, known)

    def hidden_words(self, lines: Iterable[str], known: Known) -> set[str]:
        """The words of ``lines`` that may be secrets (see :mod:`masking`)."""
        return masking.hidden_words(lines, known)

    def unchecked_userids(self, lines: Iterable[str], known: Known) -> list[str]:
        """The words at a userid's place that no player has, shown once checked not to be
        the sender's password (see :mod:`masking`)."""
        return masking.unchecked_userids(lines, known)

    def candidates(self, lines: Iterable[str]) -> tuple[set[str], set[int]]:
        """The words of ``lines`` to look up: userids and board numbers (see
        :mod:`masking`)."""
        return masking.candidates(lines)

    def login(self, line: str) -> tuple[str, str] | None:
        """The userid and password of a command line's login, when its command has one
        and the line reaches it (for the passwords checked ahead of a write transaction)."""
        words = line.split()
        command, used = registry.lookup(words)
        if command is None or command.grammar.login is None:
            return None
        args = words[used:]
        userid_at, password_at = command.grammar.login
        if max(userid_at, password_at) >= len(args):
            return None
        return args[userid_at], args[password_at]


LANGUAGE = MailLanguage()
