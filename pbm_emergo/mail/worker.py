"""Handle stored inbound mail: claim it, parse it once, hand it over, mark it done.

The worker takes each stored mail in arrival order (per board), as GNU Mailman's runner owns
``_dispose``: a mail is claimed in one short transaction (in a burst, in the one that marks
the thread's last mail done) and read after the claim commits;
its commands, as the listener read them on receipt, then run as one unit of work that also
marks the mail done (:mod:`pbm_emergo.mail.answering`; a ``multiple`` mail line by line,
:mod:`pbm_emergo.mail.line_by_line`), its write transaction checking that this worker still
holds the claim. A failure is counted on the mail, which is dead-lettered after its last
attempt. A crash at any point leaves the mail to be claimed again, or has done all of it.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.outbox import BuiltReply, LimitNotices
from pbm_emergo.commands.registry import command_label
from pbm_emergo.config import Config
from pbm_emergo.db import claims, inbox
from pbm_emergo.db.claims import ClaimedMail
from pbm_emergo.db.models import INBOUND_IGNORED
from pbm_emergo.db.session import Session, SessionFactory, one_statement, write_turn
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail.answering import Answered, Answering, CommandsRunner, LostClaim
from pbm_emergo.mail.commands import CommandProcessor, CommandText, describe, redact
from pbm_emergo.mail.line_by_line import answer_lines
from pbm_emergo.mail.parse import ParsedMail, parse_mail
from pbm_emergo.mail.quotes import quote_start
from pbm_emergo.mail.redact import redacted_copy
from pbm_emergo.telemetry import metrics
from pbm_emergo.telemetry.logs import event
from pbm_emergo.telemetry.sections import Tally, tally, timed

log = logging.getLogger(__name__)

__all__ = ["InboxWorker", "Outcome", "answer"]


def answer(
    factory: SessionFactory,
    mail: CommandMail,
    config: Config,
    now: datetime,
    *,
    processor: CommandProcessor | None = None,
) -> list[Reply]:
    """Run a mail's commands and store what they change as a worker does, without a stored
    mail to mark done or replies to queue (tests, tools); returns the replies."""
    worker = InboxWorker(factory, config, processor, clock=lambda: now)
    text = describe(mail.subject, mail.body, quote_at=quote_start(mail.body))
    return worker.answer(mail, text, now).replies


@dataclass(frozen=True)
class Outcome:
    """What became of one inbound message (for logs and tests)."""

    inbound_id: int
    status: str  # "done", "ignored", "retry", "dead", "lost-claim"
    replies: int = 0


class InboxWorker(CommandsRunner):
    """Takes stored mail in arrival order (per board) and handles it: the runner of stored
    mail (:class:`~pbm_emergo.mail.answering.CommandsRunner`), whose operation is a mail's
    commands and whose write transaction also marks the mail done; a failure is counted on
    the mail, which is dead-lettered after its last attempt."""

    def __init__(
        self,
        session_factory: SessionFactory,
        config: Config,
        processor: CommandProcessor | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        super().__init__(session_factory, config, processor, clock=clock)
        # Claims whose failure could not be recorded (the database was unwritable).
        self._unreleased: list[tuple[ClaimedMail, str]] = []
        self._lock = threading.Lock()
        # What one thread remembers between its mails: the threads of one server may share
        # this worker, and a claim is its thread's (claims.worker_name), never another's.
        self._mine = threading.local()

    @property
    def _found_last_time(self) -> bool:
        return bool(getattr(self._mine, "found_last_time", False))

    @_found_last_time.setter
    def _found_last_time(self, found: bool) -> None:
        self._mine.found_last_time = found

    @property
    def _held(self) -> int | ClaimedMail | None:
        """A mail this thread claimed and has not handled yet, handled first thing next
        time rather than left waiting for the lease: the mail itself, claimed and read by
        the write transaction of the thread's last mail; or its id, when its read after the
        claim failed (the database went away)."""
        held: int | ClaimedMail | None = getattr(self._mine, "held", None)
        return held

    @_held.setter
    def _held(self, held: int | ClaimedMail | None) -> None:
        self._mine.held = held

    def run_once(self, *, claim_ahead: bool = True) -> Outcome | None:
        """Handle the next message, if there is one. ``claim_ahead``: in a burst (this
        thread found a mail last time), the next mail is claimed in the write transaction
        that marks this one done, and handled by the next call (before stopping, by
        :meth:`finish`)."""
        if self._unreleased:
            self._release_unreleased()  # raises while the database still cannot be written
        with tally() as sections:
            return self._run_once(sections, claim_ahead)

    def finish(self) -> Outcome | None:
        """Before stopping: handle the mail this thread claimed and has not handled yet
        (claimed ahead, or its read failed), claiming no other, so that it does not wait
        for its claim's lease to run out."""
        if self._held is None:
            return None
        return self.run_once(claim_ahead=False)

    def _run_once(self, sections: Tally, claim_ahead: bool) -> Outcome | None:
        with timed("claim"):
            held = self._held if self._held is not None else self._claim()
            if held is None:
                return None
            self._held = held
            # A mail claimed by itself is read after the claim committed, not while holding
            # the write lock (it is ours); one claimed ahead was read by its claim. The same
            # reading session then serves the first reads of its commands: one read
            # transaction a mail (see answer).
            reading = self.reads()
            try:
                claimed = (
                    held if isinstance(held, ClaimedMail)
                    else inbox.read_claimed(reading, held)
                )
            except BaseException:
                reading.close()
                raise
            self._held = None
        try:
            if claimed is None:  # removed by hand meanwhile
                return None
            return self._run_claimed(claimed, reading, sections, claim_ahead)
        finally:
            reading.close()

    def _run_claimed(
        self, claimed: ClaimedMail, reading: Session, sections: Tally, claim_ahead: bool
    ) -> Outcome:
        started = time.perf_counter()
        try:
            outcome = self._process(claimed, reading, claim_ahead=claim_ahead)
        except LostClaim:
            log.warning("inbound %d: claim lost to another worker; work rolled back", claimed.id)
            outcome = Outcome(claimed.id, "lost-claim")
        except Exception:  # noqa: BLE001 - any failure is recorded; the message is retried
            error = traceback.format_exc()
            log.exception("inbound %d failed", claimed.id)
            try:
                outcome = self._fail(claimed, error)
            except Exception:
                # The database cannot be written (restarting, disk full): keep the claim to
                # put back first thing next time, rather than leave the mail (and its
                # board's later mail) waiting for the lease to expire.
                with self._lock:
                    self._unreleased.append((claimed, error))
                raise
        self._account(claimed, outcome, time.perf_counter() - started, sections)
        return outcome

    def _claim(self) -> int | None:
        """Claim the next mail; its id, or None if there is none."""
        # Look first without the write lock: an idle worker must not take it. (Right after
        # a claim there is most likely more: then claim at once.)
        if not self._found_last_time:
            with self.reads() as session:
                if not inbox.inbound_pending(session):
                    return None
        # The claim names this thread (worker_name), not the writes thread that makes it.
        claimed_id = self._take(claims.worker_name(), self.clock())
        self._found_last_time = claimed_id is not None
        return claimed_id

    @write_turn
    def _take(self, worker: str, now: datetime) -> int | None:
        # One statement: on the engine's connection, without a session around it (on
        # PostgreSQL its own transaction: one round trip).
        with one_statement(self.factory.kw["bind"]) as connection:
            return inbox.claim_inbound_id(connection, worker=worker, now=now)

    def _release_unreleased(self) -> None:
        """Record the failures that could not be recorded when they happened."""
        with self._lock:
            waiting, self._unreleased = self._unreleased, []
        for n, (claimed, error) in enumerate(waiting):
            try:
                outcome = self._fail(claimed, error)
            except Exception:
                with self._lock:
                    self._unreleased[:0] = waiting[n:]
                raise
            log.info("inbound %d: the failed attempt is recorded now (%s)", claimed.id,
                     outcome.status)

    def _account(
        self, claimed: ClaimedMail, outcome: Outcome, seconds: float, sections: Tally
    ) -> None:
        """The metrics of one processed mail, and its one log line (the command as masked
        on receipt: no password; where the time went: the sections, and ``idle_ms`` since
        this thread's previous mail)."""
        command = command_label(claimed.subject, claimed.not_answered is not None)
        counted = metrics.get()
        counted.processing.labels(command).observe(seconds)
        if outcome.replies:
            counted.replies_queued.inc(outcome.replies)
        # Counted processed last: a scrape that shows the mail processed shows all of it.
        counted.processed.labels(command, outcome.status).inc()
        fields: dict[str, Any] = {
            "id": claimed.id,
            "sender": claimed.sender or claimed.envelope_sender,
            "command": claimed.subject or "",
            "result": outcome.status,
            "replies": outcome.replies,
            "ms": round(seconds * 1000, 1),
        }
        fields.update({f"{name}_ms": ms for name, ms in sections.milliseconds().items()})
        previous: float | None = getattr(self._mine, "last_done", None)
        if previous is not None:
            fields["idle_ms"] = round((sections.started - previous) * 1000, 1)
        self._mine.last_done = time.perf_counter()
        if claimed.not_answered is not None:
            fields["note"] = claimed.not_answered
        ok = outcome.status in ("done", "ignored")
        event(log, logging.INFO if ok else logging.WARNING, "mail", **fields)

    def _process(
        self, claimed: ClaimedMail, reading: Session | None = None, *, claim_ahead: bool = False
    ) -> Outcome:
        """Run the claimed mail (``reading``: the open session it was read in, which its
        commands' first reads go on in; ``claim_ahead``: see :meth:`run_once`)."""
        inbound_id = claimed.id
        now = self.clock()
        parsed = self.parsed(claimed)
        text = self.commands(claimed, parsed)
        # The mail as received gives way to its redacted copy (see mail.redact).
        kept = self.redacted(claimed.raw, text)
        if claimed.not_answered is not None:
            if reading is not None:
                reading.close()
            # Decided on receipt: a bounce, an auto-reply, mail for postmaster...
            if not self._ignore(claimed, now, f"not answered: {claimed.not_answered}", kept):
                raise LostClaim(inbound_id)
            return Outcome(inbound_id, "ignored")
        # A mail of one command claims the next in its write transaction (a multiple
        # mail's lines each write their own).
        ahead = (
            claims.worker_name() if claim_ahead and self._found_last_time and not text.multiple
            else None
        )
        answered = self.answer(
            parsed.command_mail(), text, now,
            Answering(claimed, parsed, kept, text, claim_next=ahead), reading=reading,
        )
        if ahead is not None:
            self._held = answered.claimed_next
            self._found_last_time = answered.claimed_next is not None
        return Outcome(inbound_id, "done", answered.queued)

    # --- the unit of work ---------------------------------------------------------------

    def answer(
        self,
        mail: CommandMail,
        text: CommandText,
        now: datetime,
        answering: Answering | None = None,
        *,
        reading: Session | None = None,
    ) -> Answered:
        """Run the commands of ``mail`` (``text``: as read on receipt) and store what they
        change; with ``answering``, queue the replies and mark that stored mail done. A
        mail of one command is one unit of work (:meth:`answer_command`), a ``multiple``
        mail one a line (:func:`~pbm_emergo.mail.line_by_line.answer_lines`). ``reading``:
        an open reading session (the one the stored mail was read in) for the first
        reads."""
        if text.multiple:
            return answer_lines(self, mail, text, now, answering, reading=reading)
        return self.answer_command(mail, text, now, answering, reading=reading)

    @write_turn
    def _ignore(self, claimed: ClaimedMail, now: datetime, note: str, kept: bytes) -> bool:
        """Mark a mail not to be answered done; False if the claim was lost."""
        with self.factory.begin() as session:
            return inbox.mark_inbound_done(
                session, claimed, now, status=INBOUND_IGNORED, note=note, raw=kept
            )

    def parsed(self, claimed: ClaimedMail) -> ParsedMail:
        """The mail as the listener parsed it on receipt; parsed now only if it was stored
        without its parse (before that was stored, or by hand)."""
        if claimed.parsed is not None:
            try:
                return ParsedMail.from_stored(
                    claimed.parsed, sender=claimed.sender, not_answered=claimed.not_answered
                )
            except (KeyError, TypeError):
                log.warning("inbound %d: its stored parse is unreadable; parsed again",
                            claimed.id)
        return parse_mail(
            claimed.raw, claimed.envelope_sender, own_address=self.config.address,
            authserv_id=self.config.authserv_id,
        )

    @staticmethod
    def commands(claimed: ClaimedMail, parsed: ParsedMail) -> CommandText:
        """The mail's commands as the listener read them on receipt; read now only if the
        mail was stored without them (before they were stored, or by hand)."""
        if parsed.commands is not None:
            return parsed.commands
        text = describe(parsed.subject, parsed.body, quote_at=parsed.quote_at)
        # The command as the listener showed it (if it did), so that it is not looked up.
        return dataclasses.replace(text, command=claimed.subject or "")

    @staticmethod
    def redacted(raw: bytes, text: CommandText) -> bytes:
        """The copy of a processed mail to keep: its passwords masked (see mail.redact).
        No database read: userids and board numbers are masked too, which costs nothing
        here (``subject`` of the row keeps the command as shown)."""
        subject, body, scrub = redact(text)
        return redacted_copy(raw, subject, body, scrub)

    # --- failures ----------------------------------------------------------------------

    def _fail(self, claimed: ClaimedMail, error: str) -> Outcome:
        # One time for the whole failure: the notice's Date, the hour its cap counts, and
        # when the mail is tried again are the same moment.
        now = self.clock()
        # The notice to the sender of a mail whose last attempt this was is built now, from
        # the row as claimed, not inside the write transaction.
        notice = None
        if claimed.attempts >= claims.MAX_INBOUND_ATTEMPTS:
            with self.reads() as session:
                notice = self.outbox.dead_letter_notice(session, claimed, now)
        return self.outbox.with_limit_notices(
            self.reads,
            lambda notices: self._record_failure(claimed, error, notice, notices, now),
            now,
        )

    @write_turn
    def _record_failure(
        self, claimed: ClaimedMail, error: str, notice: BuiltReply | None,
        limit_notices: LimitNotices, now: datetime,
    ) -> Outcome:
        inbound_id = claimed.id
        with self.factory.begin() as session:
            # The conditional UPDATE re-checks the claim (a mail removed by hand, or taken
            # by another worker once the lease ran out, is no longer this worker's).
            if not inbox.mark_inbound_failed(session, claimed, error, now):
                return Outcome(inbound_id, "lost-claim")
            if claimed.attempts < claims.MAX_INBOUND_ATTEMPTS:
                return Outcome(inbound_id, "retry")
            self.outbox.notify_dead(session, claimed, notice, limit_notices, now)
        return Outcome(inbound_id, "dead")
