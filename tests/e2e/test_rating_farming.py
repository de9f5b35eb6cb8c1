"""By mail: two accounts cannot farm rating points with short or repeated games.

A game moves ratings only after four moves by each player, and only the first rated game
of a pair in a week does (``counts_for_rating`` in pbm_emergo/game/ratings.py). Through the
real listener and a recording relay; SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from pbm_emergo.db.models import Board, Player
from tests.game.boards import random_game
from tests.support.post import ALICE, BOB, Post, challenge, subjects, text

PW = {"alice": "alice-pw1", "bob": "bob-pw1"}
ADDRESS = {"alice": ALICE, "bob": BOB}


def ratings(post: Post) -> tuple[int, int, int, int]:
    """alice's and bob's ratings and rated-game counts."""
    with post.sessions() as session:
        rows = {
            userid: (rating, games)
            for userid, rating, games in session.execute(
                select(Player.userid_key, Player.rating, Player.rated_games)
            )
        }
    return (*rows["alice"], *rows["bob"])  # type: ignore[return-value]


def a_game(post: Post, length: int) -> tuple[int, str]:
    """alice challenges bob, they play ``length`` moves, bob resigns: the board and the
    game-over mail's text."""
    board = challenge(post)
    moves = random_game(board, length)
    assert len(moves) == length
    for ply, notation in enumerate(moves):
        userid = "alice" if ply % 2 == 0 else "bob"
        mails = post.send(
            f"emergo move {board} {userid} {PW[userid]} {notation}", ADDRESS[userid]
        )
        assert mails and not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)
    over = post.send(f"emergo resign {board} bob {PW['bob']}", BOB)
    assert subjects(over) == [(ALICE, f"Emergo Board {board} Game over"),
                              (BOB, f"Emergo Board {board} Game over")]  # fmt: skip
    return board, text(over[0])


def test_quick_games_are_unrated_and_a_pair_rates_once_a_week(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    start = ratings(post)
    # The farm: a move each, then a resignation, four times: no rating moves.
    for _ in range(4):
        board, over = a_game(post, 2)
        assert "Rating changes" not in over and "Options: unrated" in over
        assert not post.board(board).rated
    assert ratings(post) == start
    # Four longer games in one week: only the first moves ratings.
    boards = []
    for _ in range(4):
        board, over = a_game(post, 8)
        boards.append(board)
    first = ratings(post)
    assert first[0] > start[0] and first[2] < start[2]
    assert (first[1], first[3]) == (start[1] + 1, start[3] + 1)
    with post.sessions() as session:
        rated = dict(
            session.execute(
                select(Board.number, Board.rated).where(Board.number.in_(boards))
            ).all()
        )
    assert [rated[b] for b in boards] == [True, False, False, False]
    history = text(post.one("emergo history alice", ALICE))
    assert history.count("unrated") == 7, history
