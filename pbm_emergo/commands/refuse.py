"""``emergo accept userid password`` (accept every challenge, the default), ``emergo reject
userid password`` (refuse every challenge) and ``emergo limit userid password N|off``
(refuse challenges once you have N active boards). A refused challenge gets an error mail
to the challenger; the challenged player is not told."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Refused, Result
from pbm_emergo.db import challenges
from pbm_emergo.db.models import Player
from pbm_emergo.game.accounts import authenticate
from pbm_emergo.game.boards import parse_board_ref

MAX_LIMIT = 999


def check_challenge(ctx: Context, challenged: Player) -> None:
    """Raise the challenger's error if ``challenged`` refuses this challenge."""
    if challenged.refuses_challenges:
        raise Refused(
            f"{challenged.userid} does not accept challenges at the moment, so no board was "
            "started."
        )
    limit = challenged.board_limit
    if limit is not None and challenges.active_boards(ctx.session, challenged.id) >= limit:
        raise Refused(
            f"{challenged.userid} plays as many games as they want at the moment ({limit} "
            f"active board{'s' if limit != 1 else ''}), so no board was started; try again "
            "when one of them has ended."
        )


def policy_text(userid: str, refuses: bool, limit: int | None, active: int) -> str:
    if refuses:
        return f"{userid} refuses every challenge."
    if limit is None:
        return f"{userid} accepts every challenge."
    return (
        f"{userid} accepts challenges while they have fewer than {limit} active "
        f"board{'s' if limit != 1 else ''} (now {active})."
    )


class _PolicyCommand(Command):
    section = "emergo"
    secret_args = (1,)
    credential_args = (0, 1)
    min_args = max_args = 2

    def check_value(self, args: list[str]) -> None:
        """Raise a usage error if the arguments after the password are wrong."""

    def policy(self, player: Player, args: list[str]) -> tuple[bool, int | None]:
        raise NotImplementedError

    def process(self, ctx: Context, args: list[str]) -> Result:
        keyword = self.name.split()[-1]
        if keyword in ("accept", "reject") and args and parse_board_ref(args[0]) is not None:
            # `emergo accept 101 bob PASSWORD`: meant for a draw offer or a take-back.
            raise self.usage_error(
                f"To {keyword} a draw offer or a take-back request on a board, write "
                f"'emergo move {args[0]} USERID PASSWORD {keyword}'; 'emergo {keyword} "
                "USERID PASSWORD' is about challenges."
            )
        self.check_arity(args)
        self.check_value(args)
        player = authenticate(ctx, args[0], args[1])
        refuses, limit = self.policy(player, args)
        player_id = player.id

        def store(session: Session) -> None:
            challenges.set_policy(session, player_id, refuses=refuses, board_limit=limit)

        ctx.write(store)
        text = policy_text(
            player.userid, refuses, limit, challenges.active_boards(ctx.session, player.id)
        )
        return Result(
            summary=text.rstrip("."),
            answer=text
            + "\n\nA refused challenge gets an error mail to the challenger; you are not told.\n",
            answer_subject=f"Emergo challenges: {player.userid}",
        )


class AcceptCommand(_PolicyCommand):
    name = "emergo accept"
    argument_description = "userid password"
    description = "accept every challenge (the default)"
    details = (
        "Every challenge of you starts a board again (undoes emergo reject and emergo "
        "limit). To accept a draw offer or a take-back request on a board, use 'emergo "
        "move BOARD USERID PASSWORD accept'."
    )

    def policy(self, player: Player, args: list[str]) -> tuple[bool, int | None]:
        return False, None


class RejectCommand(_PolicyCommand):
    name = "emergo reject"
    argument_description = "userid password"
    description = "refuse every challenge (the challenger is told, you are not)"
    details = (
        "Every challenge of you is refused until you send 'emergo accept' or 'emergo "
        "limit': the challenger gets an error mail, you are not told. Your boards go on. "
        "To reject a draw offer or a take-back request on a board, use 'emergo move BOARD "
        "USERID PASSWORD reject'."
    )

    def policy(self, player: Player, args: list[str]) -> tuple[bool, int | None]:
        return True, player.board_limit


class LimitCommand(_PolicyCommand):
    name = "emergo limit"
    argument_description = "userid password N|off"
    description = "refuse challenges once you have N active boards; off: no limit"
    details = (
        f"Challenges of you are refused while you have N (0 to {MAX_LIMIT}) or more active "
        "boards: the challenger gets an error mail, you are not told. 'off' removes the "
        "limit. Setting a limit also ends an 'emergo reject'."
    )
    min_args = max_args = 3

    def check_value(self, args: list[str]) -> None:
        word = args[2].lower()
        if word != "off" and not (word.isdigit() and int(word) <= MAX_LIMIT):
            raise self.usage_error(
                f"The limit is a number of active boards from 0 to {MAX_LIMIT}, or off."
            )

    def policy(self, player: Player, args: list[str]) -> tuple[bool, int | None]:
        word = args[2].lower()
        if word == "off":
            return player.refuses_challenges, None
        return False, int(word)
