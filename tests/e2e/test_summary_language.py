"""The last English of the replies, in the reader's language: the one-line summaries of a
``multiple`` report and the refusal of a time bank that does not hold. Through the real
listener, SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from pbm_emergo.db.models import Board
from tests.support.post import ALICE, BOB, Post, text


def _flat(body: str) -> str:
    return " ".join(body.split())


def test_a_multiple_report_lists_german_summaries(make_post: Callable[..., Post]) -> None:
    post = make_post()
    post.one("language alice alice-pw1 de", ALICE)
    body = (
        "emergo challenge alice bob\n"
        "emergo move 101 alice alice-pw1 e4#1\n"
        "emergo move 101 alice alice-pw1 c5\n"
        "emergo show 101\n"
    )
    mails = post.send("multiple", ALICE, body=body + "-- \nAlice\n")
    report = next(m for m in mails if str(m["Subject"]).startswith("Emergo multiple"))
    assert str(report["Subject"]) == "Emergo multiple: 3 done, 1 failed"  # Subjects stay English
    content = text(report)
    assert "  > emergo challenge alice bob\n  Brett 101 begonnen\n" in content
    assert "  > emergo move 101 alice ******** e4#1\n  e4 auf Brett 101 gespielt\n" in content
    assert "  > emergo show 101\n  Brett 101 geschickt\n" in content
    assert "started board" not in content and "played e4" not in content
    assert "alice-pw1" not in content
    # bob chose no language: his own report stays English, byte for byte as before.
    mails = post.send("multiple", BOB, body="emergo move 101 bob bob-pw1 e6\n")
    report = next(m for m in mails if str(m["Subject"]).startswith("Emergo multiple"))
    assert "  > emergo move 101 bob ******** e6\n  played e6 on board 101\n" in text(report)


def test_a_challenge_with_a_bad_time_bank_is_refused_in_german(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language alice alice-pw1 de", ALICE)
    for options, start in (
        (
            "-timebank=24h",
            "Das Zeitkonto (-timebank=) fasst 72 Stunden (3 Tage) bis 365 Tage; "
            "es wurde kein Brett begonnen.",
        ),
        (
            "-increment=36h",
            "Die Option -increment= füllt ein Zeitkonto auf: gib auch -timebank= an",
        ),
        (
            "-timebank=72h -increment=80h",
            "Der Zuschlag (-increment=) ist größer als das "
            "Zeitkonto (-timebank=); es wurde kein Brett begonnen.",
        ),
    ):
        [error] = post.send(f"emergo challenge alice bob {options}", ALICE)
        assert str(error["Subject"]) == "Emergo error"
        assert _flat(text(error)).startswith(start), text(error)
    # In English for bob, as before.
    [error] = post.send("emergo challenge alice bob -timebank=24h", BOB)
    assert _flat(text(error)).startswith(
        "The time bank (-timebank=) holds from 72 hours (3 days) to 365 days; no board was started."
    )
    with post.sessions() as session:
        assert session.scalars(select(Board)).all() == []


def test_a_private_event_with_a_bad_time_bank_is_refused_in_german(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    refused = _flat(
        text(post.one("emergo event create friends bob bob-pw1 swiss fr1ends -timebank=24h", BOB))
    )
    assert "Das Zeitkonto (-timebank=) fasst 72 Stunden (3 Tage) bis 365 Tage." in refused
    assert "holds from" not in refused
