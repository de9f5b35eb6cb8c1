"""Players and their credentials: accounts, registered addresses, passwords, lock-outs.

Functions take the caller's ``Session`` and open no transaction. The reads of accounts
return ORM objects; the wrong passwords counted (:class:`LoginFailureRead`) and the
addresses waiting for their owner's consent (:class:`ConfirmationRead`) are read as frozen
values, no object made. Writes that a command computes from an earlier read re-check what
they relied on and raise :class:`~pbm_emergo.db.errors.Conflict` (a subclass) when it
changed.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import RowMapping, Select, Table, bindparam, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.sql.elements import ColumnElement

from pbm_emergo.config import Config
from pbm_emergo.db import credentials
from pbm_emergo.db.errors import Conflict, UseridTakenError
from pbm_emergo.db.models import (
    OTHER_SENDERS,
    START_RATING,
    AddressConfirmation,
    LoginFailure,
    Player,
    PlayerAddress,
)
from pbm_emergo.db.session import rowcount
from pbm_emergo.game.accounts import LOOKALIKE_FOLDS, userid_key, userid_skeleton
from pbm_emergo.telemetry.sections import timed

log = logging.getLogger(__name__)

# argon2id at the configured cost; by default (the settings' defaults) OWASP's m=19 MiB,
# t=2, p=1 (docs/security.md says why).
_hasher = PasswordHasher(memory_cost=19_456, time_cost=2, parallelism=1)


def hash_at_configured_cost(config: Config) -> None:
    """Hash passwords at the configured argon2id cost from now on (a stored hash made at
    another is rehashed at its next successful check)."""
    global _hasher
    _hasher = PasswordHasher(
        memory_cost=config.password_hash_memory_kib,
        time_cost=config.password_hash_time_cost,
        parallelism=config.password_hash_parallelism,
    )


def use_password_settings(config: Config) -> None:
    """:func:`hash_at_configured_cost`, and remember verified passwords for the configured
    time (0: never), in the cache this machine's processes share (unless the settings say
    otherwise). Each process that checks passwords calls it at start."""
    hash_at_configured_cost(config)
    ttl = config.credential_cache_seconds
    shared = None
    if config.credential_cache_shared == "yes" and ttl > 0:
        try:
            shared = credentials.machine_cache(config.effective_database_url, ttl=ttl)
        except (OSError, sqlite3.Error) as error:
            log.warning("no credential cache shared by this machine's processes (%s): "
                        "this process keeps its own", error)
    credentials.install(shared if shared is not None else credentials.CredentialCache(ttl=ttl))


def address_key(address: str) -> str:
    """The case-insensitive key of a mail address (what ``player_addresses.address_key`` holds)."""
    return address.strip().lower()


def address_registered(session: Session, address: str) -> bool:
    """Whether ``address`` is a registered address of any player."""
    found = session.scalar(
        select(PlayerAddress.id)
        .where(PlayerAddress.address_key == address_key(address))
        .limit(1)
    )
    return found is not None


# --- passwords -------------------------------------------------------------------------


def hash_password(password: str) -> str:
    """An argon2id hash of ``password`` (the only form in which a password is stored)."""
    with timed("argon2"):
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
    if remembered(player_id, stored_hash, password):
        return Verified(True)
    try:
        with timed("argon2"):
            _hasher.verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return Verified(False)
    new_hash = hash_password(password) if _hasher.check_needs_rehash(stored_hash) else None
    with timed("cache"):
        credentials.cache().remember(player_id, new_hash or stored_hash, password)
    return Verified(True, new_hash)


def remembered(player_id: int, stored_hash: str, password: str) -> bool:
    """Whether the verified-credential cache knows ``password`` as the player's (checked
    against ``stored_hash``, still the stored one): then it needs no argon2."""
    with timed("cache"):
        return credentials.cache().check(player_id, stored_hash, password)


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


def find_player_by_address(session: Session, address: str) -> Player | None:
    """The player who registered ``address`` (any letter case), or None."""
    return session.scalar(
        select(Player)
        .join(PlayerAddress, PlayerAddress.player_id == Player.id)
        .where(PlayerAddress.address_key == address_key(address))
        .options(selectinload(Player.addresses))
    )


def active_userids(session: Session) -> list[str]:
    """The userids of every player who has not signed off (for suggestions of a mistyped
    one: the error path only)."""
    return list(session.scalars(select(Player.userid).where(Player.signed_off_at.is_(None))))


def active_ids_by_key(session: Session, keys: Iterable[str]) -> dict[str, tuple[int, str]]:
    """The players who have not signed off among the userid keys ``keys``: key -> (id,
    userid)."""
    rows = session.execute(
        select(Player.id, Player.userid, Player.userid_key).where(
            Player.userid_key.in_(list(keys)), Player.signed_off_at.is_(None)
        )
    )
    return {row.userid_key: (row.id, row.userid) for row in rows}


def lookalike_userid(session: Session, userid: str) -> str | None:
    """An existing userid (signed off or not) that reads like ``userid``
    (:func:`userid_skeleton`), if any. A scan of the players, done only on signup."""
    folded: ColumnElement[str] = Player.userid_key.expression
    for found, read_as in LOOKALIKE_FOLDS:
        folded = func.replace(folded, found, read_as)
    return session.scalar(
        select(Player.userid).where(folded == userid_skeleton(userid)).limit(1)
    )


def rating_of(session: Session, player_id: int) -> int | None:
    """The player's rating (None: no such player)."""
    return session.scalar(select(Player.rating).where(Player.id == player_id))


def count_active(session: Session) -> int:
    """How many players have not signed off."""
    return int(
        session.scalar(
            select(func.count()).select_from(Player).where(Player.signed_off_at.is_(None))
        )
        or 0
    )


# --- wrong passwords -------------------------------------------------------------------


@dataclass(frozen=True)
class LoginFailureRead:
    """One failure count of a player, read as a value: the wrong passwords from
    ``sender_key`` (an address in lower case, or :data:`OTHER_SENDERS`) since
    ``window_start``, the latest at ``last_failure_at``, the lock if there is one, and (on
    the OTHER_SENDERS count) when the player was last told of an attack."""

    sender_key: str
    count: int
    window_start: datetime
    last_failure_at: datetime
    locked_until: datetime | None
    notified_at: datetime | None


_FAILURES = cast(Table, LoginFailure.__table__)


def _failure_read(row: RowMapping) -> LoginFailureRead:
    return LoginFailureRead(
        sender_key=row["sender_key"],
        count=row["count"],
        window_start=row["window_start"],
        last_failure_at=row["last_failure_at"],
        locked_until=row["locked_until"],
        notified_at=row["notified_at"],
    )


# Built once: every authentication runs it (unless its board's read found no failures).
_LOGIN_FAILURES_OF = select(*_FAILURES.c).where(
    _FAILURES.c.player_id == bindparam("player_id")
)
_LOGIN_FAILURE = _LOGIN_FAILURES_OF.where(_FAILURES.c.sender_key == bindparam("sender_key"))


def login_failure(
    session: Session, player_id: int, sender_key: str = OTHER_SENDERS
) -> LoginFailureRead | None:
    """The failure count of ``player_id`` for one sender (by default the count of the
    senders not registered for the player together), or None."""
    row = (
        session.execute(_LOGIN_FAILURE, {"player_id": player_id, "sender_key": sender_key})
        .mappings()
        .first()
    )
    return None if row is None else _failure_read(row)


def login_failures_of(session: Session, player_id: int) -> dict[str, LoginFailureRead]:
    """Every failure count of the player, by sender key, as values."""
    rows = session.execute(_LOGIN_FAILURES_OF, {"player_id": player_id}).mappings()
    return {row["sender_key"]: _failure_read(row) for row in rows}


def record_login_failure(
    session: Session,
    player_id: int,
    *,
    sender_key: str,
    previous: int | None,
    count: int,
    window_start: datetime,
    now: datetime,
    locked_until: datetime | None,
) -> None:
    """Store the failure count the command layer computed from ``previous`` (the count it
    read for this player and sender, None for no row); Conflict if another failure was
    counted meanwhile."""
    failure = session.get(LoginFailure, (player_id, sender_key), populate_existing=True)
    if (None if failure is None else failure.count) != previous:
        raise Conflict("Another wrong password was counted meanwhile.")
    if failure is None:
        failure = LoginFailure(player_id=player_id, sender_key=sender_key)
        session.add(failure)
    failure.count = count
    failure.window_start = window_start
    failure.last_failure_at = now
    failure.locked_until = locked_until
    if locked_until is not None:
        credentials.cache().forget(player_id)
    session.flush()


def recent_failures_from(
    session: Session, sender_key: str, since: datetime
) -> tuple[int, datetime | None]:
    """The wrong passwords counted for ``sender_key`` (for any player) in rows whose last
    failure came after ``since``, and the latest of those failures (None: none)."""
    total, latest = session.execute(
        select(
            func.coalesce(func.sum(LoginFailure.count), 0),
            func.max(LoginFailure.last_failure_at),
        ).where(LoginFailure.sender_key == sender_key, LoginFailure.last_failure_at > since)
    ).one()
    return int(total), latest


def mark_attack_notified(
    session: Session, player_id: int, now: datetime, *, previous: datetime | None
) -> None:
    """Note that the player was told their userid is under attack; Conflict if another mail
    told them meanwhile (``previous``: the time read before, None for never)."""
    failure = session.get(LoginFailure, (player_id, OTHER_SENDERS), populate_existing=True)
    if failure is None or failure.notified_at != previous:
        raise Conflict("The player was told of the wrong passwords meanwhile.")
    failure.notified_at = now
    session.flush()


def clear_login_failures(
    session: Session, player_id: int, sender_keys: Iterable[str] | None = None
) -> None:
    """Forget the player's wrong passwords from these senders (None: from everyone)."""
    stmt = delete(LoginFailure).where(LoginFailure.player_id == player_id)
    if sender_keys is not None:
        stmt = stmt.where(LoginFailure.sender_key.in_(list(sender_keys)))
    session.execute(stmt)


def forget_old_login_failures(session: Session, player_id: int, before: datetime) -> None:
    """Drop the player's counts whose last failure is older than ``before`` and whose lock
    is over (an attacker writing from many addresses leaves a row for each)."""
    session.execute(
        delete(LoginFailure).where(
            LoginFailure.player_id == player_id,
            LoginFailure.last_failure_at < before,
            or_(LoginFailure.locked_until.is_(None), LoginFailure.locked_until < before),
        )
    )


# --- addresses waiting for their owner's consent -----------------------------------------


def code_hash(code: str) -> str:
    """What is stored of a confirmation code: its SHA-256 (the code has 80 random bits, so a
    fast hash is enough; the code itself is never stored)."""
    return hashlib.sha256(code.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class ConfirmationRead:
    """An address waiting for its owner's consent, read as a value (the row of
    ``address_confirmations`` without its code's hash)."""

    id: int
    player_id: int
    address: str
    address_key: str
    position: int  # where the address goes in the player's list once confirmed
    replaces: bool  # the player's registered addresses are replaced by this one
    requested_by: str  # the address the request came from
    created_at: datetime
    expires_at: datetime


_CONFIRMATIONS = cast(Table, AddressConfirmation.__table__)
_CONFIRMATION_COLUMNS = tuple(
    _CONFIRMATIONS.c[name]
    for name in (
        "id", "player_id", "address", "address_key", "position", "replaces", "requested_by",
        "created_at", "expires_at",
    )
)


def _confirmations(session: Session, stmt: Select[Any]) -> list[ConfirmationRead]:
    return [ConfirmationRead(**row) for row in session.execute(stmt).mappings()]


def find_confirmation(session: Session, code_hash_: str) -> ConfirmationRead | None:
    """The address waiting for the code whose hash is ``code_hash_``, or None."""
    found = _confirmations(
        session,
        select(*_CONFIRMATION_COLUMNS).where(_CONFIRMATIONS.c.code_hash == code_hash_),
    )
    return found[0] if found else None


def confirmations_of(session: Session, player_id: int) -> list[ConfirmationRead]:
    """The player's addresses waiting for confirmation, in the order they were asked for."""
    return _confirmations(
        session,
        select(*_CONFIRMATION_COLUMNS)
        .where(_CONFIRMATIONS.c.player_id == player_id)
        .order_by(_CONFIRMATIONS.c.id),
    )


def recent_confirmations(
    session: Session, address: str, since: datetime
) -> list[ConfirmationRead]:
    """The confirmations asked for ``address`` (any player, anyone asking) after ``since``,
    the latest first."""
    return _confirmations(
        session,
        select(*_CONFIRMATION_COLUMNS)
        .where(
            _CONFIRMATIONS.c.address_key == address_key(address),
            _CONFIRMATIONS.c.created_at > since,
        )
        .order_by(_CONFIRMATIONS.c.id.desc()),
    )


@dataclass(frozen=True)
class CodeMailCap:
    """How many code mails an address may get in a period at the request of other
    addresses: ``per_requester`` for each address asking, ``in_all`` for all of them. A
    request from the address itself is not counted and not capped."""

    since: datetime
    per_requester: int
    in_all: int

    def refusal(
        self, recent: Sequence[ConfirmationRead], address: str, requested_by: str
    ) -> tuple[str, ConfirmationRead] | None:
        """Why one more code mail to ``address`` for ``requested_by`` is over the cap
        (``"requester"`` or ``"in all"``, with the request whose day must end first for
        another), or None. ``recent``: its confirmations asked since ``since``, the latest
        first."""
        key, asker = address_key(address), address_key(requested_by)
        others = [c for c in recent if address_key(c.requested_by) != key]
        mine = [c for c in others if address_key(c.requested_by) == asker]
        if len(mine) >= self.per_requester:
            return "requester", mine[self.per_requester - 1]
        if len(others) >= self.in_all:
            return "in all", others[self.in_all - 1]
        return None


def add_confirmation(
    session: Session,
    player_id: int,
    address: str,
    code_hash_: str,
    now: datetime,
    *,
    expires_at: datetime,
    requested_by: str,
    position: int,
    replaces: bool,
    cap: CodeMailCap | None,
) -> None:
    """Store an address waiting for ``confirm CODE``; Conflict if, meanwhile, other code
    mails to the address filled ``cap`` (None: the address asked for it itself)."""
    if cap is not None and address_key(address) != address_key(requested_by):
        recent = recent_confirmations(session, address, cap.since)
        if cap.refusal(recent, address, requested_by) is not None:
            raise Conflict("Confirmation codes were mailed to that address meanwhile.")
    session.add(
        AddressConfirmation(
            player_id=player_id,
            address=address.strip(),
            address_key=address_key(address),
            code_hash=code_hash_,
            position=position,
            replaces=replaces,
            requested_by=requested_by[:320],
            created_at=now,
            expires_at=expires_at,
        )
    )
    session.flush()


def drop_confirmations(session: Session, player_id: int, keep: Iterable[str] = ()) -> None:
    """Drop the player's waiting addresses except those in ``keep`` (address keys)."""
    stmt = delete(AddressConfirmation).where(AddressConfirmation.player_id == player_id)
    kept = [address_key(a) for a in keep]
    if kept:
        stmt = stmt.where(AddressConfirmation.address_key.not_in(kept))
    session.execute(stmt)


def any_expired_confirmation(session: Session, now: datetime) -> bool:
    """Whether :func:`drop_expired_confirmations` would forget anything now (one read: the
    scheduler's round takes no write lock for nothing)."""
    found = session.execute(
        select(AddressConfirmation.id).where(AddressConfirmation.expires_at <= now).limit(1)
    )
    return found.first() is not None


def drop_expired_confirmations(session: Session, now: datetime) -> int:
    """Forget the confirmations whose code has expired; returns how many."""
    return rowcount(
        session.execute(delete(AddressConfirmation).where(AddressConfirmation.expires_at <= now))
    )


def addresses_once_confirmed(
    current: Sequence[str], confirmation: ConfirmationRead | AddressConfirmation
) -> list[str]:
    """The player's addresses after ``confirmation`` (``current``: their addresses now)."""
    if confirmation.replaces:
        return [confirmation.address]
    addresses = [a for a in current if address_key(a) != confirmation.address_key]
    addresses.insert(min(confirmation.position, len(addresses)), confirmation.address)
    return addresses


def confirm_address(session: Session, confirmation_id: int, now: datetime) -> list[str]:
    """Register the address of a confirmation and drop the confirmation; returns the
    player's addresses afterwards. Conflict if it was used or the player left meanwhile."""
    confirmation = session.get(AddressConfirmation, confirmation_id, populate_existing=True)
    if confirmation is None or confirmation.expires_at <= now:
        raise Conflict("The confirmation was used meanwhile.")
    player = session.get(Player, confirmation.player_id, populate_existing=True)
    if player is None or player.signed_off_at is not None:
        raise Conflict("The player signed off meanwhile.")
    addresses = addresses_once_confirmed([a.address for a in player.addresses], confirmation)
    if confirmation.replaces:
        # The player's other waiting addresses join this one as they are confirmed.
        session.execute(
            update(AddressConfirmation)
            .where(AddressConfirmation.player_id == player.id)
            .values(replaces=False)
            .execution_options(synchronize_session=False)
        )
    session.delete(confirmation)
    set_addresses(session, player, addresses, now)
    session.flush()
    return addresses


__all__ = [
    "active_ids_by_key",
    "OTHER_SENDERS",
    "CodeMailCap",
    "ConfirmationRead",
    "LoginFailureRead",
    "Verified",
    "add_confirmation",
    "address_key",
    "addresses_once_confirmed",
    "any_expired_confirmation",
    "check_password",
    "clear_login_failures",
    "code_hash",
    "confirm_address",
    "confirmations_of",
    "count_active",
    "create_player",
    "drop_confirmations",
    "drop_expired_confirmations",
    "find_confirmation",
    "find_player",
    "forget_old_login_failures",
    "hash_at_configured_cost",
    "hash_password",
    "login_failure",
    "lookalike_userid",
    "login_failures_of",
    "mark_attack_notified",
    "recent_confirmations",
    "rating_of",
    "recent_failures_from",
    "remembered",
    "record_login_failure",
    "replace_addresses",
    "set_addresses",
    "sign_off",
    "store_password_hash",
    "userid_key",
    "use_password_settings",
    "userid_skeleton",
]


def password_matches(stored_hash: str, password: str) -> bool:
    """Whether ``password`` matches an argon2id hash that is no player's (a private event's
    password): no credential cache, argon2 every time."""
    try:
        with timed("argon2"):
            return bool(_hasher.verify(stored_hash, password))
    except (VerificationError, InvalidHashError):
        return False


def set_timezone(session: Session, player_id: int, timezone: str) -> None:
    """The time zone the player reads times in."""
    session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(timezone=timezone)
        .execution_options(synchronize_session=False)
    )


def set_digest(session: Session, player_id: int, hour: int | None, at: datetime) -> None:
    """The player's daily digest at ``hour`` (None: off), counted from ``at``."""
    session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(digest_hour=hour, last_digest_at=at)
        .execution_options(synchronize_session=False)
    )


def digest_sent(
    session: Session, player_id: int, at: datetime, *, expected: datetime | None
) -> None:
    """The player's digest sent at ``at``; it must still be on and last sent at
    ``expected``, else Conflict (another run sent it, or the player changed it)."""
    last = Player.last_digest_at
    result = session.execute(
        update(Player)
        .where(
            Player.id == player_id,
            Player.digest_hour.is_not(None),
            last.is_(None) if expected is None else last == expected,
        )
        .values(last_digest_at=at)
        .execution_options(synchronize_session=False)
    )
    if rowcount(result) != 1:
        raise Conflict("The player's digest changed meanwhile.")


def set_language(session: Session, player_id: int, language: str) -> None:
    """The language of the player's replies."""
    session.execute(
        update(Player)
        .where(Player.id == player_id)
        .values(language=language)
        .execution_options(synchronize_session=False)
    )


def password_hash_of_address(session: Session, address: str) -> tuple[int, str] | None:
    """The id and password hash of the player (not signed off) an address is registered
    for, or None."""
    row = session.execute(
        select(Player.id, Player.password_hash)
        .join(PlayerAddress, PlayerAddress.player_id == Player.id)
        .where(PlayerAddress.address_key == address_key(address), Player.signed_off_at.is_(None))
    ).first()
    return None if row is None else (row[0], row[1])


def language_of_address(session: Session, address: str) -> str | None:
    """The language chosen by the player an address is registered for (None: none chosen,
    or no player)."""
    return session.scalar(
        select(Player.language)
        .join(PlayerAddress, PlayerAddress.player_id == Player.id)
        .where(PlayerAddress.address_key == address_key(address))
    )
