"""What every mail command is made of: the context it runs in, its result, its errors.

Each command is a small class (one module per command word, named after it) with a
``name``, a ``grammar`` (its arguments: see :mod:`pbm_emergo.commands.grammar`), a
``description`` and a ``process`` method, which gets the arguments bound to that grammar
(:class:`~pbm_emergo.commands.arguments.Arguments`: the words by part, the board and the
login resolved); the registry in
:mod:`pbm_emergo.commands.registry` lists them all and ``help`` is generated from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.secrets import Known
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.commands.arguments import Arguments
from pbm_emergo.commands.grammar import NOTHING, Grammar

__all__ = ["Arguments", "Command", "Context", "Refused", "Result", "UsageError"]


@dataclass
class Context(UnitOfWork):
    """A unit of work run for the command lines of one mail: what masking found of them."""

    # The userids and boards of the mail's command lines that exist (see masking).
    known: Known = field(default_factory=Known)
    # True while running the lines of a `multiple` mail.
    in_multiple: bool = False


class UsageError(Refused):
    """The arguments do not fit the command; the reply shows how to write it."""


class Command:
    """Base class of the mail commands."""

    name: ClassVar[str]  # the command words, lower case: "signup", "emergo move"
    # The arguments after the command words: their number, the places of the passwords
    # and the usage text all follow from it.
    grammar: ClassVar[Grammar] = NOTHING
    description: ClassVar[str]  # one line for the help summary
    # Longer text for `help NAME`; defaults to the description.
    details: ClassVar[str] = ""
    # Whether the command is listed by `help` (aliases are not).
    listed: ClassVar[bool] = True
    # The help section: "account" or "emergo".
    section: ClassVar[str] = "account"

    def process(self, ctx: Context, args: Arguments) -> Result:
        """Run the command on arguments that fit its grammar (see :meth:`check_arguments`),
        bound to it (:meth:`bind`)."""
        raise NotImplementedError

    @classmethod
    def bind(cls, ctx: Context, words: list[str]) -> Arguments:
        """``words``, checked by :meth:`check_arguments`, bound to the command's grammar."""
        return Arguments.bind(ctx, cls.name, cls.grammar, words)

    @classmethod
    def arity_fits(cls, count: int) -> bool:
        return cls.grammar.fits(count)

    @classmethod
    def misread(cls, args: list[str]) -> UsageError | None:
        """A more helpful error than the usage for arguments that were meant for another
        command; checked before the arity."""
        return None

    @classmethod
    def check_arguments(cls, args: list[str]) -> None:
        """Raise a usage error unless ``args`` fit the command (the dispatcher calls this
        before :meth:`process`)."""
        error = cls.misread(args)
        if error is not None:
            raise error
        if not cls.arity_fits(len(args)):
            raise cls.usage_error()

    @classmethod
    def usage(cls) -> str:
        return f"{cls.name} {cls.grammar.usage}".rstrip()

    @classmethod
    def usage_error(cls, reason: str | None = None) -> UsageError:
        return UsageError(
            reason or f"The command {cls.name} needs these arguments: {cls.usage()}.",
            template="error/usage.txt.j2",
            usage=cls.usage(),
        )
