"""What every mail command is made of: the context it runs in, its result, its errors.

Each command is a small class (one module per command) with a ``name``, an
``argument_description``, a ``description`` and a ``process`` method; the registry in
:mod:`pbm_emergo.commands.registry` lists them all and ``help`` is generated from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from pbm_emergo.game.results import Refused, Result
from pbm_emergo.game.secrets import Known
from pbm_emergo.game.unit import UnitOfWork

__all__ = ["Command", "Context", "Refused", "Result", "UsageError"]


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
    argument_description: ClassVar[str] = ""
    description: ClassVar[str]  # one line for the help summary
    # Longer text for `help NAME`; defaults to the description.
    details: ClassVar[str] = ""
    # Positions (in the arguments after the command words) that hold passwords: masked
    # even when the word there looks like something known (see commands.masking).
    secret_args: ClassVar[tuple[int, ...]] = ()
    # The positions of a userid and its password, for commands that log a player in: the
    # password is checked ahead, outside the write transaction (see dispatcher.handle).
    credential_args: ClassVar[tuple[int, int] | None] = None
    # Whether the command is listed by `help` (aliases are not).
    listed: ClassVar[bool] = True
    # The help section: "account" or "emergo".
    section: ClassVar[str] = "account"
    # How many arguments the command takes (max None: any number).
    min_args: ClassVar[int] = 0
    max_args: ClassVar[int | None] = None

    def process(self, ctx: Context, args: list[str]) -> Result:
        raise NotImplementedError

    @classmethod
    def arity_fits(cls, count: int) -> bool:
        return count >= cls.min_args and (cls.max_args is None or count <= cls.max_args)

    def check_arity(self, args: list[str]) -> None:
        """Raise a usage error unless the number of arguments fits the command."""
        if not self.arity_fits(len(args)):
            raise self.usage_error()

    @classmethod
    def usage(cls) -> str:
        return f"{cls.name} {cls.argument_description}".rstrip()

    def usage_error(self, reason: str | None = None) -> UsageError:
        return UsageError(
            reason or f"The command {self.name} needs these arguments: {self.usage()}.",
            template="error/usage.txt.j2",
            usage=self.usage(),
        )
