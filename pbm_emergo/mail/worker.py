"""Process stored inbound mail: parse, run the commands, queue the replies, mark done.

One message is handled in one transaction that also writes its replies to the outbox, so a
crash either leaves the message to be retried or has done all of it.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.commands import mask_command
from pbm_emergo.commands.api import CommandProcessor, Reply
from pbm_emergo.config import Config
from pbm_emergo.db import queues
from pbm_emergo.db.models import INBOUND_DEAD, INBOUND_IGNORED, OUTBOUND_FAILED, InboundMessage
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail import queue
from pbm_emergo.mail.parse import parse_mail
from pbm_emergo.mail.reply import build_reply, reply_bytes, sanitise_subject

log = logging.getLogger(__name__)

RATE_WINDOW = timedelta(hours=1)


def default_processor() -> CommandProcessor:
    """The production command layer (imported late: it loads the commands on first use)."""
    from pbm_emergo.commands import process

    return process


class LostClaim(Exception):
    """Our claim on a message expired and another worker took it: roll back our work."""


@dataclass(frozen=True)
class Outcome:
    """What became of one inbound message (for logs and tests)."""

    inbound_id: int
    status: str  # "done", "ignored", "retry", "dead", "lost-claim"
    replies: int = 0


class InboxWorker:
    """Takes stored mail in arrival order and processes it, one message per transaction."""

    def __init__(
        self,
        session_factory: sessionmaker[Session],
        config: Config,
        processor: CommandProcessor | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.session_factory = session_factory
        self.config = config
        self.processor = processor or default_processor()
        self.clock = clock

    def run_once(self) -> Outcome | None:
        """Process the next message, if there is one."""
        worker = queue.worker_name()
        with self.session_factory.begin() as session:
            claimed = queue.claim_inbound(session, worker=worker, now=self.clock())
            if claimed is None:
                return None
        try:
            return self._process(claimed.id, worker)
        except Exception:  # noqa: BLE001 - any failure is recorded; the message is retried
            error = traceback.format_exc()
            log.exception("inbound %d failed", claimed.id)
            return self._fail(claimed, error)

    def _process(self, inbound_id: int, worker: str) -> Outcome:
        with self.session_factory.begin() as session:
            message = queue.load_claimed_inbound(session, inbound_id, worker)
            if message is None:
                return Outcome(inbound_id, "lost-claim")
            now = self.clock()
            parsed = parse_mail(
                message.raw, message.envelope_sender, own_address=self.config.address
            )
            reason = parsed.not_answered or self._not_for_us(message.envelope_recipients)
            if reason is not None:
                log.info(
                    "inbound %d (%s from %r) not answered: %s",
                    inbound_id, parsed.message_id, message.envelope_sender, reason,
                )
                message.last_error = f"not answered: {reason}"
                if not queues.mark_inbound_done(session, message, now, status=INBOUND_IGNORED):
                    raise LostClaim(inbound_id)
                return Outcome(inbound_id, "ignored")
            replies = self.processor(session, parsed.command_mail(), self.config, now)
            queued = 0
            for reply in replies:
                queued += self.queue_reply(
                    session, reply, now, inbound_id, parsed.message_id, parsed.references
                )
            if not queues.mark_inbound_done(session, message, now):
                raise LostClaim(inbound_id)
        log.info("inbound %d done, %d replies queued", inbound_id, queued)
        return Outcome(inbound_id, "done", queued)

    def _not_for_us(self, recipients: list[str]) -> str | None:
        """Mail only for postmaster is kept for the operator, not run as commands."""
        own = self.config.address.lower()
        if any(r.strip("<>").lower() == own for r in recipients or []):
            return None
        return "mail for postmaster (kept for the operator)"

    def queue_scheduled(self, session: Session, reply: Reply) -> int:
        """Queue a reply that answers no mail (reminders, timeouts from the scheduler)."""
        return self.queue_reply(session, reply, self.clock(), None, None, ())

    def queue_reply(
        self,
        session: Session,
        reply: Reply,
        now: datetime,
        inbound_id: int | None,
        in_reply_to: str | None,
        references: tuple[str, ...],
    ) -> int:
        """Build one reply and put it in the outbox, within the per-address cap."""
        try:
            email = build_reply(
                reply,
                server_address=self.config.address,
                now=now,
                in_reply_to=in_reply_to,
                references=references,
            )
        except ValueError as exc:
            log.warning("inbound %s: reply not sent: %s", inbound_id, exc)
            return 0
        recipient = str(email["To"])
        board = _board_of_thread(reply.thread)
        sent_recently = queues.replies_sent_to(session, recipient, now - RATE_WINDOW)
        limit = self.config.reply_limit
        queued = 0
        if sent_recently == limit:
            # The one final notice goes out; the reply itself is held like the ones after it.
            notice = build_reply(
                Reply(recipient, "Emergo: reply limit reached", _limit_notice(limit)),
                server_address=self.config.address,
                now=now,
                in_reply_to=in_reply_to,
                references=references,
            )
            queues.enqueue_outbound(
                session,
                recipient,
                reply_bytes(notice),
                now,
                message_id=str(notice["Message-ID"]),
                subject=str(notice["Subject"]),
                inbound_id=inbound_id,
            )
            queued, sent_recently = 1, sent_recently + 1
        if sent_recently > limit:
            # Kept (as failed) so that "what happened to my mail?" has an answer in SQL.
            held = queues.enqueue_outbound(
                session,
                recipient,
                reply_bytes(email),
                now,
                message_id=str(email["Message-ID"]),
                subject=sanitise_subject(reply.subject),
                board_number=board,
                inbound_id=inbound_id,
            )
            held.status = OUTBOUND_FAILED
            held.last_error = f"not sent: more than {limit} mails to this address in an hour"
            log.warning("reply to %s held back: more than %d an hour", recipient, limit)
            return queued
        queues.enqueue_outbound(
            session,
            recipient,
            reply_bytes(email),
            now,
            message_id=str(email["Message-ID"]),
            subject=str(email["Subject"]),
            board_number=board,
            inbound_id=inbound_id,
        )
        return 1

    def _fail(self, claimed: InboundMessage, error: str) -> Outcome:
        now = self.clock()
        inbound_id = claimed.id
        with self.session_factory.begin() as session:
            dead = session.get(InboundMessage, inbound_id)
            if (
                dead is None
                or dead.claimed_by != claimed.claimed_by
                or not queues.mark_inbound_failed(session, dead, error, now)
            ):
                return Outcome(inbound_id, "lost-claim")
            if dead.status != INBOUND_DEAD:
                return Outcome(inbound_id, "retry")
            self.notify_dead(session, dead)
        return Outcome(inbound_id, "dead")

    def notify_dead(self, session: Session, dead: InboundMessage) -> None:
        """Log a dead-lettered message and tell its sender (if the mail may be answered)."""
        log.error("inbound %d dead-lettered after %d attempts", dead.id, dead.attempts)
        parsed = parse_mail(dead.raw, dead.envelope_sender, own_address=self.config.address)
        if parsed.not_answered is None and parsed.sender:
            notice = Reply(
                to=parsed.sender,
                subject="Emergo error",
                body=_dead_letter_notice(parsed.subject),
            )
            self.queue_reply(
                session, notice, self.clock(), dead.id, parsed.message_id, parsed.references
            )


def _board_of_thread(thread: str | None) -> int | None:
    if thread and thread.startswith("board-") and thread[6:].isdigit():
        return int(thread[6:])
    return None


def _limit_notice(limit: int) -> str:
    return (
        f"This server has sent {limit} mails to your address in the last hour, the most it\n"
        "sends to one address in an hour. Further replies are held back until the hour is\n"
        "over; this is the last mail you get until then. Nothing you sent is lost: commands\n"
        "are still carried out.\n"
    )


def _dead_letter_notice(subject: str) -> str:
    shown = sanitise_subject(mask_command(subject)) if subject else "(no subject)"
    return (
        "Your mail could not be processed because of an error on the server, and it has\n"
        "been set aside for the operator, who can run it again once the error is fixed.\n"
        f"\nSubject of your mail: {shown}\n"
    )
