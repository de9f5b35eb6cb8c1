"""The standings: the one rating table, by ``emergo standings``, on the web page
/standings and by ``pbm-emergo admin standings`` alike.

The rule is a rated ladder. Every player who has not signed off is listed, in three
sections: established players (a rating deviation of at most
``ratings.PROVISIONAL_DEVIATION``), then provisional players (a larger deviation: the rating is
still uncertain), then inactive players (no rated game in the last
``INACTIVE_DAYS`` days, or none at all, and no game under way: a newcomer playing their
first games is provisional, not inactive); within each, the highest rating first, ties by
userid. The rank counts down the whole table. The Glicko-2 numbers themselves are kept by
:mod:`pbm_emergo.db.ratings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from pbm_emergo.db import ratings
from pbm_emergo.db.models import CLOSED_PASSWORD_HASH, Player, RatingChange
from pbm_emergo.db.reads.players import active_board_counts
from pbm_emergo.game.numbers import INACTIVE_DAYS as INACTIVE_DAYS

ESTABLISHED = "established"
PROVISIONAL = "provisional"
INACTIVE = "inactive"
SECTIONS = (ESTABLISHED, PROVISIONAL, INACTIVE)
# The headings of the sections, the same in the mail, on the web page and in admin.
SECTION_TITLES = {
    ESTABLISHED: "Established players",
    PROVISIONAL: f"Provisional players (rating deviation above {ratings.PROVISIONAL_DEVIATION})",
    INACTIVE: f"Inactive players (no game under way, no rated game for {INACTIVE_DAYS} days)",
}

__all__ = [
    "ESTABLISHED",
    "INACTIVE",
    "INACTIVE_DAYS",
    "PROVISIONAL",
    "SECTIONS",
    "SECTION_TITLES",
    "StandingRow",
    "by_section",
    "standings",
]


@dataclass(frozen=True)
class StandingRow:
    """One line of the rating table. ``rank`` counts down the whole table (established
    players first, then provisional, then inactive); ``last_rated_at``: when the player's
    last rated game ended (None: never)."""

    rank: int
    userid: str
    rating: int
    deviation: int  # the Glicko-2 rating deviation, rounded
    rated_games: int
    won: int
    lost: int
    drawn: int
    active_boards: int
    seeking: int
    section: str
    last_rated_at: datetime | None


def _section(player: Player, last_rated: datetime | None, playing: int, now: datetime) -> str:
    if not playing and (last_rated is None or last_rated <= now - timedelta(days=INACTIVE_DAYS)):
        return INACTIVE
    return PROVISIONAL if ratings.is_provisional(player) else ESTABLISHED


def standings(session: Session, now: datetime) -> list[StandingRow]:
    """The rating table of every player who has not signed off: established players,
    provisional players (a rating deviation above ``PROVISIONAL_DEVIATION``), then those
    with no rated game in the last 365 days; the highest rating first within each."""
    last_rated: dict[int, datetime] = {
        player_id: at
        for player_id, at in session.execute(
            select(RatingChange.player_id, func.max(RatingChange.created_at)).group_by(
                RatingChange.player_id
            )
        )
    }
    active = active_board_counts(session)
    # Closed accounts stay in the table, shown as closed; signed-off ones leave it.
    shown = or_(Player.signed_off_at.is_(None), Player.password_hash == CLOSED_PASSWORD_HASH)
    found = list(session.scalars(select(Player).where(shown)))
    sections = {
        p.id: _section(p, last_rated.get(p.id), active.get(p.id, 0), now) for p in found
    }
    found.sort(key=lambda p: (SECTIONS.index(sections[p.id]), -p.rating, p.userid_key))
    return [
        StandingRow(
            rank=rank,
            userid=p.shown_userid,
            rating=p.rating,
            deviation=round(p.deviation),
            rated_games=p.rated_games,
            won=p.won,
            lost=p.lost,
            drawn=p.drawn,
            active_boards=active.get(p.id, 0),
            seeking=p.seeking,
            section=sections[p.id],
            last_rated_at=last_rated.get(p.id),
        )
        for rank, p in enumerate(found, start=1)
    ]


def by_section(rows: list[StandingRow]) -> list[tuple[str, list[StandingRow]]]:
    """The table's rows under their sections' titles, in order, empty sections left out."""
    grouped = [(SECTION_TITLES[name], [r for r in rows if r.section == name]) for name in SECTIONS]
    return [(title, found) for title, found in grouped if found]
