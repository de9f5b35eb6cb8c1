"""A player's account as a login reads it: a value, from the player's row or read with a
board (:func:`pbm_emergo.db.reads.snapshot.read_board`), never the row's object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbm_emergo.db.models import CLOSED_PASSWORD_HASH, Player, closed_name


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


def account_of(player: Player) -> Account:
    """The account of a player read as a row's object."""
    return account_from(player, [(a.address, a.address_key) for a in player.addresses])


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


__all__ = ["Account", "account_from", "account_of"]
