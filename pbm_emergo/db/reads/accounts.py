"""A player's account as a login reads it: a value, from the player's row or read with a
board (:func:`pbm_emergo.db.reads.snapshot.read_board`), never the row's object; the
accounts a ``message`` names, read together (:func:`read_accounts`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Row, Select, Table, bindparam, select
from sqlalchemy.orm import Session

from pbm_emergo.db.models import CLOSED_PASSWORD_HASH, Player, PlayerAddress, closed_name
from pbm_emergo.game.accounts import userid_key


@dataclass(frozen=True)
class Account:
    """What checking a password, and the notices around it, need of a player."""

    id: int
    userid: str
    userid_key: str
    password_hash: str
    language: str | None  # the language of the account owner's mail (None: not chosen)
    active: bool  # not signed off
    addresses: tuple[str, ...]  # the registered addresses, the one board mails go to first
    address_keys: frozenset[str]  # their lower-case forms, to compare a sender with

    @property
    def shown_userid(self) -> str:
        """The userid as boards show it (see :attr:`Player.shown_userid`)."""
        return closed_name(self.userid) if self.closed else self.userid

    @property
    def primary_address(self) -> str | None:
        """Where the player's board mails go: their first registered address."""
        return self.addresses[0] if self.addresses else None

    @property
    def closed(self) -> bool:
        return self.password_hash == CLOSED_PASSWORD_HASH


def account_from(row: Any, addresses: list[tuple[str, str]]) -> Account:
    """The account of a player row (the object or a plain row of the players table) with
    its addresses (address, key), in order."""
    return Account(
        id=row.id,
        userid=row.userid,
        userid_key=row.userid_key,
        password_hash=row.password_hash,
        language=row.language,
        active=row.signed_off_at is None,
        addresses=tuple(address for address, _ in addresses),
        address_keys=frozenset(key for _, key in addresses),
    )


_PLAYERS = cast(Table, Player.__table__)
_ADDRESSES = cast(Table, PlayerAddress.__table__)
# One statement: the player's columns an account is made of, a row an address (the
# player's columns repeated; one row of NULL addresses when there is none).
_ACCOUNT_ROWS: Select[Any] = (
    select(
        *(
            _PLAYERS.c[name]
            for name in (
                "id", "userid", "userid_key", "password_hash", "language", "signed_off_at",
            )
        ),
        _ADDRESSES.c.address,
        _ADDRESSES.c.address_key,
    )
    .outerjoin(_ADDRESSES, _ADDRESSES.c.player_id == _PLAYERS.c.id)
    .order_by(_ADDRESSES.c.position, _ADDRESSES.c.id)
)
# A players row's first registered address, in the order of ``Player.addresses`` (by
# position), as a column of a statement over the players table.
FIRST_ADDRESS = (
    select(_ADDRESSES.c.address)
    .where(_ADDRESSES.c.player_id == _PLAYERS.c.id)
    .order_by(_ADDRESSES.c.position, _ADDRESSES.c.id)
    .limit(1)
    .correlate(_PLAYERS)
    .scalar_subquery()
)
_ACCOUNT_READ = _ACCOUNT_ROWS.where(_PLAYERS.c.userid_key == bindparam("key"))
_ACCOUNT_BY_ID = _ACCOUNT_ROWS.where(_PLAYERS.c.id == bindparam("id"))


def read_account(session: Session, userid: str) -> Account | None:
    """The account of the player with this userid (any letter case), signed off or not,
    or None: read as plain rows, no object made."""
    return _account_of_rows(session.execute(_ACCOUNT_READ, {"key": userid_key(userid)}).all())


def account_by_id(session: Session, player_id: int) -> Account | None:
    """As :func:`read_account`, the player by their id."""
    return _account_of_rows(session.execute(_ACCOUNT_BY_ID, {"id": player_id}).all())


def _account_of_rows(rows: Sequence[Row[Any]]) -> Account | None:
    if not rows:
        return None
    return account_from(
        rows[0], [(row.address, row.address_key) for row in rows if row.address is not None]
    )


_ACCOUNTS_READ = _ACCOUNT_ROWS.where(
    _PLAYERS.c.userid_key.in_(bindparam("keys", expanding=True))
)


def read_accounts(session: Session, userids: Iterable[str]) -> dict[str, Account]:
    """The accounts of the players with these userids (any letter case), signed off or
    not, by userid key: in one statement of plain rows, no object made."""
    keys = sorted({userid_key(u) for u in userids})
    if not keys:
        return {}
    rows: dict[int, list[Row[Any]]] = {}
    for row in session.execute(_ACCOUNTS_READ, {"keys": keys}):
        rows.setdefault(row.id, []).append(row)
    accounts = (
        account_from(
            found[0],
            [(row.address, row.address_key) for row in found if row.address is not None],
        )
        for found in rows.values()
    )
    return {account.userid_key: account for account in accounts}


__all__ = [
    "FIRST_ADDRESS",
    "Account",
    "account_by_id",
    "account_from",
    "read_account",
    "read_accounts",
]
