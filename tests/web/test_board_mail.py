"""The HTML part of board mails: the picture's contract (41 cells, data-column codes as the
engine writes them, the last move marked), what a mail client needs (no scripts, nothing
fetched, small), and multipart/alternative with the text part unchanged."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.app.messages import Reply
from pbm_emergo.config import Config
from pbm_emergo.game.board import BoardState, PlayedMove, Seat
from pbm_emergo.rules import CELLS, Game
from pbm_emergo.views.board_mail import board_html, board_view
from pbm_emergo.views.picture import CAPTURED, LANDED, START, board_picture, move_marks
from pbm_emergo.views.reply_mail import build_reply, reply_bytes
from tests.support.mailer import Mailer

from .support import CAPTURE_GAME, board_cells, columns_of

SERVER = "pbmserv@emergo.test"
LIMIT = 30 * 1024


def assert_mail_safe(html: str) -> None:
    """What a mail client needs: nothing to run, nothing fetched, no SVG, small."""
    lowered = html.lower()
    for forbidden in ("<script", "<svg", "<img", "<link", "<iframe", "@import", "url(",
                      "javascript:", " src=", "@font-face", " on"):  # fmt: skip
        if forbidden == " on":
            assert not re.search(r"<[^>]*\son[a-z]+\s*=", lowered), "an event handler"
        else:
            assert forbidden not in lowered, forbidden
    assert len(html.encode("utf-8")) < LIMIT


def assert_board(html: str, to_text: str) -> None:
    """The 41 cells, each once, occupied ones with the engine's column code."""
    found = board_cells(html)
    assert sorted(found.cells) == sorted(CELLS)
    assert not found.repeated
    assert {c.name: c.column for c in found.cells.values() if c.column} == columns_of(to_text)


# --- the picture, without the database ---------------------------------------------------


def test_the_marks_of_each_kind_of_move() -> None:
    assert move_marks(None) == {}
    assert move_marks("e4") == {"e4": (LANDED,)}
    assert move_marks("e4-e5") == {"e4": (START,), "e5": (LANDED,)}
    assert move_marks("g4xg6xe6") == {
        "g4": (START,), "g5": (CAPTURED,), "g6": (LANDED,), "f6": (CAPTURED,), "e6": (LANDED,),
    }  # fmt: skip
    # A route that comes back to its start and jumps one column twice.
    assert move_marks("e4xc4xc6xe6xe4") == {
        "e4": (START, LANDED), "d4": (CAPTURED,), "c4": (LANDED,), "c5": (CAPTURED,),
        "c6": (LANDED,), "d6": (CAPTURED,), "e6": (LANDED,), "e5": (CAPTURED,),
    }  # fmt: skip
    assert move_marks("resign") == {}


def test_the_picture_places_every_cell_of_the_diamond() -> None:
    game = Game.from_moves(CAPTURE_GAME)
    picture = board_picture(game.position, CAPTURE_GAME[-1])
    assert [c.name for c in picture.cells] == list(CELLS)
    assert len(picture.rows) == 9 and all(len(row) == 9 for row in picture.rows)
    for r, row in enumerate(picture.rows):
        for c, cell in enumerate(row):
            assert (cell is not None) == (abs(r - 4) + abs(c - 4) <= 4)
    assert {c.name: c.code for c in picture.cells if c.code} == columns_of(
        game.position.to_text()
    )
    e6 = next(c for c in picture.cells if c.name == "e6")
    assert (e6.cap, e6.own, e6.prisoners, e6.marks) == ("white", 1, 2, (LANDED,))
    assert e6.description == "e6: Ohs man, 2 Eks prisoners; the last move went here"


# --- board mails from the command layer ----------------------------------------------------


def test_the_board_mail_after_a_capture(game: Mailer) -> None:
    replies = game.play(101, CAPTURE_GAME)
    assert [r.to for r in replies] == ["alice@example.org", "bob@example.org"]
    reply = replies[0]
    assert reply.html is not None
    assert replies[1].html is reply.html  # rendered once for both players
    position = Game.from_moves(CAPTURE_GAME).position
    assert_board(reply.html, position.to_text())
    assert_mail_safe(reply.html)
    marks = {c.name: c.last for c in board_cells(reply.html).cells.values() if c.last}
    assert marks == {
        "g4": ("start",), "g5": ("captured",), "g6": ("landed",), "f6": ("captured",),
        "e6": ("landed",),
    }  # fmt: skip
    # The words of the text part are there too: players, whose turn, hands, moves.
    assert "It is bob&#39;s turn (Eks): move 32." in reply.html
    assert "Ohs (alice) in hand: <b>0</b>" in reply.html
    assert "g4xg6xe6" in reply.html and "Last move g4xg6xe6" in reply.html


def test_a_new_board_has_41_empty_cells(game: Mailer) -> None:
    replies = game.send("emergo show 101")
    assert replies[0].html is not None
    found = board_cells(replies[0].html)
    assert sorted(found.cells) == sorted(CELLS)
    assert not any(c.column or c.last for c in found.cells.values())
    assert "No moves yet." in replies[0].html


def test_the_comment_is_escaped(game: Mailer) -> None:
    replies = game.move(101, "alice", "e4", comment="<script>alert(1)</script> & <b>hi</b>")
    html = replies[0].html
    assert html is not None
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;hi&lt;/b&gt;" in html
    assert_mail_safe(html)


def test_show_preview_and_game_over_have_a_picture(game: Mailer) -> None:
    game.play(101, CAPTURE_GAME[:4])
    shown = game.send("emergo show 101#2")
    assert shown[0].html is not None
    assert_board(shown[0].html, Game.from_moves(CAPTURE_GAME[:2]).position.to_text())
    preview = game.send(f"emergo preview 101 {CAPTURE_GAME[4]} {CAPTURE_GAME[5]}")
    assert preview[0].subject == "Emergo Board 101 preview"
    assert preview[0].html is not None
    assert_board(preview[0].html, Game.from_moves(CAPTURE_GAME[:6]).position.to_text())
    assert_mail_safe(preview[0].html)
    over = game.move(101, "alice", "resign")
    assert [r.subject for r in over] == ["Emergo Board 101 Game over"] * 2
    assert over[0].html is not None and "bob (Eks) wins: alice resigned." in over[0].html
    assert_board(over[0].html, Game.from_moves(CAPTURE_GAME[:4]).position.to_text())


def test_two_boards_shown_in_one_mail(game: Mailer) -> None:
    game.send("emergo challenge bob alice", sender="bob@example.org")
    shown = game.send("emergo show 101 102")
    assert shown[0].subject == "Emergo boards 101, 102"
    assert shown[0].html is not None
    assert shown[0].html.count('data-cell="e5"') == 2
    assert 'data-board="101"' in shown[0].html and 'data-board="102"' in shown[0].html


def test_errors_and_other_replies_stay_plain_text(game: Mailer) -> None:
    assert game.send("help")[0].html is None
    error = game.move(101, "alice", "e5")  # e5 is closed on White's first move
    assert error[0].subject == "Emergo Board 101 Error"
    assert error[0].html is None


def long_random_game(seed: int = 17) -> list[str]:
    """A legal game of random moves: with seed 17, 357 moves (White eliminates Black)."""
    rnd = random.Random(seed)
    game = Game()
    while game.outcome() is None and len(game.moves) < 400:
        game.play(rnd.choice(game.position.legal_moves()))
    return [str(m) for m in game.moves]


def test_a_long_game_shown_in_full_stays_under_30_kb() -> None:
    moves = long_random_game()
    assert len(moves) > 300
    when = datetime(2026, 11, 21, tzinfo=UTC)
    white = Seat(1, "alice_the_long_name", 1600, "alice@example.org")
    black = Seat(2, "bob_the_long_name", 1600, "bob@example.org")
    position = Game.from_moves(moves).position
    state = BoardState(
        number=123456, white=white, black=black, rated=True, blocked_rule="loss",
        nag_days=7, forfeit_days=28, created_at=when, status="finished", ply=len(moves),
        to_move=None, winner="white", outcome_reason="eliminated", position=position,
        moves=tuple(
            PlayedMove(n, 1 if n % 2 else 2, m, when) for n, m in enumerate(moves, start=1)
        ),
        votes=(), rating=None,
    )  # fmt: skip
    view = board_view(state, comment="x" * 4000, commenter="alice")
    html = board_html(view.subject, [view.html])
    assert_board(html, position.to_text())
    assert_mail_safe(html)


# --- the mail -------------------------------------------------------------------------------


def parse(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg


def test_a_board_mail_is_multipart_alternative_text_first(game: Mailer) -> None:
    reply = game.play(101, CAPTURE_GAME[:3])[0]
    msg = parse(reply_bytes(build_reply(reply, server_address=SERVER, now=game.now)))
    assert msg.get_content_type() == "multipart/alternative"
    parts = list(msg.iter_parts())
    assert [p.get_content_type() for p in parts] == ["text/plain", "text/html"]
    assert parts[0].get_content().replace("\r\n", "\n") == reply.body
    assert parts[1].get_content().replace("\r\n", "\n") == reply.html
    assert parts[0]["Content-Transfer-Encoding"] == "7bit"
    assert parts[1]["Content-Transfer-Encoding"] == "7bit"
    assert msg.get_body(("plain",)) is parts[0]


def test_a_text_reply_stays_a_single_part() -> None:
    reply = Reply("a@example.org", "Emergo", "help text\n")
    now = datetime(2026, 11, 21, tzinfo=UTC)
    msg = parse(reply_bytes(build_reply(reply, server_address=SERVER, now=now)))
    assert msg.get_content_type() == "text/plain"


@pytest.mark.parametrize("comment", ["word " * 300, "\u00e9t\u00e9 " * 10])
def test_long_or_non_ascii_comments_are_encoded_for_smtp(game: Mailer, comment: str) -> None:
    reply = game.move(101, "alice", "e4", comment=comment)[0]
    raw = reply_bytes(build_reply(reply, server_address=SERVER, now=game.now))
    assert max(len(line) for line in raw.split(b"\r\n")) <= 998
    html_part = parse(raw).get_body(("html",))
    assert html_part is not None and comment.strip() in html_part.get_content()


# --- the link to the web view -----------------------------------------------------------------


def test_board_mails_link_to_the_board_page_when_the_web_url_is_set(
    db_sessions: sessionmaker[Session], db_config: Config, game: Mailer
) -> None:
    plain = game.move(101, "alice", "e4")
    assert plain[0].html is not None and "http" not in plain[0].html
    assert "http" not in plain[0].body and "on the web" not in plain[0].body
    linked = Mailer(db_sessions, replace(db_config, web_url="https://emergo.example.org/"))
    linked.now = game.now
    for replies in (
        linked.move(101, "bob", "d6"),  # a board mail after a move
        linked.send("emergo show 101"),
    ):
        reply = replies[0]
        assert reply.html is not None
        assert '<a href="https://emergo.example.org/boards/101">' in reply.html
        assert reply.body.endswith("The board on the web: https://emergo.example.org/boards/101\n")
