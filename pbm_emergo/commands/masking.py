"""What of a command may be shown: only the words the server recognises as not secret.

A password can sit anywhere a player types it by mistake (``emergo move 101 PASSWORD alice
e4``, ``signup erin erin@example.org PASSWORD``, alone on a line of a ``multiple`` body, as the
whole Subject), so masking by position cannot be trusted. Here every word of a command line
is shown only when it is recognised as something that is not a secret:

- the command's own words (``emergo move``, ``change password``);
- a reserved word (filters, keywords such as ``resign`` or ``all``), an option
  (``-unrated``, ``--nagtime=3``), move notation (``e4xc4xc6#17``);
- a board number that exists, a userid that exists;
- a word too short to be a password.

Every other word becomes ``********``, and so does every word at a place the command's
grammar gives a secret (:attr:`pbm_emergo.commands.grammar.Grammar.secret_positions`),
whatever it looks like. So that an error shows the typo it is about, two more words are
shown: a mistyped command word (``emergo mvoe``), read as the command it most likely meant,
whose grammar then says where the password is; and a userid that does not exist at a
userid's place of a command that takes no secret at all (``emergo challenge carol
robot9``), once the worker has checked that it is not the sender's password
(:func:`unchecked_userids`, :attr:`~pbm_emergo.game.words.Known.not_passwords`: a player who
puts the password in the wrong place of such a command would see it quoted otherwise).
:func:`mask_line` does this once on receipt (the listener stores and logs its result, with
no such word checked) and for every echo of a command line; :func:`scrub` also takes those
words, and any password the server verified, out of the texts of the replies, so that an
error message quoting an argument cannot leak one either.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from pbm_emergo.commands import registry
from pbm_emergo.commands.grammar import Kind
from pbm_emergo.game.words import (
    MASK,
    MIN_PASSWORD,
    RESERVED_USERIDS,
    USERID_PATTERN,
    Known,
    Lookup,
)

# Echoed command lines are shortened to this many characters.
MAX_ECHO_CHARS = 200

# Move notation (syntax only), with the optional "#n" move-number guard; also a conditional
# queue item, the opponent's move "=" the answer ("e4xe6=d5").
_NOTATION = r"[a-i][1-9](?:[-x:][a-i][1-9])*x?"
_MOVE = re.compile(rf"{_NOTATION}(?:={_NOTATION})?(?:#[0-9]{{1,5}})?", re.IGNORECASE)
_OPTION = re.compile(r"--?([a-z]+)(?:=([a-z0-9]{1,12}))?", re.IGNORECASE)
OPTION_NAMES = frozenset(
    {"rated", "unrated", "blocked", "nagtime", "forfeittime", "totaltime"}
    | {"timebank", "increment", "weekends"}
)
# A board number, optionally with a move number ("101", "101#7").
_BOARD = re.compile(r"([0-9]{1,9})(?:#[0-9]{1,5})?")


def _keywords() -> frozenset[str]:
    words = set(RESERVED_USERIDS)
    for command in registry.all_commands():
        words.update(command.name.split())
    return frozenset(words)


_KEYWORDS: frozenset[str] | None = None


def keywords() -> frozenset[str]:
    """Command words and reserved words: never secrets."""
    global _KEYWORDS
    if _KEYWORDS is None:
        _KEYWORDS = _keywords()
    return _KEYWORDS


def _close(typed: str, word: str) -> bool:
    return typed == word or difflib.SequenceMatcher(None, typed, word).ratio() >= registry.NEAR


def reading(words: list[str]) -> tuple[int, tuple[int, ...], frozenset[int]]:
    """How masking reads a command line: how many of ``words`` are command words, the
    places of the secrets after them, and the places where a word written as a userid is
    shown even when no such player exists (the fixed userid places of a command that takes
    no secret). A line that names no command is read as the command it most likely meant
    when each of its first words is near that command's (a typo such as ``emergo mvoe``);
    otherwise no word of it is a command word."""
    command, used = registry.lookup(words)
    if command is None:
        meant = registry.nearest(words)
        command = registry.by_name().get(meant or "")
        if command is None:
            return 0, (), frozenset()
        names = command.name.split()
        typed = [w.lower() for w in words[: len(names)]]
        if len(typed) < len(names) or not all(map(_close, typed, names)):
            return 0, (), frozenset()
        used = len(names)
    grammar = command.grammar
    if grammar.secret_positions:
        return used, grammar.secret_positions, frozenset()
    userid_places: set[int] = set()
    for place, part in enumerate(grammar.parts):
        if not part.fixed:
            break
        if part.kind is Kind.USERID:
            userid_places.add(place)
    return used, (), frozenset(userid_places)


def candidates(lines: Iterable[str]) -> tuple[set[str], set[int]]:
    """The words of ``lines`` that could be userids, and the board numbers they could name,
    that must be looked up to be shown (a shorter word is shown anyway; a word in one of
    its command's password places is never shown, so not looked up)."""
    userids: set[str] = set()
    boards: set[int] = set()
    for line in lines:
        words = line.split()
        used, secret, _ = reading(words)
        for place, word in enumerate(words):
            if len(word) < MIN_PASSWORD or (place >= used and place - used in secret):
                continue
            if USERID_PATTERN.fullmatch(word):
                if word.lower() not in keywords():
                    userids.add(word.lower())
            else:
                match = _BOARD.fullmatch(word)
                if match:
                    boards.add(int(match[1]))
    return userids, boards


def is_public(word: str, known: Known) -> bool:
    """Whether ``word`` is recognised as not secret (see the module docstring)."""
    if len(word) < MIN_PASSWORD:
        return True
    lower = word.lower()
    if lower in keywords() or lower in known.userids:
        return True
    if _MOVE.fullmatch(word):
        return True
    option = _OPTION.fullmatch(word)
    if option and option[1].lower() in OPTION_NAMES:
        return True
    board = _BOARD.fullmatch(word)
    return bool(board and int(board[1]) in known.boards)


def mask_words(words: list[str], known: Known) -> list[str]:
    """``words`` (one command line) with every word not recognised as public masked."""
    used, secret, userid_places = reading(words)
    return words[:used] + [
        w
        if i not in secret
        and (is_public(w, known) or (i in userid_places and w in known.not_passwords))
        else MASK
        for i, w in enumerate(words[used:])
    ]


def unchecked_userids(lines: Iterable[str], known: Known) -> list[str]:
    """The words of ``lines`` written as userids at a userid's place of a command that
    takes no password, that name no player: shown once checked not to be the sender's
    password (:attr:`~pbm_emergo.game.words.Known.not_passwords`), in the order written,
    each once."""
    found: list[str] = []
    for line in lines:
        words = line.split()
        used, _, userid_places = reading(words)
        for place in sorted(userid_places):
            word = words[used + place] if used + place < len(words) else ""
            if (
                USERID_PATTERN.fullmatch(word)
                and not is_public(word, known)
                and word not in known.not_passwords
                and word not in found
            ):
                found.append(word)
    return found


def mask_line(line: str, known: Known) -> str:
    """The command line as it may be shown, stored or logged."""
    text = " ".join(mask_words(line.split(), known))
    if len(text) > MAX_ECHO_CHARS:
        text = text[: MAX_ECHO_CHARS - 3] + "..."
    return text


# What may stand before a command line copied into a comment: quote marks, and a header
# label such as "Subject:", "Betreff:" or the French "Objet :".
_COPIED_PREFIX = re.compile(r"^[\s>*]*(?:[^\W\d_]{2,20}\s?:\*?\s+)?")


def mask_commands(text: str, known: Known) -> str:
    """``text`` (a comment) with every line that is a command carrying a password masked
    as :func:`mask_line` masks it: a copy of an earlier command mail (``Betreff: emergo move
    101 alice PASSWORD e4``) or a command written into the body by mistake carries a
    password the server never verified in this mail, and the comment goes to others."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        prefix = _COPIED_PREFIX.match(line)
        start = prefix.end() if prefix else 0
        words = line[start:].split()
        command, _ = registry.lookup(words)
        if command is not None and command.grammar.secret_positions:
            lines[index] = line[:start] + " ".join(mask_words(words, known))
    return "\n".join(lines)


def hidden_words(lines: Iterable[str], known: Known) -> set[str]:
    """The words of ``lines`` that :func:`mask_line` hides (the ones that may be secrets)."""
    hidden: set[str] = set()
    for line in lines:
        words = line.split()
        shown = mask_words(words, known)
        hidden.update(w for w, m in zip(words, shown, strict=True) if m == MASK)
    return hidden


def known_in(lookup: Lookup | None, lines: Iterable[str]) -> Known:
    """``lookup(lines)``, or nothing known without a database."""
    return lookup(lines) if lookup is not None else Known()
