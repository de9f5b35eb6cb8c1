"""``emergo moves board``: the legal moves of the player to move."""

from __future__ import annotations

from pbm_emergo.app.boards import load_state, result_sentence, side_label
from pbm_emergo.app.play import moves_in_lines
from pbm_emergo.commands.base import Arguments, Command, Context, Refused, Result
from pbm_emergo.commands.grammar import BOARD, Grammar
from pbm_emergo.db import games
from pbm_emergo.db.models import BOARD_ACTIVE
from pbm_emergo.views.templating import render


class MovesCommand(Command):
    name = "emergo moves"
    grammar = Grammar(BOARD)
    description = "the legal moves of the player to move"
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        board, upto = args.board()
        if upto is None:
            if board.status != BOARD_ACTIVE:
                state = load_state(ctx.session, board)
                raise Refused(
                    f"The game on board {board.number} is over: {result_sentence(state)}",
                    board=board.number,
                )
            position = games.current_position(board)  # the cache: no replay needed
        else:
            position = games.load_game(ctx.session, board, upto=upto).position
        legal = position.legal_moves()
        player = board.player_of(position.to_move)
        return Result(
            summary=f"sent the {len(legal)} legal moves on board {board.number}",
            answer=render(
                "moves.txt.j2",
                number=board.number,
                move_number=position.ply + 1,
                userid=player.userid,
                side=side_label(position.to_move),
                count=len(legal),
                lines=moves_in_lines(legal),
                capture_size=position.capture_size(),
                in_hand=position.in_hand(position.to_move),
            ),
            answer_subject=f"Emergo Board {board.number} moves",
            answer_board=board.number,
        )
