"""Which words of a command line name things the server knows: existing userids and boards.

Used on receipt to decide what of a command may be shown back (see
``pbm_emergo.commands.masking``): one statement of two indexed lookups, read-only.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Integer, String, bindparam, literal, select, union_all
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Board, Player

# Built once, on the tables (Core; this runs for every mail the listener stores): one
# statement for both lookups.
_players = Player.__table__
_boards = Board.__table__
_EXISTING = union_all(
    select(_players.c.userid_key.label("userid"), literal(None, Integer).label("board"))
    .where(_players.c.userid_key.in_(bindparam("keys", expanding=True))),
    select(literal(None, String).label("userid"), _boards.c.number.label("board"))
    .where(_boards.c.number.in_(bindparam("numbers", expanding=True))),
)


def existing(
    session: Session, userids: Iterable[str], boards: Iterable[int]
) -> tuple[frozenset[str], frozenset[int]]:
    """The userid keys (lower case) and board numbers among ``userids`` and ``boards``
    that exist."""
    keys = sorted({u.lower() for u in userids})
    numbers = sorted(set(boards))
    if not keys and not numbers:
        return frozenset(), frozenset()
    rows = session.connection().execute(_EXISTING, {"keys": keys, "numbers": numbers}).all()
    return (
        frozenset(userid for userid, _ in rows if userid is not None),
        frozenset(board for _, board in rows if board is not None),
    )
