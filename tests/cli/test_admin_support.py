"""The operator's support cases through ``pbm-emergo admin`` against real databases (both
backends), the mails they cause read back from the outbox: a new password, a lock-out
lifted, a board resigned or adjudicated, a player deleted or merged. Two of them also
through a running server: the player uses the mailed password, and both players receive
the final board mail of a game the operator resigned."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.cli import main
from pbm_emergo.db import games, players, support
from pbm_emergo.db.models import (
    Board,
    LoginFailure,
    MoveRecord,
    Notification,
    OutboundMessage,
    OutboundText,
    Player,
    PlayerAddress,
    RatingChange,
    Subscription,
)
from pbm_emergo.db.outbox import REMOVED_SECRET
from pbm_emergo.db.players import create_player, record_login_failure
from pbm_emergo.rules import Game
from tests.e2e.conftest import clock, make_post  # noqa: F401  (fixtures of the server tests)
from tests.support.clock import Clock
from tests.support.mail import wait_for
from tests.support.moves import play_stored
from tests.support.post import ALICE, BOB, Post, challenge, text
from tests.support.text import flat

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
CAROL = "carol@example.org"
REASON = "asked by mail on 2026-11-21"
PASSWORD_LINE = re.compile(r"^  ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})$", re.MULTILINE)

pytestmark = pytest.mark.usefixtures("quick_argon2")


def admin(
    capsys: pytest.CaptureFixture[str], url: str, *args: str
) -> tuple[int, str, str]:
    status = main(["admin", *args, "--database-url", url])
    out, err = capsys.readouterr()
    return status, out, err


def outbox(sessions: sessionmaker[Session]) -> list[EmailMessage]:
    """Every mail in the outbox, oldest first."""
    with sessions() as session:
        raws = session.scalars(select(OutboundText.raw).order_by(OutboundText.id)).all()
    return [message_from_bytes(raw, policy=policy.default) for raw in raws]


def to_and_subject(mails: list[EmailMessage]) -> list[tuple[str, str]]:
    return sorted((str(m["To"]), str(m["Subject"])) for m in mails)


def signup(
    sessions: sessionmaker[Session], userid: str, *addresses: str, password: str = "old-pw"
) -> int:
    with sessions.begin() as session:
        return create_player(session, userid, password, list(addresses), NOW).id


def player(sessions: sessionmaker[Session], userid: str) -> Player | None:
    with sessions() as session:
        found = players.find_player(session, userid)
        if found is not None:
            _ = list(found.addresses)  # loaded while the session is open
        return found


def board_of(sessions: sessionmaker[Session], white: str, black: str, moves: int = 8) -> int:
    """A new rated board of ``white`` against ``black`` with ``moves`` moves played (by
    default four each: a game ending after them is rated)."""
    game = Game()
    with sessions.begin() as session:
        first = players.find_player(session, white)
        second = players.find_player(session, black)
        assert first is not None and second is not None
        board = games.create_board(session, first, second, NOW)
        for _ in range(moves):
            move = game.position.legal_moves()[0]
            game.play(move)
            mover = games.player_to_move(board)
            assert mover is not None
            play_stored(session, board.number, str(move), mover, None, NOW)
        return board.number


def alice_against_bob(sessions: sessionmaker[Session], moves: int = 8) -> int:
    """alice and bob signed up, and a board of theirs with ``moves`` moves played."""
    signup(sessions, "alice", ALICE)
    signup(sessions, "bob", BOB)
    return board_of(sessions, "alice", "bob", moves)


def board_row(sessions: sessionmaker[Session], number: int) -> Board:
    with sessions() as session:
        board = session.get(Board, number)
        assert board is not None
        return board


# --- a new password ------------------------------------------------------------------------


def test_reset_password_mails_a_new_password_that_only_the_mail_shows(
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    database_url: str,
    db_sessions: sessionmaker[Session],
) -> None:
    caplog.set_level(logging.INFO)
    alice_id = signup(db_sessions, "alice", ALICE, "alice@work.example")
    status, out, err = admin(capsys, database_url, "reset-password", "alice", "--reason", REASON)
    assert (status, err) == (0, "")
    assert out == f"new password of alice mailed to {ALICE}; 1 mail(s) queued\n"
    [mail] = outbox(db_sessions)
    assert (str(mail["To"]), str(mail["Subject"])) == (ALICE, "Emergo: new password for alice")
    body = text(mail)
    assert REASON in body and "change password alice" in body
    match = PASSWORD_LINE.search(body)
    assert match is not None, body
    password = match.group(1)
    # Stored as an argon2id hash only, at the configured cost (OWASP's by default): the
    # mailed password matches it, the old one not.
    stored = player(db_sessions, "alice")
    assert stored is not None
    assert stored.password_hash.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert password not in stored.password_hash
    assert players.check_password(alice_id, stored.password_hash, password).ok
    assert not players.check_password(alice_id, stored.password_hash, "old-pw").ok
    # One log line with the operator's reason; the password is in no output and no log.
    [line] = [r for r in caplog.records if getattr(r, "event", None) == "admin"]
    assert line.fields["action"] == "reset-password"  # type: ignore[attr-defined]
    assert line.fields["reason"] == REASON  # type: ignore[attr-defined]
    assert password not in out + err + caplog.text


def test_reset_password_goes_only_to_a_registered_address(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    signup(db_sessions, "alice", ALICE, "alice@work.example")
    before = player(db_sessions, "alice")
    assert before is not None
    status, out, err = admin(
        capsys, database_url, "reset-password", "alice", "--address", "eve@evil.example",
        "--reason", REASON,
    )
    assert (status, out) == (1, "")
    assert "eve@evil.example is not a registered address of alice" in err
    assert outbox(db_sessions) == []
    after = player(db_sessions, "alice")
    assert after is not None and after.password_hash == before.password_hash
    # A registered address other than the first, in any letter case.
    status, out, _ = admin(
        capsys, database_url, "reset-password", "alice", "--address", "Alice@Work.example",
        "--reason", REASON,
    )
    assert status == 0
    assert [str(m["To"]) for m in outbox(db_sessions)] == ["alice@work.example"]


@pytest.mark.parametrize(
    ("userid", "refusal"),
    [
        ("robot1", "robot1 is one of the server's robots"),
        ("nobody", "There is no player 'nobody'"),
        ("gone", "gone has signed off"),
    ],
)
def test_reset_password_is_refused_where_no_player_could_use_it(
    capsys: pytest.CaptureFixture[str],
    database_url: str,
    db_sessions: sessionmaker[Session],
    userid: str,
    refusal: str,
) -> None:
    gone = signup(db_sessions, "gone", "gone@example.org")
    with db_sessions.begin() as session:
        players.sign_off(session, gone, NOW)
    status, _, err = admin(capsys, database_url, "reset-password", userid, "--reason", REASON)
    assert status == 1
    assert refusal in err
    assert outbox(db_sessions) == []


def test_a_support_command_needs_a_reason(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    signup(db_sessions, "alice", ALICE)
    with pytest.raises(SystemExit):
        main(["admin", "unlock", "alice", "--database-url", database_url])
    assert "--reason" in capsys.readouterr().err
    status, _, err = admin(capsys, database_url, "unlock", "alice", "--reason", "  ")
    assert status == 1 and "Give the reason" in err


# --- a lock-out lifted ---------------------------------------------------------------------


def test_unlock_forgets_every_wrong_password_and_tells_the_player(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    alice_id = signup(db_sessions, "alice", ALICE)
    now = datetime.now(UTC)
    with db_sessions.begin() as session:
        for key, locked in ((ALICE, now + timedelta(hours=1)), ("*", None)):
            record_login_failure(
                session, alice_id, sender_key=key, previous=None, count=5, window_start=now,
                now=now, locked_until=locked,
            )
    status, out, err = admin(capsys, database_url, "unlock", "alice", "--reason", REASON)
    assert (status, err) == (0, "")
    assert out == (
        f"alice: wrong passwords forgotten from 2 sender(s); locks lifted for {ALICE}; "
        "1 mail(s) queued\n"
    )
    with db_sessions() as session:
        assert session.scalars(select(LoginFailure)).all() == []
    [mail] = outbox(db_sessions)
    assert (str(mail["To"]), str(mail["Subject"])) == (
        ALICE, "Emergo: your userid alice is unlocked"
    )
    assert REASON in text(mail)
    # Nothing left to lift: nothing changes, nobody is mailed.
    status, out, _ = admin(capsys, database_url, "unlock", "alice", "--reason", REASON)
    assert status == 0
    assert out.startswith("alice has no wrong passwords counted: nothing to lift")
    assert len(outbox(db_sessions)) == 1


# --- a board resigned or adjudicated -------------------------------------------------------


def test_resign_ends_the_game_rated_and_tells_both_players_why(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    number = alice_against_bob(db_sessions)
    status, out, err = admin(
        capsys, database_url, "resign", str(number), "bob", "--reason", "bob asked, ill"
    )
    assert (status, err) == (0, "")
    assert out == f"board {number}: resigned for bob, alice wins; 2 mail(s) queued\n"
    board = board_row(db_sessions, number)
    assert (board.status, board.winner, board.outcome_reason) == ("finished", "white", "resigned")
    assert board.white_rating_change is not None and board.white_rating_change > 0
    with db_sessions() as session:
        history = session.scalar(
            select(func.count()).select_from(RatingChange).where(
                RatingChange.board_number == number
            )
        )
    assert history == 2
    mails = outbox(db_sessions)
    assert [str(m["To"]) for m in mails] == [ALICE, BOB]
    for mail in mails:
        assert "The server's operator resigned this game for bob: bob asked, ill" in text(mail)
        assert "alice (Ohs) wins: bob resigned." in text(mail)


def test_resign_is_refused_for_a_finished_board_or_someone_else(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    number = alice_against_bob(db_sessions)
    status, _, err = admin(capsys, database_url, "resign", str(number), "robot1", "--reason", "x")
    assert status == 1 and "robot1 does not play on board" in err
    status, _, err = admin(capsys, database_url, "resign", "999", "bob", "--reason", "x")
    assert status == 1 and "There is no board 999" in err
    assert admin(capsys, database_url, "resign", str(number), "bob", "--reason", "x")[0] == 0
    status, _, err = admin(capsys, database_url, "resign", str(number), "alice", "--reason", "x")
    assert status == 1 and "is over already (resigned)" in err
    assert board_row(db_sessions, number).winner == "white"


@pytest.mark.parametrize(("result", "winner"), [("draw", None), ("BOB", "black")])
def test_adjudicate_records_the_result_as_adjudicated(
    capsys: pytest.CaptureFixture[str],
    database_url: str,
    db_sessions: sessionmaker[Session],
    result: str,
    winner: str | None,
) -> None:
    number = alice_against_bob(db_sessions)
    status, out, err = admin(
        capsys, database_url, "adjudicate", str(number), result, "--reason", "a dead draw"
    )
    assert (status, err) == (0, "")
    decided = "a draw" if winner is None else "bob wins"
    assert out == f"board {number}: adjudicated, {decided}; 2 mail(s) queued\n"
    board = board_row(db_sessions, number)
    assert (board.status, board.winner, board.outcome_reason) == (
        "finished", winner, "adjudicated"
    )
    alice, bob = player(db_sessions, "alice"), player(db_sessions, "bob")
    assert alice is not None and bob is not None
    if winner is None:
        assert (alice.drawn, bob.drawn, alice.rated_games) == (1, 1, 1)
    else:
        assert (alice.lost, bob.won) == (1, 1)
        assert bob.rating > alice.rating
    for mail in outbox(db_sessions):
        assert f"adjudicated this game, {decided}: a dead draw" in text(mail)
        assert "the server's operator adjudicated the game" in text(mail)


# --- a player deleted ----------------------------------------------------------------------


def test_delete_is_refused_while_the_player_has_active_games(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    number = alice_against_bob(db_sessions)
    status, out, err = admin(capsys, database_url, "delete-player", "bob", "--reason", REASON)
    assert (status, out) == (1, "")
    assert f"bob has active games (boards {number})" in err and "--resign-games" in err
    assert board_row(db_sessions, number).status == "active"
    assert player(db_sessions, "bob") is not None
    assert outbox(db_sessions) == []


def test_delete_with_resign_games_keeps_a_closed_row_for_the_finished_games(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    signup(db_sessions, "alice", ALICE)
    bob_id = signup(db_sessions, "bob", BOB, "bob@work.example")
    signup(db_sessions, "carol", CAROL)
    first = board_of(db_sessions, "alice", "bob")
    second = board_of(db_sessions, "bob", "carol")
    with db_sessions.begin() as session:
        session.add(Subscription(player_id=bob_id, board_number=None, created_at=NOW))
    status, out, err = admin(
        capsys, database_url, "delete-player", "bob", "--resign-games", "--reason", REASON
    )
    assert (status, err) == (0, "")
    assert out == (
        f"bob: account closed (its finished games keep it), boards {first}, {second} "
        "resigned; 6 mail(s) queued\n"
    )
    assert (board_row(db_sessions, first).winner, board_row(db_sessions, second).winner) == (
        "white", "black"
    )
    bob = player(db_sessions, "bob")
    assert bob is not None
    assert bob.signed_off_at is not None and bob.addresses == []
    assert bob.password_hash == support.CLOSED_PASSWORD_HASH
    assert (bob.lost, bob.rated_games) == (2, 2)
    with db_sessions() as session:
        assert session.scalars(select(Subscription)).all() == []
        assert session.scalar(
            select(func.count()).select_from(MoveRecord).where(MoveRecord.player_id == bob_id)
        ) == 8  # four moves on each board
    mails = outbox(db_sessions)
    assert to_and_subject(mails) == [
        (ALICE, f"Emergo Board {first} Game over"),
        (BOB, f"Emergo Board {first} Game over"),
        (BOB, f"Emergo Board {second} Game over"),
        (BOB, "Emergo: your account bob is deleted"),
        ("bob@work.example", "Emergo: your account bob is deleted"),
        (CAROL, f"Emergo Board {second} Game over"),
    ]
    notice = next(m for m in mails if str(m["Subject"]).endswith("deleted"))
    assert f"{first}, {second} were resigned" in text(notice)
    assert "stay in the server's records under the name bob" in text(notice)
    # The closed account is out of reach: no new password can be mailed to it.
    status, _, err = admin(capsys, database_url, "reset-password", "bob", "--reason", REASON)
    assert status == 1 and "bob has signed off" in err


def test_delete_of_a_player_without_boards_removes_every_row(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    dave_id = signup(db_sessions, "dave", "dave@example.org")
    with db_sessions.begin() as session:
        session.add(Notification(player_id=dave_id, board_number=None, created_at=NOW))
    status, out, _ = admin(capsys, database_url, "delete-player", "dave", "--reason", REASON)
    assert status == 0
    assert out == "dave: account deleted; 1 mail(s) queued\n"
    assert player(db_sessions, "dave") is None
    with db_sessions() as session:
        for model in (PlayerAddress, Notification):
            assert session.scalars(select(model).where(model.player_id == dave_id)).all() == []
    [mail] = outbox(db_sessions)
    assert str(mail["To"]) == "dave@example.org"
    assert "the userid dave is free again" in text(mail)
    status, _, err = admin(capsys, database_url, "delete-player", "robot2", "--reason", REASON)
    assert status == 1 and "robot account cannot be deleted" in err


# --- players merged ------------------------------------------------------------------------


def test_merge_moves_games_addresses_and_record_to_the_kept_account(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    kept_id = signup(db_sessions, "alice", ALICE)
    old_id = signup(db_sessions, "alice2", "alice@home.example", ALICE)
    signup(db_sessions, "carol", CAROL)
    finished = board_of(db_sessions, "alice2", "carol")
    active = board_of(db_sessions, "carol", "alice2")
    status = admin(capsys, database_url, "resign", str(finished), "carol", "--reason", "r")[0]
    assert status == 0
    with db_sessions.begin() as session:
        session.execute(delete(OutboundMessage))
        for number in (None, active):
            session.add(Subscription(player_id=old_id, board_number=number, created_at=NOW))
        session.add(Subscription(player_id=kept_id, board_number=None, created_at=NOW))
    old = player(db_sessions, "alice2")
    assert old is not None and (old.won, old.rated_games) == (1, 1)
    status, out, err = admin(
        capsys, database_url, "merge-players", "alice2", "alice", "--reason", "one person"
    )
    assert (status, err) == (0, "")
    assert out == (
        f"alice2 merged into alice, boards {finished}, {active} moved; 2 mail(s) queued\n"
    )
    assert player(db_sessions, "alice2") is None
    alice = player(db_sessions, "alice")
    assert alice is not None
    assert [a.address for a in alice.addresses] == [ALICE, "alice@home.example"]
    assert (alice.won, alice.rated_games, alice.rating) == (1, 1, 1600)
    assert board_row(db_sessions, finished).white_player_id == kept_id
    assert board_row(db_sessions, active).black_player_id == kept_id
    with db_sessions() as session:
        assert session.scalar(
            select(func.count()).select_from(MoveRecord).where(MoveRecord.player_id == old_id)
        ) == 0
        assert session.scalars(
            select(RatingChange.board_number).where(RatingChange.player_id == kept_id)
        ).all() == [finished]
        assert sorted(
            session.scalars(select(Subscription.board_number)).all(), key=lambda n: n or 0
        ) == [None, active]
    mails = outbox(db_sessions)
    assert to_and_subject(mails) == [
        (ALICE, "Emergo: alice2 is merged into alice"),
        ("alice@home.example", "Emergo: alice2 is merged into alice"),
    ]
    assert f"boards {finished}, {active}" in text(mails[0])
    assert "one person" in text(mails[0])


def test_merge_is_refused_for_players_who_play_each_other(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session]
) -> None:
    signup(db_sessions, "alice", ALICE)
    signup(db_sessions, "alice2", "alice@home.example")
    number = board_of(db_sessions, "alice", "alice2")
    status, _, err = admin(
        capsys, database_url, "merge-players", "alice2", "alice", "--reason", "one person"
    )
    assert status == 1
    assert f"alice2 and alice play each other on board {number}" in err
    assert player(db_sessions, "alice2") is not None
    assert outbox(db_sessions) == []


# --- through a running server --------------------------------------------------------------


def secret_rows(post: Post) -> list[OutboundMessage]:
    with post.sessions() as session:
        return list(session.scalars(select(OutboundMessage).where(OutboundMessage.secret)))


def test_the_player_logs_in_with_the_mailed_password_and_replaces_it(
    make_post: Callable[..., Post],  # noqa: F811
    clock: Clock,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    database_url: str,
) -> None:
    post = make_post()
    status, _, _ = admin(capsys, database_url, "reset-password", "alice", "--reason", REASON)
    assert status == 0
    catch_up(clock)
    mail = wait_for_mail(post, ALICE, "Emergo: new password for alice")
    match = PASSWORD_LINE.search(text(mail))
    assert match is not None
    # Once sent, the outbox keeps no copy of the password.
    wait_for(lambda: secret_rows(post) and all(r.status == "sent" for r in secret_rows(post)))
    assert [r.raw for r in secret_rows(post)] == [REMOVED_SECRET]
    answer = post.one(f"change password alice {match.group(1)} alice-pw2", ALICE)
    assert answer["Subject"] == "Emergo: password of alice changed", text(answer)
    answer = post.one("change password alice alice-pw1 alice-pw3", ALICE)
    assert "Wrong password" in text(answer)


def test_both_players_receive_the_final_board_of_a_game_the_operator_resigned(
    make_post: Callable[..., Post],  # noqa: F811
    clock: Clock,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    database_url: str,
) -> None:
    post = make_post()
    number = challenge(post)
    status, _, _ = admin(
        capsys, database_url, "resign", str(number), "alice", "--reason", "alice left"
    )
    assert status == 0
    catch_up(clock)
    for address in (ALICE, BOB):
        mail = wait_for_mail(post, address, f"Emergo Board {number} Game over")
        assert "The server's operator resigned this game for alice: alice left" in text(mail)


def catch_up(server_clock: Clock) -> None:
    """Move the server's clock (which stands still) past the real time the command line
    queued its mails at, so that they are due."""
    server_clock.now = max(server_clock.now, datetime.now(UTC)) + timedelta(seconds=1)


def wait_for_mail(post: Post, address: str, subject: str) -> EmailMessage:
    def found() -> EmailMessage | None:
        return next((m for m in post.received_by(address) if m["Subject"] == subject), None)

    mail = wait_for(found)
    assert isinstance(mail, EmailMessage)
    return mail


# --- unrated and void results ------------------------------------------------------------


def test_adjudicate_unrated_counts_the_result_and_moves_no_rating(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session],
) -> None:
    number = alice_against_bob(db_sessions)
    status, out, err = admin(capsys, database_url, "adjudicate", str(number), "bob",
                             "--unrated", "--reason", "alice vanished")
    assert (status, err) == (0, "")
    assert out == f"board {number}: adjudicated, bob wins (unrated); 2 mail(s) queued\n"
    board = board_row(db_sessions, number)
    assert (board.status, board.winner, board.outcome_reason, board.rated) == (
        "finished", "black", "adjudicated", False
    )
    alice, bob = player(db_sessions, "alice"), player(db_sessions, "bob")
    assert alice is not None and bob is not None
    assert (alice.lost, bob.won, alice.rated_games, bob.rated_games) == (1, 1, 0, 0)
    assert alice.rating == bob.rating == 1600
    with db_sessions() as session:
        assert session.scalar(select(func.count()).select_from(RatingChange)) == 0
    for mail in outbox(db_sessions):
        assert "adjudicated this game, bob wins (unrated): alice vanished" in flat(text(mail))


def test_void_annuls_a_game_no_result_no_rating(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session],
) -> None:
    number = alice_against_bob(db_sessions, moves=1)
    status, out, err = admin(capsys, database_url, "void", str(number),
                             "--reason", "bob vanished after move 1")
    assert (status, err) == (0, "")
    assert out == f"board {number}: void; 2 mail(s) queued\n"
    board = board_row(db_sessions, number)
    assert (board.status, board.winner, board.outcome_reason, board.rated) == (
        "finished", None, "void", False
    )
    for userid in ("alice", "bob"):
        found = player(db_sessions, userid)
        assert found is not None
        assert (found.won, found.lost, found.drawn, found.rated_games, found.rating) == (
            0, 0, 0, 0, 1600
        )
    assert to_and_subject(outbox(db_sessions))[0][0] in (ALICE, BOB)
    for mail in outbox(db_sessions):
        assert "declared this game void (no result, no rating): bob vanished" in flat(text(mail))
        assert "The game is void" in flat(text(mail))
    status, out, _ = admin(capsys, database_url, "show", str(number))
    assert "Result: void" in out
    # A finished game's result stands.
    status, _, err = admin(capsys, database_url, "void", str(number), "--reason", "again")
    assert status == 1 and "over already (void)" in err


def test_player_by_address(
    capsys: pytest.CaptureFixture[str], database_url: str, db_sessions: sessionmaker[Session],
) -> None:
    signup(db_sessions, "carol", "Carol@Example.org", "c2@example.org")
    status, out, err = admin(capsys, database_url, "player", "carol@example.ORG", "--json")
    assert status == 0, err
    assert json.loads(out)["userid"] == "carol"
    status, out, _ = admin(capsys, database_url, "player", "c2@example.org")
    assert status == 0 and "Player carol" in out
    status, _, err = admin(capsys, database_url, "player", "nobody@example.org")
    assert status == 1 and "no player with the address 'nobody@example.org'" in err


def test_admin_mail_masks_every_signup_alike(
    make_post: Callable[..., Post],  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    database_url: str,
) -> None:
    """A signup's userid is shown once it exists, long (carolyn: it might have been a
    password on receipt) or short (dan: shorter than any password); the passwords never.
    As the replies echo them: the same masking (commands/masking.py)."""
    post = make_post()
    post.signup("carolyn", "carolyn-pw1", "carolyn@example.org")
    post.signup("dan", "dan-pw1", "dan@example.org")
    taken = post.one("signup carolyn carolyn-pw2", "carolyn2@example.org")
    assert "signup carolyn ********" in text(taken)
    failed = post.one("signup erin abc", "erin@example.org")  # too short: no userid made
    assert failed["Subject"] == "Emergo error"
    status, out, err = admin(capsys, database_url, "mail", "--queue", "inbound", "--json")
    assert status == 0, err
    shown = {(m["address"], m["subject"]) for m in json.loads(out)}
    assert ("carolyn@example.org", "signup carolyn ********") in shown
    assert ("dan@example.org", "signup dan ********") in shown
    assert ("carolyn2@example.org", "signup carolyn ********") in shown
    assert ("erin@example.org", "signup ******** ********") in shown
    assert "pw1" not in out and "pw2" not in out


# --- the hourly cap ------------------------------------------------------------------------


def test_the_operators_mail_is_never_held_by_the_hourly_cap(
    capsys: pytest.CaptureFixture[str],
    database_url: str,
    db_sessions: sessionmaker[Session],
) -> None:
    """alice got as many mails this hour as the cap allows: a new password and the final
    board of a game the operator adjudicated still go to her now, without a "reply limit
    reached" notice."""
    from pbm_emergo.config import load_config
    from pbm_emergo.db import outbox as outbox_db

    number = alice_against_bob(db_sessions)
    now = datetime.now(UTC)
    limit = load_config().reply_limit
    with db_sessions.begin() as session:
        outbox_db.queue_outbound(session, [
            outbox_db.outbound_row(ALICE, b"Subject: earlier\r\n\r\nx\r\n", now, status="sent")
            for _ in range(limit)
        ])  # fmt: skip
    status, out, err = admin(capsys, database_url, "reset-password", "alice", "--reason", REASON)
    assert (status, err) == (0, "")
    assert out == f"new password of alice mailed to {ALICE}; 1 mail(s) queued\n"
    status, out, err = admin(
        capsys, database_url, "adjudicate", str(number), "bob", "--reason", "a dead draw"
    )
    assert (status, err) == (0, "")
    assert out == f"board {number}: adjudicated, bob wins; 2 mail(s) queued\n"
    with db_sessions() as session:
        rows = session.scalars(
            select(OutboundMessage).where(OutboundMessage.status == "pending")
        ).all()
    assert sorted((row.recipient, row.subject) for row in rows) == sorted([
        (ALICE, "Emergo: new password for alice"),
        (ALICE, f"Emergo Board {number} Game over"),
        (BOB, f"Emergo Board {number} Game over"),
    ])  # fmt: skip
    assert all(row.last_error is None and row.next_attempt_at <= datetime.now(UTC)
               for row in rows)  # fmt: skip
