"""``emergo preview board[#n] MOVE ...``: the board after trying moves; nothing is saved."""

from __future__ import annotations

from typing import Any

from pbm_emergo.app.boards import side_label
from pbm_emergo.app.play import moves_in_lines
from pbm_emergo.commands.base import Arguments, Command, Context, Refused, Result
from pbm_emergo.commands.grammar import BOARD, WORD, Grammar, named, repeated
from pbm_emergo.db import games
from pbm_emergo.rules import AmbiguousMoveError, IllegalMoveError, MoveError, render_board
from pbm_emergo.views.picture import board_picture
from pbm_emergo.views.templating import render, render_html

MAX_PREVIEW_MOVES = 30


class PreviewCommand(Command):
    name = "emergo preview"
    grammar = Grammar(
        named(BOARD, "board[#n]"), repeated(named(WORD, "MOVE"), 1, MAX_PREVIEW_MOVES)
    )
    description = "the board after trying these moves (from move n if given); nothing is saved"
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        board, upto = args.board()
        number = board.number
        game = games.load_game(ctx.session, board, upto=upto)
        start = game.position.ply
        tried: list[str] = []
        for text in args.words_of("move"):
            position = game.position
            try:
                tried.append(str(game.play(text)))
            except MoveError as err:
                details: dict[str, Any] = {}
                if isinstance(err, IllegalMoveError | AmbiguousMoveError):
                    legal = position.legal_moves()
                    details = {
                        "legal_lines": moves_in_lines(legal),
                        "legal_count": len(legal),
                        "capture_size": position.capture_size(),
                    }
                else:
                    details = {"legal_lines": [], "legal_count": 0, "capture_size": 0}
                raise Refused(
                    f"Preview of board {number}: {text} cannot be move {position.ply + 1}.",
                    board=number,
                    template="error/illegal_move.txt.j2",
                    why=str(err),
                    board_text=render_board(
                        position, board.white_player.userid, board.black_player.userid
                    ),
                    **details,
                ) from None
        outcome = game.outcome()
        position = game.position
        if outcome is None:
            status = (
                f"Then it would be {board.player_of(position.to_move).userid}'s turn "
                f"({side_label(position.to_move)}): move {position.ply + 1}."
            )
        elif outcome.winner is None:
            status = f"Then the game would be a draw ({outcome.termination})."
        else:
            winner = board.player_of(outcome.winner).userid
            status = f"Then {winner} would win ({outcome.termination})."
        return Result(
            summary=f"previewed {' '.join(tried)} on board {number}",
            answer=render(
                "preview.txt.j2",
                number=number,
                start=start,
                current=board.ply,
                tried=tried,
                status=status,
                board=render_board(position, board.white_player.userid, board.black_player.userid),
            ),
            answer_subject=f"Emergo Board {number} preview",
            answer_board=number,
            answer_html=render_html(
                "preview.html.j2",
                number=number,
                white=board.white_player.userid,
                black=board.black_player.userid,
                start=start,
                current=board.ply,
                tried=tried,
                status=status,
                picture=board_picture(position, tried[-1] if tried else None),
            ),
        )
