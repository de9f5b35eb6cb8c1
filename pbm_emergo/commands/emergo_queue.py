"""``emergo queue board userid password MOVE[#n] | OPP=MINE ... | clear``: moves in advance.

A player whose turn it is not may queue the move they will make when their turn comes: it is
played at once after the opponent's move if it is legal then, marked ``(Auto)``
(:mod:`pbm_emergo.app.queue`). Or a conditional queue: items ``opponentmove=mymove``,
of which the one naming the opponent's actual move is played; any other move clears the
queue. A player has one queue per board; a later one replaces it, ``clear`` removes it. The
queue is shown to its owner only: in this command's answer and in ``emergo show`` from their
registered address, never in the board mails both players get.
"""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, WORD, Grammar, named, repeated
from pbm_emergo.game.requests import QueueRequest

# At most this many items in a conditional queue.
MAX_ITEMS = 20


class QueueCommand(Command):
    name = "emergo queue"
    grammar = Grammar(
        BOARD, USERID, PASSWORD,
        repeated(named(WORD, "MOVE[#n]"), 1, MAX_ITEMS, shown="MOVE[#n] | OPP=MINE ... | clear"),
    )
    description = "a move to be played for you when your turn comes (Auto); clear removes it"
    details = (
        "Only when it is not your turn.\n"
        "  emergo queue 101 bob PASSWORD d5\n"
        "plays d5 for bob at once after alice's next move, if it is legal then (marked "
        "(Auto)); if it is not, nothing is played, the queue is cleared and bob gets an "
        "error mail with the board.\n"
        "\n"
        "A conditional queue names answers to the opponent's possible moves:\n"
        "  emergo queue 101 bob PASSWORD e4xe6=d5 c3=g7\n"
        "plays d5 if alice plays e4xe6, g7 if she plays c3; any other move of hers clears "
        "the queue.\n"
        "\n"
        "One queue per player and board: a later one replaces it, and\n"
        "  emergo queue 101 bob PASSWORD clear\n"
        "removes it. Only you see your queue (in this reply and in 'emergo show' from your "
        "registered address); #n: the number your move will have."
    )
    section = "emergo"

    def request(self, args: Arguments) -> QueueRequest:
        userid, password = args.login()
        return self.made(
            QueueRequest, board=args.board(), userid=userid, password=password,
            moves=tuple(args.words_of("move")),
        )
