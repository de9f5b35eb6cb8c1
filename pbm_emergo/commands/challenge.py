"""``emergo challenge u1 u2 [options]``: open a new board; u1 plays Ohs and moves first."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Refused, Result
from pbm_emergo.commands.refuse import check_challenge
from pbm_emergo.commands.seek import note_challenge
from pbm_emergo.db import games
from pbm_emergo.db.models import BOARD_ACTIVE, DEFAULT_FORFEIT_DAYS, DEFAULT_NAG_DAYS
from pbm_emergo.game.accounts import is_registered, require_player
from pbm_emergo.game.boards import BoardState, Seat, board_mails
from pbm_emergo.rules import Position

OPTION = re.compile(r"--?([a-z]+)(?:=(\S+))?", re.IGNORECASE)
MAX_DAYS = 365


@dataclass
class ChallengeOptions:
    rated: bool = True
    blocked_rule: str = "loss"
    nag_days: int = DEFAULT_NAG_DAYS
    forfeit_days: int = DEFAULT_FORFEIT_DAYS
    total_days: int | None = None


def parse_options(words: list[str]) -> ChallengeOptions:
    """The options of a challenge; a Refused names the first one that is wrong."""
    options = ChallengeOptions()
    for word in words:
        match = OPTION.fullmatch(word)
        name = match[1].lower() if match else ""
        value = match[2].lower() if match and match[2] else None
        if name in ("unrated", "rated") and value is None:
            options.rated = name == "rated"
        elif name == "blocked" and value in ("draw", "loss"):
            options.blocked_rule = value
        elif name in ("nagtime", "forfeittime", "totaltime") and value is not None:
            if not value.isdigit() or not 1 <= int(value) <= MAX_DAYS:
                raise Refused(
                    f"The option {word} needs a number of days from 1 to {MAX_DAYS}."
                )
            if name == "nagtime":
                options.nag_days = int(value)
            elif name == "totaltime":
                options.total_days = int(value)
            else:
                options.forfeit_days = int(value)
        else:
            raise Refused(
                f"Unknown option '{word[:40]}': the options are -unrated, -blocked=draw, "
                "--nagtime=DAYS, --forfeittime=DAYS and --totaltime=DAYS."
            )
    if options.forfeit_days < options.nag_days:
        raise Refused("The forfeit time must not be shorter than the reminder (nag) time.")
    return options


class ChallengeCommand(Command):
    name = "emergo challenge"
    argument_description = (
        "u1 u2 [-unrated] [-blocked=draw] [--nagtime=DAYS] [--forfeittime=DAYS] "
        "[--totaltime=DAYS]"
    )
    description = "open a new board; u1 plays Ohs (White, moves first)"
    details = (
        "Opens a new board between the players u1 and u2; u1 plays Ohs (o, White) and moves "
        "first. Send it from a registered address of u1 or u2. Options: -unrated (no rating "
        "change), -blocked=draw (a blocked player draws instead of losing), --nagtime=DAYS "
        "(a reminder after that many days without a move, default 7), --forfeittime=DAYS "
        "(the game is lost after that many days without a move, default 28), "
        "--totaltime=DAYS (each player's total thinking time over the game; running out "
        "loses on time). Both players get the board."
    )
    section = "emergo"
    min_args = 2
    max_args = 7

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        white = require_player(ctx, args[0])
        black = require_player(ctx, args[1])
        if white.id == black.id:
            raise Refused("A game needs two different players.")
        options = parse_options(args[2:])
        if not ctx.sender_trusted:
            # A challenge is authorised by the sender's address alone.
            raise Refused(
                "Your mail failed the DMARC check of its sender's domain, so its From "
                "address may be forged and cannot start a game; send the challenge from "
                "your registered address through your own mail provider."
            )
        if is_registered(white, ctx.sender):
            challenger = white
        elif is_registered(black, ctx.sender):
            challenger = black
        else:
            raise Refused(
                f"Only {white.userid} or {black.userid} can start this game: send the "
                "challenge from one of their registered addresses."
            )
        # Issue 11: the challenged player may refuse challenges (the challenger is told);
        # a challenge answers one of the games they seek.
        challenged = black if challenger is white else white
        check_challenge(ctx, challenged)
        note_challenge(ctx, challenged)
        # The board takes the next number; the write re-checks that nobody took it first
        # (run inside the write transaction, nobody can).
        number = games.last_board_number(ctx.session, lock=ctx.apply_at_once) + 1
        white_id, black_id, now = white.id, black.id, ctx.now

        def store(session: Session) -> None:
            games.create_board(
                session, white_id, black_id, now, rated=options.rated,
                blocked_rule=options.blocked_rule, nag_days=options.nag_days,
                forfeit_days=options.forfeit_days, total_days=options.total_days,
                number=number,
            )

        ctx.write(store)
        start = Position()
        state = BoardState(
            number=number, white=Seat.of(white), black=Seat.of(black), rated=options.rated,
            blocked_rule=options.blocked_rule, nag_days=options.nag_days,
            forfeit_days=options.forfeit_days, created_at=now, status=BOARD_ACTIVE,
            ply=start.ply, to_move=start.to_move, winner=None, outcome_reason=None,
            position=start, moves=(), votes=(), rating=None, total_days=options.total_days,
        )
        replies = board_mails(
            ctx,
            state,
            comment=ctx.comment,
            commenter=challenger.userid,
            new_board=True,
            headline=(
                f"A new game: {white.userid} plays Ohs (o) and moves first, "
                f"{black.userid} plays Eks (x)."
            ),
        )
        return Result(summary=f"started board {number}", replies=replies)
