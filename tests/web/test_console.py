"""The operator's console at /admin (pbm_emergo/web/console.py), through Starlette's
TestClient on SQLite and PostgreSQL: off without an operators' file, nothing without a
login, wrong passwords locked out as the players' are, the views (no password hash, no raw
mail), and each support action carried out and logged with the operator's name."""

from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.cli import main
from pbm_emergo.config import Config
from pbm_emergo.db.models import (
    INBOUND_DEAD,
    Board,
    InboundMessage,
    OutboundMessage,
    Player,
    RatingChange,
)
from pbm_emergo.db.outbox import outbound_row, queue_outbound
from pbm_emergo.db.types import utcnow
from pbm_emergo.game.lockout import MAX_FAILURES
from pbm_emergo.web.app import create_app
from pbm_emergo.web.operators import read_operators
from tests.support.mailer import Mailer

OPERATOR = "olga"
OPERATOR_PASSWORD = "olga-console-pw1"
# In the raw text of the dead letter only: the console must never show it.
SECRET = "alicepw-in-the-raw-mail"


@pytest.fixture
def console_config(
    db_config: Config,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Config:
    """The test database's Config with an operators' file holding olga, made as an operator
    makes it: ``pbm-emergo admin console-user olga``, the password on standard input."""
    config = dataclasses.replace(
        db_config, console_users_file=tmp_path / "operators",
        password_hash_memory_kib=1024, password_hash_time_cost=1,
    )  # fmt: skip
    monkeypatch.setenv("PBM_EMERGO_CONSOLE_USERS_FILE", str(config.console_users_file))
    monkeypatch.setenv("PBM_EMERGO_PASSWORD_HASH_MEMORY_KIB", "1024")
    monkeypatch.setenv("PBM_EMERGO_PASSWORD_HASH_TIME_COST", "1")
    monkeypatch.setattr("sys.stdin", _Stdin(OPERATOR_PASSWORD + "\n"))
    assert main(["admin", "console-user", OPERATOR, "--database-url",
                 str(db_config.database_url)]) == 0  # fmt: skip
    assert f"operator {OPERATOR} added to" in capsys.readouterr().out
    return config


class _Stdin:
    def __init__(self, text: str) -> None:
        self.text = text

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        return self.text


def _client(sessions: sessionmaker[Session], config: Config) -> TestClient:
    return TestClient(create_app(sessions, config), follow_redirects=False)


def _login(client: TestClient, password: str = OPERATOR_PASSWORD, name: str = OPERATOR) -> int:
    answer = client.post("/admin/login", data={"username": name, "password": password})
    return answer.status_code


@pytest.fixture
def client(db_sessions: sessionmaker[Session], console_config: Config) -> TestClient:
    client = _client(db_sessions, console_config)
    assert _login(client) == 302
    return client


def _csrf(client: TestClient) -> str:
    page = client.get("/admin/support")
    assert page.status_code == 200
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def _support(client: TestClient, **form: str) -> tuple[int, str]:
    answer = client.post("/admin/support", data={"csrf": _csrf(client), **form})
    return answer.status_code, answer.text


def _dead_letter(sessions: sessionmaker[Session]) -> int:
    with sessions.begin() as session:
        message = InboundMessage(
            raw=f"Subject: emergo move 101 alice {SECRET} c7\r\n\r\n".encode(),
            envelope_sender="alice@example.org", envelope_recipients=["pbmserv@localhost"],
            message_id="<dead@example.org>", received_at=utcnow(), status=INBOUND_DEAD,
            attempts=5, last_error="boom", subject="emergo move 101 alice ******** c7",
        )  # fmt: skip
        session.add(message)
        session.flush()
        queue_outbound(session, [{
            **outbound_row("alice@example.org", f"Subject: x\r\n\r\n{SECRET}\r\n".encode(),
                           utcnow(), subject="Emergo Board 101 alice", status="dead",
                           last_error="550 no such user", inbound_id=message.id),
            "attempts": 9,
        }])  # fmt: skip
        return message.id


def test_the_console_is_off_without_an_operators_file(
    db_sessions: sessionmaker[Session], db_config: Config
) -> None:
    client = _client(db_sessions, db_config)
    assert client.get("/admin/").status_code == 404
    assert client.get("/admin/login").status_code == 404


def test_nothing_without_a_login(
    db_sessions: sessionmaker[Session], console_config: Config, game: Mailer
) -> None:
    client = _client(db_sessions, console_config)
    assert client.get("/admin").headers["location"] == "/admin/"
    login = client.get("/admin/login")
    assert login.headers["x-frame-options"] == "DENY"
    assert login.headers["cache-control"] == "no-store"
    for path in (
        "/admin/", "/admin/board/list", "/admin/board/details/101", "/admin/player/list",
        "/admin/inbound-message/list", "/admin/support",
    ):  # fmt: skip
        answer = client.get(path)
        assert answer.status_code == 302, path
        assert answer.headers["location"].endswith("/admin/login"), path
    answer = client.post("/admin/support", data={"case": "resign", "board": "101",
                                                 "userid": "bob", "reason": "x"})  # fmt: skip
    assert answer.status_code == 302
    with game.factory() as session:  # closed: its transaction would hold the write lock
        assert session.get(Board, 101).status == "active"  # type: ignore[union-attr]
    # A wrong password, a name that is no operator's: refused alike.
    assert _login(client, "not-the-password") == 400
    assert _login(client, OPERATOR_PASSWORD, name="mallory") == 400
    assert client.get("/admin/").status_code == 302


def test_the_session_cookie_is_strict_and_secure_over_https(
    db_sessions: sessionmaker[Session], console_config: Config
) -> None:
    config = dataclasses.replace(console_config, web_url="https://emergo.example.org/")
    client = TestClient(create_app(db_sessions, config), base_url="https://testserver",
                        follow_redirects=False)  # fmt: skip
    answer = client.post("/admin/login",
                         data={"username": OPERATOR, "password": OPERATOR_PASSWORD})  # fmt: skip
    assert answer.status_code == 302
    cookie = answer.headers["set-cookie"].lower()
    assert "secure" in cookie and "samesite=strict" in cookie and "httponly" in cookie


def test_wrong_passwords_lock_the_operator_out_as_a_player(
    db_sessions: sessionmaker[Session],
    console_config: Config,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = _client(db_sessions, console_config)
    for _ in range(MAX_FAILURES - 1):
        assert _login(client, "wrong-password") == 400
    answer = client.post("/admin/login", data={"username": OPERATOR, "password": "wrong"})
    assert answer.status_code == 429
    assert "Too many wrong passwords: try again after" in answer.text
    # Locked: the right password is not even checked now.
    assert _login(client) == 429
    assert client.get("/admin/").status_code == 302
    assert "operator=olga" in caplog.text and "result=locked" in caplog.text


def test_the_views_show_boards_players_and_queues_without_secrets(
    client: TestClient, game: Mailer, db_sessions: sessionmaker[Session]
) -> None:
    game.play(101, ["c7", "h6"])
    dead = _dead_letter(db_sessions)
    boards = client.get("/admin/board/list")
    assert boards.status_code == 200 and "101" in boards.text
    boards = client.get("/admin/board/list", params={"search": "101"})
    assert boards.status_code == 200 and "101" in boards.text
    board = client.get("/admin/board/details/101")
    assert board.status_code == 200
    assert board.text.count("data-cell") == 41  # the board picture, as on the web page
    assert "c7" in board.text and "h6" in board.text and "alice" in board.text

    found = client.get("/admin/player/list", params={"search": "bob@example"})
    assert "bob" in found.text and "alice" not in found.text
    found = client.get("/admin/player/list", params={"search": "ALIC"})
    assert "alice" in found.text
    with db_sessions() as session:
        alice = session.scalars(select(Player).where(Player.userid == "alice")).one()
    details = client.get(f"/admin/player/details/{alice.id}")
    assert "alice@example.org" in details.text
    # Each page's action opens the support page with its fields filled in.
    for path, query in (
        (f"/admin/player/action/support?pks={alice.id}", "userid=alice"),
        ("/admin/board/action/resign-or-adjudicate?pks=101", "board=101"),
        (f"/admin/inbound-message/action/requeue?pks={dead}", f"message=in-{dead}"),
    ):
        answer = client.get(path)
        assert answer.status_code == 302, path
        assert answer.headers["location"].endswith(f"/admin/support?{query}"), path
    assert alice.password_hash not in details.text and "$argon2" not in details.text

    for path in ("/admin/inbound-message/list", "/admin/dead-inbound/list",
                 f"/admin/inbound-message/details/{dead}"):  # fmt: skip
        page = client.get(path)
        assert page.status_code == 200, path
        assert "emergo move 101 alice ******** c7" in page.text, path
        assert SECRET not in page.text, path
    for path in ("/admin/outbound-message/list", "/admin/dead-outbound/list"):
        page = client.get(path)
        assert page.status_code == 200, path
        assert "Emergo Board 101 alice" in page.text and "550 no such user" in page.text
        assert SECRET not in page.text, path


def test_each_support_action_is_carried_out_and_logged_with_the_operator(
    client: TestClient,
    game: Mailer,
    db_sessions: sessionmaker[Session],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    status, page = _support(client, case="reset-password", userid="alice", reason="forgot")
    assert status == 200, page
    assert "new password of alice mailed to alice@example.org; 1 mail(s) queued" in page
    with db_sessions() as session:
        mail = session.scalars(
            select(OutboundMessage).order_by(OutboundMessage.id.desc()).limit(1)
        ).one()
        assert mail.recipient == "alice@example.org" and mail.secret

    status, page = _support(client, case="unlock", userid="bob", reason="asked by phone")
    assert status == 200 and "bob has no wrong passwords counted" in page

    status, page = _support(client, case="resign", board="101", userid="bob", reason="gone")
    assert status == 200 and "board 101: resigned for bob, alice wins" in page
    game.send("emergo challenge alice bob")
    status, page = _support(client, case="adjudicate", board="102", result="draw",
                            reason="both agreed")  # fmt: skip
    assert status == 200 and "board 102: adjudicated, a draw" in page
    with db_sessions() as session:
        assert session.get(Board, 101).outcome_reason == "resigned"  # type: ignore[union-attr]
        assert session.get(Board, 102).winner is None  # type: ignore[union-attr]

    dead = _dead_letter(db_sessions)
    status, page = _support(client, case="requeue", message=f"in-{dead}")
    assert status == 200 and f"in-{dead} requeued" in page
    with db_sessions() as session:
        assert session.get(InboundMessage, dead).status == "pending"  # type: ignore[union-attr]

    for action in ("reset-password", "unlock", "resign", "adjudicate", "requeue"):
        assert re.search(rf"console operator=olga action={action} ", caplog.text), action


def test_unrated_adjudication_and_void_are_carried_out_and_logged_with_the_operator(
    client: TestClient,
    game: Mailer,
    db_sessions: sessionmaker[Session],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The command line's ``admin adjudicate --unrated`` and ``admin void``, as forms."""
    caplog.set_level(logging.INFO)
    page = client.get("/admin/support").text
    assert 'id="case-void"' in page and 'name="unrated"' in page
    game.send("emergo challenge alice bob")  # board 102
    status, page = _support(client, case="adjudicate", board="101", result="bob",
                            unrated="yes", reason="alice vanished")  # fmt: skip
    assert status == 200, page
    assert "board 101: adjudicated, bob wins (unrated); 2 mail(s) queued" in page
    status, page = _support(client, case="void", board="102", reason="bob vanished")
    assert status == 200, page
    assert "board 102: void; 2 mail(s) queued" in page
    with db_sessions() as session:
        adjudicated, voided = session.get(Board, 101), session.get(Board, 102)
        assert adjudicated is not None and voided is not None
        assert (adjudicated.status, adjudicated.winner, adjudicated.outcome_reason,
                adjudicated.rated) == ("finished", "black", "adjudicated", False)  # fmt: skip
        assert (voided.status, voided.winner, voided.outcome_reason, voided.rated) == (
            "finished",
            None,
            "void",
            False,
        )
        alice, bob = (
            session.scalars(select(Player).where(Player.userid == userid)).one()
            for userid in ("alice", "bob")
        )
        # The unrated result counts; the void one does not; no rating moves.
        assert (alice.lost, bob.won, alice.drawn, bob.drawn) == (1, 1, 0, 0)
        assert (alice.rated_games, bob.rated_games, alice.rating, bob.rating) == (0, 0, 1600, 1600)
        assert session.scalar(select(func.count()).select_from(RatingChange)) == 0
    assert re.search(
        r'console operator=olga action=adjudicate target="101 bob unrated" .*'
        r'result="board 101: adjudicated, bob wins \(unrated\)"',
        caplog.text,
    ), caplog.text
    assert re.search(
        r'console operator=olga action=void target=102 reason="bob vanished" '
        r'result="board 102: void"',
        caplog.text,
    ), caplog.text
    # A finished game's result stands.
    status, page = _support(client, case="void", board="101", reason="again")
    assert status == 400 and "over already" in page


def test_a_refused_action_says_why_and_changes_nothing(
    client: TestClient, game: Mailer, db_sessions: sessionmaker[Session]
) -> None:
    status, page = _support(client, case="resign", board="101", userid="carol", reason="x")
    assert status == 400 and "carol does not play on board 101" in page
    status, page = _support(client, case="resign", board="101", userid="bob", reason=" ")
    assert status == 400 and "Give the reason" in page
    status, page = _support(client, case="requeue", message="in-999999")
    assert status == 400 and "in-999999: no such message" in page
    answer = client.post("/admin/support", data={"csrf": "forged", "case": "resign",
                                                 "board": "101", "userid": "bob",
                                                 "reason": "x"})  # fmt: skip
    assert answer.status_code == 400 and "The form is out of date" in answer.text
    with db_sessions() as session:
        assert session.get(Board, 101).status == "active"  # type: ignore[union-attr]


def test_console_user_keeps_only_a_hash_in_a_private_file(
    console_config: Config,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = console_config.console_users_file
    assert path is not None
    assert path.stat().st_mode & 0o777 == 0o600
    assert OPERATOR_PASSWORD not in path.read_text()
    assert read_operators(path)[OPERATOR].startswith("$argon2id$")
    monkeypatch.setattr("sys.stdin", _Stdin("short\n"))
    assert main(["admin", "console-user", "ivan"]) == 1
    assert "the password is too short" in capsys.readouterr().err
    assert list(read_operators(path)) == [OPERATOR]
