"""Whole games by mail: the real listener (smtplib), the real workers and command layer, a
real aiosmtpd relay receiving the replies, and `pbm-emergo admin show N --json` checked
against the mails after every move. Runs on SQLite and PostgreSQL (shared db fixtures).

Move sequences that end a game by elimination, blocking or repetition come from a seeded
search with the rules engine (commands/search.py), not from hand-written lists.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import redirect_stdout
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.cli import main as cli_main
from pbm_emergo.config import Config
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from pbm_emergo.rules import Game, Position, render_board
from tests.support.mail import SERVER_ADDRESS, Relay, command_mail, free_port, send
from tests.support.post import reply_ids, wait_for_replies
from tests.support.search import blocked_game, elimination_game, repetition_game
from tests.support.signup import confirmation_code
from tests.support.text import flat

ADDRESS = {"alice": "alice@example.org", "bob": "bob@example.org", "carol": "carol@example.org"}
PASSWORD = {"alice": "Alice-pw1", "bob": "Bob-pw22", "carol": "Carol-pw3"}


class Table:
    """Players at the server: send a command mail, get back the replies to it."""

    def __init__(
        self, server: MailServer, relay: Relay, sessions: sessionmaker[Session], url: str
    ) -> None:
        self.server = server
        self.relay = relay
        self.sessions = sessions
        self.url = url
        self.count = 0

    def send(self, subject: str, userid: str, body: str = "") -> list[EmailMessage]:
        """Mail ``subject`` from ``userid``'s address; wait for every reply to be relayed."""
        self.count += 1
        message_id = f"<game{self.count}@example.org>"
        msg = command_mail(subject, sender=ADDRESS[userid], body=body, message_id=message_id)
        send(self.server.config.smtp_port, msg)

        count = wait_for_replies(self.sessions, message_id)
        ids = reply_ids(self.sessions, message_id)
        replies = self.relay.handler.with_message_ids(ids)
        assert len(replies) == count
        return sorted(replies, key=lambda m: str(m["To"]))

    def move(self, board: int, userid: str, move: str, body: str = "") -> list[EmailMessage]:
        return self.send(f"emergo move {board} {userid} {PASSWORD[userid]} {move}", userid, body)

    def admin_show(self, board: int) -> dict[str, Any]:
        """`pbm-emergo admin show BOARD --json`, the operator's view of the database."""
        out = io.StringIO()
        with redirect_stdout(out):
            status = cli_main(["admin", "show", str(board), "--json", "--database-url", self.url])
        assert status == 0
        data: dict[str, Any] = json.loads(out.getvalue())
        return data


def text(msg: EmailMessage) -> str:
    # Board mails are multipart/alternative: the text part is what a player reads here.
    part = msg.get_body(("plain",))
    assert isinstance(part, EmailMessage)
    content = part.get_content()
    assert isinstance(content, str)
    return content.replace("\r\n", "\n")


def check_agreement(table: Table, board: int, mails: list[EmailMessage]) -> dict[str, Any]:
    """The admin view agrees with the board mails: who is to move, the board, the result."""
    view = table.admin_show(board)
    white, black = view["players"]["white"], view["players"]["black"]
    assert sorted(str(m["To"]) for m in mails) == sorted([ADDRESS[white], ADDRESS[black]])
    drawing = render_board(Position.from_text(view["position"]), white, black)
    for mail in mails:
        body = text(mail)
        # " **": the mail carries a comment ("alice writes:").
        mark = " **" if " writes:\n" in body else ""
        if view["outcome"] is None:
            # A new board's first mails say so ("New Emergo Board 101 alice").
            new = "New " if not view["moves"] else ""
            assert mail["Subject"] == f"{new}Emergo Board {board} {view['to_move']}{mark}"
            assert f"It is {view['to_move']}'s turn" in body
        else:
            assert mail["Subject"] == f"Emergo Board {board} Game over{mark}"
            assert view["to_move"] is None
            winner = view["outcome"]["winner"]
            if winner is None:
                assert "The game is a draw" in body
            else:
                assert f"{winner} ({'Ohs' if winner == white else 'Eks'}) wins" in body
            if view["rating_changes"] is not None:
                change = view["rating_changes"]["white"]
                assert re.search(rf"{white} \d+ -> \d+ " + re.escape(f"({change:+d})"), body)
        assert drawing in body
        if view["moves"]:
            last = view["moves"][-1]
            assert f"{len(view['moves'])}. {last}" in body
    return view


def play(table: Table, board: int, moves: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """Play the moves alternately, checking the admin view after every move."""
    # Who is to move comes from the admin view checked after the move before.
    view: dict[str, Any] = table.admin_show(board)
    for i, move in enumerate(moves):
        userid = view["to_move"]
        mails = table.move(board, userid, f"{move}#{i + 1}")
        view = check_agreement(table, board, mails)
        assert view["moves"][-1] == move and len(view["moves"]) == i + 1
    return view


@pytest.fixture
def table(
    db_config: Config,
    db_sessions: sessionmaker[Session],
    database_url: str,
    quick_argon2: None,
) -> Iterator[Table]:
    relay = Relay()
    relay.start()
    config = dataclasses.replace(
        db_config,
        address=SERVER_ADDRESS,
        smtp_port=free_port(),
        outbound=relay.url,
        reply_limit=100_000,
    )
    server = MailServer(
        config,
        db_sessions,
        backoff=Backoff(base=timedelta(milliseconds=100), cap=timedelta(seconds=1)),
        poll_seconds=0.2,
    )
    server.start()
    table = Table(server, relay, db_sessions, database_url)
    try:
        for userid in ("alice", "bob", "carol"):
            [code_mail] = table.send(f"signup {userid} {PASSWORD[userid]}", userid)
            [welcome] = table.send(f"confirm {confirmation_code(text(code_mail))}", userid)
            assert welcome["Subject"] == f"Emergo: welcome {userid}"
        yield table
    finally:
        server.stop()
        relay.stop()


def challenge(table: Table, options: str = "") -> int:
    mails = table.send(f"emergo challenge alice bob {options}".strip(), "alice")
    # "New Emergo Board 101 alice": the number follows "Board".
    words = str(mails[0]["Subject"]).split()
    number = int(words[words.index("Board") + 1])
    check_agreement(table, number, mails)
    return number


def test_game_over_by_elimination(table: Table) -> None:
    board = challenge(table)
    moves = elimination_game()
    view = play(table, board, moves)
    outcome = Game.from_moves(moves).outcome()
    assert outcome is not None
    winner = "alice" if outcome.winner == "white" else "bob"
    assert view["outcome"] == {"winner": winner, "reason": "eliminated"}
    assert view["rating_changes"] == (
        {"white": 162, "black": -162} if winner == "alice" else {"white": -162, "black": 162}
    )
    [record] = table.send(f"emergo record {board}", "carol")
    assert f"wins: {'bob' if winner == 'alice' else 'alice'} has no men left." in text(record)


def test_game_over_by_a_blocked_player(table: Table) -> None:
    board = challenge(table, "-unrated")
    moves = blocked_game()
    view = play(table, board, moves)
    stuck = "alice" if Game.from_moves(moves).position.to_move == "white" else "bob"
    winner = "bob" if stuck == "alice" else "alice"
    assert view["outcome"] == {"winner": winner, "reason": "blocked"}
    assert view["rating_changes"] is None


def test_game_over_by_resignation(table: Table) -> None:
    board = challenge(table)
    play(table, board, ["e4", "e6"])
    mails = table.send(f"emergo resign {board} alice {PASSWORD['alice']}", "alice", "gg")
    view = check_agreement(table, board, mails)
    assert view["outcome"] == {"winner": "bob", "reason": "resigned"}
    assert "alice writes:\n  gg" in text(mails[0])
    # The installed command itself, in its own process, says the same.
    done = subprocess.run(
        [sys.executable, "-m", "pbm_emergo", "admin", "show", str(board), "--json",
         "--database-url", table.url],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == view


def test_draw_by_agreement(table: Table) -> None:
    board = challenge(table)
    play(table, board, ["e4"])
    check_agreement(table, board, table.move(board, "bob", "propose"))
    mails = table.move(board, "alice", "accept")
    view = check_agreement(table, board, mails)
    assert view["outcome"] == {"winner": None, "reason": "draw agreed"}


def test_draw_by_threefold_repetition(table: Table) -> None:
    board = challenge(table)
    view = play(table, board, repetition_game())
    assert view["outcome"] == {"winner": None, "reason": "threefold repetition"}


def test_undo_accepted_and_rejected(table: Table) -> None:
    board = challenge(table)
    play(table, board, ["e4", "e6", "c5"])
    check_agreement(table, board, table.move(board, "alice", "undo"))
    view = check_agreement(table, board, table.move(board, "bob", "reject"))
    assert view["moves"] == ["e4", "e6", "c5"]
    check_agreement(table, board, table.move(board, "alice", "undo"))
    mails = table.move(board, "bob", "accept")
    view = check_agreement(table, board, mails)
    assert view["moves"] == ["e4", "e6"] and view["to_move"] == "alice"
    assert "bob accepted: move 3 taken back. It is alice's turn again." in text(mails[0])
    view = check_agreement(table, board, table.move(board, "alice", "c3#3"))
    assert view["moves"] == ["e4", "e6", "c3"]


def test_move_number_guards_preview_and_show(table: Table) -> None:
    board = challenge(table)
    play(table, board, ["e4", "e6"])
    before = table.admin_show(board)
    [stale] = table.move(board, "alice", "c5#2")
    assert stale["Subject"] == f"Emergo Board {board} Error"
    assert text(stale).startswith(f"Board {board} is at move 3, not move 2: nothing was done.")
    [preview] = table.send(f"emergo preview {board} c5 c3", "bob")
    assert "nothing has been played or saved" in text(preview)
    assert render_board(Game.from_moves(["e4", "e6", "c5", "c3"]).position, "alice", "bob") in (
        text(preview)
    )
    assert table.admin_show(board) == before
    [shown] = table.send(f"emergo show {board}#1", "carol")
    assert render_board(Game.from_moves(["e4"]).position, "alice", "bob") in text(shown)
    assert "The board as of move 1; 2 moves have been played." in text(shown)
    play_on = table.move(board, "alice", "c5#3")
    assert check_agreement(table, board, play_on)["moves"] == ["e4", "e6", "c5"]


@pytest.mark.parametrize(
    ("subject", "userid", "reply_subject", "first_line"),
    [
        ("emergo move {b} alice wrong-pw e4", "alice", "Emergo Board {b} Error",
         "Wrong password for alice."),
        ("emergo move {b} bob {bob} e4", "bob", "Emergo Board {b} Error",
         "It is not your turn on board {b}: it is alice's."),
        ("emergo move {b} carol {carol} e4", "carol", "Emergo Board {b} Error",
         "carol does not play on board {b}: it is alice against bob."),
        ("emergo move {b} alice {alice} e4#7", "alice", "Emergo Board {b} Error",
         "Board {b} is at move 1, not move 7: nothing was done."),
        ("emergo move {b} alice {alice} e5", "alice", "Emergo Board {b} Error",
         "e5 is not a legal move on board {b} now."),
        ("emergo move 999 alice {alice} e4", "alice", "Emergo error", "There is no board 999."),
        ("emergo frobnicate {b} alice {alice}", "alice", "Emergo error",
         "There is no command 'emergo ********'."),
        ("emergo move {b} alice {alice} e4-", "alice", "Emergo Board {b} Error",
         "'e4-' is not a move: write an entry like e4, a step like e4-e5, or a capture like "
         "e4xc4xc6."),
    ],
)  # fmt: skip
def test_error_replies_go_to_the_sender_and_change_nothing(
    table: Table, subject: str, userid: str, reply_subject: str, first_line: str
) -> None:
    board = challenge(table)
    before = table.admin_show(board)
    command = subject.format(b=board, **PASSWORD)
    [reply] = table.send(command, userid)
    assert str(reply["To"]) == ADDRESS[userid]
    assert reply["Subject"] == reply_subject.format(b=board)
    body = text(reply)
    assert flat(body.split("\n\n")[0]) == first_line.format(b=board)
    for password in (*PASSWORD.values(), "wrong-pw"):
        assert password not in body
    assert "********" in body
    assert table.admin_show(board) == before


def test_illegal_move_reply_lists_the_legal_moves_and_a_finished_game_refuses(
    table: Table,
) -> None:
    board = challenge(table)
    [illegal] = table.move(board, "alice", "e5")
    body = text(illegal)
    assert "Why: White may not enter on e5 on the first move of the game." in body
    legal = [str(m) for m in Game().position.legal_moves()]
    assert f"The legal moves ({len(legal)}):" in body
    play(table, board, ["e4", "e6"])  # bob has moved: his resignation does not decline
    table.send(f"emergo resign {board} bob {PASSWORD['bob']}", "bob")
    [over] = table.move(board, "alice", "e4")
    assert over["Subject"] == f"Emergo Board {board} Error"
    assert text(over).startswith(f"The game on board {board} is over: alice (Ohs) wins")


def test_multiple_by_mail_reports_each_line(table: Table) -> None:
    body = (
        "emergo challenge alice bob\n"
        f"emergo move 101 alice {PASSWORD['alice']} e4#1\n"
        f"emergo move 101 alice {PASSWORD['alice']} c5\n"
        "end\n"
        "emergo show 101\n"
    )
    mails = table.send("multiple", "alice", body + "-- \nAlice\n")
    report = next(m for m in mails if str(m["Subject"]).startswith("Emergo multiple"))
    assert report["Subject"] == "Emergo multiple: 2 done, 1 failed"
    content = text(report)
    assert "  > emergo challenge alice bob\n  started board 101\n" in content
    assert "  > emergo move 101 alice ******** e4#1\n  played e4 on board 101\n" in content
    assert "  Error: It is not your turn on board 101: it is bob's." in content
    assert "- Ignored: 3 lines from the line 'end' on." in content
    assert PASSWORD["alice"] not in content
    board_mails = [m for m in mails if m is not report]
    assert sorted((str(m["To"]), str(m["Subject"])) for m in board_mails) == [
        ("alice@example.org", "Emergo Board 101 bob"),
        ("alice@example.org", "New Emergo Board 101 alice"),
        ("bob@example.org", "Emergo Board 101 bob"),
        ("bob@example.org", "New Emergo Board 101 alice"),
    ]
    assert table.admin_show(101)["moves"] == ["e4"]
