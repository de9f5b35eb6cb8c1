"""``emergo show board[#n] ...`` and ``emergo show userid ... [all|active|inactive|next]``."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import WORD, Grammar, named, optional, repeated
from pbm_emergo.game.requests import BoardRef, ShowRequest, parse_board_ref

FILTERS = ("all", "active", "inactive", "next")
# A filter word after the userids: which of their boards.
FILTER = optional(named(WORD, "|".join(FILTERS)))


def split_filter(args: list[str], default: str = "active") -> tuple[list[str], str]:
    """The arguments without a trailing filter word, and the filter."""
    if args and args[-1].lower() in FILTERS:
        return args[:-1], args[-1].lower()
    return args, default


class ShowCommand(Command):
    name = "emergo show"
    grammar = Grammar(
        repeated(named(WORD, "board[#n]"), shown="board[#n] ... | userid ..."), FILTER
    )
    description = "the board(s), as of move n if given; or the boards of those players"
    details = (
        "'emergo show 101' sends board 101 with all its moves; 'emergo show 101#12' shows it "
        "as it was after move 12. 'emergo show alice' sends alice's active boards; add all, "
        "inactive (finished games) or next (the boards where it is alice's turn)."
    )
    section = "emergo"

    def request(self, args: Arguments) -> ShowRequest:
        # Board numbers and userids mixed, then maybe a filter: read word by word.
        words, which = split_filter(list(args))
        if not words:
            raise self.usage_error()
        targets: list[BoardRef | str] = []
        for word in words:
            ref = parse_board_ref(word)
            targets.append(word if ref is None else BoardRef(*ref))
        return self.made(ShowRequest, targets=tuple(targets), which=which)
