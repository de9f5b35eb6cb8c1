"""Who watches a board, as values: the board a subscription or a notice is about
(:class:`WatchedBoard`), and the players whose board mail goes out with it
(:class:`Watcher`): its subscribers (``emergo subscribe``), and those who asked for the
final board mail (``emergo notify``). Each is read in one statement of plain rows, no
object made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Select, Table, bindparam, or_, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import (
    BOARD_ACTIVE,
    Board,
    Notification,
    Player,
    PlayerAddress,
    Subscription,
)
from pbm_emergo.db.reads.accounts import FIRST_ADDRESS


@dataclass(frozen=True)
class WatchedBoard:
    """A board as subscribing to it, or asking for its final board mail, reads it."""

    number: int
    active: bool  # its game under way
    white_id: int
    black_id: int

    def plays_on(self, player_id: int) -> bool:
        """Whether the player plays on this board."""
        return player_id in (self.white_id, self.black_id)


@dataclass(frozen=True)
class Watcher:
    """A player who gets a board's mails without playing on it: where they go (the first
    registered address; None: none yet), how they show the board and in which language."""

    id: int
    userid: str
    address: str | None
    board_style: str
    language: str | None  # None: not chosen


_BOARDS = cast(Table, Board.__table__)
_PLAYERS = cast(Table, Player.__table__)
_ADDRESSES = cast(Table, PlayerAddress.__table__)

_WATCHED_BOARD = select(
    _BOARDS.c.number, _BOARDS.c.status, _BOARDS.c.white_player_id, _BOARDS.c.black_player_id
).where(_BOARDS.c.number == bindparam("number"))



def _watchers(model: type[Subscription] | type[Notification]) -> Select[Any]:
    """The active players with a row of ``model`` for the board ``:number`` or for every
    board (NULL), each once, by userid."""
    rows = cast(Table, model.__table__)
    asked = (
        select(rows.c.player_id)
        .where(
            rows.c.player_id == _PLAYERS.c.id,
            or_(rows.c.board_number == bindparam("number"), rows.c.board_number.is_(None)),
        )
        .correlate(_PLAYERS)
        .exists()
    )
    return (
        select(
            _PLAYERS.c.id,
            _PLAYERS.c.userid,
            FIRST_ADDRESS.label("address"),
            _PLAYERS.c.board_style,
            _PLAYERS.c.language,
        )
        .where(asked, _PLAYERS.c.signed_off_at.is_(None))
        .order_by(_PLAYERS.c.userid_key)
    )


_SUBSCRIBERS = _watchers(Subscription)
_NOTIFIED = _watchers(Notification)


def watched_board(session: Session, number: int) -> WatchedBoard | None:
    """Board ``number``, or None if there is no such board."""
    row = session.execute(_WATCHED_BOARD, {"number": number}).first()
    if row is None:
        return None
    return WatchedBoard(
        number=row.number,
        active=row.status == BOARD_ACTIVE,
        white_id=row.white_player_id,
        black_id=row.black_player_id,
    )


def subscribers(session: Session, number: int) -> list[Watcher]:
    """The active players subscribed to board ``number`` or to every board, by userid."""
    return _read(session, _SUBSCRIBERS, number)


def notified(session: Session, number: int) -> list[Watcher]:
    """The active players who want the final board mail of board ``number`` (or of every
    game), by userid."""
    return _read(session, _NOTIFIED, number)


def _read(session: Session, statement: Select[Any], number: int) -> list[Watcher]:
    return [
        Watcher(
            id=row.id,
            userid=row.userid,
            address=row.address,
            board_style=row.board_style,
            language=row.language,
        )
        for row in session.execute(statement, {"number": number})
    ]


__all__ = ["WatchedBoard", "Watcher", "notified", "subscribers", "watched_board"]
