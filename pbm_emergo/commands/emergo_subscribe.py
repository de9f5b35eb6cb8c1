"""``emergo subscribe board|all userid password`` (``emergo sub``): watch a board's mails,
or every board's, as a spectator."""

from __future__ import annotations

from pbm_emergo.app.boards import parse_board_ref
from pbm_emergo.app.social import subscribe, subscription_board
from pbm_emergo.commands.base import Arguments, Command, Context, Refused, Result
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named

ALL = "all"


def board_target(word: str, command: str) -> int | None:
    """The board number a ``board|all`` argument names (None: all); a Refused for anything
    else."""
    if word.lower() == ALL:
        return None
    if not (word.isascii() and word.isdigit()):  # int() takes other scripts' digits
        raise Refused(
            f"The command {command} needs a board number or 'all' first: "
            f"{command} 101 USERID PASSWORD."
        )
    ref = parse_board_ref(word)
    if ref is None:  # too many digits
        raise Refused(f"'{word[:40]}' is not a board number (boards are numbered from 101).")
    return ref[0]


class SubscribeCommand(Command):
    name = "emergo subscribe"
    grammar = Grammar(named(WORD, "board|all"), USERID, PASSWORD)
    description = "get that board's mails (all: every board's) as a spectator (emergo sub)"
    details = (
        "Subscribes you to a board: you get each of its board mails, the final one too. "
        "'all' subscribes you to every board, also boards started later. The reply lists "
        "your subscriptions. 'emergo unsubscribe' stops them; 'emergo sub' is short for it."
    )
    section = "emergo"

    def process(self, ctx: Context, args: Arguments) -> Result:
        number = board_target(args.word("board"), "emergo subscribe")
        board = subscription_board(ctx, number)
        return subscribe(ctx, args.login(board=number), board)


class SubCommand(SubscribeCommand):
    name = "emergo sub"
    description = "the same as emergo subscribe"
    listed = False
