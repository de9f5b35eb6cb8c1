"""The unit of work of one mail's commands: read and answer, build the replies, one short
write.

A mail's commands, as the listener read them on receipt, run in a reading session without a
write lock and answer with their replies and the writes they want (see
:mod:`pbm_emergo.mail.commands`); the replies are built into mail by the outbox
(:class:`pbm_emergo.app.outbox.Outbox`); then one short write transaction applies the writes
and, for a stored mail (:class:`Answering`), queues the replies and marks the mail done,
after checking that this worker still holds the claim. A write that finds what the commands
read has changed (:class:`~pbm_emergo.db.errors.Conflict`) starts the mail over; no reply
is rendered while the write lock is held.
:class:`CommandsRunner` does this for a mail of one command; the lines of a ``multiple``
mail each go this way in turn (:mod:`pbm_emergo.mail.line_by_line`). The inbox worker
(:mod:`pbm_emergo.mail.worker`), a :class:`CommandsRunner`, claims the stored mail and hands
it to the one or the other.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.outbox import BuiltReply, LimitNotices
from pbm_emergo.app.results import Write
from pbm_emergo.app.runner import Runner
from pbm_emergo.config import Config
from pbm_emergo.db import games, inbox
from pbm_emergo.db.apply import apply
from pbm_emergo.db.claims import ClaimedMail
from pbm_emergo.db.errors import BoardNumberTaken, Conflict
from pbm_emergo.db.session import Session, SessionFactory, write_turn
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail.commands import CommandProcessor, CommandText, dispatch, shown_after
from pbm_emergo.mail.parse import ParsedMail
from pbm_emergo.telemetry.sections import timed

log = logging.getLogger(__name__)

_T = TypeVar("_T")

# A mail whose writes keep conflicting with other mails' is given up after this many tries
# (it is retried later, like any failure). Each conflict means that another mail's write
# was stored, and what a mail re-checks belongs to a board or a player, whose changes
# come one at a time; the one race a mail could lose again and again, for the next board
# number that every challenge takes, it loses once: then a number is set aside for it
# (CommandsRunner.board_number_after).
MAX_CONFLICTS = 20


class LostClaim(Exception):
    """Our claim on a message expired and another worker took it: roll back our work."""


@dataclass(frozen=True)
class Answered:
    """What running one mail's commands gave: its replies, and how many mails were queued."""

    replies: list[Reply]
    queued: int = 0
    # The next stored mail, claimed in the same write transaction (Answering.claim_next).
    claimed_next: ClaimedMail | None = None


@dataclass(frozen=True)
class Answering:
    """The stored mail a unit of work answers: what its write transaction marks done (the
    claim checked) and threads the replies to."""

    claimed: ClaimedMail
    parsed: ParsedMail
    kept: bytes  # its redacted copy, which replaces the mail as received
    commands: CommandText | None = None  # as read on receipt (the command shown again)
    # The worker (claims.worker_name) that claims the next stored mail in the transaction
    # that marks this one done: in a burst, one write transaction a mail, not two.
    claim_next: str | None = None


class CommandsRunner(Runner):
    """Runs a mail's command and stores what it changes (:meth:`answer_command`): the
    runner (:class:`~pbm_emergo.app.runner.Runner`) whose operation is a mail's commands
    and whose write transaction, for a stored mail, also marks it done. ``processor``: what
    runs the commands (in production :func:`~pbm_emergo.mail.commands.dispatch`)."""

    def __init__(
        self,
        session_factory: SessionFactory,
        config: Config,
        processor: CommandProcessor | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        super().__init__(session_factory, config, clock=clock)
        self.processor = processor or dispatch

    def answer_command(
        self,
        mail: CommandMail,
        text: CommandText,
        now: datetime,
        answering: Answering | None = None,
        *,
        reading: Session | None = None,
    ) -> Answered:
        """Run the command of ``mail`` (``text``: as read on receipt; not a ``multiple``
        mail) and store what it changes; with ``answering``, queue the replies and mark
        that stored mail done in the same transaction. ``reading``: an open reading session
        (the one the stored mail was read in) for the first attempt's reads, closed once
        they are done.

        The commands read and answer in a reading session (no write lock); the replies are
        built into mail; then one short write transaction applies the commands' writes and
        the worker's own. A :class:`Conflict` (a write found that what the commands read has
        changed) starts everything over from a fresh read (a challenge whose board number
        was taken, with a number set aside: :meth:`board_number_after`), at most
        ``MAX_CONFLICTS`` times.
        """

        def attempt(given: Session | None, board_number: int | None) -> Answered:
            with timed("read"), self._reading(given) as session:
                replies, writes = self.processor(
                    session, mail, self.config, now, text=text, board_number=board_number
                )
            with timed("render"):
                built = self.built_replies(replies, now, answering)
            with timed("write"):
                queued, claimed_next = self.outbox.with_limit_notices(
                    self.reads,
                    lambda notices: self._write(writes, built, now, answering, notices), now,
                )
            return Answered(replies, queued, claimed_next)

        return self.until_stored(attempt, reading, f"mail {mail.message_id}")

    def until_stored(
        self, attempt: Callable[[Session | None, int | None], _T], reading: Session | None,
        what: str,
    ) -> _T:
        """The conflict policy of a mail (and of each line of a ``multiple`` one): run
        ``attempt`` (read, answer, one short write; given ``reading`` on the first try only,
        and the board number set aside, if any) until it raises no :class:`Conflict`,
        starting over from a fresh read at most ``MAX_CONFLICTS`` times (a challenge whose
        board number was taken, with a number set aside: :meth:`board_number_after`);
        ``what`` names it in the log."""
        board_number: int | None = None
        for number in range(1, MAX_CONFLICTS + 1):
            given, reading = reading, None
            try:
                return attempt(given, board_number)
            except Conflict as conflict:
                log.info("%s: %s; starting over (attempt %d)", what, conflict, number)
                board_number = self.board_number_after(conflict, board_number)
        raise RuntimeError(f"{what}: its changes conflicted {MAX_CONFLICTS} times; retried later")

    @contextlib.contextmanager
    def _reading(self, given: Session | None) -> Iterator[Session]:
        """``given`` (closed afterwards: its read transaction ends), or a new reading
        session."""
        if given is None:
            with self.reads() as session:
                yield session
            return
        try:
            yield given
        finally:
            given.close()

    def board_number_after(self, conflict: Conflict, board_number: int | None) -> int | None:
        """The board number the next attempt's challenge makes its board with: after the
        number it read was taken by another board, the next one, set aside for it in a
        write transaction of its own, so that no other challenge can take it (skipped if
        the board is not made after all); else ``board_number`` as it was."""
        if board_number is not None or not isinstance(conflict, BoardNumberTaken):
            return board_number
        return self._set_aside_board_number()

    @write_turn
    def _set_aside_board_number(self) -> int:
        with self.factory.begin() as session:
            return games.next_board_number(session)

    @write_turn
    def _write(
        self, writes: list[Write], built: list[BuiltReply], now: datetime,
        answering: Answering | None, limit_notices: LimitNotices,
    ) -> tuple[int, ClaimedMail | None]:
        """The write transaction of :meth:`answer`: the commands' changes, then the
        worker's own; how many mails were queued, and the next mail claimed (if asked)."""
        with self.factory.begin() as session:
            apply(session, writes)
            queued = self.mark_done(session, built, now, answering, limit_notices)
            return queued, self.claim_next(session, now, answering)

    @staticmethod
    def claim_next(
        session: Session, now: datetime, answering: Answering | None
    ) -> ClaimedMail | None:
        """The next stored mail, claimed where ``answering`` asks for it
        (:attr:`Answering.claim_next`) in the transaction that marks that mail done, after
        it (so a later mail of the same board may be the one), and read by the claim; or
        None."""
        if answering is None or answering.claim_next is None:
            return None
        return inbox.claim_inbound_mail(session, worker=answering.claim_next, now=now)

    def built_replies(
        self, replies: list[Reply], now: datetime, answering: Answering | None
    ) -> list[BuiltReply]:
        """``replies`` built into mail, threaded to the stored mail they answer (none
        without one: nothing is queued)."""
        if answering is None:
            return []
        parsed = answering.parsed
        return self.outbox.build_all(
            replies, now, in_reply_to=parsed.message_id, references=parsed.references,
            sender=parsed.sender or "",
        )

    def mark_done(
        self, session: Session, built: list[BuiltReply], now: datetime,
        answering: Answering | None, limit_notices: LimitNotices,
    ) -> int:
        """The worker's own writes in the write transaction: mark the mail done, queue its
        replies (with ``limit_notices``); how many mails will go out."""
        if answering is None:
            return 0
        claimed = answering.claimed
        # The conditional UPDATE that marks the mail done is also the check that this
        # worker still holds the claim; if not, everything here rolls back.
        shown = (
            shown_after(session, answering.commands) if answering.commands is not None
            else None
        )
        if not inbox.mark_inbound_done(session, claimed, now, raw=answering.kept,
                                       subject=shown):
            raise LostClaim(claimed.id)
        return self.queue(session, built, now, answering, limit_notices)

    def queue(
        self, session: Session, built: list[BuiltReply], now: datetime, answering: Answering,
        limit_notices: LimitNotices,
    ) -> int:
        """Queue the mails ``built`` in answer to the stored mail: how many will go out."""
        return self.outbox.enqueue(
            session, built, now, inbound_id=answering.claimed.id,
            charged_to=answering.parsed.sender or "", limit_notices=limit_notices,
        )

