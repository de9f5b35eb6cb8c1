"""``emergo subscribe board|all userid password`` and ``emergo unsubscribe board|all userid
password`` (``sub`` / ``unsub``): watch a board's mails, or every board's, as a spectator."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Refused, Result
from pbm_emergo.db import spectators
from pbm_emergo.db.models import BOARD_ACTIVE, Board, Player
from pbm_emergo.game.accounts import authenticate
from pbm_emergo.game.boards import get_board
from pbm_emergo.views.templating import render

ALL = "all"


def boards_text(numbers: list[int | None]) -> str:
    """``every board``, ``board 101``, ``boards 101, 105``; ``no board``."""
    if None in numbers:
        return "every board"
    if not numbers:
        return "no board"
    if len(numbers) == 1:
        return f"board {numbers[0]}"
    return "boards " + ", ".join(str(n) for n in numbers)


def _target(ctx: Context, word: str, command: str) -> Board | None:
    """The board a ``board|all`` argument names (None: all); a Refused for anything
    else."""
    if word.lower() == ALL:
        return None
    if not word.isdigit():
        raise Refused(
            f"The command {command} needs a board number or 'all' first: "
            f"{command} 101 USERID PASSWORD."
        )
    board, upto = get_board(ctx, word)
    if upto is not None:
        raise Refused(
            f"Write the board number alone: {command} {board.number} USERID PASSWORD."
        )
    return board


def summary_answer(ctx: Context, player: Player, watched: list[int | None], headline: str) -> str:
    return render(
        "subscriptions.txt.j2",
        headline=headline,
        userid=player.userid,
        watched=boards_text(watched),
        every=None in watched,
    )


class SubscribeCommand(Command):
    name = "emergo subscribe"
    argument_description = "board|all userid password"
    description = "get that board's mails (all: every board's) as a spectator (emergo sub)"
    details = (
        "Subscribes you to a board: you get each of its board mails, the final one too. "
        "'all' subscribes you to every board, also boards started later. The reply lists "
        "your subscriptions. 'emergo unsubscribe' stops them; 'emergo sub' is short for it."
    )
    section = "emergo"
    secret_args = (2,)
    credential_args = (1, 2)
    min_args = max_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        board = _target(ctx, args[0], "emergo subscribe")
        number = board.number if board is not None else None
        player = authenticate(ctx, args[1], args[2], board=number)
        watched = spectators.subscriptions_of(ctx.session, player.id)
        if board is not None:
            if board.side_of(player) is not None:
                raise Refused(
                    f"{player.userid} plays on board {number} and gets its mails anyway.",
                    board=number,
                )
            if board.status != BOARD_ACTIVE:
                raise Refused(
                    f"The game on board {number} is over: there is nothing more to watch "
                    f"('emergo show {number}' sends the board).",
                    board=number,
                )
        if number in watched or (number is not None and None in watched):
            headline = f"{player.userid} is already subscribed to {boards_text([number])}."
        else:
            player_id, now = player.id, ctx.now

            def store(session: Session) -> None:
                spectators.add_subscription(session, player_id, number, now)

            ctx.write(store)
            watched = sorted(
                [*watched, number], key=lambda n: (n is not None, n or 0)
            )
            headline = f"{player.userid} is now subscribed to {boards_text([number])}."
        return Result(
            summary=f"subscribed {player.userid} to {boards_text([number])}",
            answer=summary_answer(ctx, player, watched, headline),
            answer_subject=f"Emergo subscriptions of {player.userid}",
        )


class UnsubscribeCommand(Command):
    name = "emergo unsubscribe"
    argument_description = "board|all userid password"
    description = "stop that board's mails (all: every subscription) (emergo unsub)"
    details = (
        "Ends a subscription (see emergo subscribe). 'all' ends every one of them: the "
        "one to every board and those to single boards. 'emergo unsub' is short for it."
    )
    section = "emergo"
    secret_args = (2,)
    credential_args = (1, 2)
    min_args = max_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        board = _target(ctx, args[0], "emergo unsubscribe")
        number = board.number if board is not None else None
        player = authenticate(ctx, args[1], args[2], board=number)
        watched = spectators.subscriptions_of(ctx.session, player.id)
        if number is None:
            dropped = list(watched)
        elif number in watched:
            dropped = [number]
        elif None in watched:
            raise Refused(
                f"{player.userid} is subscribed to every board, so to board {number} too: "
                f"'emergo unsubscribe all {player.userid} PASSWORD' ends that.",
                board=number,
            )
        else:
            raise Refused(
                f"{player.userid} is not subscribed to board {number}.", board=number
            )
        if dropped:
            player_id = player.id

            def store(session: Session) -> None:
                spectators.remove_subscriptions(session, player_id, dropped)

            ctx.write(store)
        left = [n for n in watched if n not in dropped]
        headline = (
            f"{player.userid} is no longer subscribed to {boards_text(dropped)}."
            if dropped
            else f"{player.userid} was not subscribed to any board."
        )
        return Result(
            summary=f"unsubscribed {player.userid} from {boards_text(dropped)}",
            answer=summary_answer(ctx, player, left, headline),
            answer_subject=f"Emergo subscriptions of {player.userid}",
        )


class SubCommand(SubscribeCommand):
    name = "emergo sub"
    description = "the same as emergo subscribe"
    listed = False


class UnsubCommand(UnsubscribeCommand):
    name = "emergo unsub"
    description = "the same as emergo unsubscribe"
    listed = False
