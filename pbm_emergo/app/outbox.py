"""The outbox: every mail the server sends is built and queued here.

Whatever makes replies (the inbox worker answering a mail, the scheduler's reminders and
timeouts, the robots' and the analysis runner's board mails, an operator's support case, a
dead-lettered mail's notice) hands them to one :class:`Outbox`, as Mailman's runners all
put their mail in one queue. It builds each reply into mail bytes (the same mail to several
people built once and readdressed), and queues them within the per-address cap: a reply
over the cap is held and sent in a later hour, never dropped, and the address gets one
notice that it reached the limit. A board mail sent while a robot is to answer waits a
little for the robot's board mail, which takes its place: one mail a turn against a robot
(:meth:`Outbox.enqueue`). The outbox sender (:mod:`pbm_emergo.mail.outbound`) delivers what
is queued.

Building renders; queueing writes. Build before the write transaction, and queue inside
it, in the same transaction as the changes the replies report. Whether a reply reaches an
address's cap is known only inside (the count of the hour is read there, in the writers'
turn); a reply that reaches it with no notice built for that address stops the transaction
(:class:`LimitNoticesWanted`, nothing stored), the notices are built outside, and the
transaction runs again with them (:meth:`Outbox.with_limit_notices`): nothing is rendered
while the write lock is held.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from pbm_emergo.app import budget
from pbm_emergo.app.messages import Reply, clean_address
from pbm_emergo.config import Config
from pbm_emergo.db import outbox, players
from pbm_emergo.db.claims import ClaimedMail
from pbm_emergo.db.session import Session
from pbm_emergo.db.types import utcnow
from pbm_emergo.telemetry import metrics
from pbm_emergo.views import i18n
from pbm_emergo.views.reply_mail import (
    ReplyMail,
    readdressed_bytes,
    reply_mail,
    rethreaded_bytes,
)
from pbm_emergo.views.templating import render

log = logging.getLogger(__name__)

# The per-address cap counts the mails of the last hour; a held reply waits whole hours.
RATE_WINDOW = timedelta(hours=1)

_T = TypeVar("_T")


@dataclass(frozen=True)
class BuiltReply:
    """A reply made into mail: what its outbox row needs, and how it was threaded (the mail
    it answers and the ids it refers to; a notice about it is threaded the same way)."""

    reply: Reply
    recipient: str
    raw: bytes
    message_id: str
    subject: str
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()


#: The "reply limit reached" notices built for a write transaction, by recipient (None: it
#: cannot be sent to that address).
LimitNotices = Mapping[str, "BuiltReply | None"]


class LimitNoticesWanted(Exception):
    """Raised by :meth:`Outbox.enqueue`, so that its write transaction stores nothing:
    ``replies`` reach the hourly cap of their addresses (one a recipient), and no notice was
    built for them."""

    def __init__(self, replies: Sequence[BuiltReply]) -> None:
        super().__init__(f"reply limit notices to build for {len(replies)} address(es)")
        self.replies = replies


def answers_sender(to: str, sender: str | None) -> bool:
    """Whether mail to ``to`` answers the mail's ``sender`` (None: all mail does), so that
    it may carry that mail's Message-ID."""
    return sender is None or (clean_address(to) or to) == (clean_address(sender) or sender)


class Outbox:
    """Builds replies into mail and queues them within the per-address hourly cap.

    ``clock`` gives the time of :meth:`queue` (mail that answers no mail); the other methods
    take the time of the operation they belong to.
    """

    def __init__(self, config: Config, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.config = config
        self.clock = clock

    # --- building ----------------------------------------------------------------------

    def build_all(
        self,
        replies: Sequence[Reply],
        now: datetime,
        *,
        in_reply_to: str | None = None,
        references: tuple[str, ...] = (),
        sender: str | None = None,
    ) -> list[BuiltReply]:
        """The replies as mail bytes, those that cannot be sent left out, logged. A reply
        that answers a mail (``in_reply_to``, with its ``references``) is threaded to it
        only when it goes to that mail's ``sender`` (None: every reply goes to them): a
        player's Message-ID names their host, and mail to others refers only to ids the
        server made (a board's thread id). The same mail to several people (a board mail)
        is built once, then readdressed, and threaded anew where one answers the sender's
        mail and the other does not."""
        built: list[BuiltReply] = []
        last: tuple[tuple[object, ...], bool, BuiltReply] | None = None
        for reply in replies:
            threaded = answers_sender(reply.to, sender)
            answers = in_reply_to if threaded else None
            refers = references if threaded else ()
            same = (reply.subject, reply.body, reply.board, reply.html, reply.attachment)
            try:
                if last is not None and last[0] == same:
                    first = last[2]
                    if last[1] == threaded:
                        raw, message_id = readdressed_bytes(
                            first.raw, reply.to, server_address=self.config.address
                        )
                    else:
                        raw, message_id = rethreaded_bytes(
                            first.raw, reply.to, server_address=self.config.address,
                            subject=first.subject, board=reply.board,
                            in_reply_to=answers, references=refers,
                        )
                    built.append(
                        BuiltReply(
                            reply=reply, recipient=clean_address(reply.to) or reply.to,
                            raw=raw, message_id=message_id, subject=first.subject,
                            in_reply_to=answers, references=refers,
                        )
                    )
                    continue
                email = reply_mail(
                    reply, server_address=self.config.address, now=now,
                    in_reply_to=answers, references=refers,
                )
            except ValueError as exc:
                log.warning("reply not sent: %s", exc)
                continue
            made = _built(reply, email, answers, refers)
            last = (same, threaded, made)
            built.append(made)
        return built

    def build(
        self,
        reply: Reply,
        now: datetime,
        *,
        in_reply_to: str | None = None,
        references: tuple[str, ...] = (),
    ) -> BuiltReply | None:
        """The reply as mail bytes, or None (logged) when it cannot be sent."""
        found = self.build_all([reply], now, in_reply_to=in_reply_to, references=references)
        return found[0] if found else None

    # --- queueing ----------------------------------------------------------------------

    def enqueue(
        self,
        session: Session,
        replies: Sequence[BuiltReply],
        now: datetime,
        *,
        inbound_id: int | None = None,
        charged_to: str = "",
        takes_over_held: bool = False,
        capped: bool = True,
        limit_notices: LimitNotices | None = None,
    ) -> int:
        """Put built replies in the outbox, within the per-address cap; returns how many
        mails go out now.

        A board mail to a robot's opponent (:attr:`Reply.awaits_robot`) is held for
        ``Config.robot_reply_wait`` seconds; with ``takes_over_held`` (the robots' board
        mails) a reply takes the place of the mail held for the same address and board,
        which then goes at once as this reply: one mail a turn against a robot, counted
        once against the cap. ``capped`` False (the operator's mail): no reply is held by
        the cap.

        One query counts what each address got in the last hour. The reply that reaches the
        cap brings one "reply limit reached" notice, the one in ``limit_notices`` (built
        outside the transaction by :meth:`limit_notices`; none there for an address that
        needs one: :class:`LimitNoticesWanted`); it and every reply after it are held, due
        in a later hour (at most the cap's number of them in each), never dropped. The
        rows name the mail they answer (``inbound_id``); the mails to others that
        ``charged_to`` caused are marked as charged to that sender's budget, and to
        the account of the logged-in command that caused them (:attr:`Reply.account`; see
        :mod:`pbm_emergo.app.budget`).
        """
        queued = 0
        if takes_over_held:
            left = []
            for built in replies:
                if built.reply.board is not None and outbox.take_over_held(
                    session, built.reply.board, built.recipient, built.raw, now,
                    message_id=built.message_id, subject=built.subject,
                ):
                    queued += 1
                else:
                    left.append(built)
            replies = left
        sent = (
            outbox.replies_sent_to_each(
                session, [b.recipient for b in replies], now - RATE_WINDOW
            )
            if capped else {}
        )
        limit = max(1, self.config.reply_limit)
        notices = limit_notices if limit_notices is not None else {}
        if capped:
            wanted = [
                built for built in _reaching_the_cap(replies, sent, limit)
                if built.recipient not in notices
            ]
            if wanted:
                raise LimitNoticesWanted(wanted)
        rows: list[dict[str, Any]] = []
        for built in replies:
            payer = charged_to if budget.charged(built.reply, charged_to) else None
            queued += self._rows(
                built, now, inbound_id, sent, rows, payer,
                built.reply.account if payer else None,
                limit=limit if capped else None, notice=notices.get(built.recipient),
            )
        outbox.queue_outbound(session, rows)
        return queued

    def _rows(
        self,
        built: BuiltReply,
        now: datetime,
        inbound_id: int | None,
        sent: dict[str, int],
        rows: list[dict[str, Any]],
        charged_to: str | None,
        charged_account: int | None,
        *,
        limit: int | None,
        notice: BuiltReply | None,
    ) -> int:
        """Add one reply's outbox rows to ``rows``, counting it in ``sent`` (recipient ->
        mails this hour; ``limit``: the cap, None for none); returns how many go out now (a
        held reply goes later). ``notice``: the "reply limit reached" notice to the
        recipient, queued if this reply reaches the cap."""
        recipient = built.recipient
        sent_recently = sent.get(recipient, 0)
        queued = 0
        if limit is not None and sent_recently == limit:
            # The one notice goes out; the reply itself is held like the ones after it.
            if notice is not None:
                rows.append(
                    outbox.outbound_row(
                        recipient, notice.raw, now, message_id=notice.message_id,
                        subject=notice.subject, inbound_id=inbound_id,
                    )
                )
                queued = 1
            sent_recently += 1
        over = sent_recently - limit if limit is not None else 0  # 1 for the first held
        sent[recipient] = sent_recently + 1
        # A held reply waits for a later hour (at most ``limit`` of them due in each), never
        # dropped: a player's own board mail must arrive even when others flooded them.
        due = now + RATE_WINDOW * -(-over // limit) if limit is not None and over > 0 else None
        note = (
            f"held: more than {limit} mails to this address in an hour; "
            f"sent from {due:%Y-%m-%d %H:%M} UTC" if due is not None else None
        )
        wait = self.config.robot_reply_wait
        if due is None and built.reply.awaits_robot and wait > 0:
            # The robot's answer takes its place if it comes within the wait (one mail a
            # turn); else it goes alone then.
            due, note = now + timedelta(seconds=wait), outbox.AWAITING_ROBOT
        rows.append(
            outbox.outbound_row(
                recipient,
                built.raw,
                now,
                message_id=built.message_id,
                subject=built.subject,
                board_number=built.reply.board,
                inbound_id=inbound_id,
                last_error=note,
                charged_to=charged_to,
                charged_account=charged_account,
                due=due,
                secret=built.reply.secret,
            )
        )
        if note == outbox.AWAITING_ROBOT:
            return queued
        if due is not None:
            log.warning("reply to %s held until %s: more than %d an hour", recipient,
                        f"{due:%H:%M}", limit)
            return queued
        return queued + 1

    def limit_notices(
        self, session: Session, replies: Iterable[BuiltReply], now: datetime
    ) -> dict[str, BuiltReply | None]:
        """The "reply limit reached" notice to the recipient of each of ``replies`` (the
        replies that reach the cap), built (outside any write transaction) in the language
        of the player the address is theirs (a read in ``session`` each, a reading one) and
        threaded as that reply is."""
        limit = max(1, self.config.reply_limit)
        made: dict[str, BuiltReply | None] = {}
        for reached in replies:
            with i18n.speaking(players.language_of_address(session, reached.recipient)):
                text = render(
                    "notice/reply_limit.txt.j2", limit=limit,
                    held_until=i18n.moment(now + RATE_WINDOW, "UTC"),
                )  # fmt: skip
            made[reached.recipient] = self.build(
                Reply(reached.recipient, "Emergo: reply limit reached", text), now,
                in_reply_to=reached.in_reply_to, references=reached.references,
            )
        return made

    def with_limit_notices(
        self,
        reads: Callable[[], Session],
        write: Callable[[LimitNotices], _T],
        now: datetime,
    ) -> _T:
        """``write(notices)``: a write transaction that queues mail by :meth:`enqueue` with
        these ``limit_notices``; run again, with the notices it asked for built in a
        reading session of ``reads`` (:meth:`limit_notices`), each time it asks for more
        (:class:`LimitNoticesWanted`: once in an hour for an address at most, and then it
        stored nothing)."""
        notices: dict[str, BuiltReply | None] = {}
        while True:
            try:
                return write(notices)
            except LimitNoticesWanted as wanted:
                log.info("reply limit reached for %d address(es): its notice built, "
                         "written again", len(wanted.replies))
                with reads() as session:
                    notices |= self.limit_notices(session, wanted.replies, now)

    # --- dead letters ------------------------------------------------------------------

    def dead_letter_notice(
        self, session: Session, dead: ClaimedMail, now: datetime
    ) -> BuiltReply | None:
        """The notice that tells the sender of ``dead`` (a mail given up on) so, built from
        what was worked out on receipt, before the write transaction that gives it up, in
        the language of the player the sender's address is theirs (read in ``session``, a
        reading one); None when that mail may not be answered."""
        if dead.not_answered is not None or not dead.sender:
            return None
        with i18n.speaking(players.language_of_address(session, dead.sender)):
            body = render("notice/dead_letter.txt.j2", subject=dead.subject or "(no subject)")
        notice = Reply(to=dead.sender, subject="Emergo error", body=body)
        return self.build(notice, now, in_reply_to=dead.message_id)

    def notify_dead(
        self, session: Session, dead: ClaimedMail, notice: BuiltReply | None,
        limit_notices: LimitNotices, now: datetime,
    ) -> None:
        """Log a dead-lettered message, count it, and queue its sender's ``notice`` (made by
        :meth:`dead_letter_notice` before the write transaction, at ``now``; None: none)
        within the cap (with ``limit_notices``, counted at ``now``, as :meth:`enqueue`).
        What :func:`pbm_emergo.db.claims.release_stale_claims`' ``on_dead`` calls."""
        if notice is not None:  # first: a write run again for its notice counts once
            self.enqueue(
                session, [notice], now, inbound_id=dead.id, limit_notices=limit_notices
            )
        log.error("inbound %d dead-lettered after %d attempts", dead.id, dead.attempts)
        metrics.get().dead_letters.inc()


def _reaching_the_cap(
    replies: Sequence[BuiltReply], sent: Mapping[str, int], limit: int
) -> list[BuiltReply]:
    """Of ``replies``, the one that brings its recipient's count of the hour (``sent``) to
    ``limit``, for each recipient it reaches: the ones that bring a notice."""
    counts = dict(sent)
    reaching: list[BuiltReply] = []
    for built in replies:
        count = counts.get(built.recipient, 0)
        if count == limit:
            reaching.append(built)
        counts[built.recipient] = count + 1
    return reaching


def _built(
    reply: Reply, email: ReplyMail, in_reply_to: str | None, references: tuple[str, ...]
) -> BuiltReply:
    return BuiltReply(
        reply=reply,
        recipient=email.to,
        raw=email.raw,
        message_id=email.message_id,
        subject=email.subject,
        in_reply_to=in_reply_to,
        references=references,
    )


__all__ = [
    "RATE_WINDOW",
    "BuiltReply",
    "LimitNotices",
    "LimitNoticesWanted",
    "Outbox",
]
