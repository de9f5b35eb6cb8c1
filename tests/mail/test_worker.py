"""Inbox workers: one transaction per message with its replies; retries; dead letters;
loop safety; the reply cap; per-board order; crash recovery of claims."""

from __future__ import annotations

import dataclasses
import itertools
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parsedate_to_datetime

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.results import Write
from pbm_emergo.config import Config
from pbm_emergo.db import claims, inbox, outbox
from pbm_emergo.db.models import InboundMessage, OutboundMessage
from pbm_emergo.game.board_changes import RobotGamesUnderLimit
from pbm_emergo.mail.answering import MAX_CONFLICTS
from pbm_emergo.mail.commands import CommandText, describe
from pbm_emergo.mail.inbound import InboxHandler
from pbm_emergo.mail.parse import ParsedMail
from pbm_emergo.mail.worker import InboxWorker
from pbm_emergo.wire.marks import LOOP_HEADER
from tests.support.mail import FlakyReads, command_mail
from tests.support.statements import write_transactions
from tests.support.text import flat

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


class Echo:
    """A stand-in command layer: answers each mail with its subject, records what it saw
    (the mail, and its commands as read on receipt)."""

    def __init__(self, fail_times: int = 0, board: int | None = None) -> None:
        self.seen: list[CommandMail] = []
        self.texts: list[CommandText] = []
        self.fail_times = fail_times
        self.board = board

    def __call__(
        self,
        session: Session,
        mail: CommandMail,
        config: Config,
        now: datetime,
        *,
        text: CommandText,
        board_number: int | None = None,
    ) -> tuple[list[Reply], list[Write]]:
        self.seen.append(mail)
        self.texts.append(text)
        if self.fail_times > 0:
            self.fail_times -= 1
            raise RuntimeError("the command layer broke")
        return [Reply(mail.sender, f"echo {mail.subject}", mail.body, board=self.board)], []


def store(config: Config, factory: sessionmaker[Session], msg: EmailMessage,
          envelope: str | None = None) -> int:
    handler = InboxHandler(factory, config, clock=lambda: NOW)
    sender = str(msg["From"]) if envelope is None else envelope
    return handler.store(msg.as_bytes(policy=policy.SMTP), sender, [config.address]).id


def rows(factory: sessionmaker[Session], model: type) -> list:  # type: ignore[type-arg]
    with factory.begin() as session:
        return list(session.scalars(select(model).order_by(model.id)))


def gone_worker() -> str:
    """The name of an inbox worker of this host whose process has exited (a real one: its
    pid is no longer alive)."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return f"{claims.worker_name().split(':')[0]}:{gone.stdout.strip()}:inbox-1"


def claimed_on_its_last_attempt(factory: sessionmaker[Session], worker: str) -> None:
    """The stored mail claimed by ``worker``, its attempts used up with this one."""
    with factory.begin() as session:
        claimed = inbox.claim_inbound(session, worker=worker, now=NOW)
        assert claimed is not None
        claimed.attempts = claims.MAX_INBOUND_ATTEMPTS


def parsed(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg


def test_message_is_processed_and_its_reply_queued(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    inbound_id = store(
        config, session_factory,
        command_mail("Re: emergo help", body="hi\n", message_id="<c1@example.org>"),
    )
    echo = Echo(board=101)
    worker = InboxWorker(session_factory, config, echo, clock=lambda: NOW)
    outcome = worker.run_once()
    assert outcome is not None and (outcome.inbound_id, outcome.status) == (inbound_id, "done")
    assert worker.run_once() is None
    expected = CommandMail("alice@example.org", "emergo help", "hi\n", "<c1@example.org>")
    assert echo.seen == [expected]
    # Its commands as the listener read them on receipt, the command as it showed it.
    [text] = echo.texts
    assert (text.line, text.comment, text.command) == ("emergo help", "hi", "emergo help")
    [inbound] = rows(session_factory, InboundMessage)
    assert (inbound.status, inbound.attempts, inbound.processed_at) == ("done", 1, NOW)
    [out] = rows(session_factory, OutboundMessage)
    assert (out.recipient, out.status, out.inbound_id, out.board_number) == (
        "alice@example.org", "pending", inbound_id, 101
    )
    reply = parsed(out.raw)
    assert reply["Subject"] == "echo emergo help"
    assert reply["In-Reply-To"] == "<c1@example.org>"
    assert reply["Auto-Submitted"] == "auto-replied"
    assert reply[LOOP_HEADER] == config.address
    assert reply["References"].split()[0] == f"<board-101.pbm-emergo@{config.domain}>"


def what_runs(
    config: Config, factory: sessionmaker[Session]
) -> list[tuple[str, str, str, str]]:
    """Run the next mail (it must be done): its Subject, body and Message-ID as run, and
    the command line run."""
    echo = Echo()
    outcome = InboxWorker(factory, config, echo, clock=lambda: NOW).run_once()
    assert outcome is not None and outcome.status == "done"
    return [
        (m.subject, m.body, m.message_id, t.line)
        for m, t in zip(echo.seen, echo.texts, strict=True)
    ]


def test_the_worker_runs_the_listeners_parse_and_empties_it_with_the_raw_mail(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    """A mail is parsed and its commands read once, on receipt: the worker runs what the
    listener stored (here the stored parse is changed under it, and that is what runs), and
    the parse, which holds what the raw mail holds, is emptied when the mail is done."""
    inbound_id = store(
        config, session_factory,
        command_mail("emergo help", body="the body\n", message_id="<p1@example.org>"),
    )
    with session_factory.begin() as session:
        inbound = session.get(InboundMessage, inbound_id)
        assert inbound is not None and inbound.parsed is not None
        assert (inbound.parsed["subject"], inbound.parsed["body"]) == ("emergo help", "the body\n")
        assert inbound.parsed["message_id"] == "<p1@example.org>"
        commands = inbound.parsed["commands"]
        assert (commands["line"], commands["comment"]) == ("emergo help", "the body")
        inbound.parsed = {
            **inbound.parsed,
            "subject": "emergo show 101",
            "commands": {**commands, "line": "emergo show 101", "lines": ["emergo show 101"]},
        }
    assert what_runs(config, session_factory) == [
        ("emergo show 101", "the body\n", "<p1@example.org>", "emergo show 101")
    ]
    with session_factory.begin() as session:
        assert session.scalar(
            select(InboundMessage.id).where(
                InboundMessage.id == inbound_id, InboundMessage.parsed.is_(None)
            )
        ) == inbound_id


def test_a_mails_commands_are_read_on_receipt_and_run_as_stored(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    """The listener reads the commands once (the lines of a ``multiple`` body, those beyond
    the first 30, what follows the signature, the boards they name) and stores them with
    the mail; the worker runs what it stored (each line on its own: the report lists 30
    lines and the 5 not run)."""
    body = "".join(f"emergo show {100 + n}\n" for n in range(35)) + "-- \nalice\n"
    inbound_id = store(config, session_factory, command_mail("multiple", body=body))
    with session_factory() as session:
        inbound = session.get(InboundMessage, inbound_id)
        assert inbound is not None and inbound.parsed is not None
        stored = ParsedMail.from_stored(inbound.parsed, sender=inbound.sender,
                                        not_answered=None).commands
        assert stored == describe("multiple", body, session)
    assert stored is not None and stored.multiple and stored.command == "multiple"
    assert (len(stored.lines), len(stored.unprocessed)) == (30, 5)
    assert (stored.stopped_at, stored.ignored) == ("the signature", 1)
    assert stored.boards == tuple(range(100, 130))
    outcome = InboxWorker(session_factory, config, clock=lambda: NOW).run_once()
    assert outcome is not None and outcome.status == "done"
    [report] = rows(session_factory, OutboundMessage)
    assert report.subject == "Emergo multiple: 0 done, 30 failed"
    body = BytesParser(policy=policy.default).parsebytes(report.raw).get_content()
    results, unprocessed = body.replace("\r\n", "\n").split("- Unprocessed")
    assert "  > emergo show 129\n" in results and "emergo show 130" not in results
    assert "emergo show 130\n" in unprocessed and "emergo show 134\n" in unprocessed


def test_a_mail_stored_without_its_parse_is_parsed_by_the_worker(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    raw = command_mail("emergo help", body="hi\n", message_id="<p2@example.org>")
    with session_factory.begin() as session:
        inbox.store_inbound(
            session, raw.as_bytes(policy=policy.SMTP), "alice@example.org",
            [config.address], "<p2@example.org>", NOW, sender="alice@example.org",
        )  # fmt: skip
    assert what_runs(config, session_factory) == [
        ("emergo help", "hi\n", "<p2@example.org>", "emergo help")
    ]


def test_failures_are_retried_then_dead_lettered_with_a_notice(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    subject = "emergo move 101 alice s3cret e4"
    store(config, session_factory, command_mail(subject, message_id="<f@example.org>"))
    echo = Echo(fail_times=99)
    worker = InboxWorker(session_factory, config, echo, clock=lambda: NOW)
    statuses = []
    while (outcome := worker.run_once()) is not None:
        statuses.append(outcome.status)
    assert statuses == ["retry"] * 4 + ["dead"]
    [inbound] = rows(session_factory, InboundMessage)
    assert (inbound.status, inbound.attempts) == ("dead", claims.MAX_INBOUND_ATTEMPTS)
    assert "the command layer broke" in (inbound.last_error or "")
    # The sender is told; nothing of the failed attempts reached the outbox.
    [notice] = rows(session_factory, OutboundMessage)
    assert notice.recipient == "alice@example.org"
    body = parsed(notice.raw).get_content()
    assert "could not be processed" in body and "Subject of your mail: emergo move 101" in body
    assert "s3cret" not in body
    # Requeued by the operator (admin requeue), it runs again and succeeds.
    echo.fail_times = 0
    with session_factory.begin() as session:
        assert inbox.requeue_inbound(session, inbound.id, NOW)
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "done"


def test_a_failure_is_recorded_at_one_time(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    # A clock a second later at every look: the notice of the last failure is dated, and
    # queued (the hour its cap counts), at the one time the failure read.
    inbound_id = store(config, session_factory, command_mail("emergo move 101 alice s3cret e4"))
    with session_factory.begin() as session:  # its claim now will be its last attempt
        session.execute(update(InboundMessage).where(InboundMessage.id == inbound_id)
                        .values(attempts=claims.MAX_INBOUND_ATTEMPTS - 1))
    ticks = itertools.count()
    worker = InboxWorker(session_factory, config, Echo(fail_times=1),
                         clock=lambda: NOW + timedelta(seconds=next(ticks)))
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "dead"
    [notice] = rows(session_factory, OutboundMessage)
    dated = parsedate_to_datetime(parsed(notice.raw)["Date"])
    assert notice.created_at.replace(tzinfo=UTC) == dated
    assert notice.next_attempt_at.replace(tzinfo=UTC) == dated


def test_a_mail_whose_writes_conflict_every_time_is_given_up_for_now_and_tried_again(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    """A mail whose write finds each time that what it read has changed starts over from a
    fresh read, at most MAX_CONFLICTS times; then it is put back, nothing of it stored, and
    a later attempt answers it."""
    store(config, session_factory, command_mail("help", message_id="<busy@example.org>"))
    runs: list[CommandMail] = []
    conflicting = True

    def always_changed(
        session: Session, mail: CommandMail, config: Config, now: datetime,
        *, text: CommandText, board_number: int | None = None,
    ) -> tuple[list[Reply], list[Write]]:
        runs.append(mail)
        # A re-check that fails in every write transaction: fewer than no games.
        writes: list[Write] = [RobotGamesUnderLimit(1, (), 0)] if conflicting else []
        return [Reply(mail.sender, "echo", "")], writes

    worker = InboxWorker(session_factory, config, always_changed, clock=lambda: NOW)
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "retry"
    assert len(runs) == MAX_CONFLICTS
    assert rows(session_factory, OutboundMessage) == []
    [inbound] = rows(session_factory, InboundMessage)
    assert (inbound.status, inbound.attempts) == ("pending", 1)
    assert f"conflicted {MAX_CONFLICTS} times" in (inbound.last_error or "")
    conflicting = False
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "done"
    assert len(runs) == MAX_CONFLICTS + 1
    [reply] = rows(session_factory, OutboundMessage)
    assert parsed(reply.raw)["Subject"] == "echo"


def test_a_failure_rolls_back_the_replies_of_that_attempt(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    store(config, session_factory, command_mail("help"))

    def half_done(
        session: Session, mail: CommandMail, config: Config, now: datetime
    ) -> list[Reply]:
        outbox.enqueue_outbound(session, "someone@example.org", b"x", now)
        raise RuntimeError("after writing")

    worker = InboxWorker(session_factory, config, half_done, clock=lambda: NOW)
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "retry"
    assert rows(session_factory, OutboundMessage) == []
    assert rows(session_factory, InboundMessage)[0].status == "pending"


def test_mail_that_must_not_be_answered_is_stored_and_ignored(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    cases = [
        (command_mail("Undelivered", sender="MAILER-DAEMON@example.org"), ""),
        (command_mail("help", headers={"Auto-Submitted": "auto-replied"}), None),
        (command_mail("help", headers={"Precedence": "junk"}), None),
        (command_mail("help", headers={LOOP_HEADER: "pbmserv@elsewhere.test"}), None),
    ]
    for index, (msg, envelope) in enumerate(cases):
        msg["Message-ID"] = f"<ignored{index}@example.org>"
        store(config, session_factory, msg, envelope)
    echo = Echo()
    worker = InboxWorker(session_factory, config, echo, clock=lambda: NOW)
    outcomes = [worker.run_once() for _ in cases]
    assert [o.status for o in outcomes if o] == ["ignored"] * len(cases)
    assert echo.seen == []
    assert rows(session_factory, OutboundMessage) == []
    inbound = rows(session_factory, InboundMessage)
    assert [r.status for r in inbound] == ["ignored"] * len(cases)
    assert all((r.last_error or "").startswith("not answered: ") for r in inbound)


def test_reply_cap_sends_one_notice_then_holds_back(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    config = dataclasses.replace(config, reply_limit=3)
    for n in range(6):
        store(config, session_factory, command_mail(f"help {n}", message_id=f"<r{n}@example.org>"))
    later = store(config, session_factory, command_mail("help", sender="bob@example.org"))
    worker = InboxWorker(session_factory, config, Echo(), clock=lambda: NOW)
    while worker.run_once() is not None:
        pass
    out = rows(session_factory, OutboundMessage)
    alice = [
        (o.status, o.next_attempt_at, parsed(o.raw)["Subject"])
        for o in out if o.recipient == "alice@example.org"
    ]
    hour = NOW + timedelta(hours=1)
    assert alice == [
        ("pending", NOW, "echo help 0"),
        ("pending", NOW, "echo help 1"),
        ("pending", NOW, "echo help 2"),
        ("pending", NOW, "Emergo: reply limit reached"),
        # Held, not dropped: due an hour later, at most the limit of them in that hour.
        ("pending", hour, "echo help 3"),
        ("pending", hour, "echo help 4"),
        ("pending", hour, "echo help 5"),
    ]
    held = [o for o in out if o.next_attempt_at > NOW]
    assert all((o.last_error or "").startswith("held: more than 3 mails") for o in held)
    notice = next(o for o in out if parsed(o.raw)["Subject"] == "Emergo: reply limit reached")
    assert "held, not lost" in flat(notice.raw.decode())
    # Built outside the write transaction, it answers the mail that reached the cap.
    assert parsed(notice.raw)["In-Reply-To"] == "<r3@example.org>"
    # Other addresses are not affected, and every command was still carried out.
    assert [o.inbound_id for o in out if o.recipient == "bob@example.org"] == [later]
    assert {r.status for r in rows(session_factory, InboundMessage)} == {"done"}
    # An hour later the address gets replies again.
    store(config, session_factory, command_mail("help again", message_id="<r9@example.org>"))
    hour_later = InboxWorker(
        session_factory, config, Echo(), clock=lambda: NOW + timedelta(hours=1, seconds=1)
    )
    hour_later.run_once()
    assert rows(session_factory, OutboundMessage)[-1].status == "pending"


def test_one_board_is_taken_in_arrival_order_even_with_several_workers(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    def mail(subject: str, message_id: str) -> int:
        return store(config, session_factory, command_mail(subject, message_id=message_id))

    first = mail("emergo move 101 a pw e4", "<1@x>")
    second = mail("emergo move 101 b pw c4", "<2@x>")
    other = mail("emergo move 102 a pw e4", "<3@x>")
    with session_factory.begin() as session:
        a = inbox.claim_inbound(session, worker="w1", now=NOW)
    with session_factory.begin() as session:
        # While 101's first mail is in hand, a second worker skips 101's second mail.
        b = inbox.claim_inbound(session, worker="w2", now=NOW)
    with session_factory.begin() as session:
        c = inbox.claim_inbound(session, worker="w3", now=NOW)
    assert a is not None and b is not None
    assert (a.id, b.id, c) == (first, other, None)
    with session_factory.begin() as session:
        message = session.get(InboundMessage, first)
        assert message is not None
        assert inbox.mark_inbound_done(session, message, NOW)
    with session_factory.begin() as session:
        d = inbox.claim_inbound(session, worker="w3", now=NOW)
    assert d is not None and d.id == second


def test_claims_of_a_dead_process_are_released(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    inbound_id = store(config, session_factory, command_mail("help"))
    # A real process that has exited: its pid is no longer alive.
    dead_worker = gone_worker()
    with session_factory.begin() as session:
        claimed = inbox.claim_inbound(session, worker=dead_worker, now=NOW)
        assert claimed is not None
        outbox.enqueue_outbound(session, "bob@example.org", b"x", NOW)
    with session_factory.begin() as session:
        [out] = outbox.claim_due_outbound(session, dead_worker, NOW)
    # Claims of live processes (ours) are left alone.
    with session_factory.begin() as session:
        assert claims.release_stale_claims(session, now=NOW) == (1, 1)
        assert claims.release_stale_claims(session, now=NOW) == (0, 0)
    worker = InboxWorker(session_factory, config, Echo(), clock=lambda: NOW)
    outcome = worker.run_once()
    assert outcome is not None and (outcome.inbound_id, outcome.status) == (inbound_id, "done")
    [inbound] = rows(session_factory, InboundMessage)
    assert inbound.attempts == 2  # the crashed attempt counts
    assert rows(session_factory, OutboundMessage)[0].status == "pending"



def test_a_mail_whose_worker_died_five_times_is_dead_lettered_with_a_notice(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    # A mail that kills its worker process every time: after the fifth crash it is set
    # aside, and its sender is told, as after five failures that raised an exception.
    from pbm_emergo.ops.server import MailServer

    store(config, session_factory, command_mail("emergo move 101 alice s3cret e4"))
    claimed_on_its_last_attempt(session_factory, gone_worker())
    server = MailServer(config, session_factory, processor=Echo(), listen=False, send=False,
                        clock=lambda: NOW)
    server._release_stale_claims()
    [inbound] = rows(session_factory, InboundMessage)
    assert inbound.status == "dead"
    [notice] = rows(session_factory, OutboundMessage)
    assert (notice.recipient, notice.inbound_id) == ("alice@example.org", inbound.id)
    body = parsed(notice.raw).get_content()
    assert "could not be processed" in body and "s3cret" not in body

def test_a_mail_given_up_for_its_dead_worker_is_recorded_at_one_time(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    # As at a failure: the notice is dated, and queued, at the time the round read.
    from pbm_emergo.ops.server import MailServer

    store(config, session_factory, command_mail("emergo move 101 alice s3cret e4"))
    claimed_on_its_last_attempt(session_factory, gone_worker())
    ticks = itertools.count()
    server = MailServer(config, session_factory, processor=Echo(), listen=False, send=False,
                        clock=lambda: NOW + timedelta(seconds=next(ticks)))
    server._release_stale_claims()
    [notice] = rows(session_factory, OutboundMessage)
    dated = parsedate_to_datetime(parsed(notice.raw)["Date"])
    assert notice.created_at.replace(tzinfo=UTC) == dated


def test_a_mail_given_up_is_dead_lettered_only_with_its_notice_made_ahead(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    # A claim that went stale between the read that made the notices and the write that
    # puts claims back is left for the next round, which makes its notice: no notice is
    # made in the write transaction.
    inbound_id = store(config, session_factory, command_mail("help"))
    claimed_on_its_last_attempt(session_factory, gone_worker())
    told: list[int] = []
    with session_factory.begin() as session:
        assert claims.release_stale_claims(
            session, now=NOW, given_up=set(), on_dead=lambda _, dead: told.append(dead.id)
        ) == (0, 0)
    assert [m.status for m in rows(session_factory, InboundMessage)] == ["processing"]
    with session_factory.begin() as session:
        assert claims.release_stale_claims(
            session, now=NOW, given_up={inbound_id},
            on_dead=lambda _, dead: told.append(dead.id),
        ) == (1, 0)
    assert [m.status for m in rows(session_factory, InboundMessage)] == ["dead"]
    assert told == [inbound_id]


def test_live_claims_are_kept(config: Config, session_factory: sessionmaker[Session]) -> None:
    store(config, session_factory, command_mail("help"))
    with session_factory.begin() as session:
        assert inbox.claim_inbound(session, worker=claims.worker_name(), now=NOW) is not None
    with session_factory.begin() as session:
        assert claims.release_stale_claims(session, now=NOW + timedelta(minutes=1)) == (0, 0)
        # ... until the lease runs out.
        later = NOW + claims.DEFAULT_LEASE + timedelta(seconds=1)
        assert claims.release_stale_claims(session, now=later) == (1, 0)


def test_a_scheduler_round_with_nothing_to_do_takes_no_write_lock(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    # The scheduler looks for stale claims, timed work and events every round: with a live
    # claim, nothing due and no event it only reads (SQLite has one write lock for
    # everyone); a claim whose lease ran out is put back by the same look.
    from pbm_emergo.ops.server import MailServer

    engine = session_factory.kw["bind"]
    live, stale = (
        store(config, session_factory, command_mail("help", message_id=f"<{n}@example.org>"))
        for n in ("live", "stale")
    )
    with session_factory.begin() as session:
        assert inbox.claim_inbound_id(session, worker=claims.worker_name(), now=NOW) == live
    server = MailServer(config, session_factory, processor=Echo(), listen=False, send=False,
                        clock=lambda: NOW)
    with write_transactions(engine) as begun:
        server._release_stale_claims()
        server._run_timed_work()
        server._advance_events()
    assert begun == []
    with session_factory.begin() as session:
        claimed = inbox.claim_inbound_id(
            session, worker="elsewhere.example:1:abc:inbox-1",
            now=NOW - claims.DEFAULT_LEASE - timedelta(seconds=1),
        )
        assert claimed == stale
    with write_transactions(engine) as begun:
        server._release_stale_claims()
    assert begun == ["write transaction 1"]
    statuses = {m.id: m.status for m in rows(session_factory, InboundMessage)}
    assert statuses == {live: "processing", stale: "pending"}


def test_mail_only_for_postmaster_is_kept_not_run(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    handler = InboxHandler(session_factory, config, clock=lambda: NOW)
    raw = command_mail("help").as_bytes(policy=policy.SMTP)
    handler.store(raw, "alice@example.org", [f"postmaster@{config.domain}"])
    both = command_mail("help", message_id="<both@example.org>").as_bytes(policy=policy.SMTP)
    handler.store(both, "alice@example.org", [f"postmaster@{config.domain}", config.address])
    echo = Echo()
    worker = InboxWorker(session_factory, config, echo, clock=lambda: NOW)
    assert [o.status for o in (worker.run_once(), worker.run_once()) if o] == ["ignored", "done"]
    assert len(echo.seen) == 1
    first = rows(session_factory, InboundMessage)[0]
    assert first.last_error == "not answered: mail for postmaster (kept for the operator)"


def test_nul_characters_in_a_mail_do_not_break_its_processing(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    # PostgreSQL text columns refuse NUL: a NUL in the body (a command line, a comment) or in
    # the Message-ID must neither make storing fail (451 for ever) nor processing (dead letter).
    raw = (
        b"From: alice@example.org\r\nTo: pbmserv@emergo.test\r\nSubject: multiple\r\n"
        b"Message-ID: <n\x00ul@example.org>\r\n\r\nemergo show bo\x00b\r\n"
    )
    handler = InboxHandler(session_factory, config, clock=lambda: NOW)
    handler.store(raw, "alice@example.org", [config.address])
    worker = InboxWorker(session_factory, config, clock=lambda: NOW)
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "done"
    [reply] = rows(session_factory, OutboundMessage)
    assert "There is no player 'bob'" in parsed(reply.raw).get_content()


def test_a_claimed_mail_whose_read_fails_is_read_next_time_not_left_to_its_lease(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    inbound_id = store(config, session_factory,
                       command_mail("emergo help", message_id="<r1@example.org>"))
    echo = Echo()
    worker = InboxWorker(session_factory, config, echo, clock=lambda: NOW)
    # Read 1 looks for mail; read 2, of the mail just claimed, fails.
    worker.reads = FlakyReads(worker.reads, fail_at=2)  # type: ignore[assignment]
    with pytest.raises(OperationalError):
        worker.run_once()
    [row] = rows(session_factory, InboundMessage)
    assert (row.status, row.attempts) == ("processing", 1)  # claimed: ours
    outcome = worker.run_once()
    assert outcome is not None and (outcome.inbound_id, outcome.status) == (inbound_id, "done")
    [row] = rows(session_factory, InboundMessage)
    assert (row.status, row.attempts) == ("done", 1)  # not claimed a second time
    assert [m.message_id for m in echo.seen] == ["<r1@example.org>"]


def test_a_mail_one_thread_claimed_is_never_run_by_another_thread_of_the_worker(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    """serve's inbox threads share one worker: a mail one of them claimed (and could not
    read yet) stays that thread's; another thread finds nothing to do."""
    store(config, session_factory, command_mail("help", message_id="<t1@example.org>"))
    echo = Echo()
    worker = InboxWorker(session_factory, config, echo, clock=lambda: NOW)
    worker.reads = FlakyReads(worker.reads, fail_at=2)  # type: ignore[assignment]
    with pytest.raises(OperationalError):
        worker.run_once()  # this thread claimed the mail; reading it failed
    outcomes: list[object] = []
    other = threading.Thread(target=lambda: outcomes.append(worker.run_once()))
    other.start()
    other.join()
    assert outcomes == [None] and echo.seen == []
    outcome = worker.run_once()  # the claiming thread reads and runs it
    assert outcome is not None and outcome.status == "done"
    assert len(echo.seen) == 1


def test_in_a_burst_each_mail_claims_the_next_in_its_own_write_transaction(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    ids = [store(config, session_factory, command_mail("help", message_id=f"<b{n}@x.org>"))
           for n in range(3)]
    worker = InboxWorker(session_factory, config, Echo(), clock=lambda: NOW)
    engine = session_factory.kw["bind"]
    handled: list[tuple[int, list[str]]] = []
    for _ in ids:
        with write_transactions(engine) as begun:
            outcome = worker.run_once()
        assert outcome is not None and outcome.status == "done"
        handled.append((outcome.inbound_id, begun))
        if len(handled) == 1:
            # The first is claimed on its own; its write claims the second, for this thread.
            first, second, third = rows(session_factory, InboundMessage)
            assert (first.status, second.status, third.status) == (
                "done", "processing", "pending")
            assert second.claimed_by == claims.worker_name() and second.attempts == 1
    assert [inbound_id for inbound_id, _ in handled] == ids
    # One claim's transaction, then one write transaction a mail (the last one's claim of a
    # next mail finds none).
    assert [len(begun) for _, begun in handled] == [2, 1, 1]
    with write_transactions(engine) as begun:
        assert worker.run_once() is None
    assert begun == []  # found none last time: it looks without the write lock
    assert [(r.status, r.attempts) for r in rows(session_factory, InboundMessage)] == [
        ("done", 1)] * 3


def test_the_next_mail_of_a_board_is_claimed_by_the_write_that_finishes_the_one_before(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    store(config, session_factory, command_mail("emergo move 101 a pw e4", message_id="<1@x>"))
    second = store(config, session_factory,
                   command_mail("emergo move 101 b pw c4", message_id="<2@x>"))
    worker = InboxWorker(session_factory, config, Echo(), clock=lambda: NOW)
    worker.run_once()
    first_row, second_row = rows(session_factory, InboundMessage)
    assert (first_row.status, second_row.status) == ("done", "processing")
    outcome = worker.run_once()
    assert outcome is not None and (outcome.inbound_id, outcome.status) == (second, "done")


def test_a_mail_claimed_ahead_is_finished_before_a_stop_and_no_other_claimed(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    for n in range(3):
        store(config, session_factory, command_mail("help", message_id=f"<f{n}@x.org>"))
    worker = InboxWorker(session_factory, config, Echo(), clock=lambda: NOW)
    assert worker.finish() is None  # nothing in hand: nothing done
    worker.run_once()
    outcome = worker.finish()
    assert outcome is not None and outcome.status == "done"
    assert [(r.status, r.attempts, r.claimed_by) for r in rows(session_factory, InboundMessage)
            ] == [("done", 1, None), ("done", 1, None), ("pending", 0, None)]
    assert worker.finish() is None


def test_a_write_that_is_rolled_back_claims_nothing_ahead(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    store(config, session_factory, command_mail("help", message_id="<l1@x.org>"))
    store(config, session_factory, command_mail("help", message_id="<l2@x.org>"))

    class Stolen(Echo):
        """Another worker takes the mail's claim (its lease ran out) while it runs."""

        def __call__(self, session: Session, mail: CommandMail, *args: object,
                     **kwargs: object) -> tuple[list[Reply], list[Write]]:
            with session_factory.begin() as other:
                other.get_one(InboundMessage, 1).claimed_by = "another-worker"
            return super().__call__(session, mail, *args, **kwargs)  # type: ignore[arg-type]

    worker = InboxWorker(session_factory, config, Stolen(), clock=lambda: NOW)
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "lost-claim"
    assert [(r.status, r.claimed_by) for r in rows(session_factory, InboundMessage)] == [
        ("processing", "another-worker"), ("pending", None)]


def test_a_claim_that_reads_the_mail_gives_what_a_read_after_the_claim_gives(
    config: Config, session_factory: sessionmaker[Session]
) -> None:
    first = store(config, session_factory,
                  command_mail("emergo move 101 a pw e4", message_id="<m1@x.org>"))
    second = store(config, session_factory,
                   command_mail("emergo move 101 b pw c4", message_id="<m2@x.org>"))
    with session_factory.begin() as session:
        claimed = inbox.claim_inbound_mail(session, worker="w1", now=NOW)
        # The board's second mail waits for the first.
        assert inbox.claim_inbound_mail(session, worker="w2", now=NOW) is None
    with session_factory.begin() as session:
        assert claimed is not None and claimed == inbox.read_claimed(session, first)
    assert (claimed.claimed_by, claimed.attempts, claimed.message_id) == ("w1", 1, "<m1@x.org>")
    assert claimed.parsed is not None and claimed.raw.startswith(b"From:")
    with session_factory.begin() as session:
        assert inbox.mark_inbound_done(session, claimed, NOW)
        later = inbox.claim_inbound_mail(session, worker="w2", now=NOW)
    assert later is not None and (later.id, later.claimed_by) == (second, "w2")
