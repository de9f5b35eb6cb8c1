"""``emergo show board[#n] ...`` and ``emergo show userid ... [all|active|inactive|next]``."""

from __future__ import annotations

from pbm_emergo.app.accounts import require_player
from pbm_emergo.app.boards import (
    board_html,
    board_link,
    board_view,
    get_board,
    load_state,
    parse_board_ref,
)
from pbm_emergo.app.queue import shown_queue
from pbm_emergo.commands.base import Arguments, Command, Context, Refused, Result
from pbm_emergo.commands.grammar import WORD, Grammar, named, optional, repeated
from pbm_emergo.db import games
from pbm_emergo.db.models import BOARD_ACTIVE, BOARD_FINISHED, Board, Player
from pbm_emergo.views.templating import render

FILTERS = ("all", "active", "inactive", "next")
# A filter word after the userids: which of their boards.
FILTER = optional(named(WORD, "|".join(FILTERS)))
MAX_BOARDS = 20


def split_filter(args: list[str], default: str = "active") -> tuple[list[str], str]:
    """The arguments without a trailing filter word, and the filter."""
    if args and args[-1].lower() in FILTERS:
        return args[:-1], args[-1].lower()
    return args, default


def boards_for(ctx: Context, player: Player, which: str) -> list[Board]:
    """A player's boards: all, active, inactive (finished) or next (their turn)."""
    if which == "all":
        return games.boards_of(ctx.session, player)
    if which == "inactive":
        return games.boards_of(ctx.session, player, BOARD_FINISHED)
    boards = games.boards_of(ctx.session, player, BOARD_ACTIVE)
    if which == "next":
        boards = [b for b in boards if b.to_move and b.player_of(b.to_move).id == player.id]
    return boards


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

    def process(self, ctx: Context, args: Arguments) -> Result:
        # Board numbers and userids mixed, then maybe a filter: read word by word.
        words, which = split_filter(list(args))
        if not words:
            raise self.usage_error()
        shown: list[tuple[Board, int | None]] = []
        for word in words:
            if parse_board_ref(word) is not None:
                shown.append(get_board(ctx, word))
                continue
            player = require_player(ctx, word)
            boards = boards_for(ctx, player, which)
            # A board of two of the players named is sent once.
            shown.extend((b, None) for b in boards if (b, None) not in shown)
        if not shown:
            raise Refused(f"There are no {which} boards for {' '.join(words)}.")
        if len(shown) > MAX_BOARDS:
            raise Refused(
                f"That is {len(shown)} boards; at most {MAX_BOARDS} are sent at once."
            )
        views = []
        for board, upto in shown:
            state = load_state(ctx.session, board)
            position = None if upto is None else games.load_game(ctx.session, board, upto).position
            link = board_link(ctx.config, board.number)
            # A player's queued moves, to that player only (commands/emergo_queue.py).
            queue = shown_queue(ctx, board, state) if upto is None else []
            views.append(
                board_view(
                    state, position=position, upto=upto, link=link,
                    now=ctx.now, queue=queue,
                )
            )
        if len(views) == 1:
            subject = views[0].subject
            board_number: int | None = shown[0][0].number
        else:
            subject = f"Emergo boards {', '.join(str(b.number) for b, _ in shown)}"
            board_number = None
        numbers = ", ".join(
            f"{b.number}#{upto}" if upto is not None else str(b.number) for b, upto in shown
        )
        return Result(
            summary=f"sent board{'s' if len(views) > 1 else ''} {numbers}",
            answer=render("show.txt.j2", boards=[v.text for v in views]),
            answer_subject=subject,
            answer_board=board_number,
            answer_html=board_html(subject, [v.html for v in views]),
        )
