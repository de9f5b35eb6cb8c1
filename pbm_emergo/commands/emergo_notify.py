"""``emergo notify userid password [board ...]``: toggle the final board mail of every
finished game on the server, or of those boards only."""

from __future__ import annotations

from pbm_emergo.app.social import toggle_notifications, watchable_board
from pbm_emergo.commands.base import Arguments, Command, Context, Result
from pbm_emergo.commands.grammar import BOARD, PASSWORD, USERID, Grammar, repeated


class NotifyCommand(Command):
    name = "emergo notify"
    grammar = Grammar(USERID, PASSWORD, repeated(BOARD, 0))
    description = "toggle the final board mail of every finished game (or of those boards)"
    details = (
        "Without boards: turns on (or, sent again, off) the final board mail of every game "
        "that ends on this server, including games started later. With board numbers: "
        "turns it on or off for each of those boards (active boards only). You need not "
        "play on them; your own games' board mails come anyway."
    )
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        # Word by word, as written: a word that is no number is refused before a later
        # board is looked up, and a missing board before a later word that is no number.
        numbers: list[int] = []
        for word in args.words_of("board"):
            if not (word.isascii() and word.isdigit()):
                raise self.usage_error(
                    f"'{word[:40]}' is not a board number: emergo notify USERID PASSWORD "
                    "[BOARD ...]."
                )
            numbers.append(watchable_board(ctx, word))
        return toggle_notifications(ctx, args.login(), numbers)
