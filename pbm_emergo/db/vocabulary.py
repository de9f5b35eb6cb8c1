"""Which words of a command line name things the server knows: existing userids and boards.

Used on receipt to decide what of a command may be shown back (see
``pbm_emergo.commands.masking``): one statement of two indexed lookups, read-only, and a
process-wide memory of what was found to exist (:func:`database_lookup`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable

from sqlalchemy import Integer, String, bindparam, literal, select, union_all
from sqlalchemy.orm import Session
from sqlalchemy.pool import Pool

from pbm_emergo.db.models import Board, Player
from pbm_emergo.game.words import Known, Lookup

# The words of some command lines that may be userids, and the board numbers they may
# name (the command layer's pure part: pbm_emergo.commands.masking.candidates).
Candidates = Callable[[Iterable[str]], tuple[set[str], set[int]]]

# Built once, on the tables (Core; this runs for every mail the listener stores): one
# statement for both lookups.
_players = Player.__table__
_boards = Board.__table__
_EXISTING_SQL = union_all(
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
    rows = session.connection().execute(_EXISTING_SQL, {"keys": keys, "numbers": numbers}).all()
    return (
        frozenset(userid for userid, _ in rows if userid is not None),
        frozenset(board for _, board in rows if board is not None),
    )


class _Existing:
    """Userids and board numbers a database was found to hold, kept by the process (per
    database engine) so that a mail naming only those needs no read: the listener looks up the
    words of every mail it receives. Only what exists is kept (a userid is never deleted;
    a declined challenge's board number shown after all would not be a secret), never
    what did not exist then: it may exist by the next mail."""

    LIMIT = 100_000  # entries per database, then it starts again

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._found: weakref.WeakKeyDictionary[Pool, tuple[set[str], set[int]]] = (
            weakref.WeakKeyDictionary()
        )

    def known(self, database: Pool, userids: set[str], boards: set[int]) -> Known:
        with self._lock:
            found_userids, found_boards = self._found.get(database, (set(), set()))
            return Known(userids=frozenset(userids & found_userids),
                         boards=frozenset(boards & found_boards))

    def add(self, database: Pool, known: Known) -> None:
        with self._lock:
            found_userids, found_boards = self._found.setdefault(database, (set(), set()))
            if len(found_userids) + len(found_boards) > self.LIMIT:
                found_userids.clear()
                found_boards.clear()
            found_userids.update(known.userids)
            found_boards.update(known.boards)


_EXISTING = _Existing()


def database_lookup(session: Session, candidates: Candidates) -> Lookup:
    """A :data:`~pbm_emergo.game.words.Lookup` that asks the database (one read for userids
    and boards) which of the ``candidates`` of some lines exist, for the words not already
    found to exist."""

    def lookup(lines: Iterable[str]) -> Known:
        userids, boards = candidates(lines)
        # Keyed by the engine's pool: a reading session's engine is a copy with options.
        database = session.get_bind().engine.pool
        cached = _EXISTING.known(database, userids, boards)
        userids -= cached.userids
        boards -= cached.boards
        if not userids and not boards:
            return cached
        found_userids, found_boards = existing(session, userids, boards)
        found = Known(userids=found_userids, boards=found_boards)
        _EXISTING.add(database, found)
        return Known(userids=cached.userids | found_userids, boards=cached.boards | found_boards)

    return lookup
