"""``--robots fill``: the robots take an event's empty places when it starts, the robot of
the nearest ladder strength to the players' mean rating first, so that an event of three
people still starts as four. There are as many places for robots as robot accounts."""

from __future__ import annotations

from pbm_emergo.app.robots import robot_players
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db.reads.events import EventRead, entrants_of
from pbm_emergo.game.event_changes import EntryAdded
from pbm_emergo.game.numbers import START_RATING
from pbm_emergo.robot.ladder import LADDER


def empty_places(event: EventRead, entered: int) -> int:
    """How many places robots may take: up to ``max_players``; without a limit, one to
    make an odd number of players even (a round without byes)."""
    if event.max_players is not None:
        return max(event.max_players - entered, 0)
    return entered % 2


def fill_with_robots(ctx: UnitOfWork, event: EventRead) -> list[str]:
    """Enter robots into the empty places; the userids of those entered."""
    entered = entrants_of(ctx.session, event.id)
    places = empty_places(event, len(entered))
    if places <= 0:
        return []
    taken = {e.player_id for e in entered}
    people = [e.rating for e in entered]
    mean = sum(people) / len(people) if people else START_RATING
    robots = [(pid, userid) for pid, (userid, _) in robot_players(ctx.session).items()]
    robots = [r for r in robots if r[0] not in taken and r[1].lower() in LADDER]
    robots.sort(key=lambda r: abs(LADDER[r[1].lower()].rating - mean))
    chosen = robots[:places]
    for player_id, _ in chosen:
        ctx.write(EntryAdded(event.id, player_id, ctx.now, event.max_players))
    return [userid for _, userid in chosen]
