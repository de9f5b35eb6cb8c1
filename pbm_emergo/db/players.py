"""Players and their credentials: accounts, registered addresses, passwords, lock-outs.

Functions take the caller's ``Session`` and open no transaction. Reads return ORM objects;
writes that a command computes from an earlier read re-check what they relied on and raise
:class:`~pbm_emergo.db.errors.Conflict` (a subclass) when it changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from pbm_emergo.db import credentials
from pbm_emergo.db.errors import Conflict, UseridTakenError
from pbm_emergo.db.models import START_RATING, LoginFailure, Player, PlayerAddress
from pbm_emergo.db.session import rowcount

# argon2id with the library's current recommended parameters (RFC 9106 low-memory profile).
_hasher = PasswordHasher()


def userid_key(userid: str) -> str:
    """The case-insensitive key of a userid (what ``players.userid_key`` holds)."""
    return userid.strip().lower()


def address_key(address: str) -> str:
    """The case-insensitive key of a mail address (what ``player_addresses.address_key`` holds)."""
    return address.strip().lower()


# --- passwords -------------------------------------------------------------------------


def hash_password(password: str) -> str:
    """An argon2id hash of ``password`` (the only form in which a password is stored)."""
    return _hasher.hash(password)


@dataclass(frozen=True)
class Verified:
    """A password check: ``ok``, and a fresh hash to store when the old one's parameters aged."""

    ok: bool
    new_hash: str | None = None


def check_password(player_id: int, stored_hash: str, password: str) -> Verified:
    """Whether ``password`` matches ``stored_hash`` (the player's stored hash).

    Served from the verified-credential cache when it can be (see
    :mod:`pbm_emergo.db.credentials`); otherwise argon2id, and a success is remembered.
    Needs no database: call it outside any write transaction.
    """
    cache = credentials.cache()
    if cache.check(player_id, stored_hash, password):
        return Verified(True)
    try:
        _hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return Verified(False)
    if _hasher.check_needs_rehash(stored_hash):
        new_hash = _hasher.hash(password)
        cache.remember(player_id, new_hash, password)
        return Verified(True, new_hash)
    cache.remember(player_id, stored_hash, password)
    return Verified(True)


def store_password_hash(
    session: Session, player_id: int, new_hash: str, *, expected_hash: str | None = None
) -> None:
    """Store a new password hash; with ``expected_hash``, only over that one (else Conflict:
    the password changed meanwhile)."""
    stmt = update(Player).where(Player.id == player_id)
    if expected_hash is not None:
        stmt = stmt.where(Player.password_hash == expected_hash)
    result = session.execute(
        stmt.values(password_hash=new_hash).execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The password was changed meanwhile.")
    credentials.cache().forget(player_id)


# --- accounts --------------------------------------------------------------------------


def create_player(
    session: Session,
    userid: str,
    password: str | None,
    addresses: Sequence[str],
    now: datetime,
    *,
    password_hash: str | None = None,
) -> Player:
    """A new account (``password``, or its ``password_hash`` made beforehand, outside the
    write transaction). Raises UseridTakenError if the userid exists in any letter case.

    Validating the userid's form (length, characters, reserved words) is the command
    layer's job; this only stores it.
    """
    if find_player(session, userid) is not None:
        raise UseridTakenError(f"The userid {userid} is already taken.")
    if password_hash is None:
        assert password is not None, "a password or its hash"
        password_hash = hash_password(password)
    player = Player(
        userid=userid.strip(),
        userid_key=userid_key(userid),
        password_hash=password_hash,
        created_at=now,
        rating=START_RATING,
        rated_games=0,
        won=0,
        lost=0,
        drawn=0,
        is_admin=False,
    )
    session.add(player)
    set_addresses(session, player, addresses, now)
    try:
        with session.begin_nested():
            session.flush()
    except IntegrityError:
        # A concurrent signup took the userid first.
        raise UseridTakenError(f"The userid {userid} is already taken.") from None
    return player


def set_addresses(
    session: Session, player: Player, addresses: Iterable[str], now: datetime
) -> None:
    """Replace the player's registered addresses (duplicates in any case are dropped)."""
    seen: set[str] = set()
    fresh: list[PlayerAddress] = []
    for address in addresses:
        key = address_key(address)
        if not key or key in seen:
            continue
        seen.add(key)
        fresh.append(
            PlayerAddress(
                address=address.strip(), address_key=key, position=len(fresh), created_at=now
            )
        )
    player.addresses.clear()
    session.flush()  # delete the old rows before inserting (unique player_id, address_key)
    player.addresses.extend(fresh)


def replace_addresses(
    session: Session, player_id: int, addresses: Sequence[str], now: datetime
) -> None:
    """:func:`set_addresses` by player id (for a write computed from an earlier read)."""
    player = session.get(Player, player_id)
    if player is None or player.signed_off_at is not None:
        raise Conflict("The player signed off meanwhile.")
    set_addresses(session, player, addresses, now)


def sign_off(session: Session, player_id: int, now: datetime) -> None:
    """Mark the player signed off (history kept; no more commands, no more logins)."""
    result = session.execute(
        update(Player)
        .where(Player.id == player_id, Player.signed_off_at.is_(None))
        .values(signed_off_at=now)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The player signed off meanwhile.")
    credentials.cache().forget(player_id)


def find_player(session: Session, userid: str) -> Player | None:
    """The player with this userid, in any letter case, or None (addresses loaded with it)."""
    return session.scalar(
        select(Player)
        .where(Player.userid_key == userid_key(userid))
        .options(selectinload(Player.addresses))
    )


def find_players(session: Session, userids: Iterable[str]) -> dict[str, Player]:
    """The players with these userids (any letter case), by userid key, in one query."""
    keys = {userid_key(u) for u in userids}
    if not keys:
        return {}
    rows = session.scalars(
        select(Player).where(Player.userid_key.in_(keys)).options(selectinload(Player.addresses))
    )
    return {p.userid_key: p for p in rows}


def count_active(session: Session) -> int:
    """How many players have not signed off."""
    return int(
        session.scalar(
            select(func.count()).select_from(Player).where(Player.signed_off_at.is_(None))
        )
        or 0
    )


# --- wrong passwords -------------------------------------------------------------------


def login_failure(session: Session, player_id: int) -> LoginFailure | None:
    return session.get(LoginFailure, player_id)


def record_login_failure(
    session: Session,
    player_id: int,
    *,
    previous: int | None,
    count: int,
    window_start: datetime,
    now: datetime,
    locked_until: datetime | None,
) -> None:
    """Store the failure count the command layer computed from ``previous`` (the count it
    read, None for no row); Conflict if another failure was counted meanwhile."""
    failure = session.get(LoginFailure, player_id, populate_existing=True)
    if (None if failure is None else failure.count) != previous:
        raise Conflict("Another wrong password was counted meanwhile.")
    if failure is None:
        failure = LoginFailure(player_id=player_id)
        session.add(failure)
    failure.count = count
    failure.window_start = window_start
    failure.last_failure_at = now
    failure.locked_until = locked_until
    if locked_until is not None:
        credentials.cache().forget(player_id)
    session.flush()


def clear_login_failures(session: Session, player_id: int) -> None:
    session.execute(delete(LoginFailure).where(LoginFailure.player_id == player_id))


__all__ = [
    "Verified",
    "address_key",
    "check_password",
    "clear_login_failures",
    "count_active",
    "create_player",
    "find_player",
    "find_players",
    "hash_password",
    "login_failure",
    "record_login_failure",
    "replace_addresses",
    "set_addresses",
    "sign_off",
    "store_password_hash",
    "userid_key",
]
