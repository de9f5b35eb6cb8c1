"""By mail: `emergo analyse` (and `analyze`) of a finished game, through the real listener,
workers and robots' runner (which makes the analysis off the mail path) and a relay
receiving every mail; SQLite and PostgreSQL.

The request is answered at once, the analysis comes in its own mail with its sections and
the board at the turning point, asking again is answered from storage at no cost, and the
three refusals: a game still being played, someone else's game, and over the daily limit.
"""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage

from sqlalchemy import func, select

from pbm_emergo.db.models import AnalysisRequest
from tests.support.mail import wait_for
from tests.support.post import ALICE, BOB, Post, challenge, subjects, text
from tests.support.text import flat

CAROL = "carol@example.org"
PW = {"alice": "alice-pw1", "bob": "bob-pw1", "carol": "carol-pw1"}
# A game of random moves in which 18. c3 loses a column (tests/robot/test_analysis.py).
MOVES = ["f2", "f6", "b5", "e4", "e7", "e5", "d8", "h5", "d3", "f8", "e1", "g7", "c6", "g6",
         "c4", "f4", "c5", "c3"]  # fmt: skip


def play(post: Post, board: int, moves: list[str]) -> None:
    for index, notation in enumerate(moves):
        userid = "alice" if index % 2 == 0 else "bob"
        mails = post.send(f"emergo move {board} {userid} {PW[userid]} {notation}",
                          f"{userid}@example.org")  # fmt: skip
        assert not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)


def finished_game(post: Post, moves: list[str]) -> int:
    board = challenge(post)
    play(post, board, moves)
    loser = "alice" if len(moves) % 2 == 0 else "bob"
    post.send(f"emergo resign {board} {loser} {PW[loser]}", f"{loser}@example.org")
    return board


def analysis_mails(post: Post, address: str, board: int) -> list[EmailMessage]:
    return [m for m in post.received_by(address)
            if str(m["Subject"]) == f"Emergo analysis {board}" and "In-Reply-To" not in m]


def html(msg: EmailMessage) -> str:
    part = msg.get_body(("html",))
    assert isinstance(part, EmailMessage)
    content = part.get_content()
    assert isinstance(content, str)
    return content


def requests(post: Post) -> int:
    with post.sessions() as session:
        return session.scalar(select(func.count()).select_from(AnalysisRequest)) or 0


def test_analysis_by_mail_queued_made_off_the_mail_path_and_stored(
    make_post: Callable[..., Post],
) -> None:
    post = make_post(analysis_seconds_per_move=0.1, analyses_per_day=1)
    board = challenge(post)
    play(post, board, MOVES)

    # While the game goes on: refused, and nothing queued.
    active = post.one(f"emergo analyse {board} alice {PW['alice']}", ALICE)
    assert str(active["Subject"]) == f"Emergo Board {board} Error"
    assert f"Board {board} is still being played" in flat(text(active))
    assert "Ask again when it is over." in flat(text(active))
    assert requests(post) == 0

    post.send(f"emergo resign {board} alice {PW['alice']}", ALICE)

    # Someone who did not play: refused.
    post.signup("carol", PW["carol"], CAROL)
    stranger = post.one(f"emergo analyse {board} carol {PW['carol']}", CAROL)
    assert str(stranger["Subject"]) == f"Emergo Board {board} Error"
    assert f"carol did not play on board {board}" in flat(text(stranger))
    assert "alice and bob" in flat(text(stranger))
    assert requests(post) == 0

    # A player: answered at once with when to expect it; the analysis follows.
    queued = post.one(f"emergo analyze {board} bob {PW['bob']}", BOB)
    # A short acknowledgement, with a Subject of its own (the analysis has the other one).
    assert str(queued["Subject"]) == f"Emergo analysis {board} queued"
    assert text(queued).startswith(f"Your analysis of board {board} is queued.\n")
    assert "Expect it within about" in flat(text(queued))
    # The Subject to look for is on one line, whole.
    assert any(f"'Emergo analysis {board}'" in line for line in text(queued).splitlines())
    assert "It is analysis 1 of the 1 you may ask for in 24 hours." in flat(text(queued))
    assert all(len(line) <= 72 for line in text(queued).splitlines())
    assert PW["bob"] not in flat(text(queued))

    [mail] = wait_for(lambda: analysis_mails(post, BOB, board), timeout=60)
    notes = text(mail)
    assert notes.startswith(f"The engine's notes on board {board}: alice (Ohs) against bob (Eks).")
    for section in ("\nSummary\n", "\nThe turning point\n", "\nThe moves that lost most\n",
                    "\nEvery move (value after it;"):  # fmt: skip
        assert section in notes
    assert "\n  alice (Ohs): 9 moves, average loss " in notes
    assert "\n  bob (Eks): 9 moves, average loss " in notes
    assert "average loss" in notes and "Better was" in notes
    assert all(len(line) <= 72 for line in notes.splitlines())
    assert "     1. alice            f2 " in notes and "    18. bob              c3" in notes
    # The board at the turning point: the diagram in the text, the picture in the HTML.
    assert "The board after move" in notes and "\n A " in notes
    picture = html(mail)
    assert 'class="emergo-board"' in picture and "The turning point" in picture
    assert "<script" not in picture

    # Asking again (even over the daily limit): the stored analysis, at once, at no cost.
    stored_at = requests(post)
    again = post.one(f"emergo analyse {board} bob {PW['bob']}", BOB)
    assert str(again["Subject"]) == f"Emergo analysis {board}"
    assert text(again) == notes
    assert requests(post) == stored_at == 1
    other = post.one(f"emergo analyse {board} alice {PW['alice']}", ALICE)
    assert text(other) == notes

    # Over the daily limit: bob's one analysis of the day is used.
    second = finished_game(post, MOVES[:4])
    over = post.one(f"emergo analyse {second} bob {PW['bob']}", BOB)
    assert str(over["Subject"]) == f"Emergo Board {second} Error"
    assert "bob has asked for 1 analysis in the last 24 hours" in flat(text(over))
    assert "Ask again tomorrow" in flat(text(over))
    assert requests(post) == 1
    # alice has used none of hers: queued.
    mine = post.one(f"emergo analyse {second} alice {PW['alice']}", ALICE)
    assert "is queued" in flat(text(mine))
    wait_for(lambda: analysis_mails(post, ALICE, second), timeout=60)
