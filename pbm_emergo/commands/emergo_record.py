"""``emergo record board``: the whole game record in notation."""

from __future__ import annotations

from pbm_emergo.app.boards import (
    at,
    load_state,
    move_rows,
    options_text,
    result_sentence,
    side_label,
)
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import BOARD, Grammar
from pbm_emergo.db.models import BOARD_ACTIVE
from pbm_emergo.views.templating import render


class RecordCommand(Command):
    name = "emergo record"
    grammar = Grammar(BOARD)
    description = "the whole game record in notation"
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        board, _ = args.board()  # a move number after it is let pass
        view = load_state(ctx.session, board)
        if board.status == BOARD_ACTIVE:
            # The stored position says whose turn it is; no replay needed.
            to_move = view.position.to_move
            state = (
                f"In progress: {board.player_of(to_move).userid} "
                f"({side_label(to_move)}) to play move {board.ply + 1}."
            )
        else:
            state = result_sentence(view)
        return Result(
            summary=f"sent the record of board {board.number}",
            answer=render(
                "record.txt.j2",
                number=board.number,
                white=board.white_player.userid,
                black=board.black_player.userid,
                options=options_text(view),
                started=at(board.created_at),
                finished=at(board.finished_at) if board.finished_at else None,
                state=state,
                rows=move_rows([m.notation for m in view.moves]),
            ),
            answer_subject=f"Emergo Board {board.number} record",
            answer_board=board.number,
        )
