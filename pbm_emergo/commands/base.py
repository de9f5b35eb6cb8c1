"""What every mail command is made of: its words, its grammar, its help, its request.

Each command is a small class (one module per command word, named after it) with a
``name``, a ``grammar`` (its arguments: see :mod:`pbm_emergo.commands.grammar`), a
``description`` and a ``request`` method, which gets the arguments bound to that grammar
(:class:`~pbm_emergo.commands.arguments.Arguments`: the words by part) and makes the request
value the shell runs (:mod:`pbm_emergo.game.requests`); the registry in
:mod:`pbm_emergo.commands.registry` lists them all and ``help`` is generated from it.
Nothing here reads a database or renders a reply.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pbm_emergo.commands.arguments import Arguments
from pbm_emergo.commands.grammar import NOTHING, Grammar
from pbm_emergo.game.requests import Request, Unfit
from pbm_emergo.game.words import Known
from pbm_emergo.rules.reasons import Reason

__all__ = ["Arguments", "Command", "Request", "Unfit", "UsageError"]

R = TypeVar("R", bound=Request)


class UsageError(Unfit):
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

    def request(self, args: Arguments) -> Request:
        """The request of arguments that fit the command's grammar (see
        :meth:`check_arguments`), bound to it (:meth:`bind`); :class:`Unfit` when a value
        is wrong."""
        raise NotImplementedError

    @classmethod
    def made(cls, kind: type[R], **fields: Any) -> R:
        """A request of ``kind`` from this command: ``fields`` and the command's words and
        usage."""
        return kind(command=cls.name, usage=cls.usage(), **fields)

    @classmethod
    def bind(cls, words: list[str], known: Known | None = None) -> Arguments:
        """``words``, checked by :meth:`check_arguments`, bound to the command's grammar."""
        return Arguments.bind(cls.name, cls.grammar, words, known)

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
        """Raise a usage error unless ``args`` fit the command (checked before
        :meth:`request`)."""
        error = cls.misread(args)
        if error is not None:
            raise error
        if not cls.arity_fits(len(args)):
            raise cls.usage_error()

    @classmethod
    def usage(cls) -> str:
        return f"{cls.name} {cls.grammar.usage}".rstrip()

    @classmethod
    def usage_error(cls, reason: str | Reason | None = None) -> UsageError:
        # ``needs``: the command's name when the reason is the general one, which the shell
        # words in the reader's language.
        return UsageError(
            reason or f"The command {cls.name} needs these arguments: {cls.usage()}.",
            template="error/usage.txt.j2",
            usage=cls.usage(),
            needs=None if reason else cls.name,
        )
