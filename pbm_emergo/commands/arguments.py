"""The arguments of one command line, bound to the parts of its command's grammar.

The dispatcher binds them (:meth:`Arguments.bind`) once the words fit the grammar, and hands
them to the command's ``process``. The command reads its words by part
(``args.word("move")``) and resolves the two parts that every game command shares, each
written here once: its board (:meth:`Arguments.board`) and its login
(:meth:`Arguments.login`). It calls them in its own order, which is the order in which a
player sees the refusals (a value checked before the password, a board looked up before
it); the game operations it then calls take the :class:`~pbm_emergo.db.models.Player`
logged in, so that the robots, the scheduler and the web view call them without a password.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

from pbm_emergo.app.accounts import authenticate
from pbm_emergo.app.boards import get_board, get_board_and_facts
from pbm_emergo.app.results import Refused
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.commands.grammar import Grammar, Kind, Part
from pbm_emergo.db.games import BoardFacts
from pbm_emergo.db.models import Board, Player

# The reason given when a board argument has a move number (``101#7``) where the command
# takes none: from the board and that number.
AloneReason = Callable[[Board, int], str]


@dataclass(frozen=True)
class Arguments:
    """The words after the command words, each with the part of the grammar it fills."""

    ctx: UnitOfWork
    name: str  # the command words ("emergo move")
    grammar: Grammar
    words: tuple[str, ...]
    spans: tuple[tuple[Part, int, int], ...]

    @classmethod
    def bind(
        cls, ctx: UnitOfWork, name: str, grammar: Grammar, words: Sequence[str]
    ) -> Arguments:
        """``words``, which fit ``grammar``, bound to its parts."""
        return cls(ctx, name, grammar, tuple(words), tuple(grammar.spans(len(words))))

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

    def board(self, *, alone: bool | AloneReason = False) -> tuple[Board, int | None]:
        """The board the BOARD part names, and the move number written after it
        (``101#7``), or a Refused (see :func:`pbm_emergo.app.boards.get_board`).

        ``alone``: the command takes no move number there; one written is refused with
        :meth:`alone_reason`, or the reason ``alone`` makes."""
        board, upto = get_board(self.ctx, self._board_word())
        self._check_alone(board, upto, alone)
        return board, upto

    def board_and_facts(
        self, *, alone: bool | AloneReason = False
    ) -> tuple[Board, BoardFacts, int | None]:
        """As :meth:`board`, with the facts read beside it (see
        :func:`pbm_emergo.app.boards.get_board_and_facts`)."""
        board, facts, upto = get_board_and_facts(self.ctx, self._board_word())
        self._check_alone(board, upto, alone)
        return board, facts, upto

    def alone_reason(self, board: Board) -> str:
        """Why a move number after the board is refused where the command takes none:
        the command as it is written, the board number alone."""
        after = [p.usage.upper() for p in self._parts_after(Kind.BOARD) if p.usage]
        return f"Write the board number alone: {' '.join([self.name, str(board.number), *after])}."

    def _board_word(self) -> str:
        return self._word_of_kind(Kind.BOARD)

    def _check_alone(self, board: Board, upto: int | None, alone: bool | AloneReason) -> None:
        if upto is None or alone is False:
            return
        reason = alone(board, upto) if callable(alone) else self.alone_reason(board)
        raise Refused(reason, board=board.number)

    # --- the login ----------------------------------------------------------------------

    def login(
        self,
        *,
        board: int | None = None,
        known: Sequence[Player] = (),
        no_failures: Collection[int] = (),
    ) -> Player:
        """The player whose userid and password the grammar's login names, if the password
        is theirs; otherwise a Refused, the failure counted once (see
        :func:`pbm_emergo.app.accounts.authenticate`, which takes the options)."""
        if self.grammar.login is None:
            raise TypeError(f"{self.name} has no login")
        userid_at, password_at = self.grammar.login
        return authenticate(
            self.ctx, self.words[userid_at], self.words[password_at],
            board=board, known=known, no_failures=no_failures,
        )

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
