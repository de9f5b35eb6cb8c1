"""Which words of a command line name things the server knows: existing userids and boards.

Used on receipt to decide what of a command may be shown back (see
``pbm_emergo.commands.masking``): two indexed lookups, read-only.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import Board, Player

# Built once (this runs for every mail the listener stores).
_USERIDS = select(Player.userid_key).where(
    Player.userid_key.in_(bindparam("keys", expanding=True))
)
_BOARDS = select(Board.number).where(Board.number.in_(bindparam("numbers", expanding=True)))


def existing(
    session: Session, userids: Iterable[str], boards: Iterable[int]
) -> tuple[frozenset[str], frozenset[int]]:
    """The userid keys (lower case) and board numbers among ``userids`` and ``boards``
    that exist."""
    keys = {u.lower() for u in userids}
    numbers = set(boards)
    found_userids: frozenset[str] = frozenset()
    found_boards: frozenset[int] = frozenset()
    if keys:
        found_userids = frozenset(session.scalars(_USERIDS, {"keys": sorted(keys)}))
    if numbers:
        found_boards = frozenset(session.scalars(_BOARDS, {"numbers": sorted(numbers)}))
    return found_userids, found_boards
