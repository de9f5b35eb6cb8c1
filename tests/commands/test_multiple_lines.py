"""A ``multiple`` mail runs line by line: each line read, decided and answered on its own,
and stored in its own short write transaction with a record of it, so that a worker that
takes the mail up again goes on after the last line stored (and counts what those lines
used of the mail's budgets)."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db import inbound_lines
from pbm_emergo.db.claims import ClaimedMail
from pbm_emergo.db.models import Board, InboundLine, InboundMessage, OutboundMessage
from pbm_emergo.mail.inbound import InboxHandler
from pbm_emergo.mail.worker import InboxWorker
from tests.support.mail import FlakyReads, command_mail
from tests.support.mailer import Mailer
from tests.support.statements import write_transactions

SERVER = "pbmserv@emergo.test"


def _store(factory: sessionmaker[Session], config: Config, body: str, when: Mailer) -> int:
    handler = InboxHandler(factory, config, clock=lambda: when.now)
    mail = command_mail("multiple", body=body, sender="alice@example.org")
    return handler.store(mail.as_bytes(policy=policy.SMTP), "alice@example.org", [SERVER]).id


def _count(factory: sessionmaker[Session], model: type) -> int:  # type: ignore[type-arg]
    with factory() as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def _mails_to(factory: sessionmaker[Session], address: str) -> list[tuple[str, str]]:
    """The subject and body of each mail queued to ``address``, in order."""
    with factory() as session:
        rows = session.scalars(
            select(OutboundMessage).where(OutboundMessage.recipient == address)
            .order_by(OutboundMessage.id)
        ).all()
        parsed = [BytesParser(policy=policy.default).parsebytes(r.raw) for r in rows]
    return [(str(m["Subject"]), _text(m)) for m in parsed]


def _text(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


def _worker(players: Mailer, config: Config) -> InboxWorker:
    players.now += timedelta(minutes=1)
    return InboxWorker(players.factory, config, clock=lambda: players.now)


def test_each_line_that_changes_something_is_stored_in_its_own_write_transaction(
    players: Mailer, db_config: Config
) -> None:
    """A challenge, then two lines that only read: after the claim's transaction, one for
    the challenge and one for the last line (with the report); the lines in between need
    none. Each line sees the one before it, and the lines' records are gone once the mail
    is done."""
    config = dataclasses.replace(db_config, address=SERVER)
    factory = players.factory
    body = (
        "emergo challenge alice bob\n"
        "emergo games alice\n"
        "emergo show 101\n"
    )
    _store(factory, config, body, players)
    worker = _worker(players, config)
    with write_transactions(factory.kw["bind"]) as begun:
        outcome = worker.run_once()
    assert outcome is not None and outcome.status == "done"
    assert len(begun) == 1 + 2  # the claim, the challenge, the last line
    [(subject, report)] = _mails_to(factory, "alice@example.org")[-1:]
    assert subject == "Emergo multiple: 3 done, 0 failed", report
    # The second line sees the board the first one made, and the third shows it.
    assert "101" in report.split("> emergo games alice")[1].split("> emergo show")[0]
    assert _count(factory, InboundLine) == 0


def test_lines_that_only_read_go_on_in_the_reading_session_of_the_line_before(
    players: Mailer, db_config: Config
) -> None:
    """Nothing was stored since the line before read, so the lines after a challenge that
    only read (the last one too) share one reading session: three in all for the mail
    (the look for mail; the mail claimed and its first line; the lines after the
    challenge's write), not one a line; each still sees what the lines before it stored."""
    config = dataclasses.replace(db_config, address=SERVER)
    factory = players.factory
    body = (
        "emergo challenge alice bob\n"
        "emergo games alice\n"
        "emergo show 101\n"
        "emergo games bob\n"
    )
    _store(factory, config, body, players)
    worker = _worker(players, config)
    reads = FlakyReads(worker.reads, fail_at=0)  # counts them; none fails
    worker.reads = reads  # type: ignore[assignment]
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "done"
    assert reads.calls == 3
    (subject, report) = _mails_to(factory, "alice@example.org")[-1]
    assert subject == "Emergo multiple: 4 done, 0 failed", report
    assert "101" in report.split("> emergo games bob")[1]


def test_a_mail_taken_up_again_goes_on_after_the_last_line_stored(
    players: Mailer, db_config: Config
) -> None:
    """The third line's read fails (the database went away) after two lines were stored:
    the mail is tried again, and its lines are not run a second time; the mails to others
    that the two stored lines caused still count against the mail's budget (two a mail
    here), so the third challenge is refused; the report lists all three lines."""
    config = dataclasses.replace(
        db_config, address=SERVER, mails_to_others_per_mail=2
    )
    factory = players.factory
    body = "emergo challenge alice bob\n" * 3
    inbound_id = _store(factory, config, body, players)
    worker = _worker(players, config)
    # Read 1 looks for mail, 2 reads the mail claimed and then the first line, 3 is the
    # second line's (each line stored ends its reading session).
    worker.reads = FlakyReads(worker.reads, fail_at=4)  # type: ignore[assignment]
    outcome = worker.run_once()
    assert outcome is not None and outcome.status == "retry"
    with factory() as session:
        assert [run.number for run in inbound_lines.lines_run(session, inbound_id)] == [1, 2]
    assert _count(factory, Board) == 2
    assert len(_mails_to(factory, "bob@example.org")) == 2
    assert _mails_to(factory, "alice@example.org")[-1][0] != "Emergo multiple"

    outcome = _worker(players, config).run_once()
    assert outcome is not None and (outcome.inbound_id, outcome.status) == (inbound_id, "done")
    assert _count(factory, Board) == 2  # the first two lines were not run again
    assert len(_mails_to(factory, "bob@example.org")) == 2
    (subject, report) = _mails_to(factory, "alice@example.org")[-1]
    assert subject == "Emergo multiple: 2 done, 1 failed", report
    assert report.count("> emergo challenge alice bob") == 3
    assert "2 mails" in report.rsplit("> emergo challenge alice bob", 1)[1]  # the budget
    assert _count(factory, InboundLine) == 0


def test_a_line_is_recorded_only_while_the_worker_holds_the_claim(
    players: Mailer, db_config: Config
) -> None:
    config = dataclasses.replace(db_config, address=SERVER)
    factory = players.factory
    inbound_id = _store(factory, config, "emergo help\n", players)
    run = inbound_lines.LineRun(number=1, line="emergo help", ok=True, summary="ok",
                                summary_said=None, answer=None)
    with factory.begin() as session:
        message = session.get(InboundMessage, inbound_id)
        assert message is not None
        message.status, message.claimed_by = "processing", "someone-else"
    stale = ClaimedMail(
        id=inbound_id, raw=b"", envelope_sender="", message_id=None, subject=None,
        sender=None, not_answered=None, parsed=None, attempts=1, claimed_by="me",
    )
    with factory.begin() as session:
        assert not inbound_lines.record_lines(session, stale, [run], players.now)
    held = dataclasses.replace(stale, claimed_by="someone-else")
    with factory.begin() as session:
        assert inbound_lines.record_lines(session, held, [run], players.now)
    with factory() as session:
        assert inbound_lines.lines_run(session, inbound_id) == [run]


def test_a_mail_taken_up_again_counts_the_wrong_passwords_of_its_stored_lines(
    players: Mailer, db_config: Config
) -> None:
    """Three wrong passwords are hashed for one mail at most: two in the lines stored
    before the mail failed, one after it was taken up again; the fourth is not checked."""
    config = dataclasses.replace(db_config, address=SERVER)
    factory = players.factory
    body = "".join(f"emergo notify alice wrong-{n}\n" for n in range(1, 5))
    inbound_id = _store(factory, config, body, players)
    worker = _worker(players, config)
    # The third line's read (as in the test above).
    worker.reads = FlakyReads(worker.reads, fail_at=4)  # type: ignore[assignment]
    assert worker.run_once().status == "retry"  # type: ignore[union-attr]
    with factory() as session:
        stored = inbound_lines.lines_run(session, inbound_id)
    assert [(run.number, run.password_failures) for run in stored] == [(1, 1), (2, 1)]
    outcome = _worker(players, config).run_once()
    assert outcome is not None and outcome.status == "done"
    (subject, report) = _mails_to(factory, "alice@example.org")[-1]
    assert subject == "Emergo multiple: 0 done, 4 failed", report
    third, fourth = report.split("> emergo notify alice ")[3:5]
    assert "already had" not in third
    assert "This mail already had 3 wrong passwords" in fourth.replace("\n", " ")
