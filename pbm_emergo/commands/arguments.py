"""The arguments of one command line, bound to the parts of its command's grammar.

The command layer binds them (:meth:`Arguments.bind`) once the words fit the grammar, and
hands them to the command's ``request``, which reads its words by part
(``args.word("move")``), its board (:meth:`Arguments.board`: the number parsed) and its
login (:meth:`Arguments.login`: the userid and the password), and makes its request value
of them (:mod:`pbm_emergo.game.requests`). Nothing here reads a database: the shell finds
the board, verifies the password, and refuses what does not exist.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pbm_emergo.commands.grammar import Grammar, Kind, Part
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.requests import BoardRef, Password, Unfit, not_a_board, parse_board_ref
from pbm_emergo.game.words import Known
from pbm_emergo.rules.reasons import Reason


@dataclass(frozen=True)
class Arguments:
    """The words after the command words, each with the part of the grammar it fills;
    ``known``: the userids and boards of the mail's words found to exist (what masking
    shows)."""

    name: str  # the command words ("emergo move")
    grammar: Grammar
    words: tuple[str, ...]
    spans: tuple[tuple[Part, int, int], ...]
    known: Known = Known()

    @classmethod
    def bind(
        cls, name: str, grammar: Grammar, words: Sequence[str], known: Known | None = None
    ) -> Arguments:
        """``words``, which fit ``grammar``, bound to its parts."""
        return cls(
            name, grammar, tuple(words), tuple(grammar.spans(len(words))), known or Known()
        )

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    # --- words by part ----------------------------------------------------------------

    def words_of(self, key: str) -> list[str]:
        """The words of every part of that key (see :attr:`Part.key`), in order; none for
        an optional part left out."""
        found = [(part, start, end) for part, start, end in self.spans if part.key == key]
        if not found:
            raise KeyError(f"{self.name} has no argument {key!r}")
        return [word for _, start, end in found for word in self.words[start:end]]

    def word(self, key: str) -> str:
        """The one word of the part of that key."""
        found = self.words_of(key)
        if len(found) != 1:
            raise KeyError(f"{self.name} has no single word for {key!r}")
        return found[0]

    def optional_word(self, key: str) -> str | None:
        """The word of an optional part, or None when it was left out."""
        found = self.words_of(key)
        return found[0] if found else None

    # --- the board ----------------------------------------------------------------------

    def board(self) -> BoardRef:
        """The board the BOARD part names, with the move number written after it
        (``101#7``); a word that is no board number is :class:`Unfit`. Whether the board
        exists, and has that move, the shell finds out."""
        word = self._word_of_kind(Kind.BOARD)
        ref = parse_board_ref(word)
        if ref is None:
            raise Unfit(not_a_board(word))
        number, upto = ref
        # The reason is needed only where a move number was written.
        return BoardRef(number, upto, "" if upto is None else self.alone_reason(number))

    def alone_reason(self, number: int) -> Reason:
        """Why a move number after the board is refused where the command takes none:
        the command as it is written, the board number alone."""
        after = [p.usage.upper() for p in self._parts_after(Kind.BOARD) if p.usage]
        return unfit("board_alone", command=" ".join([self.name, str(number), *after]))

    # --- the login ----------------------------------------------------------------------

    def login(self) -> tuple[str, Password]:
        """The userid and password of the grammar's login, which the shell verifies."""
        if self.grammar.login is None:
            raise TypeError(f"{self.name} has no login")
        userid_at, password_at = self.grammar.login
        return self.words[userid_at], Password(self.words[password_at])

    # --- helpers ------------------------------------------------------------------------

    def _word_of_kind(self, kind: Kind) -> str:
        for part, start, end in self.spans:
            if part.kind is kind and end == start + 1:
                return self.words[start]
        raise KeyError(f"{self.name} has no {kind.value} argument")

    def _parts_after(self, kind: Kind) -> list[Part]:
        parts = [part for part, _, _ in self.spans]
        first = next(i for i, part in enumerate(parts) if part.kind is kind)
        return parts[first + 1 :]
