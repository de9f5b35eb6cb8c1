"""By mail: the game record file (attached to the last board mail and to ``emergo record``,
on the web view, replayed by ``pbm-emergo rules replay``), ``emergo rematch``, ``emergo
showas``, ``emergo all show``, and ``emergo submit``/``emergo confirm``.

Through the real listener (smtplib), the real workers and command layer, and a real aiosmtpd
relay receiving every mail the server sends; SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker
from starlette.testclient import TestClient

from pbm_emergo.cli import main as cli_main
from pbm_emergo.db.models import Board, Player, SubmittedMove
from pbm_emergo.rules import Position, render_board
from pbm_emergo.rules.record import parse_record, replay
from pbm_emergo.web.app import create_app
from tests.support.post import ALICE, BOB, RATED_OPENING, Post, challenge, subjects, text
from tests.support.text import flat

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
    assert "resign" in text(over[0])
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


CORPUS = json.loads((Path(__file__).parents[1] / "rules" / "data" / "games.json").read_text())


@pytest.mark.parametrize("name", ["no legal entry", "eliminated"])
def test_a_game_the_board_ends_sends_a_record_that_replays_to_it(
    make_post: Callable[..., Post], name: str
) -> None:
    post = make_post()
    board = challenge(post)
    moves = CORPUS[name]["moves"]
    over = play(post, board, moves)
    assert all(str(m["Subject"]) == f"Emergo Board {board} Game over" for m in over)
    found = attachment(over[0])
    assert found is not None
    record = parse_record(found[1])
    assert record.result == {"white": "1-0", "black": "0-1"}[CORPUS[name]["winner"]]
    assert record.tag("Termination") == CORPUS[name]["reason"]
    game = replay(record)
    assert game.position == stored_position(post, board)
    assert game.outcome() is not None


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


# -- emergo rematch ----------------------------------------------------------------------


def new_board_of(mails: list[EmailMessage]) -> int:
    numbers = {int(str(m["Subject"]).split()[3]) for m in mails}
    assert len(numbers) == 1, subjects(mails)
    return numbers.pop()


def test_a_rematch_swaps_the_colours_and_keeps_the_options(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post, "-unrated -blocked=draw --nagtime=5 --forfeittime=20")
    play(post, board, list(RATED_OPENING[:2]))
    post.send(f"emergo resign {board} bob {PW['bob']}", BOB)
    mails = post.send(f"emergo rematch {board} bob {PW['bob']}", BOB)
    assert sorted(str(m["To"]) for m in mails) == [ALICE, BOB]
    new = new_board_of(mails)
    assert new == board + 1
    assert all(str(m["Subject"]) == f"New Emergo Board {new} bob" for m in mails)
    assert f"A rematch of board {board}, bob asked: bob plays Ohs (o)" in text(mails[0])
    old, fresh = post.board(board), post.board(new)
    assert (fresh.white_player_id, fresh.black_player_id) == (
        old.black_player_id,
        old.white_player_id,
    )
    assert (fresh.rated, fresh.blocked_rule, fresh.nag_days, fresh.forfeit_days) == (
        False,
        "draw",
        5,
        20,
    )
    # The opponent accepts by moving.
    play(post, new, ["e4"], first="bob")
    moved = post.send(f"emergo move {new} alice {PW['alice']} d6", ALICE)
    assert all("Error" not in str(m["Subject"]) for m in moved), subjects(moved)


def test_the_opponent_declines_a_rematch_as_a_challenge(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = finished_board(post)  # alice won against bob
    new = new_board_of(post.send(f"emergo rematch {board} alice {PW['alice']}", ALICE))
    assert post.board(new).white_player_id == post.board(board).black_player_id
    declined = post.send(f"emergo resign {new} alice {PW['alice']}", ALICE)
    assert declined and all("Error" not in str(m["Subject"]) for m in declined)
    with post.sessions() as session:
        assert session.scalars(select(Board).where(Board.number == new)).first() is None


@pytest.mark.parametrize(
    ("command", "sender", "says"),
    [
        ("emergo rematch {board} alice alice-pw1", ALICE, "is not over yet"),
        ("emergo rematch {board} carol carol-pw1", "carol@example.org", "did not play on board"),
        ("emergo rematch {board} alice wrong-pw1", ALICE, "password"),
        ("emergo rematch 999 alice alice-pw1", ALICE, "999"),
        ("emergo rematch {board}#2 alice alice-pw1", ALICE, ""),
    ],
)
def test_a_rematch_that_cannot_be_is_refused_and_starts_nothing(
    make_post: Callable[..., Post], command: str, sender: str, says: str
) -> None:
    post = make_post()
    post.signup("carol", "carol-pw1", "carol@example.org")
    board = challenge(post)
    play(post, board, list(RATED_OPENING[:2]))
    if "carol" in command:
        post.send(f"emergo resign {board} bob {PW['bob']}", BOB)
    answer = post.one(command.format(board=board), sender)
    assert "Error" in str(answer["Subject"]) or "error" in str(answer["Subject"])
    assert says in text(answer)
    assert "alice-pw1" not in text(answer) and "wrong-pw1" not in text(answer)
    with post.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Board)) == 1


def test_a_rematch_respects_the_opponents_refusal_of_challenges(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = finished_board(post)
    post.send(f"emergo reject bob {PW['bob']}", BOB)
    answer = post.one(f"emergo rematch {board} alice {PW['alice']}", ALICE)
    assert "bob does not accept challenges" in text(answer)


def test_a_rematch_against_a_robot_starts_the_game(make_post: Callable[..., Post]) -> None:
    post = make_post()
    [started] = post.send("emergo challenge alice robot1", ALICE)
    board = new_board_of([started])
    play(post, board, ["e4"])
    post.send(f"emergo resign {board} alice {PW['alice']}", ALICE)
    mails = post.send(f"emergo rematch {board} alice {PW['alice']}", ALICE)
    assert [str(m["To"]) for m in mails] == [ALICE]  # the robot has no address
    new = new_board_of(mails)
    fresh = post.board(new)
    assert fresh.black_player_id == post.board(board).white_player_id
    with post.sessions() as session:
        robot = session.scalars(select(Player).where(Player.userid_key == "robot1")).one()
    assert fresh.white_player_id == robot.id


# -- emergo showas, all show -------------------------------------------------------------


def test_showas_shows_the_board_from_that_players_side(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, ["e4"])
    as_bob = post.one(f"emergo showas {board} bob", "dave@example.org")
    assert str(as_bob["Subject"]) == f"Emergo Board {board} as bob"
    body = text(as_bob)
    assert f"Board {board} as bob sees it: you play Eks (x). It is your turn, bob." in body
    position = stored_position(post, board)
    assert render_board(position, "alice", "bob", turned=True) in body
    as_alice = text(post.one(f"emergo showas {board} alice", BOB))
    assert "It is bob's turn; you wait." in flat(as_alice)
    assert render_board(position, "alice", "bob") in as_alice


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("emergo showas {board} carol", "carol does not play on board"),
        ("emergo showas {board} nobody", "nobody"),
        ("emergo showas 999 bob", "999"),
        ("emergo showas {board}", "emergo showas board userid"),
    ],
)
def test_showas_errors(make_post: Callable[..., Post], command: str, says: str) -> None:
    post = make_post()
    post.signup("carol", "carol-pw1", "carol@example.org")
    board = challenge(post)
    answer = post.one(command.format(board=board), ALICE)
    assert "rror" in str(answer["Subject"])
    assert says in text(answer)


def test_all_show_sends_every_active_board_in_one_mail(make_post: Callable[..., Post]) -> None:
    post = make_post()
    first, second, third = challenge(post), challenge(post), challenge(post)
    play(post, second, ["e4"])  # bob's turn there
    post.send(f"emergo resign {third} alice {PW['alice']}", ALICE)  # declined: removed
    every = post.one("all show bob", BOB)
    assert str(every["Subject"]) == "Emergo: all boards of bob"
    body = text(every)
    shown = re.findall(r"^Emergo Board (\d+): alice \(Ohs", body, re.MULTILINE)
    assert shown == [str(first), str(second)]
    only_next = text(post.one("all show bob next", BOB))
    assert re.findall(r"^Emergo Board (\d+):", only_next, re.MULTILINE) == [str(second)]


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("all show carol", "carol has no boards under way"),
        ("all show carol next", "carol has no boards where it is their turn"),
        ("all show nobody", "nobody"),
        ("all show bob soon", "all show userid [active|next]"),
    ],
)
def test_all_show_errors(make_post: Callable[..., Post], command: str, says: str) -> None:
    post = make_post()
    post.signup("carol", "carol-pw1", "carol@example.org")
    challenge(post)
    answer = post.one(command, ALICE)
    assert "rror" in str(answer["Subject"])
    assert says in text(answer)


# -- emergo submit, emergo confirm -------------------------------------------------------


def test_a_submitted_move_is_played_when_confirmed(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    answer = post.one(f"emergo submit {board} alice {PW['alice']} e4", ALICE, body="my first move")
    assert str(answer["Subject"]) == f"Emergo Board {board} submitted"
    body = text(answer)
    assert f"Board {board}: e4 is submitted as your move 1, not played." in body
    assert f"emergo confirm {board} alice PASSWORD" in body
    assert render_board(Position().play(Position().parse_move("e4")), "alice", "bob") in body
    assert PW["alice"] not in body
    assert post.board(board).ply == 0  # nothing played, bob not told
    assert not post.received_by(BOB)[-1:] or "submitted" not in str(
        post.received_by(BOB)[-1]["Subject"]
    )
    # A new submission replaces it.
    again = text(post.one(f"emergo submit {board} alice {PW['alice']} d4", ALICE))
    assert "It replaces your earlier submission, e4." in again
    played = post.send(f"emergo confirm {board} alice {PW['alice']}", ALICE)
    assert sorted(str(m["To"]) for m in played) == [ALICE, BOB]
    assert all(str(m["Subject"]).startswith(f"Emergo Board {board} bob") for m in played)
    assert post.board(board).ply == 1
    assert stored_position(post, board) == Position().play(Position().parse_move("d4"))
    # Confirmed once: nothing is left to confirm.
    again_confirm = post.one(f"emergo confirm {board} alice {PW['alice']}", ALICE)
    assert "alice has no submitted move on board" in text(again_confirm)


def test_the_submissions_comment_goes_with_the_confirmed_move(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    board = challenge(post)
    post.one(f"emergo submit {board} alice {PW['alice']} e4", ALICE, body="well met, bob")
    played = post.send(f"emergo confirm {board} alice {PW['alice']}", ALICE)
    to_bob = [m for m in played if str(m["To"]) == BOB]
    assert to_bob and "well met, bob" in text(to_bob[0])
    assert str(to_bob[0]["Subject"]).endswith(" **")


def test_a_move_by_other_means_drops_the_submission(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    post.one(f"emergo submit {board} alice {PW['alice']} e4", ALICE)
    play(post, board, ["d4"])  # alice moves with emergo move instead
    play(post, board, ["d6"], first="bob")
    dropped = post.one(f"emergo confirm {board} alice {PW['alice']}", ALICE)
    assert "Error" in str(dropped["Subject"])
    assert "Your submitted move e4 on board" in text(dropped)
    assert "was dropped" in text(dropped)
    assert post.board(board).ply == 2
    gone = post.one(f"emergo confirm {board} alice {PW['alice']}", ALICE)
    assert "alice has no submitted move on board" in text(gone)


@pytest.mark.parametrize(
    ("command", "sender", "says"),
    [
        ("emergo submit {board} alice alice-pw1 e5", ALICE, "e5"),  # not on the first move
        ("emergo submit {board} bob bob-pw1 e4", BOB, "turn"),
        ("emergo submit {board} alice alice-pw1 resign", ALICE, "Only a move can be submitted"),
        ("emergo submit {board} alice alice-pw1 e4#3", ALICE, "not move 3"),
        ("emergo submit {board} alice wrong-pw1 e4", ALICE, "password"),
        ("emergo submit 999 alice alice-pw1 e4", ALICE, "999"),
        ("emergo confirm {board} alice alice-pw1", ALICE, "has no submitted move"),
        ("emergo confirm {board} alice wrong-pw1", ALICE, "password"),
    ],
)
def test_submit_and_confirm_errors_play_nothing(
    make_post: Callable[..., Post], command: str, sender: str, says: str
) -> None:
    post = make_post()
    board = challenge(post)
    answer = post.one(command.format(board=board), sender)
    assert "rror" in str(answer["Subject"])
    assert says in text(answer)
    assert "alice-pw1" not in text(answer) and "wrong-pw1" not in text(answer)
    assert post.board(board).ply == 0
    with post.sessions() as session:
        assert session.scalar(select(func.count()).select_from(SubmittedMove)) == 0


def test_help_describes_every_new_command(make_post: Callable[..., Post]) -> None:
    post = make_post()
    summary = text(post.one("help", ALICE))
    for usage in (
        "emergo rematch board userid password",
        "emergo showas board userid",
        "all show userid [active|next]",
        "emergo submit board userid password MOVE[#n]",
        "emergo confirm board userid password",
    ):
        assert usage in summary
    assert "who now plays the other colour" in " ".join(
        text(post.one("help rematch", ALICE)).split()
    )


def test_a_move_taken_back_drops_the_submission(make_post: Callable[..., Post]) -> None:
    post = make_post()
    board = challenge(post)
    play(post, board, ["e4"])
    post.one(f"emergo submit {board} bob {PW['bob']} d6", BOB)
    play(post, board, ["undo"])  # alice asks to take e4 back
    play(post, board, ["accept"], first="bob")
    assert post.board(board).ply == 0
    play(post, board, ["e4"])  # the same position as when bob submitted
    gone = post.one(f"emergo confirm {board} bob {PW['bob']}", BOB)
    assert "bob has no submitted move on board" in text(gone)
    assert post.board(board).ply == 1
