"""What one sender's mail may cause to others, replayed through the listener.

Each test mails an attack to the running server (real SMTP on 127.0.0.1, real workers,
scheduler and outbox sender, a recording relay) and shows that it no longer works: one mail
reaches at most a few other people, a sender's mails at most a budget of them in an hour,
and a flood never makes a player's own board mail fail: it is held and sent later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbm_emergo.app.results import Write
from pbm_emergo.db import outbox
from pbm_emergo.db.models import OUTBOUND_SENT, Board, OutboundMessage
from pbm_emergo.mail import answering
from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, text
from tests.support.text import flat

CAROL = "carol@example.org"


def boards(post: Post) -> int:
    with post.sessions() as session:
        return int(session.scalar(select(func.count()).select_from(Board)) or 0)


def report_lines(report: str, needle: str) -> int:
    """How many times the report says ``needle`` (its sentences may run over lines)."""
    return flat(report).count(needle)


def test_one_mail_of_thirty_challenges_reaches_the_opponent_at_most_five_times(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    lines = "\n".join(["emergo challenge alice bob"] * 30)
    mails = post.send("multiple", ALICE, body=lines)
    to_bob = [m for m in mails if str(m["To"]) == BOB]
    assert len(to_bob) == 5
    assert boards(post) == 5  # a refused challenge starts no game
    [report] = [m for m in mails if str(m["Subject"]).startswith("Emergo multiple")]
    assert str(report["Subject"]) == "Emergo multiple: 5 done, 25 failed"
    assert report_lines(text(report), "one mail may cause at most 5 mails to others") >= 1


def test_a_senders_mails_to_others_are_budgeted_by_the_hour(
    make_post: Callable[..., Post], clock: Clock,
) -> None:
    post = make_post(mails_to_others_per_hour=3)
    for _ in range(3):
        mails = post.send("emergo challenge alice bob", ALICE)
        assert sorted(str(m["To"]) for m in mails) == [ALICE, BOB]
    refused = post.one("emergo challenge alice bob", ALICE)
    assert str(refused["Subject"]) == "Emergo error"
    assert "at most 3 mails to others in an hour" in flat(text(refused))
    assert "Nothing was sent or changed" in flat(text(refused))
    assert boards(post) == 3
    # Bob's own mail is his: his budget is not alice's.
    assert len(post.send("emergo challenge bob alice", BOB)) == 2
    clock.now += timedelta(hours=1, minutes=1)
    assert len(post.send("emergo challenge alice bob", ALICE)) == 2


def test_signups_for_strangers_send_at_most_five_codes_per_mail(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    strangers = [f"stranger{n}@elsewhere.example" for n in range(30)]
    lines = "\n".join(
        f"signup spam{n} spam-pw{n} {' '.join(strangers[5 * n:5 * n + 5])}" for n in range(6)
    )
    post.send("multiple", CAROL, body=lines)
    reached = [s for s in strangers if post.received_by(s)]
    assert 0 < len(reached) <= 5


def test_a_flood_holds_a_players_board_mail_and_sends_it_later(
    make_post: Callable[..., Post], clock: Clock,
) -> None:
    """Others' mail used up bob's hourly limit: alice's challenge still starts the game,
    and bob's board mail is held (never failed), then sent in the next hour."""
    post = make_post(reply_limit=4)
    for _ in range(2):
        post.one("emergo help", BOB)  # with his code and his welcome, four mails: his limit
    mails = post.send("emergo challenge alice bob", ALICE)
    assert [str(m["To"]) for m in mails] == [ALICE, BOB]
    notice = next(m for m in mails if str(m["To"]) == BOB)
    assert str(notice["Subject"]) == "Emergo: reply limit reached"
    assert "held, not lost" in flat(text(notice))
    with post.sessions() as session:
        held = session.scalars(
            select(OutboundMessage).where(
                OutboundMessage.recipient == BOB, OutboundMessage.board_number.is_not(None)
            )
        ).one()
    assert held.status == "pending" and (held.last_error or "").startswith("held:")
    board_subject = held.subject
    assert not any(str(m["Subject"]) == board_subject for m in post.received_by(BOB))
    clock.now += timedelta(hours=1, minutes=1)
    # Received by the relay, then recorded as sent by the outbox: wait for both.
    [sent] = post.delivered_to(BOB, board_subject)
    assert str(sent["Subject"]) == board_subject
    with post.sessions() as session:
        assert session.get(OutboundMessage, held.id).status == "sent"  # type: ignore[union-attr]


def test_a_stranger_cannot_chat_on_someone_elses_board(make_post: Callable[..., Post]) -> None:
    post = make_post()
    post.signup("carol", "carol-pw1", CAROL)
    mails = post.send("emergo challenge alice bob", ALICE)
    board = int(str(mails[0]["Subject"]).split()[-2])
    before = len(post.received_by(ALICE)), len(post.received_by(BOB))
    refused = post.one(f"emergo chat {board} carol carol-pw1", CAROL, body="Buy my stuff")
    assert f"Only the players of board {board} (alice and bob) may chat on it" in flat(
        text(refused)
    )
    assert (len(post.received_by(ALICE)), len(post.received_by(BOB))) == before


def test_messages_to_many_players_count_against_the_budget(
    make_post: Callable[..., Post],
) -> None:
    post = make_post(mails_to_others_per_mail=1)
    post.signup("carol", "carol-pw1", CAROL)
    refused = post.one("message carol carol-pw1 alice bob", CAROL, body="Hello both")
    assert "would send 2 mails to other people" in flat(text(refused))
    assert not [m for m in post.received_by(ALICE) if "Message from" in str(m["Subject"])]
    sent = post.send("message carol carol-pw1 alice", CAROL, body="Hello")
    assert sorted(str(m["To"]) for m in sent) == [ALICE, CAROL]


def test_an_accounts_messages_to_others_are_budgeted_whatever_their_from(
    make_post: Callable[..., Post], clock: Clock,
) -> None:
    """One account, a new From at its own domain for each mail: the hourly budget of mails
    to others is the account's, not each address's."""
    post = make_post(mails_to_others_per_hour=3)
    post.signup("carol", "carol-pw1", CAROL)
    for n in range(3):
        sent = post.send("message carol carol-pw1 alice", f"carol{n}@example.org", body="Hi")
        assert ALICE in [str(m["To"]) for m in sent]
    # The notice that carol's password came from elsewhere still reaches carol, her own.
    mails = post.send("message carol carol-pw1 alice", "carol3@example.org", body="Hi")
    assert sorted(str(m["To"]) for m in mails) == ["carol3@example.org", CAROL]
    [refused] = [m for m in mails if str(m["To"]) == "carol3@example.org"]
    assert "one account may cause at most 3 mails to others in an hour" in flat(text(refused))
    assert "Nothing was sent or changed" in flat(text(refused))
    assert len([m for m in post.received_by(ALICE) if "Message from" in str(m["Subject"])]) == 3
    clock.now += timedelta(hours=1, minutes=1)
    sent = post.send("message carol carol-pw1 alice", "carol4@example.org", body="Hi")
    assert ALICE in [str(m["To"]) for m in sent]


def test_mails_to_others_charged_meanwhile_by_another_worker_are_counted_again(
    make_post: Callable[..., Post], clock: Clock, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another worker stores mails charged to the same sender between this mail's read and
    its write: the write transaction counts again, the mail starts over and is refused."""
    post = make_post(mails_to_others_per_hour=2)
    post.signup("carol", "carol-pw1", CAROL)
    real_apply = answering.apply
    raced: list[bool] = []

    def apply_after_another_worker(session: Session, writes: Sequence[Write]) -> None:
        if not raced:
            raced.append(True)
            with post.sessions.begin() as other:
                outbox.queue_outbound(other, [
                    outbox.outbound_row(
                        f"someone{n}@elsewhere.example", b"sent", clock.now,
                        status=OUTBOUND_SENT, charged_to=CAROL,
                    )
                    for n in range(2)
                ])  # fmt: skip
        real_apply(session, writes)

    monkeypatch.setattr(answering, "apply", apply_after_another_worker)
    refused = post.one("message carol carol-pw1 alice", CAROL, body="Hi")
    assert raced
    assert "your mails may cause at most 2 mails to others in an hour" in flat(text(refused))
    assert not [m for m in post.received_by(ALICE) if "Message from" in str(m["Subject"])]
