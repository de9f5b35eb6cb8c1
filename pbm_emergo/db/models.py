"""The database schema: everything the server knows, readable with plain SQL.

Conventions: every timestamp is timezone-aware (UTC, see :class:`UTCDateTime`); every string
has an explicit length; status columns hold short lower-case words checked by a CHECK
constraint; constraint names follow one naming convention so that migrations (including
SQLite batch migrations) can refer to them. docs/schema.md explains every column for
operators. Change a model only together with a new Alembic revision (``alembic check``
proves they agree).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    select,
)
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    column_property,
    mapped_column,
    relationship,
)

from pbm_emergo.db.types import UTCDateTime, utcnow

# The words the game defines and the columns store (sides, statuses, how a move was
# autoplayed), and a new player's rating: one definition, in the pure core.
from pbm_emergo.game.board import AUTOPLAYED as AUTOPLAYED
from pbm_emergo.game.board import AUTOPLAYED_FORCED as AUTOPLAYED_FORCED
from pbm_emergo.game.board import AUTOPLAYED_QUEUED as AUTOPLAYED_QUEUED
from pbm_emergo.game.board import BLACK as BLACK
from pbm_emergo.game.board import BOARD_ACTIVE as BOARD_ACTIVE
from pbm_emergo.game.board import BOARD_FINISHED as BOARD_FINISHED
from pbm_emergo.game.board import BOARD_STATUSES as BOARD_STATUSES
from pbm_emergo.game.board import SIDES as SIDES
from pbm_emergo.game.board import WHITE as WHITE
from pbm_emergo.game.lockout import OTHER_SENDERS as OTHER_SENDERS
from pbm_emergo.game.numbers import DEFAULT_FORFEIT_DAYS as DEFAULT_FORFEIT_DAYS
from pbm_emergo.game.numbers import DEFAULT_NAG_DAYS as DEFAULT_NAG_DAYS
from pbm_emergo.game.numbers import START_DEVIATION as START_DEVIATION
from pbm_emergo.game.numbers import START_RATING as START_RATING
from pbm_emergo.game.numbers import START_VOLATILITY as START_VOLATILITY
from pbm_emergo.game.tournaments import EVENT_FORMATS as EVENT_FORMATS
from pbm_emergo.game.tournaments import EVENT_STATUSES as EVENT_STATUSES
from pbm_emergo.game.tournaments import NEWS_KINDS as NEWS_KINDS
from pbm_emergo.game.tournaments import PAIRING_RESULTS as PAIRING_RESULTS
from pbm_emergo.game.tournaments import ROBOT_POLICIES as ROBOT_POLICIES

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Lengths, named once.
USERID_LENGTH = 32  # the command layer allows 2..16; the column leaves room
ADDRESS_LENGTH = 320  # local part 64 + "@" + domain 255
PASSWORD_HASH_LENGTH = 255
NOTATION_LENGTH = 128  # a long multiple capture such as "e1xe3xe5xc5xc3xa5" fits easily
POSITION_LENGTH = 1024  # Position.to_text()
MESSAGE_ID_LENGTH = 998  # the longest header line RFC 5322 allows
WORKER_LENGTH = 128  # "host:pid:instance:thread" (queues.worker_name)
REASON_LENGTH = 32
STATUS_LENGTH = 16
NOT_ANSWERED_LENGTH = 200
SIDE_LENGTH = 5  # "white" | "black"

BLOCKED_RULES = ("loss", "draw")

VOTE_KINDS = ("draw", "undo")

# Inbound queue: pending -> processing -> done; failures go back to pending until the
# attempts run out, then dead. Mail that must never be answered (bounces, auto-replies)
# is stored as ignored.
INBOUND_PENDING = "pending"
INBOUND_PROCESSING = "processing"
INBOUND_DONE = "done"
INBOUND_DEAD = "dead"
INBOUND_IGNORED = "ignored"
INBOUND_STATUSES = (
    INBOUND_PENDING,
    INBOUND_PROCESSING,
    INBOUND_DONE,
    INBOUND_DEAD,
    INBOUND_IGNORED,
)

# Outbound queue: pending -> sending -> sent; temporary failures go back to pending with a
# later next_attempt_at; a permanent refusal (5xx) is failed; too many attempts is dead.
OUTBOUND_PENDING = "pending"
OUTBOUND_SENDING = "sending"
OUTBOUND_SENT = "sent"
OUTBOUND_FAILED = "failed"
OUTBOUND_DEAD = "dead"
OUTBOUND_STATUSES = (
    OUTBOUND_PENDING,
    OUTBOUND_SENDING,
    OUTBOUND_SENT,
    OUTBOUND_FAILED,
    OUTBOUND_DEAD,
)


def _in(column: str, values: tuple[str, ...]) -> str:
    quoted = ", ".join(f"'{v}'" for v in values)
    return f"{column} IN ({quoted})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


# What a closed account keeps as its password hash: not an argon2 hash, so that no password
# ever matches it (and nothing of the old password is kept); it also marks the account
# as closed.
CLOSED_PASSWORD_HASH = "!closed"


class Player(Base):
    """An account. ``userid`` keeps the spelling the player chose; ``userid_key`` is its
    lower-case form, unique, and the one to look players up by."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    userid: Mapped[str] = mapped_column(String(USERID_LENGTH))
    userid_key: Mapped[str] = mapped_column(String(USERID_LENGTH), unique=True)
    password_hash: Mapped[str] = mapped_column(String(PASSWORD_HASH_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    vacation_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    rating: Mapped[int] = mapped_column(Integer, default=START_RATING)
    # Rated games played so far.
    rated_games: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    lost: Mapped[int] = mapped_column(Integer, default=0)
    drawn: Mapped[int] = mapped_column(Integer, default=0)
    # Flags. A signed-off player keeps their history but can no longer play or log in.
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    signed_off_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # `emergo autoplay on`: the player's only legal move is played for them ("(Forced)").
    autoplay: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # How many more games the player seeks (emergo seek; 0: none); each challenge of them
    # takes one off.
    seeking: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Challenges to the player are refused: all of them (emergo reject), or once they have
    # board_limit active boards (emergo limit; NULL: no limit).
    refuses_challenges: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false()
    )
    board_limit: Mapped[int | None] = mapped_column(Integer)
    # The IANA time zone the player reads the times of reminders and forfeits in (timezone).
    timezone: Mapped[str] = mapped_column(String(64), default="UTC", server_default="UTC")
    # The Glicko-2 rating deviation and volatility beside ``rating``; the rating is
    # provisional while the deviation is above PROVISIONAL_DEVIATION.
    deviation: Mapped[float] = mapped_column(
        Float, default=START_DEVIATION, server_default=str(START_DEVIATION)
    )
    volatility: Mapped[float] = mapped_column(
        Float, default=START_VOLATILITY, server_default=str(START_VOLATILITY)
    )
    # notify digest: the hour (0-23, of the player's time zone) of their daily digest of the
    # boards waiting for them (NULL: none, a board mail a change), and when the last one was
    # sent or the digest turned on.
    digest_hour: Mapped[int | None] = mapped_column(Integer)
    last_digest_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # How the text part of the player's board mails shows the position (board USERID
    # PASSWORD list|diagram): the ASCII diamond, or the position in words.
    board_style: Mapped[str] = mapped_column(
        String(16), default="diagram", server_default="diagram"
    )

    addresses: Mapped[list[PlayerAddress]] = relationship(
        back_populates="player",
        order_by="PlayerAddress.position",
        cascade="all, delete-orphan",
    )

    # The language of the player's replies (language, signup's language=): en, nl, de, fr;
    # NULL until chosen (English, unless their signup mail said its language).
    language: Mapped[str | None] = mapped_column(String(8))

    @property
    def active(self) -> bool:
        return self.signed_off_at is None

    @property
    def closed(self) -> bool:
        """Whether the account was closed (``delete``, or the operator's closing)."""
        return self.password_hash == CLOSED_PASSWORD_HASH

    @property
    def shown_userid(self) -> str:
        """The userid as boards and standings show it: ``bob (closed)`` once closed."""
        return closed_name(self.userid) if self.closed else self.userid

    def __repr__(self) -> str:
        return f"Player(id={self.id!r}, userid={self.userid!r})"


def closed_name(userid: str) -> str:
    """How a closed account's userid is shown."""
    return f"{userid} (closed)"


class PlayerAddress(Base):
    """A registered mail address of a player (a player may have several)."""

    __tablename__ = "player_addresses"
    __table_args__ = (UniqueConstraint("player_id", "address_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    address: Mapped[str] = mapped_column(String(ADDRESS_LENGTH))
    # Lower-case form for lookups by sender address.
    address_key: Mapped[str] = mapped_column(String(ADDRESS_LENGTH), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    player: Mapped[Player] = relationship(back_populates="addresses")


class Counter(Base):
    """Named counters that only go up. ``board`` holds the last board number handed out,
    so numbers are never reused even after a board is deleted."""

    __tablename__ = "counters"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(Integer)


BOARD_COUNTER = "board"
FIRST_BOARD_NUMBER = 101


class Board(Base):
    """One game. ``number`` is the board number players use (101, 102, ...).

    The moves table is the source of truth; ``position`` caches ``Position.to_text()`` after
    ``ply`` moves, and ``ply`` doubles as the version for optimistic concurrency: a move is
    stored only by ``UPDATE boards ... WHERE ply = :expected``.
    """

    __tablename__ = "boards"
    __table_args__ = (
        CheckConstraint(_in("status", BOARD_STATUSES), name="status"),
        CheckConstraint(_in("blocked_rule", BLOCKED_RULES), name="blocked_rule"),
        CheckConstraint(f"to_move IS NULL OR {_in('to_move', SIDES)}", name="to_move"),
        CheckConstraint(f"winner IS NULL OR {_in('winner', SIDES)}", name="winner"),
        CheckConstraint("white_player_id <> black_player_id", name="two_players"),
        Index(None, "white_player_id", "status"),
        Index(None, "black_player_id", "status"),
    )

    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    game: Mapped[str] = mapped_column(String(32), default="emergo")
    white_player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    black_player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    # Options
    rated: Mapped[bool] = mapped_column(Boolean, default=True)
    blocked_rule: Mapped[str] = mapped_column(String(8), default="loss")
    nag_days: Mapped[int] = mapped_column(Integer, default=DEFAULT_NAG_DAYS)
    forfeit_days: Mapped[int] = mapped_column(Integer, default=DEFAULT_FORFEIT_DAYS)
    # `--totaltime=DAYS`: each player's thinking time over the whole game (NULL: no cap).
    total_days: Mapped[int | None] = mapped_column(Integer)
    # State
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH), default=BOARD_ACTIVE, index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_move_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_reminder_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    ply: Mapped[int] = mapped_column(Integer, default=0)
    position: Mapped[str] = mapped_column(String(POSITION_LENGTH))
    # What threefold repetition needs: the keys of the positions since the last move that
    # can never be undone, one a line (NULL on boards stored before it existed: replayed).
    repetition: Mapped[str | None] = mapped_column(Text)
    to_move: Mapped[str | None] = mapped_column(String(SIDE_LENGTH))
    # Outcome: winner NULL with a reason is a draw; both NULL while the game goes on.
    winner: Mapped[str | None] = mapped_column(String(SIDE_LENGTH))
    outcome_reason: Mapped[str | None] = mapped_column(String(REASON_LENGTH))
    white_rating_change: Mapped[int | None] = mapped_column(Integer)
    black_rating_change: Mapped[int | None] = mapped_column(Integer)
    # Whether queued_moves has rows for this board, so that a move looks there only then.
    queued: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The event and round this board is a game of (NULL: a challenge's board).
    event_id: Mapped[int | None] = mapped_column(
        ForeignKey("events.id", ondelete="SET NULL"), index=True
    )
    event_round: Mapped[int | None] = mapped_column(Integer)
    # `-timebank=` / `-increment=`: each player's capped time bank and what a move adds to
    # it, in hours (NULL: no time bank; what is left is counted from the moves' times).
    timebank_hours: Mapped[int | None] = mapped_column(Integer)
    increment_hours: Mapped[int | None] = mapped_column(Integer)
    # `-weekends`: the clocks stop on Saturdays and Sundays in each player's time zone.
    weekends_off: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    white_player: Mapped[Player] = relationship(foreign_keys=[white_player_id])
    black_player: Mapped[Player] = relationship(foreign_keys=[black_player_id])
    moves: Mapped[list[MoveRecord]] = relationship(
        back_populates="board",
        order_by="MoveRecord.number",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )

    def player_of(self, side: str) -> Player:
        return self.white_player if side == WHITE else self.black_player

    def side_of(self, player: Player) -> str | None:
        if player.id == self.white_player_id:
            return WHITE
        if player.id == self.black_player_id:
            return BLACK
        return None

    def __repr__(self) -> str:
        return f"Board(number={self.number!r}, ply={self.ply!r}, status={self.status!r})"


class MoveRecord(Base):
    """A move played on a board: move ``number`` (1, 2, ...; both sides counted)."""

    __tablename__ = "moves"
    __table_args__ = (
        UniqueConstraint("board_number", "number"),
        CheckConstraint(
            f"autoplayed IS NULL OR {_in('autoplayed', AUTOPLAYED)}", name="autoplayed"
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_number: Mapped[int] = mapped_column(ForeignKey("boards.number", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    notation: Mapped[str] = mapped_column(String(NOTATION_LENGTH))
    comment: Mapped[str | None] = mapped_column(Text)
    played_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # NULL: the player's own command; "queued": their queued move, "forced": their only
    # legal move under autoplay (both played by the server).
    autoplayed: Mapped[str | None] = mapped_column(String(8))

    board: Mapped[Board] = relationship(back_populates="moves")
    player: Mapped[Player] = relationship()


class Vote(Base):
    """An open draw offer or undo request on a board, waiting for the opponent's answer."""

    __tablename__ = "votes"
    __table_args__ = (
        UniqueConstraint("board_number", "kind"),
        CheckConstraint(_in("kind", VOTE_KINDS), name="kind"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_number: Mapped[int] = mapped_column(ForeignKey("boards.number", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    # The board's ply when the vote was made (an undo takes back move number ply).
    ply: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class QueuedMove(Base):
    """A move a player queued to be played when their turn comes (if it is then legal).

    With ``if_move`` the row is one item of a conditional queue: ``notation`` is played only
    if the opponent's next move is ``if_move``."""

    __tablename__ = "queued_moves"
    __table_args__ = (Index(None, "board_number", "player_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_number: Mapped[int] = mapped_column(ForeignKey("boards.number", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    notation: Mapped[str] = mapped_column(String(NOTATION_LENGTH))
    # The move number guard (#n), if one was given.
    expected_number: Mapped[int | None] = mapped_column(Integer)
    comment: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # The opponent's move this item answers (a conditional queue); NULL: any move.
    if_move: Mapped[str | None] = mapped_column(String(NOTATION_LENGTH))


class Vacation(Base):
    """A player's vacation: no reminders and no loss on time, and the clock of their boards
    stops, from ``starts_at`` to ``ends_at``. ``days`` counts against the allowance of the
    calendar year it starts in (a vacation ended early counts the days it began)."""

    __tablename__ = "vacations"
    __table_args__ = (Index(None, "player_id", "ends_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime())
    ends_at: Mapped[datetime] = mapped_column(UTCDateTime())
    days: Mapped[int] = mapped_column(Integer)
    # The player was told it ended: by the scheduler's mail when it ran out, or by the
    # reply to the command that ended or replaced it.
    end_told: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Subscription(Base):
    """A spectator's subscription to one board, or to all boards when board_number is NULL."""

    __tablename__ = "subscriptions"
    __table_args__ = (UniqueConstraint("player_id", "board_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    board_number: Mapped[int | None] = mapped_column(
        ForeignKey("boards.number", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Notification(Base):
    """A player's wish for the final board mail of finished games (emergo notify): of one
    board, or of every board when board_number is NULL."""

    __tablename__ = "notifications"
    __table_args__ = (UniqueConstraint("player_id", "board_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    board_number: Mapped[int | None] = mapped_column(
        ForeignKey("boards.number", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class RatingChange(Base):
    """One line of a player's rating history: the rating before and after a rated game."""

    __tablename__ = "rating_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    board_number: Mapped[int | None] = mapped_column(
        ForeignKey("boards.number", ondelete="SET NULL")
    )
    rating_before: Mapped[int] = mapped_column(Integer)
    rating_after: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class LoginFailure(Base):
    """Wrong passwords for one player from one sender: how many since ``window_start``, and
    the lock. ``sender_key`` is the sender's address in lower case, or
    :data:`OTHER_SENDERS` for the failures from every address not registered for the player
    (and from mail that failed its domain's DMARC check), counted together."""

    __tablename__ = "login_failures"

    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    sender_key: Mapped[str] = mapped_column(String(ADDRESS_LENGTH), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
    window_start: Mapped[datetime] = mapped_column(UTCDateTime())
    last_failure_at: Mapped[datetime] = mapped_column(UTCDateTime())
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # On the OTHER_SENDERS row: when the player was last told that their userid is under
    # attack (they are told once a day at most).
    notified_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


CODE_HASH_LENGTH = 64  # hex SHA-256


class AddressConfirmation(Base):
    """An address waiting for its owner's consent: registered for ``player_id`` once someone
    sends ``confirm CODE`` with the code mailed to it. Only a hash of the code is stored."""

    __tablename__ = "address_confirmations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    address: Mapped[str] = mapped_column(String(ADDRESS_LENGTH))
    address_key: Mapped[str] = mapped_column(String(ADDRESS_LENGTH), index=True)
    code_hash: Mapped[str] = mapped_column(String(CODE_HASH_LENGTH), unique=True)
    # Where the address goes in the player's list once confirmed (board mails go to the first).
    position: Mapped[int] = mapped_column(Integer, default=0)
    # True when the player's registered addresses are to be replaced by this one (a
    # `change address` that named only new addresses keeps the old ones until then).
    replaces: Mapped[bool] = mapped_column(Boolean, default=False)
    # The address the request came from.
    requested_by: Mapped[str] = mapped_column(String(ADDRESS_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class InboundMessage(Base):
    """A mail as received: the exact bytes and the SMTP envelope, stored before the 250."""

    __tablename__ = "inbound_messages"
    __table_args__ = (
        # The same Message-ID from the same sender is stored (and processed) once.
        UniqueConstraint("envelope_sender", "message_id"),
        CheckConstraint(_in("status", INBOUND_STATUSES), name="status"),
        Index(None, "status", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    # "" for the null sender (bounces).
    envelope_sender: Mapped[str] = mapped_column(String(ADDRESS_LENGTH))
    envelope_recipients: Mapped[list[str]] = mapped_column(JSON)
    message_id: Mapped[str | None] = mapped_column(String(MESSAGE_ID_LENGTH))
    received_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH), default=INBOUND_PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    claimed_by: Mapped[str | None] = mapped_column(String(WORKER_LENGTH))
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    processed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # What the mail is, worked out once on receipt: its command line with passwords masked
    # (for the admin view), the first board it names (all of them: inbound_boards), the
    # address to answer, and why it must not be answered (bounces, auto-replies...).
    subject: Mapped[str | None] = mapped_column(String(MESSAGE_ID_LENGTH))
    board_number: Mapped[int | None] = mapped_column(Integer)
    sender: Mapped[str | None] = mapped_column(String(ADDRESS_LENGTH))
    not_answered: Mapped[str | None] = mapped_column(String(NOT_ANSWERED_LENGTH))
    # The listener's parse of the mail (see pbm_emergo.mail.parse.ParsedMail.to_stored), so
    # that the worker does not parse it again. It holds what ``raw`` holds (passwords too)
    # and is emptied with it: when the mail is processed, and when the raw text expires.
    parsed: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))

    replies: Mapped[list[OutboundMessage]] = relationship(back_populates="inbound")


class InboundBoard(Base):
    """A board an inbound mail's commands name: one board's mail is handled in arrival order
    (a mail is not claimed while an earlier mail naming one of its boards is unfinished)."""

    __tablename__ = "inbound_boards"
    __table_args__ = (Index(None, "board_number", "inbound_id"),)

    inbound_id: Mapped[int] = mapped_column(
        ForeignKey("inbound_messages.id", ondelete="CASCADE"), primary_key=True
    )
    board_number: Mapped[int] = mapped_column(Integer, primary_key=True)


class InboundLine(Base):
    """A line of a ``multiple`` mail that has run: each line is read, decided and answered
    on its own and stored in its own short write transaction, with this record of it (what
    the mail's report shows of it, and what it used of the mail's budgets); a worker that
    takes the mail up again after a crash goes on after the last line recorded. Removed when
    the mail is marked done."""

    __tablename__ = "inbound_lines"

    inbound_id: Mapped[int] = mapped_column(
        ForeignKey("inbound_messages.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)  # from 1
    # What the report shows: the line as it may be shown (masked), its result and answer
    # (the passwords verified so far masked).
    line: Mapped[str] = mapped_column(Text)
    ok: Mapped[bool] = mapped_column(Boolean)
    summary: Mapped[str] = mapped_column(Text)
    summary_said: Mapped[str | None] = mapped_column(Text)
    answer: Mapped[str | None] = mapped_column(Text)
    # What the line used of the mail's budgets: mails to others charged to the sender, and
    # of those to each account it logged in to ([[player id, count], ...]); wrong passwords
    # hashed; the userids whose owners were told of a login from elsewhere.
    mails_charged: Mapped[int] = mapped_column(Integer, default=0)
    accounts_charged: Mapped[list[list[int]]] = mapped_column(JSON, default=list)
    password_failures: Mapped[int] = mapped_column(Integer, default=0)
    notified: Mapped[list[str]] = mapped_column(JSON, default=list)


class OutboundText(Base):
    """The exact bytes of an outbox mail (:class:`OutboundMessage`), in a table of their own:
    the claim and the record of a send update the mail's row, and SQLite writes a row anew
    at each update, a board mail's 19 kB of text included, where it was kept in the row."""

    __tablename__ = "outbound_texts"

    id: Mapped[int] = mapped_column(
        ForeignKey("outbound_messages.id", ondelete="CASCADE"), primary_key=True
    )
    raw: Mapped[bytes] = mapped_column(LargeBinary)


class OutboundMessage(Base):
    """A mail to send: one recipient, its delivery state, and (in ``outbound_texts``) the
    exact bytes."""

    __tablename__ = "outbound_messages"
    __table_args__ = (
        CheckConstraint(_in("status", OUTBOUND_STATUSES), name="status"),
        Index(None, "status", "next_attempt_at"),
        Index(None, "recipient", "created_at"),
        Index(None, "charged_to", "created_at"),
        Index(None, "charged_account", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    recipient: Mapped[str] = mapped_column(String(ADDRESS_LENGTH))
    # The sender whose mail caused this mail to someone else, counted against that sender's
    # hourly budget (game.budget); None for mail the recipient asked for.
    charged_to: Mapped[str | None] = mapped_column(String(ADDRESS_LENGTH))
    # The account (player id) whose logged-in command caused it, counted against that
    # account's hourly budget too, whatever address the command came from; None: no login.
    # No foreign key: the count outlives an account deleted within the hour, harmlessly.
    charged_account: Mapped[int | None] = mapped_column(Integer)
    # The mail carries a secret (a new password): its text is removed once it is sent or
    # given up (see db.outbox.REMOVED_SECRET).
    secret: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    message_id: Mapped[str | None] = mapped_column(String(MESSAGE_ID_LENGTH))
    subject: Mapped[str | None] = mapped_column(String(MESSAGE_ID_LENGTH))
    board_number: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH), default=OUTBOUND_PENDING)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    claimed_by: Mapped[str | None] = mapped_column(String(WORKER_LENGTH))
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    inbound_id: Mapped[int | None] = mapped_column(
        ForeignKey("inbound_messages.id", ondelete="SET NULL"), index=True
    )

    inbound: Mapped[InboundMessage | None] = relationship(back_populates="replies")
    # The bytes, read from ``outbound_texts`` with the row (written there, never here).
    raw: Mapped[bytes] = column_property(
        select(OutboundText.raw).where(OutboundText.id == id).scalar_subquery()
    )


ANALYSIS_QUEUED = "queued"
ANALYSIS_DONE = "done"
ANALYSIS_STATUSES = (ANALYSIS_QUEUED, ANALYSIS_DONE)


class AnalysisRequest(Base):
    """A player's request for the engine's analysis of a finished board (``emergo analyse``).

    Queued until the robots' runner has analysed the board and mailed ``address``; the
    board's analysis is then in ``report`` of the request that made it (one per board:
    asking again is answered from it and adds no row). The rows of the last day count
    against the player's daily number of analyses.
    """

    __tablename__ = "analysis_requests"
    __table_args__ = (
        CheckConstraint(_in("status", ANALYSIS_STATUSES), name="status"),
        Index(None, "player_id", "requested_at"),
        Index(None, "status", "requested_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_number: Mapped[int] = mapped_column(
        ForeignKey("boards.number", ondelete="CASCADE"), index=True
    )
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    # Where the analysis goes: the address the request came from.
    address: Mapped[str] = mapped_column(String(ADDRESS_LENGTH))
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH), default=ANALYSIS_QUEUED)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # pbm_emergo.robot.analysis.Report.to_data(); NULL while queued, and on a request
    # answered by another request's analysis of the same board.
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))


class PasswordReset(Base):
    """A one-time code to set a new password (``forgot``), mailed to the player's registered
    addresses; ``reset CODE NEWPASSWORD`` uses it once, before ``expires_at``. Only a hash of
    the code is stored. The rows of the last day count against the player's daily codes."""

    __tablename__ = "password_resets"
    __table_args__ = (Index(None, "player_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    code_hash: Mapped[str] = mapped_column(String(CODE_HASH_LENGTH), unique=True)
    # The address the `forgot` came from.
    requested_by: Mapped[str] = mapped_column(String(ADDRESS_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class Block(Base):
    """``block``: the challenges, messages and chat of ``blocked_id`` to ``player_id`` are
    refused (without telling them who blocked)."""

    __tablename__ = "blocks"
    __table_args__ = (UniqueConstraint("player_id", "blocked_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    blocked_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class GameNote(Base):
    """A player's private note on a board (``emergo note``), shown only to them."""

    __tablename__ = "game_notes"
    __table_args__ = (Index(None, "board_number", "player_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_number: Mapped[int] = mapped_column(ForeignKey("boards.number", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    text: Mapped[str] = mapped_column(Text)
    # The board's ply when the note was written (the move it follows).
    ply: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class SubmittedMove(Base):
    """A move a player submitted (``emergo submit``), played only when they confirm it
    (``emergo confirm``). One per player and board: a new submission replaces it. It holds
    while the board's moves are as they were (``last_move_id``: the id of the board's last
    move then, 0 for none); any move played or taken back since drops it."""

    __tablename__ = "submitted_moves"
    __table_args__ = (UniqueConstraint("board_number", "player_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    board_number: Mapped[int] = mapped_column(ForeignKey("boards.number", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    notation: Mapped[str] = mapped_column(String(NOTATION_LENGTH))
    comment: Mapped[str | None] = mapped_column(Text)
    last_move_id: Mapped[int] = mapped_column(Integer)
    submitted_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


# --- events: leagues and tournaments ------------------------------------------------------

EVENT_NAME_LENGTH = 32


class Event(Base):
    """A league season or a tournament (round robin, Swiss, knock-out): its terms, who
    entered, and where it stands. ``rounds``: the Swiss rounds, or the cycles of a round
    robin or league (1 single, 2 double); a knock-out's rounds follow from its size."""

    __tablename__ = "events"
    __table_args__ = (
        CheckConstraint(_in("format", EVENT_FORMATS), name="format"),
        CheckConstraint(_in("status", EVENT_STATUSES), name="status"),
        CheckConstraint(_in("robots", ROBOT_POLICIES), name="robots"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(EVENT_NAME_LENGTH), unique=True)
    format: Mapped[str] = mapped_column(String(STATUS_LENGTH))
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH), default="open", index=True)
    rounds: Mapped[int | None] = mapped_column(Integer)
    max_players: Mapped[int | None] = mapped_column(Integer)
    starts_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    nag_days: Mapped[int] = mapped_column(Integer, default=DEFAULT_NAG_DAYS)
    forfeit_days: Mapped[int] = mapped_column(Integer, default=DEFAULT_FORFEIT_DAYS)
    total_days: Mapped[int | None] = mapped_column(Integer)
    robots: Mapped[str] = mapped_column(String(8), default="none")
    rated: Mapped[bool] = mapped_column(Boolean, default=True)
    # A capped time bank and a weekend pause for the event's games, as a challenge's
    # -timebank=, -increment= (hours; NULL: none) and -weekends.
    timebank_hours: Mapped[int | None] = mapped_column(Integer)
    increment_hours: Mapped[int | None] = mapped_column(Integer)
    weekends_off: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # A private event (``emergo event create``): its creator, and its join password's hash.
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    join_password_hash: Mapped[str | None] = mapped_column(String(PASSWORD_HASH_LENGTH))
    # A league's seasons share ``league``; ``season`` counts them from 1.
    league: Mapped[str | None] = mapped_column(String(EVENT_NAME_LENGTH))
    season: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # The round being played (0 before the start).
    current_round: Mapped[int] = mapped_column(Integer, default=0)


class EventEntry(Base):
    """A player in an event: their seed (the order they are paired in), their division
    (leagues; 1 elsewhere), and when they withdrew, if they did."""

    __tablename__ = "event_entries"
    __table_args__ = (UniqueConstraint("event_id", "player_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    seed: Mapped[int] = mapped_column(Integer)
    division: Mapped[int] = mapped_column(Integer, default=1)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    withdrawn_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class EventRound(Base):
    """One round of an event: when its boards opened, and when its last game ended."""

    __tablename__ = "event_rounds"
    __table_args__ = (UniqueConstraint("event_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class EventPairing(Base):
    """One game of a round: white against black on a board, or a bye (``black_id`` NULL).
    ``result``: white, black, draw or bye once decided (NULL while the game is played);
    ``game``: the game of a knock-out match (1, 2, 3 for a decider)."""

    __tablename__ = "event_pairings"
    __table_args__ = (
        CheckConstraint(f"result IS NULL OR {_in('result', PAIRING_RESULTS)}", name="result"),
        Index(None, "event_id", "round_number"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    round_number: Mapped[int] = mapped_column(Integer)
    division: Mapped[int] = mapped_column(Integer, default=1)
    game: Mapped[int] = mapped_column(Integer, default=1)
    white_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    black_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    board_number: Mapped[int | None] = mapped_column(
        ForeignKey("boards.number", ondelete="SET NULL"), index=True
    )
    result: Mapped[str | None] = mapped_column(String(SIDE_LENGTH))


class EventNews(Base):
    """What an event still has to tell its players (``kind``: a round's new board, the
    event cancelled, its final table, a league's next season), stored in the transaction
    that made it news and removed in the one that queues its mails: the mails are made
    after the first commits, and a crash in between loses none of them."""

    __tablename__ = "event_news"
    __table_args__ = (CheckConstraint(_in("kind", NEWS_KINDS), name="kind"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(STATUS_LENGTH))
    # A round's new board: the board (gone with it) and the round.
    board_number: Mapped[int | None] = mapped_column(
        ForeignKey("boards.number", ondelete="CASCADE")
    )
    round_number: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
