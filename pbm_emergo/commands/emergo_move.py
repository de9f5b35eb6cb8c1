"""``emergo move board userid password MOVE[#n]``: play a move, or resign, offer or answer
a draw, ask to take a move back. ``emergo resign board userid password`` is a short form.

The move number guard ``#n`` takes the move only as move n of the game (both players'
moves counted); otherwise nothing changes and the reply names the move number due.
"""

from __future__ import annotations

from pbm_emergo.app.play import play
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.db.models import Board


def play_on_board(args: Arguments, move: str) -> Result:
    """The board, then the login, then the move: in that order a player sees the refusals."""
    userid = args.word("userid")

    def number_after_the_board(board: Board, upto: int) -> str:
        return (
            f"Write the move number after the move, not after the board: "
            f"emergo move {board.number} {userid} PASSWORD MOVE#{upto}."
        )

    board, facts, _ = args.board_and_facts(alone=number_after_the_board)
    player = args.login(
        board=board.number, known=(board.white_player, board.black_player),
        # Players the board's read found without wrong passwords need no look-up.
        no_failures={board.white_player_id, board.black_player_id} - facts.failing,
    )
    return play(args.ctx, player, board, move, facts)


class MoveCommand(Command):
    name = "emergo move"
    grammar = Grammar(BOARD, USERID, PASSWORD, named(WORD, "MOVE[#n]"))
    description = "play MOVE (e4, e4-e5, e4xc4xc6), or resign, propose, accept, reject, undo"
    details = (
        "Plays MOVE on the board for USERID. Notation:\n"
        "  e4         enters a man (or the shadowpiece) on e4\n"
        "  e4-e5      moves a piece\n"
        "  e4xc4xc6   captures: the start cell, then every landing cell\n"
        "\n"
        "Add #n to play the move only as move n of the game (both players' moves "
        "counted):\n"
        "  emergo move 101 alice PASSWORD e4xc4#17\n"
        "\n"
        "Instead of a move: resign; propose (offer a draw); undo (ask to take back your "
        "last move); accept or reject (answer your opponent's offer or request).\n"
        "\n"
        "The body of the mail is a comment both players see."
    )
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        return play_on_board(args, args.word("move"))


class ResignCommand(Command):
    name = "emergo resign"
    grammar = Grammar(BOARD, USERID, PASSWORD)
    description = "resign the game on that board"
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        return play_on_board(args, "resign")
