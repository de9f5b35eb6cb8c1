"""What the operations on accounts store: passwords, wrong passwords counted, addresses and
their confirmation codes, vacations, and the operator's merges and deletions. One frozen
value per distinct write, each carrying what its re-check in the write transaction needs
(:func:`pbm_emergo.db.apply.apply` applies them; a re-check that fails raises
``Conflict``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

# --- passwords and wrong passwords -------------------------------------------------------


@dataclass(frozen=True)
class PasswordHashStored:
    """The player's password hash replaced by ``new_hash``, only over ``expected_hash``
    (the hash as read, which the password was checked against; None: over any).
    ``password``: the new password in clear, remembered by the credential cache with the
    new hash (None: nothing remembered); never shown."""

    player_id: int
    new_hash: str
    expected_hash: str | None
    password: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class LoginFailureRecorded:
    """A wrong password counted for ``sender_key``: the count is now ``count`` in the
    window from ``window_start``, locked until ``locked_until`` (None: not locked). The
    count must still be ``previous`` (None: no row), else another failure was counted
    meanwhile."""

    player_id: int
    sender_key: str
    previous: int | None
    count: int
    window_start: datetime
    at: datetime
    locked_until: datetime | None


@dataclass(frozen=True)
class OldLoginFailuresForgotten:
    """The player's counts of wrong passwords older than ``before`` (and not locked)
    dropped."""

    player_id: int
    before: datetime


@dataclass(frozen=True)
class AttackNoticeMarked:
    """The player told at ``at`` that their password is being guessed; they must still
    have been told last at ``previous`` (None: never)."""

    player_id: int
    at: datetime
    previous: datetime | None


@dataclass(frozen=True)
class LoginFailuresCleared:
    """The player's wrong passwords forgotten: those of ``sender_keys`` (None: of every
    sender, their locks ending)."""

    player_id: int
    sender_keys: tuple[str, ...] | None = None


# --- accounts and addresses --------------------------------------------------------------


@dataclass(frozen=True)
class WaitingAddress:
    """An address waiting for its owner's code: ``code_hash`` stored, at ``position`` in
    the player's list of addresses once confirmed."""

    address: str
    code_hash: str
    position: int


@dataclass(frozen=True)
class Confirmations:
    """Codes asked for addresses at ``at`` by ``requested_by``, valid until
    ``expires_at``. ``replaces``: a confirmed address replaces the player's addresses.
    Each is re-checked against the cap on code mails asked by other addresses: since
    ``cap_since``, ``cap_per_requester`` for each requester, ``cap_in_all`` in all."""

    waiting: tuple[WaitingAddress, ...]
    at: datetime
    expires_at: datetime
    requested_by: str
    replaces: bool
    cap_since: datetime
    cap_per_requester: int
    cap_in_all: int


@dataclass(frozen=True)
class PlayerCreated:
    """A new account ``userid`` (a userid taken meanwhile: ``UseridTakenError``) with the
    registered ``addresses``, the password's hash, and the codes of the addresses that wait
    for their owners (stored with the new player's id). ``password``: remembered by the
    credential cache with the hash; never shown."""

    userid: str
    addresses: tuple[str, ...]
    at: datetime
    password_hash: str
    confirmations: Confirmations
    password: str = field(repr=False)
    language: str | None = None  # the language of the player's replies (None: not chosen)


@dataclass(frozen=True)
class AddressesChanged:
    """The player's addresses replaced by ``at_once`` (none: they stay until a waiting one
    is confirmed; a player signed off meanwhile conflicts), their codes dropped but those
    of ``kept``, and the codes of ``confirmations`` stored."""

    player_id: int
    at_once: tuple[str, ...]
    kept: tuple[str, ...]
    confirmations: Confirmations
    at: datetime


@dataclass(frozen=True)
class AddressConfirmed:
    """The address waiting for confirmation ``confirmation_id`` registered (the code used
    or expired meanwhile: conflict)."""

    confirmation_id: int
    at: datetime


@dataclass(frozen=True)
class SignedOff:
    """The player signed off (signed off meanwhile: conflict)."""

    player_id: int
    at: datetime


# --- vacations ---------------------------------------------------------------------------


@dataclass(frozen=True)
class VacationStarted:
    """A vacation of ``days`` days from ``at`` (replacing the current one); the player's
    ``vacation_until`` must still be ``expected``."""

    player_id: int
    at: datetime
    days: int
    expected: datetime | None


@dataclass(frozen=True)
class VacationEnded:
    """The current vacation ended at ``at``; the player's ``vacation_until`` must still be
    ``expected``."""

    player_id: int
    at: datetime
    expected: datetime | None


@dataclass(frozen=True)
class VacationEndTold:
    """The player was told that their vacation ``vacation_id`` ended (Conflict when a run
    told them meanwhile)."""

    vacation_id: int


# --- the operator's support cases --------------------------------------------------------


@dataclass(frozen=True)
class AccountClosed:
    """The account closed: kept as a row for its boards, everything else of it removed
    (a player with active boards conflicts)."""

    player_id: int
    at: datetime


@dataclass(frozen=True)
class PlayerDeleted:
    """The player deleted with everything of theirs (a player with a board conflicts)."""

    player_id: int


@dataclass(frozen=True)
class PlayersMerged:
    """The account ``old_id`` merged into ``kept_id`` (two players who play each other on
    a board conflict)."""

    old_id: int
    kept_id: int


# --- the budget of mails to others --------------------------------------------------------


@dataclass(frozen=True)
class MailBudgetCharged:
    """Mails to other people charged to the budgets of one mail: ``count`` of them so far to
    its ``sender``, ``account_count`` to the account ``account_id`` of the command that
    logged in (None: none did). Counted again in the write transaction with the ones
    charged since ``since``, they must still fit in ``per_hour`` (the sender's) and
    ``per_account_hour`` (the account's): else conflict, and the mail starts over."""

    sender: str
    account_id: int | None
    count: int
    account_count: int
    per_hour: int
    per_account_hour: int
    since: datetime


# --- a forgotten password -----------------------------------------------------------------


@dataclass(frozen=True)
class PasswordResetMailed:
    """A reset code (``code_hash`` stored) mailed for the player at ``at``, working until
    ``expires_at``; asked by ``requested_by``. Re-checked: fewer than ``per_day`` codes
    mailed for the player since ``since`` (else another worker mailed one meanwhile)."""

    player_id: int
    code_hash: str
    requested_by: str
    at: datetime
    expires_at: datetime
    since: datetime
    per_day: int


@dataclass(frozen=True)
class PasswordResetUsed:
    """The reset code ``reset_id`` used at ``at`` (used meanwhile: conflict)."""

    reset_id: int
    at: datetime


@dataclass(frozen=True)
class ExpiredConfirmationsDropped:
    """The address confirmations whose code expired by ``at`` forgotten (the scheduler)."""

    at: datetime


AccountChange = (
    PasswordHashStored | LoginFailureRecorded | OldLoginFailuresForgotten
    | AttackNoticeMarked | LoginFailuresCleared | PlayerCreated | AddressesChanged
    | AddressConfirmed | SignedOff | VacationStarted | VacationEnded | AccountClosed
    | PlayerDeleted | PlayersMerged | MailBudgetCharged
    | PasswordResetMailed | PasswordResetUsed
    | ExpiredConfirmationsDropped
    | VacationEndTold
)
ACCOUNT_CHANGE_TYPES = (
    PasswordHashStored, LoginFailureRecorded, OldLoginFailuresForgotten,
    AttackNoticeMarked, LoginFailuresCleared, PlayerCreated, AddressesChanged,
    AddressConfirmed, SignedOff, VacationStarted, VacationEnded, AccountClosed,
    PlayerDeleted, PlayersMerged, MailBudgetCharged,
    PasswordResetMailed, PasswordResetUsed,
    ExpiredConfirmationsDropped,
    VacationEndTold,
)
