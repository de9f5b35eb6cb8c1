"""``emergo seek userid password [N|off]`` (say you want N more games) and ``emergo
seeks`` (who is seeking). Each challenge of a seeking player takes one off their count."""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbm_emergo.commands.base import Command, Context, Result
from pbm_emergo.db import challenges, ratings, standings
from pbm_emergo.db.models import Player
from pbm_emergo.game.accounts import authenticate
from pbm_emergo.views.templating import render

MAX_SEEK = 99


def note_challenge(ctx: Context, challenged: Player) -> None:
    """A challenge of ``challenged`` answers one of the games they seek, if any."""
    if challenged.seeking > 0:
        player_id = challenged.id
        ctx.write(lambda s: challenges.take_seek(s, player_id))


class SeekCommand(Command):
    name = "emergo seek"
    argument_description = "userid password [N|off]"
    description = "say that you want N more games (default 1); off: none"
    details = (
        f"Lists you in 'emergo seeks' and in the Seeking column of 'emergo standings' as "
        f"wanting N more games (1 to {MAX_SEEK}; 1 if you leave N out). Each challenge of "
        "you takes one off; 'off' (or 0) takes you off the list."
    )
    section = "emergo"
    secret_args = (1,)
    credential_args = (0, 1)
    min_args = 2
    max_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        count = 1
        if len(args) == 3:
            word = args[2].lower()
            if word == "off":
                count = 0
            elif word.isdigit() and int(word) <= MAX_SEEK:
                count = int(word)
            else:
                raise self.usage_error(
                    f"The number of games sought is a number from 0 to {MAX_SEEK}, or off."
                )
        player = authenticate(ctx, args[0], args[1])
        player_id = player.id

        def store(session: Session) -> None:
            challenges.set_seeking(session, player_id, count)

        ctx.write(store)
        if count:
            games = f"{count} more game{'s' if count != 1 else ''}"
            text = (
                f"{player.userid} is seeking {games}. Others see it in 'emergo seeks' and "
                "'emergo standings'; each challenge of you takes one off."
            )
            summary = f"{player.userid} seeks {games}"
        else:
            text = f"{player.userid} is no longer seeking games."
            summary = text.rstrip(".")
        return Result(
            summary=summary, answer=text + "\n", answer_subject=f"Emergo seek: {player.userid}"
        )


class SeeksCommand(Command):
    name = "emergo seeks"
    description = "the players seeking games, with their ratings"
    details = (
        "Lists the players who said (with emergo seek) that they want more games: how many, "
        "their rating (provisional or not) and how many boards they play now. Challenge "
        "one with 'emergo challenge YOURID THEIRID'."
    )
    section = "emergo"
    max_args = 0

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        found = challenges.seekers(ctx.session)
        active = standings.active_board_counts(ctx.session, [p.id for p in found])
        rows = [
            {
                "userid": p.userid,
                "seeking": p.seeking,
                "rating": f"{p.rating}{'?' if ratings.is_provisional(p) else ''}",
                "active": active.get(p.id, 0),
            }
            for p in found
        ]
        return Result(
            summary=f"sent the list of players seeking games ({len(rows)})",
            answer=render(
                "seeks.txt.j2", rows=rows, provisional_games=ratings.PROVISIONAL_GAMES
            ),
            answer_subject="Emergo seeks",
        )
