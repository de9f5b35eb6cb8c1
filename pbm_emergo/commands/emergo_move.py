"""``emergo move board userid password MOVE[#n]``: play a move, or resign, offer or answer
a draw, ask to take a move back. ``emergo resign board userid password`` is a short form.

The move number guard ``#n`` takes the move only as move n of the game (both players'
moves counted); otherwise nothing changes and the reply names the move number due.
"""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.game.requests import MoveRequest


def move_request(command: type[Command], args: Arguments, move: str) -> MoveRequest:
    """The request to play ``move`` on the board the arguments name."""
    board = args.board()
    userid, password = args.login()
    return command.made(
        MoveRequest, board=board.number, upto=board.upto, userid=userid, password=password,
        move=move,
    )


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

    def request(self, args: Arguments) -> MoveRequest:
        return move_request(type(self), args, args.word("move"))


class ResignCommand(Command):
    name = "emergo resign"
    grammar = Grammar(BOARD, USERID, PASSWORD)
    description = "resign the game on that board"
    section = "emergo"

    def request(self, args: Arguments) -> MoveRequest:
        return move_request(type(self), args, "resign")
