"""``emergo subscribe board|all userid password`` (``emergo sub``): watch a board's mails,
or every board's, as a spectator."""

from __future__ import annotations

from pbm_emergo.commands.base import Arguments, Command
from pbm_emergo.commands.grammar import PASSWORD, USERID, WORD, Grammar, named
from pbm_emergo.commands.reasons import unfit
from pbm_emergo.game.requests import SubscriptionRequest, Unfit, not_a_board, parse_board_ref

ALL = "all"


def board_target(word: str, command: str) -> int | None:
    """The board number a ``board|all`` argument names (None: all); :class:`Unfit` for
    anything else."""
    if word.lower() == ALL:
        return None
    if not (word.isascii() and word.isdigit()):  # int() takes other scripts' digits
        raise Unfit(unfit("board_or_all", command=command))
    ref = parse_board_ref(word)
    if ref is None:  # too many digits
        raise Unfit(not_a_board(word))
    return ref[0]


def subscription(
    command: type[Command], args: Arguments, *, subscribe: bool
) -> SubscriptionRequest:
    """The request to subscribe to (or unsubscribe from) the board the arguments name (a
    refusal names the command in full, ``emergo subscribe`` for ``emergo sub``)."""
    full = "emergo subscribe" if subscribe else "emergo unsubscribe"
    number = board_target(args.word("board"), full)
    userid, password = args.login()
    return command.made(
        SubscriptionRequest, board=number, userid=userid, password=password,
        subscribe=subscribe,
    )


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

    def request(self, args: Arguments) -> SubscriptionRequest:
        return subscription(type(self), args, subscribe=True)



class SubCommand(SubscribeCommand):
    name = "emergo sub"
    description = "the same as emergo subscribe"
    listed = False
