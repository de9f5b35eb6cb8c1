"""The commands around the games, through `handle` on a real database: standings and
history, chat and message, subscribe and notify, seek and accept/reject/limit, declining a
new board, the ` **` mark, and commands in the body of a reply."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from pbm_emergo.app import budget
from pbm_emergo.app.messages import Reply
from pbm_emergo.db.models import Board, Notification, Player, Subscription
from pbm_emergo.mail.commands import describe, redact
from pbm_emergo.mail.quotes import quote_start
from pbm_emergo.robot.ladder import LADDER
from tests.support.mailer import Mailer
from tests.support.moves import RATED_OPENING
from tests.support.text import flat

from .support import board_row, notations, play_all

ALICE, BOB, CAROL, DAVE = (
    "alice@example.org", "bob@example.org", "carol@example.org", "dave@example.org",
)  # fmt: skip

INACTIVE_HEADING = "Inactive players (no game under way, no rated game for 365 days):\n"


def by_to(replies: list[Reply]) -> dict[str, Reply]:
    return {r.to: r for r in replies}


def carol(m: Mailer) -> Mailer:
    m.signup("carol", "carolpw", CAROL)
    return m


def won_by_alice(m: Mailer, board: int, opts: str = "") -> list[Reply]:
    """A game on ``board`` (alice Ohs, bob Eks) that bob resigns after two moves."""
    m.send(f"emergo challenge alice bob {opts}".strip(), sender=ALICE)
    play_all(m, RATED_OPENING, board=board)  # four moves each: a rated board's game counts
    return m.send(f"emergo resign {board} bob bobpw", sender=BOB)


def player(m: Mailer, userid: str) -> Player:
    with m.factory() as session:
        found = session.scalars(select(Player).where(Player.userid_key == userid)).one()
        session.expunge(found)
        return found


# --- standings and history ---------------------------------------------------------------


def test_standings_after_finished_games_match_the_game_over_mails(players: Mailer) -> None:
    over = won_by_alice(players, 101)
    assert "Rating changes: alice 1600 -> 1762 (+162), bob 1600 -> 1438 (-162)." in flat(
        over[0].body
    )
    carol(players)
    reply = players.one("emergo standings", sender=DAVE)
    assert (reply.to, reply.subject) == (DAVE, "Emergo standings")
    body = reply.body
    header = " Rank  Userid           Rating   RD   Won  Lost Drawn Active Seeking\n"
    provisional = body.split("Provisional players (rating deviation above 110):\n")[1]
    assert provisional.startswith(header)
    assert "    1  alice              1762  290     1     0     0      0       -\n" in provisional
    assert "    2  bob                1438  290     0     1     0      0       -\n" in provisional
    # carol and the robots have no rated game: inactive, listed last.
    inactive = body.split(INACTIVE_HEADING)[1]
    assert "  carol              1600  350     0     0     0      0       -\n" in inactive
    assert "robot1" in inactive
    assert body.index("Provisional players") < body.index("Inactive players")
    assert "Established players" not in body


def test_standings_of_some_players_and_the_ratings_alias(players: Mailer) -> None:
    won_by_alice(players, 101)
    players.send("emergo challenge alice bob", sender=ALICE)  # board 102, active
    reply = players.one("emergo ratings BOB")
    assert reply.body.startswith("Emergo standings of bob\n")
    assert "    2  bob                1438  290     0     1     0      1       -\n" in reply.body
    assert "alice" not in reply.body.split("Provisional players")[1]
    unknown = players.one("emergo standings nobody1")
    assert unknown.subject == "Emergo error"
    assert flat(unknown.body).startswith("There is no player by that name.")


def test_standings_show_the_robots_ladder_ratings_after_the_table(players: Mailer) -> None:
    body = players.one("emergo standings", sender=DAVE).body
    table, after = body.split("\nLadder Elo: ")
    assert "robot3" in table and "ladder Elo" not in table
    entry = LADDER["robot3"]
    shown = f"ladder Elo {entry.rating} ({entry.low}-{entry.high})"
    assert f"       robot3           {shown}\n" in after
    ladder = after.split("\n\n")[0]
    assert "random mover at 0" in ladder.replace("\n", " ")
    assert all(len(line) <= 72 for line in ladder.splitlines())
    # Only the robots asked for; none at all for people.
    assert "robot1 " not in players.one("emergo standings robot2").body.split("Ladder Elo")[1]
    assert "Ladder Elo" not in players.one("emergo standings alice").body


def test_players_are_established_once_their_deviation_is_small_and_inactive_after_a_year(
    players: Mailer,
) -> None:
    # Results that tell something: they win in turn. One-sided results would leave the
    # deviations large (each win of the clear favourite says little).
    for number in range(101, 121):
        players.now += timedelta(days=7)  # one rated game of a pair a week
        if number % 2:
            won_by_alice(players, number)
        else:
            players.send("emergo challenge alice bob", sender=ALICE)
            play_all(players, RATED_OPENING, board=number)
            players.send(f"emergo resign {number} alice alicepw", sender=ALICE)
        if number == 110:  # ten games: still provisional (a deviation above 110)
            early = players.one("emergo standings alice bob").body
            assert "Established players" not in early
    body = players.one("emergo standings alice bob").body
    established = body.split("Established players:\n")[1].split("\n\n")[0]
    assert "alice" in established and "bob" in established
    players.now += timedelta(days=366)
    later = players.one("emergo standings alice bob").body
    assert "Established players" not in later
    inactive = later.split(INACTIVE_HEADING)[1]
    assert "alice" in inactive and "bob" in inactive


def test_history_lists_finished_games_newest_first_with_points(players: Mailer) -> None:
    won_by_alice(players, 101)
    won_by_alice(players, 102, "-unrated")
    first_day = players.now.strftime("%Y-%m-%d")
    players.now += timedelta(days=7)  # the pair's next rated game counts a week later
    players.send("emergo challenge bob alice", sender=BOB)  # 103: bob plays Ohs
    play_all_as(players, 103, list(zip(("bob", "alice") * 4, RATED_OPENING, strict=True)))
    players.send("emergo move 103 bob bobpw propose", sender=BOB)
    players.send("emergo move 103 alice alicepw accept", sender=ALICE)
    players.send("emergo challenge alice bob", sender=ALICE)  # 104: active, not listed
    reply = players.one("emergo history")
    assert reply.subject == "Emergo history"
    lines = reply.body.splitlines()
    header = lines.index(next(x for x in lines if x.startswith("Finished  ")))
    # Two lines a game (within 72 columns): the date, board and players, then the result.
    pairs = [
        f"{a} {b}".split() for a, b in zip(lines[header::2], lines[header + 1 :: 2], strict=False)
    ]
    assert pairs[0] == [
        "Finished", "Board", "Players", "(Ohs", "-", "Eks)", "Result;", "rating", "points",
    ]  # fmt: skip
    rows = pairs[1:4]
    day = players.now.strftime("%Y-%m-%d")
    draw = board_row(players, 103)
    assert rows[0] == [
        day, "103", "bob", "-", "alice", "draw", "(draw", "agreed);",
        "bob", f"{draw.white_rating_change:+d},", "alice", f"{draw.black_rating_change:+d}",
    ]  # fmt: skip
    assert rows[1] == [
        first_day, "102", "alice", "-", "bob", "alice", "won", "(resigned);", "unrated",
    ]  # fmt: skip
    assert rows[2] == [
        first_day, "101", "alice", "-", "bob", "alice", "won", "(resigned);", "alice", "+162,",
        "bob", "-162",
    ]  # fmt: skip
    assert "104" not in flat(reply.body)


def play_all_as(m: Mailer, board: int, moves: list[tuple[str, str]]) -> None:
    passwords = {"alice": "alicepw", "bob": "bobpw", "carol": "carolpw"}
    for userid, text in moves:
        replies = m.send(
            f"emergo move {board} {userid} {passwords[userid]} {text}",
            sender=f"{userid}@example.org",
        )
        assert all("Error" not in r.subject for r in replies), replies[0].body


def test_history_of_some_players_and_errors(players: Mailer) -> None:
    carol(players)
    won_by_alice(players, 101)
    players.send("emergo challenge carol bob", sender=CAROL)
    play_all_as(players, 102, [("carol", "e4"), ("bob", "e6")])
    players.send("emergo resign 102 carol carolpw", sender=CAROL)
    mine = players.one("emergo history carol").body
    assert mine.startswith("Finished games of carol, the newest first:")
    assert "carol - bob" in mine and "bob won (resigned)" in mine
    assert "alice - bob" not in mine
    both = players.one("emergo history carol ALICE").body
    assert both.startswith("Finished games of carol, alice, the newest first:")
    assert "carol - bob" in both and "alice - bob" in both
    unknown = players.one("emergo history dave99")
    assert flat(unknown.body).startswith("There is no player by that name.")
    players.signup("erin", "erinpw", "erin@example.org")
    assert "None yet." in players.one("emergo history erin").body


# --- declining a new board ----------------------------------------------------------------


def test_resigning_before_your_first_move_declines_the_board(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    play_all(players, ["e4"])  # alice has moved; bob has not
    replies = players.send("emergo resign 101 bob bobpw", "Not now, sorry.", sender=BOB)
    assert sorted((r.to, r.subject) for r in replies) == [
        (ALICE, "Emergo Board 101 declined"),
        (BOB, "Emergo Board 101 declined"),
    ]
    body = replies[0].body
    assert body.startswith("bob declined the game on Emergo Board 101 (alice against bob).")
    assert "not rated" in body and "not used again" in body
    assert "bob writes:\n  Not now, sorry." in body
    with players.factory() as session:
        assert session.get(Board, 101) is None
    assert (player(players, "alice").rating, player(players, "alice").won) == (1600, 0)
    assert (player(players, "bob").rating, player(players, "bob").lost) == (1600, 0)
    assert "None yet." in players.one("emergo history").body
    assert players.one("emergo show 101").body.startswith("There is no board 101.")
    # The number is not handed out again.
    again = players.send("emergo challenge alice bob", sender=ALICE)
    assert "Board 102" in again[0].subject


def test_the_first_player_declines_with_a_move_word_before_moving(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    replies = players.send("emergo move 101 alice alicepw resign", sender=ALICE)
    assert {r.subject for r in replies} == {"Emergo Board 101 declined"}
    assert "alice declined" in flat(replies[0].body)
    # After a move of one's own, resigning is resigning.
    players.send("emergo challenge alice bob", sender=ALICE)
    play_all(players, ["e4", "e6"], board=102)
    over = players.send("emergo resign 102 alice alicepw", sender=ALICE)
    assert "bob (Eks) wins: alice resigned." in flat(over[0].body)


def test_declining_checks_the_password_and_the_board(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    wrong = players.one("emergo resign 101 bob nottheone", sender=BOB)
    assert wrong.subject == "Emergo Board 101 Error"
    assert board_row(players).status == "active"
    carol(players)
    other = players.one("emergo resign 101 carol carolpw", sender=CAROL)
    assert flat(other.body).startswith("carol does not play on board 101")
    assert board_row(players).status == "active"


# --- the ** mark ---------------------------------------------------------------------------


def test_a_move_with_a_comment_marks_its_board_mails(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    plain = players.send("emergo move 101 alice alicepw e4", sender=ALICE)
    assert {r.subject for r in plain} == {"Emergo Board 101 bob"}
    commented = players.send("emergo move 101 bob bobpw e6", "Your turn!", sender=BOB)
    assert {r.subject for r in commented} == {"Emergo Board 101 alice **"}
    assert "bob writes:\n  Your turn!" in commented[0].body
    # Only a signature or quoted text: no comment, no mark.
    quoted = players.send(
        "emergo move 101 alice alicepw c5", "-- \nAlice\n", sender=ALICE
    )
    assert {r.subject for r in quoted} == {"Emergo Board 101 bob"}


# --- chat and message ----------------------------------------------------------------------


def test_chat_goes_to_the_players_subscribers_and_the_sender(players: Mailer) -> None:
    carol(players)
    players.signup("dave", "davepw", DAVE)
    players.send("emergo challenge alice bob", sender=ALICE)
    players.one("emergo subscribe 101 carol carolpw", sender=CAROL)
    players.one("emergo subscribe 101 dave davepw", sender=DAVE)
    replies = players.send(
        "emergo chat 101 bob bobpw", "Nice opening!\n\n-- \nBob", sender=BOB
    )
    assert sorted(r.to for r in replies) == [ALICE, BOB, CAROL, DAVE]
    assert {r.subject for r in replies} == {"Emergo chat 101 bob"}
    assert {r.board for r in replies} == {101}
    # Only the opponent's copy is charged to the sender: subscribers asked for the board.
    assert [r.to for r in replies if budget.charged(r, BOB)] == [ALICE]
    body = replies[0].body
    assert body.startswith("bob writes on Emergo Board 101 (alice against bob):\n\n")
    assert "  Nice opening!\n" in body and "Bob" not in body
    assert "bobpw" not in body


def test_a_chat_is_for_the_boards_players(players: Mailer) -> None:
    carol(players)
    players.send("emergo challenge alice bob", sender=ALICE)
    replies = players.send("emergo chat 101 carol carolpw", "Nice opening!", sender=CAROL)
    assert [r.to for r in replies] == [CAROL]
    assert replies[0].subject == "Emergo Board 101 Error"
    assert "Only the players of board 101 (alice and bob) may chat on it" in flat(replies[0].body)
    assert "message YOURID PASSWORD THEIRID" in flat(replies[0].body)


def test_chat_errors(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    wrong = players.one("emergo chat 101 alice wrongpw", "hi", sender=ALICE)
    assert wrong.subject == "Emergo Board 101 Error"
    assert "wrongpw" not in flat(wrong.body)
    unknown = players.one("emergo chat 555 alice alicepw", "hi", sender=ALICE)
    assert flat(unknown.body).startswith("There is no board 555.")
    empty = players.one("emergo chat 101 alice alicepw", "\n-- \nAlice", sender=ALICE)
    assert "has none" in empty.body.splitlines()[0]
    usage = players.one("emergo chat 101 alice", "hi", sender=ALICE)
    assert "emergo chat board userid password" in flat(usage.body)
    nobody = players.one("emergo chat 101 zed99x alicepw", "hi", sender=ALICE)
    assert flat(nobody.body).startswith("There is no player by that name.")


def test_message_goes_to_known_players_and_names_the_unknown(players: Mailer) -> None:
    carol(players)
    replies = players.send(
        "message alice alicepw bob carol zed99", "Tournament on Sunday?\n> quoted", sender=ALICE
    )
    mails = by_to(replies)
    assert sorted(mails) == [ALICE, BOB, CAROL]
    assert mails[BOB].subject == mails[CAROL].subject == "Message from alice"
    assert "alice sends you this message" in flat(mails[BOB].body)
    assert "  Tournament on Sunday?\n" in mails[BOB].body and "quoted" not in mails[BOB].body
    answer = mails[ALICE]
    assert answer.subject == "Emergo: message sent"
    assert flat(answer.body).startswith("Your message went to bob, carol.")
    assert "It did not go to zed99" in flat(answer.body)
    # The recipients' addresses are never shown to the sender, nor the sender's to them.
    assert "example.org" not in flat(answer.body) and ALICE not in flat(mails[BOB].body)


def test_message_errors(players: Mailer) -> None:
    wrong = players.one("message alice secretpw bob", "hi", sender=ALICE)
    assert wrong.subject == "Emergo error" and "secretpw" not in flat(wrong.body)
    nobody = players.one("message alice alicepw zed99 yves88", "hi", sender=ALICE)
    assert flat(nobody.body).startswith("Nobody got your message: there is no player 'zed99'")
    empty = players.one("message alice alicepw bob", "", sender=ALICE)
    assert "has none" in empty.body.splitlines()[0]
    usage = players.one("message alice alicepw", "hi", sender=ALICE)
    assert "message userid password to [to ...]" in flat(usage.body)


# --- subscribe and notify --------------------------------------------------------------------


def test_a_subscriber_gets_every_board_mail_and_the_final_one(players: Mailer) -> None:
    carol(players)
    players.send("emergo challenge alice bob", sender=ALICE)
    reply = players.one("emergo subscribe 101 carol carolpw", sender=CAROL)
    assert reply.subject == "Emergo subscriptions of carol"
    assert flat(reply.body).startswith(
        "carol is now subscribed to board 101. carol watches board 101."
    )
    moved = players.send("emergo move 101 alice alicepw e4", sender=ALICE)
    assert sorted(r.to for r in moved) == [ALICE, BOB, CAROL]
    # A comment is for the two players: the subscriber's board mail leaves it out.
    commented = players.send("emergo move 101 bob bobpw e6", "Between us: nice.", sender=BOB)
    mail_to = {r.to: r for r in commented}
    assert "Between us: nice." in flat(mail_to[ALICE].body) and "Between us" in flat(
        mail_to[BOB].body
    )
    assert mail_to[ALICE].subject == "Emergo Board 101 alice **"
    assert "Between us" not in flat(mail_to[CAROL].body)
    assert "Between us" not in (mail_to[CAROL].html or "")
    assert mail_to[CAROL].subject == "Emergo Board 101 alice"
    over = players.send("emergo resign 101 alice alicepw", sender=ALICE)
    assert sorted(r.to for r in over) == [ALICE, BOB, CAROL]
    assert {r.subject for r in over} == {"Emergo Board 101 Game over"}
    again = players.one("emergo sub 101 carol carolpw", sender=CAROL)
    assert flat(again.body).startswith("The game on board 101 is over")


def test_subscribe_all_covers_later_boards_and_unsubscribe_ends_it(players: Mailer) -> None:
    carol(players)
    players.one("emergo subscribe ALL carol carolpw", sender=CAROL)
    new = players.send("emergo challenge alice bob", sender=ALICE)
    assert sorted(r.to for r in new) == [ALICE, BOB, CAROL]
    single = players.one("emergo unsubscribe 101 carol carolpw", sender=CAROL)
    assert "subscribed to every board" in flat(single.body)
    done = players.one("emergo unsub all carol carolpw", sender=CAROL)
    assert flat(done.body).startswith("carol is no longer subscribed to every board.")
    assert "carol watches no board." in flat(done.body)
    moved = players.send("emergo move 101 alice alicepw e4", sender=ALICE)
    assert sorted(r.to for r in moved) == [ALICE, BOB]
    with players.factory() as session:
        assert session.scalars(select(Subscription)).all() == []


def test_subscribe_errors(players: Mailer) -> None:
    carol(players)
    players.send("emergo challenge alice bob", sender=ALICE)
    assert players.one("emergo subscribe 101 alice alicepw").body.startswith(
        "alice plays on board 101 and gets its mails anyway."
    )
    wrong = players.one("emergo subscribe 101 carol wrongpw", sender=CAROL)
    assert wrong.subject == "Emergo Board 101 Error" and "wrongpw" not in flat(wrong.body)
    assert players.one("emergo subscribe 555 carol carolpw", sender=CAROL).body.startswith(
        "There is no board 555."
    )
    bad = players.one("emergo subscribe everything carol carolpw", sender=CAROL)
    assert "needs a board number or 'all' first" in flat(bad.body)
    assert players.one("emergo unsubscribe 101 carol carolpw", sender=CAROL).body.startswith(
        "carol is not subscribed to board 101."
    )
    usage = players.one("emergo subscribe 101 carol", sender=CAROL)
    assert "emergo subscribe board|all userid password" in flat(usage.body)
    players.send("emergo subscribe 101 carol carolpw", sender=CAROL)
    twice = players.send("emergo subscribe 101 carol carolpw", sender=CAROL)
    assert flat(twice[0].body).startswith("carol is already subscribed to board 101.")


def test_notify_toggles_the_final_board_mail_of_every_game(players: Mailer) -> None:
    carol(players)
    on = players.one("emergo notify carol carolpw", sender=CAROL)
    assert on.subject == "Emergo notices of carol"
    assert flat(on.body).startswith("On: the final board mail of every finished game.")
    players.send("emergo challenge alice bob", sender=ALICE)
    moved = players.send("emergo move 101 alice alicepw e4", sender=ALICE)
    assert CAROL not in {r.to for r in moved}  # not a subscriber: only the final mail
    players.send("emergo move 101 bob bobpw e6", sender=BOB)
    over = players.send("emergo resign 101 alice alicepw", sender=ALICE)
    assert sorted(r.to for r in over) == [ALICE, BOB, CAROL]
    off = players.one("emergo notify carol carolpw", sender=CAROL)
    assert flat(off.body).startswith("Off: no more final board mail of every finished game.")
    over2 = won_by_alice(players, 102)
    assert CAROL not in {r.to for r in over2}


def test_notify_for_some_boards_and_errors(players: Mailer) -> None:
    carol(players)
    players.send("emergo challenge alice bob", sender=ALICE)
    players.send("emergo challenge bob alice", sender=BOB)
    reply = players.one("emergo notify carol carolpw 102", sender=CAROL)
    assert "carol gets the final board mail of board 102." in flat(reply.body)
    play_all(players, ["e4", "e6"])
    first = players.send("emergo resign 101 bob bobpw", sender=BOB)
    assert CAROL not in {r.to for r in first}
    play_all_as(players, 102, [("bob", "e4"), ("alice", "e6")])
    second = players.send("emergo resign 102 alice alicepw", sender=ALICE)
    assert CAROL in {r.to for r in second}
    over = players.one("emergo notify carol carolpw 101", sender=CAROL)
    assert flat(over.body).startswith("The game on board 101 is over already.")
    bad = players.one("emergo notify carol carolpw soon", sender=CAROL)
    assert "is not a board number" in flat(bad.body)
    wrong = players.one("emergo notify carol badpass1", sender=CAROL)
    assert wrong.subject == "Emergo error" and "badpass1" not in flat(wrong.body)
    with players.factory() as session:
        assert session.scalars(select(Notification.board_number)).all() == [102]


# --- seek, accept, reject, limit ----------------------------------------------------------


def test_seek_lists_and_a_challenge_takes_one_off(players: Mailer) -> None:
    carol(players)
    reply = players.one("emergo seek bob bobpw 2", sender=BOB)
    assert reply.subject == "Emergo seek: bob"
    assert flat(reply.body).startswith("bob is seeking 2 more games.")
    players.one("emergo seek carol carolpw", sender=CAROL)
    seeks = players.one("emergo seeks", sender=DAVE).body
    assert seeks.startswith("Players seeking games:")
    assert "bob                      2  1600 provisional      0\n" in seeks
    assert "carol                    1  1600 provisional      0\n" in seeks
    assert seeks.index("bob") < seeks.index("carol")
    players.send("emergo challenge alice bob", sender=ALICE)
    assert player(players, "bob").seeking == 1
    standings = players.one("emergo standings bob").body
    assert "  bob                1600  350     0     0     0      1       1\n" in standings
    # The challenger's own count does not change.
    players.send("emergo challenge carol alice", sender=CAROL)
    assert player(players, "carol").seeking == 1
    players.one("emergo seek bob bobpw off", sender=BOB)
    players.send("emergo challenge alice carol", sender=ALICE)
    left = players.one("emergo seeks").body
    assert "bob" not in left and "carol" not in left
    assert left.startswith("Nobody is seeking games just now.")


def test_seek_errors(players: Mailer) -> None:
    assert "from 0 to 99, or off" in players.one("emergo seek bob bobpw many", sender=BOB).body
    assert "from 0 to 99, or off" in players.one("emergo seek bob bobpw 100", sender=BOB).body
    wrong = players.one("emergo seek bob bobpw2", sender=BOB)
    assert wrong.subject == "Emergo error" and "bobpw2" not in flat(wrong.body)
    assert "emergo seeks" in players.one("emergo seeks now").body  # usage


def test_reject_refuses_every_challenge_and_accept_ends_it(players: Mailer) -> None:
    reply = players.one("emergo reject bob bobpw", sender=BOB)
    assert flat(reply.body).startswith("bob refuses every challenge.")
    refused = players.send("emergo challenge alice bob", sender=ALICE)
    assert [(r.to, r.subject) for r in refused] == [(ALICE, "Emergo error")]
    assert flat(refused[0].body).startswith("bob does not accept challenges at the moment")
    with players.factory() as session:
        assert session.scalars(select(Board)).all() == []
    # bob may still challenge others himself.
    own = players.send("emergo challenge bob alice", sender=BOB)
    assert sorted(r.to for r in own) == [ALICE, BOB]
    players.one("emergo accept bob bobpw", sender=BOB)
    accepted = players.send("emergo challenge alice bob", sender=ALICE)
    assert sorted(r.to for r in accepted) == [ALICE, BOB]


def test_limit_refuses_challenges_beyond_n_active_boards(players: Mailer) -> None:
    reply = players.one("emergo limit bob bobpw 1", sender=BOB)
    assert flat(reply.body).startswith(
        "bob accepts challenges while they have fewer than 1 active board (now 0)."
    )
    first = players.send("emergo challenge alice bob", sender=ALICE)
    assert len(first) == 2
    second = players.send("emergo challenge alice bob", sender=ALICE)
    assert [r.to for r in second] == [ALICE]
    assert "plays as many games as they want at the moment (1 active board)" in flat(second[0].body)
    play_all(players, ["e4", "e6"])
    players.send("emergo resign 101 bob bobpw", sender=BOB)
    third = players.send("emergo challenge alice bob", sender=ALICE)
    assert len(third) == 2
    players.one("emergo limit bob bobpw off", sender=BOB)
    assert len(players.send("emergo challenge alice bob", sender=ALICE)) == 2


def test_accept_reject_limit_errors(players: Mailer) -> None:
    hint = players.one("emergo accept 101 bob bobpw", sender=BOB)
    assert "'emergo move 101 USERID PASSWORD accept'" in flat(hint.body)
    bad = players.one("emergo limit bob bobpw lots", sender=BOB)
    assert "from 0 to 999, or off" in flat(bad.body)
    wrong = players.one("emergo reject bob notbobs", sender=BOB)
    assert wrong.subject == "Emergo error" and "notbobs" not in flat(wrong.body)
    unknown = players.one("emergo reject nobody9 bobpw", sender=BOB)
    assert flat(unknown.body).startswith("There is no player by that name.")
    assert player(players, "bob").refuses_challenges is False


# --- commands in the body ------------------------------------------------------------------


REPLY_BODY = (
    "emergo move 101 bob bobpw e6\n"
    "\n"
    "Take that!\n"
    "\n"
    "On Sat, 21 Nov 2026, server wrote:\n"
    "> Emergo Board 101: alice against bob\n"
    "> emergo move 101 bob PASSWORD e6\n"
)
QUOTE_AT = quote_start(REPLY_BODY)  # as the listener finds it (mail.quotes)


def test_a_reply_with_a_command_in_the_body_runs_it(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    players.send("emergo move 101 alice alicepw e4", sender=ALICE)
    replies = players.send("Re: Emergo Board 101 bob", REPLY_BODY, sender=BOB)
    assert sorted((r.to, r.subject) for r in replies) == [
        (ALICE, "Emergo Board 101 alice **"),
        (BOB, "Emergo Board 101 alice **"),
    ]
    assert notations(players) == ["e4", "e6"]
    assert "bob writes:\n  Take that!\n" in replies[0].body
    assert "bobpw" not in flat(replies[0].body) and "quoted" not in flat(replies[0].body)


def test_a_body_command_that_fails_is_answered_with_the_line_masked(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    [reply] = players.send(
        "Re: Emergo Board 101 alice", "emergo move 101 alice s3cretpw e4\n", sender=ALICE
    )
    assert reply.subject == "Emergo Board 101 Error"
    assert "emergo move 101 alice ******** e4" in flat(reply.body)
    assert "s3cretpw" not in flat(reply.body)


def test_a_reply_to_a_chat_is_read_from_its_body(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    replies = players.send(
        "Re: Emergo chat 101 alice", "emergo chat 101 bob bobpw\nThanks, you too.\n", sender=BOB
    )
    assert {r.subject for r in replies} == {"Emergo chat 101 bob"}
    assert "  Thanks, you too.\n" in replies[0].body


def test_several_body_commands_are_run_as_multiple(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    replies = players.send(
        "Re: Emergo Board 101 alice",
        "emergo move 101 alice alicepw e4\nemergo seek alice alicepw 2\n-- \nAlice\n",
        sender=ALICE,
    )
    report = replies[0]
    assert report.subject == "Emergo multiple: 2 done, 0 failed"
    assert "  > emergo move 101 alice ******** e4\n" in report.body
    assert "alicepw" not in flat(report.body)
    assert notations(players) == ["e4"]
    assert player(players, "alice").seeking == 2


def test_a_reply_without_a_command_gets_the_usual_error(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    reply = players.one("Re: Emergo Board 101 alice", "Good game so far!\n", sender=ALICE)
    assert reply.subject == "Emergo error"
    assert flat(reply.body).startswith("There is no command 'emergo board'.")


def test_body_commands_are_masked_when_described_and_redacted(players: Mailer) -> None:
    players.send("emergo challenge alice bob", sender=ALICE)
    with players.factory() as session:
        one = describe("Re: Emergo Board 101 bob", REPLY_BODY, session, quote_at=QUOTE_AT)
        several = describe(
            "Re: hello", "emergo move 101 bob bobpw e6\nsignoff bob bobpw\n", session
        )
    assert (one.command, one.boards) == ("emergo move 101 bob ******** e6", (101,))
    assert several.command == "emergo move 101 bob ******** e6 | signoff bob ********"
    assert several.boards == (101,)
    subject, kept, scrub = redact(
        describe("Re: Emergo Board 101 bob", REPLY_BODY, quote_at=QUOTE_AT)
    )
    assert "bobpw" not in kept and "bobpw" not in scrub("bobpw")
    # Without the database no userid is known; words too short to be a password show.
    assert kept.startswith("emergo move 101 bob ******** e6\n")
    assert "Take that!" in kept and "server wrote" not in kept


# --- help ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("topic", "first_line"),
    [
        ("standings", "emergo standings [userid ...]"),
        ("ratings", "emergo ratings [userid ...]"),
        ("history", "emergo history [userid ...]"),
        ("chat", "emergo chat board userid password"),
        ("message", "message userid password to [to ...]"),
        ("subscribe", "emergo subscribe board|all userid password"),
        ("unsub", "emergo unsub board|all userid password"),
        ("notify", "emergo notify userid password [board ...]"),
        ("seek", "emergo seek userid password [N|off]"),
        ("seeks", "emergo seeks"),
        ("accept", "emergo accept userid password"),
        ("reject", "emergo reject userid password"),
        ("limit", "emergo limit userid password N|off"),
    ],
)
def test_help_describes_each_command(mailer: Mailer, topic: str, first_line: str) -> None:
    reply = mailer.one(f"help {topic}")
    assert reply.body.startswith(first_line + "\n\n")
    assert len(reply.body.splitlines()[2]) > 40  # the details, not only the usage


def test_the_subject_of_a_mail_run_from_its_body_is_masked_in_the_kept_copy() -> None:
    subject, kept, scrub = redact(describe(
        "Re: my password is hunter22", "emergo move 101 bob bobpw e6\nhunter22 again\n"
    ))
    assert "hunter22" not in subject and "hunter22" not in kept
    assert "bobpw" not in kept and "bobpw" not in scrub("bobpw")
    assert subject == "Re: my password is ********"  # "password" is a reserved word


def test_history_lists_at_most_100_games(players: Mailer) -> None:
    from pbm_emergo.db import games
    from pbm_emergo.rules import Termination

    with players.factory.begin() as session:
        alice = session.scalars(select(Player).where(Player.userid_key == "alice")).one()
        bob = session.scalars(select(Player).where(Player.userid_key == "bob")).one()
        for n in range(101):
            board = games.create_board(session, alice, bob, players.now, rated=False)
            games.finish_board(
                session, board.number, "white", Termination.RESIGNED,
                players.now + timedelta(minutes=n),
            )
    body = players.one("emergo history").body
    rows = [line for line in body.splitlines() if line[:4].isdigit()]
    assert len(rows) == 100
    assert rows[0].split()[1] == "201" and rows[-1].split()[1] == "102"  # newest first
    assert body.rstrip().endswith("Only the newest 100 are listed.")


def test_a_multiple_report_names_what_each_subscription_did(players: Mailer) -> None:
    carol(players)
    players.send("emergo challenge alice bob", sender=ALICE)
    report = players.one(
        "multiple",
        "emergo subscribe 101 carol carolpw\nemergo subscribe all carol carolpw\n"
        "emergo unsubscribe all carol carolpw\n",
        sender=CAROL,
    )
    assert report.subject == "Emergo multiple: 3 done, 0 failed"
    body = flat(report.body)
    assert "subscribed carol to board 101" in body
    assert "subscribed carol to every board" in body and "board None" not in body
    assert "carol is no longer subscribed to every board." in body
