"""By mail: Glicko-2 ratings. A rated game's end moves both ratings and deviations as the
game-over mail says; the standings show the rating deviation and call a rating
provisional by it; a second game of a newcomer moves less; signing off resigns every board,
each moving the ratings the next starts from. Through the real listener and workers, SQLite
and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from pbm_emergo.db.players import find_player
from pbm_emergo.game.ratings import Standing
from pbm_emergo.ratings import game_rating
from tests.support.clock import Clock
from tests.support.moves import RATED_OPENING
from tests.support.post import ALICE, BOB, Post, subjects, text
from tests.support.text import flat

CAROL = "carol@example.org"
PW = {"alice": "alice-pw1", "bob": "bob-pw1", "carol": "carol-pw1"}
ADDRESS = {"alice": ALICE, "bob": BOB, "carol": CAROL}


def standing(post: Post, userid: str) -> Standing:
    with post.sessions() as session:
        player = find_player(session, userid)
        assert player is not None
        return Standing(player.rating, player.rated_games, player.deviation, player.volatility)


def rated_game(post: Post, white: str, black: str) -> int:
    """A board of ``white`` against ``black`` with four moves each (rated from then on)."""
    mails = post.send(f"emergo challenge {white} {black}", ADDRESS[white])
    assert len(mails) == 2, subjects(mails)
    board = int(str(mails[0]["Subject"]).split()[-2])
    for ply, move in enumerate(RATED_OPENING):
        userid = black if ply % 2 else white
        mails = post.send(f"emergo move {board} {userid} {PW[userid]} {move}", ADDRESS[userid])
        assert mails and not any("Error" in str(m["Subject"]) for m in mails), subjects(mails)
    return board


def test_a_rated_game_moves_ratings_and_deviations_and_the_standings_show_them(
    make_post: Callable[..., Post], clock: Clock
) -> None:
    post = make_post()
    post.signup("carol", PW["carol"], CAROL)
    board = rated_game(post, "alice", "bob")
    over = post.send(f"emergo resign {board} bob {PW['bob']}", BOB)
    first = game_rating(Standing(1600, 0), Standing(1600, 0), "white")
    assert "Rating changes: alice 1600 -> 1762 (+162), bob 1600 -> 1438 (-162)." in text(over[0])
    alice = standing(post, "alice")
    assert alice == Standing(1600, 0).after(first, white=True)
    assert round(alice.deviation) == 290
    table = text(post.one("emergo standings", CAROL))
    assert "everyone starts at 1600, with a rating deviation (RD) of" in flat(table)
    provisional = table.split("Provisional players (rating deviation above 110):\n")[1]
    assert " Rank  Userid           Rating   RD   Won  Lost Drawn Active Seeking\n" in provisional
    assert "    1  alice              1762  290     1     0     0      0       -\n" in provisional
    # alice's second rated game, against a newcomer: her rating is surer now, so it moves
    # less than carol's.
    clock.now += timedelta(days=1)
    board = rated_game(post, "carol", "alice")
    over = post.send(f"emergo resign {board} alice {PW['alice']}", ALICE)
    second = game_rating(Standing(1600, 0), alice, "white")
    assert second.white_change > -second.black_change > 0
    assert f"carol 1600 -> {1600 + second.white_change} ({second.white_change:+d})" in text(over[0])
    history = text(post.one("emergo history alice", CAROL))
    assert f"{second.black_change:+d}" in history and "+162" in history


def test_signing_off_resigns_every_board_each_from_the_ratings_the_last_left(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.signup("carol", PW["carol"], CAROL)
    first_board = rated_game(post, "alice", "bob")
    second_board = rated_game(post, "carol", "alice")
    mails = post.send(f"signoff alice {PW['alice']}", ALICE)
    assert any("goodbye alice" in str(m["Subject"]) for m in mails), subjects(mails)
    one = game_rating(Standing(1600, 0), Standing(1600, 0), "black")
    alice = Standing(1600, 0).after(one, white=True)
    two = game_rating(Standing(1600, 0), alice, "white")
    assert standing(post, "bob") == Standing(1600, 0).after(one, white=False)
    assert standing(post, "carol") == Standing(1600, 0).after(two, white=True)
    assert post.board(first_board).black_rating_change == one.black_change
    assert post.board(second_board).white_rating_change == two.white_change
