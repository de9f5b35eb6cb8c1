"""The argument grammar of the mail commands: what each word after the command words is.

A command declares its arguments once, as a :class:`Grammar` of :class:`Part` values
(``Grammar(BOARD, USERID, PASSWORD, named(WORD, "MOVE[#n]"))``). Everything that depends on the
shape of a command line is derived from that one declaration, here:

- the arity (:attr:`Grammar.least`, :attr:`Grammar.most`), which is checked before a
  command makes its request and which decides whether a Subject or a body line is a
  command;
- the positions that hold secrets (:attr:`Grammar.secret_positions`), which masking hides
  even when the word there looks public;
- the userid and password of a login (:attr:`Grammar.login`), whose password the shell's
  dispatcher checks ahead of a write transaction;
- the usage text shown by ``help`` and by usage errors (:attr:`Grammar.usage`);
- which words of a command line fill which part (:meth:`Grammar.spans`), which the
  command reads through :class:`~pbm_emergo.commands.arguments.Arguments`: its words by
  part, its board parsed and its login, made into its request.

Secrets and the login must sit at fixed positions: a part after one of variable length
cannot be a secret, which :class:`Grammar` refuses when it is declared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum

# A part's key: the first word of its name (``MOVE[#n]`` -> ``move``, ``N|off`` -> ``n``).
KEY = re.compile(r"-*([A-Za-z0-9_]+)")


class Kind(Enum):
    """What an argument is, as far as the shape of a command line is concerned."""

    WORD = "word"  # anything public: a keyword, a number, an address, a move
    BOARD = "board"  # a board number, maybe with a move number ("101", "101#7")
    USERID = "userid"  # an existing player's userid
    PASSWORD = "password"  # the password of the USERID before it: a login
    NEW_PASSWORD = "new password"  # a password being set: a secret, checked by nobody yet
    SECRET = "secret"  # another secret (a confirmation code)


# The kinds whose words are never shown.
SECRET_KINDS = frozenset({Kind.PASSWORD, Kind.NEW_PASSWORD, Kind.SECRET})


@dataclass(frozen=True)
class Part:
    """One argument of a command, or a run of arguments of one kind.

    ``least`` to ``most`` words (``most`` None: any number) fill it; ``shown``, when set,
    is its usage text instead of the one made from ``name``.
    """

    kind: Kind
    name: str
    least: int = 1
    most: int | None = 1
    shown: str | None = None

    @property
    def fixed(self) -> bool:
        """Whether the part always takes exactly one word."""
        return self.least == 1 and self.most == 1

    @property
    def key(self) -> str:
        """The name a command reads the part's words by: its name's first word, lower
        case (``--nagtime=DAYS`` -> ``nagtime``)."""
        match = KEY.match(self.name)
        return match[1].lower() if match else self.name

    @property
    def usage(self) -> str:
        if self.shown is not None:
            return self.shown
        if self.most == 1:
            return self.name if self.least else f"[{self.name}]"
        return f"{self.name} ..." if self.least else f"[{self.name} ...]"


BOARD = Part(Kind.BOARD, "board")
USERID = Part(Kind.USERID, "userid")
PASSWORD = Part(Kind.PASSWORD, "password")
NEW_PASSWORD = Part(Kind.NEW_PASSWORD, "password")
# A public word (a keyword, a number, an address, a move), given its name with `named`.
WORD = Part(Kind.WORD, "word")


def secret(name: str) -> Part:
    """A secret that is not a password (a confirmation code), shown in the usage as
    ``name``."""
    return Part(Kind.SECRET, name)


def named(part: Part, name: str) -> Part:
    """``part`` shown in the usage as ``name`` (``old``, ``u1``)."""
    return replace(part, name=name)


def optional(part: Part, shown: str | None = None) -> Part:
    """``part`` or nothing."""
    return replace(part, least=0, shown=shown)


def repeated(
    part: Part, least: int = 1, most: int | None = None, shown: str | None = None
) -> Part:
    """``least`` to ``most`` words of ``part``'s kind (``most`` None: any number)."""
    return replace(part, least=least, most=most, shown=shown)


def rest(shown: str = "") -> Part:
    """Any number of words that the command reads itself (by default not in the usage)."""
    return Part(Kind.WORD, "word", least=0, most=None, shown=shown)


class Grammar:
    """The arguments of one command, in order, and what follows from them."""

    def __init__(self, *parts: Part) -> None:
        self.parts = parts
        self.least = sum(p.least for p in parts)
        counts = [p.most for p in parts]
        self.most: int | None = (
            None if None in counts else sum(c for c in counts if c is not None)
        )
        secrets: list[int] = []
        login: tuple[int, int] | None = None
        place: int | None = 0  # the position of the part's first word, while fixed
        for index, part in enumerate(parts):
            if part.kind in SECRET_KINDS:
                # One word at a known place; an optional secret that is no login's
                # password (a private event's own password) may end the grammar.
                last_optional = (
                    index == len(parts) - 1 and part.most == 1 and part.kind is Kind.SECRET
                )
                if place is None or not (part.fixed or last_optional):
                    raise ValueError(
                        f"the secret part {part.name!r} needs a fixed position and one word"
                    )
                secrets.append(place)
                if (
                    part.kind is Kind.PASSWORD
                    and login is None
                    and index > 0
                    and parts[index - 1].kind is Kind.USERID
                    and parts[index - 1].fixed
                ):
                    login = (place - 1, place)
            place = place + 1 if place is not None and part.fixed else None
        if any(p.kind is Kind.PASSWORD for p in parts) and login is None:
            raise ValueError("a password part must follow the userid it logs in")
        self.secret_positions: tuple[int, ...] = tuple(secrets)
        self.login = login
        self.usage = " ".join(p.usage for p in parts if p.usage)

    def fits(self, count: int) -> bool:
        """Whether ``count`` arguments fit the grammar."""
        return count >= self.least and (self.most is None or count <= self.most)

    def spans(self, count: int) -> list[tuple[Part, int, int]]:
        """Which of ``count`` words (that fit) each part takes: (part, start, end). A part
        of variable length takes as many as it may, leaving the later parts their least."""
        spans: list[tuple[Part, int, int]] = []
        start = 0
        for index, part in enumerate(self.parts):
            later = sum(p.least for p in self.parts[index + 1 :])
            length = min(max(count - start - later, part.least), count - start)
            if part.most is not None:
                length = min(length, part.most)
            spans.append((part, start, start + length))
            start += length
        return spans

    def __repr__(self) -> str:
        return f"Grammar({', '.join(p.usage or p.name for p in self.parts)})"


# The grammar of a command that takes no arguments.
NOTHING = Grammar()
