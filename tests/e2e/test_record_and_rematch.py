"""By mail: the game record file (attached to the last board mail and to ``emergo record``,
on the web view, replayed by ``pbm-emergo rules replay``), ``emergo rematch``, ``emergo
showas``, ``emergo all show``, and ``emergo submit``/``emergo confirm``.

Through the real listener (smtplib), the real workers and command layer, and a real aiosmtpd
relay receiving every mail the server sends; SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.cli import main as cli_main
from pbm_emergo.db.models import Board
from pbm_emergo.rules import Position, render_board
from pbm_emergo.rules.record import parse_record, replay
from pbm_emergo.web.app import create_app
from tests.support.post import ALICE, BOB, RATED_OPENING, Post, challenge, subjects, text

PW = {"alice": "alice-pw1", "bob": "bob-pw1"}


def play(post: Post, board: int, moves: list[str], first: str = "alice") -> list[EmailMessage]:
    """The moves in turn from ``first``; every one must be played. The last move's mails."""
    order = (first, "bob" if first == "alice" else "alice")
    mails: list[EmailMessage] = []
    for ply, notation in enumerate(moves):
        userid = order[ply % 2]
        mails = post.send(
            f"emergo move {board} {userid} {PW[userid]} {notation}", f"{userid}@example.org"
        )
        assert mails and not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)
    return mails


def attachment(mail: EmailMessage) -> tuple[str, str] | None:
    """The attached file of a mail: its name and text."""
    for part in mail.iter_attachments():
        assert isinstance(part, EmailMessage)
        assert part.get_content_type() == "text/plain"
        content = part.get_content()
        assert isinstance(content, str)
        return str(part.get_filename()), content
    return None


def stored_position(post: Post, number: int) -> Position:
    board: Board = post.board(number)
    return Position.from_text(board.position)


def finished_board(post: Post) -> int:
    board = challenge(post)
    play(post, board, list(RATED_OPENING))
    over = post.send(f"emergo resign {board} bob {PW['bob']}", BOB)
    assert subjects(over) == [(ALICE, f"Emergo Board {board} Game over"),
                              (BOB, f"Emergo Board {board} Game over")]  # fmt: skip
    return board


# -- the game record file ----------------------------------------------------------------


def test_the_last_board_mail_carries_the_record_that_replays_to_the_board(
    make_post: Callable[..., Post], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    post = make_post()
    board = challenge(post)
    during = play(post, board, list(RATED_OPENING[:2]))
    assert all(attachment(m) is None for m in during)  # only the last board mail has one
    play(post, board, list(RATED_OPENING[2:]), first="alice")
    over = post.send(f"emergo resign {board} bob {PW['bob']}", BOB)
    assert len(over) == 2
    files = [attachment(m) for m in over]
    assert files[0] == files[1] and files[0] is not None
    name, record_text = files[0]
    assert name == f"board-{board}.emergo"
    # The mail reads as before: the board is its text.
    assert f"Emergo Board {board}" in text(over[0]) or "Game over" in str(over[0]["Subject"])
    record = parse_record(record_text)
    assert record.result == "1-0"
    assert record.tag("White") == "alice" and record.tag("Black") == "bob"
    assert record.tag("Termination") == "resigned"
    assert [m.notation for m in record.moves] == list(RATED_OPENING)
    assert replay(record).position == stored_position(post, board)

    path = tmp_path / name
    path.write_text(record_text)
    capsys.readouterr()
    assert cli_main(["rules", "replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(render_board(stored_position(post, board), "alice", "bob"))


def test_emergo_record_attaches_the_record_and_the_web_serves_it(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post()
    board = finished_board(post)
    answer = post.one(f"emergo record {board}", BOB)
    assert str(answer["Subject"]) == f"Emergo Board {board} record"
    assert "alice won" in text(answer) or "resigned" in text(answer)
    found = attachment(answer)
    assert found is not None and found[0] == f"board-{board}.emergo"
    assert replay(parse_record(found[1])).position == stored_position(post, board)
    with TestClient(create_app(db_sessions)) as client:
        page = client.get(f"/boards/{board}.record")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/plain")
        assert f'filename="board-{board}.emergo"' in page.headers["content-disposition"]
        served, mailed = parse_record(page.text), parse_record(found[1])
        assert (served.moves, served.result) == (mailed.moves, mailed.result)
        assert client.get("/boards/999.record").status_code == 404
        assert client.get("/boards/abc.record").status_code in (400, 404)
        assert f"/boards/{board}.record" in client.get(f"/boards/{board}").text


def test_a_record_of_a_game_under_way_is_unfinished(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, list(RATED_OPENING[:3]))
    found = attachment(post.one(f"emergo record {board}", ALICE))
    assert found is not None
    record = parse_record(found[1])
    assert record.result == "*"
    assert replay(record).position == stored_position(post, board)


def test_emergo_record_of_no_board_is_an_error_without_a_file(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    answer = post.one("emergo record 999", ALICE)
    assert "Error" in str(answer["Subject"]) or "error" in str(answer["Subject"])
    assert attachment(answer) is None
