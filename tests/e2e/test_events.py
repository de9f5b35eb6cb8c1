"""Leagues and tournaments by mail, through the real listener, workers and scheduler (on the
test's clock), SQLite and PostgreSQL: events created by ``pbm-emergo admin event create``,
joined by mail, started when full, played to the end by mail (each game ended by a
resignation, a legal ending), the next rounds opened by the scheduler, the final table
mailed to every player; a withdrawal and a loss on time mid-event; Swiss, knock-out,
league and robots-fill events."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import timedelta

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from pbm_emergo.cli import main
from pbm_emergo.config import Config
from pbm_emergo.db.models import Board, Event, EventEntry, EventPairing, Player
from pbm_emergo.web.app import create_app
from tests.support.clock import Clock
from tests.support.post import ALICE, BOB, Post, text

CAROL, DAVE, ERIN, FRANK = (f"{n}@example.org" for n in ("carol", "dave", "erin", "frank"))
ADDRESS = {"alice": ALICE, "bob": BOB, "carol": CAROL, "dave": DAVE, "erin": ERIN,
           "frank": FRANK}  # fmt: skip
PW = {userid: f"{userid}-pw1" for userid in ADDRESS}


def admin(config: Config, *args: str) -> None:
    """``pbm-emergo admin ARGS`` on the test's database; it must succeed."""
    assert main(["admin", *args, "--database-url", config.effective_database_url]) == 0


def sign_up(post: Post, *userids: str) -> None:
    for userid in userids:
        post.signup(userid, PW[userid], ADDRESS[userid])


def join(post: Post, event: str, *userids: str) -> None:
    for userid in userids:
        [answer] = post.send(f"emergo join {event} {userid} {PW[userid]}", ADDRESS[userid])
        assert f"{userid} is in the event {event}" in text(answer), text(answer)
        assert PW[userid] not in text(answer)


def event_boards(post: Post, name: str) -> list[tuple[int, str, str]]:
    """The active boards of the event: (number, white's userid, black's userid)."""
    with post.sessions() as session:
        rows = session.execute(
            select(Board.number, Board.white_player_id, Board.black_player_id)
            .join(Event, Event.id == Board.event_id)
            .where(Event.name == name, Board.status == "active")
            .order_by(Board.number)
        ).all()
        names = {pid: userid for pid, userid in session.execute(select(Player.id, Player.userid))}
    return [(number, names[w], names[b]) for number, w, b in rows]


def pairs_played(post: Post, name: str) -> list[tuple[int, frozenset[int | None]]]:
    with post.sessions() as session:
        rows = session.execute(
            select(EventPairing.round_number, EventPairing.white_id, EventPairing.black_id)
            .join(Event, Event.id == EventPairing.event_id)
            .where(Event.name == name)
        ).all()
    return [(r, frozenset((w, b))) for r, w, b in rows]


def resign(post: Post, board: int, userid: str) -> None:
    post.send(f"emergo resign {board} {userid} {PW[userid]}", ADDRESS[userid])


def play_round(post: Post, name: str, loser: Callable[[str, str], str]) -> int:
    """Every board of the event's round under way ends with the loser's resignation; the
    scheduler then opens the next round. How many boards were played."""
    boards = event_boards(post, name)
    for number, white, black in boards:
        resign(post, number, loser(white, black))
    post.wait_for_scheduler()
    return len(boards)


def standings_lines(mail_text: str) -> list[list[str]]:
    """The table's lines of an event mail: place, userid, points, tie-break, games ..."""
    return [
        line.split() for line in mail_text.splitlines()
        if re.match(r"^\s+\d+  \w", line)
    ]  # fmt: skip


def beaten_by(results: dict[frozenset[str], str]) -> Callable[[str, str], str]:
    """The loser of a game by the plan ``results`` (the pair -> the winner)."""

    def loser(white: str, black: str) -> str:
        winner = results[frozenset((white, black))]
        return black if winner == white else white

    return loser


def test_a_four_player_round_robin_by_mail(
    make_post: Callable[..., Post], db_config: Config
) -> None:
    post = make_post()
    sign_up(post, "carol", "dave")
    admin(db_config, "event", "create", "autumn", "--format", "round-robin",
          "--max-players", "4", "--nagtime", "3", "--forfeittime", "9")  # fmt: skip
    [listing] = post.send("emergo events", ALICE)
    assert re.search(r"autumn\s+round-robin\s+open\s+0/4", text(listing)), text(listing)
    join(post, "autumn", "alice", "bob", "carol")
    # A second entry, and a stranger's wrong password, change nothing.
    [again] = post.send(f"emergo join autumn alice {PW['alice']}", ALICE)
    assert "alice is in the event autumn already" in text(again)
    join(post, "autumn", "dave")
    # Full: the scheduler opens round 1, every player gets their board.
    post.wait_for_scheduler()
    boards = event_boards(post, "autumn")
    assert len(boards) == 2
    for number, white, black in boards:
        for userid in (white, black):
            mails = post.delivered_to(ADDRESS[userid], f"Board {number}")
            assert "The event autumn, round 1" in text(mails[0])
    # alice beats bob and dave, loses to carol; bob beats carol and dave; dave beats carol:
    # alice and bob 2 points each, alice ahead on Sonneborn-Berger (3 to 2).
    plan = {
        frozenset(("alice", "bob")): "alice", frozenset(("alice", "carol")): "carol",
        frozenset(("alice", "dave")): "alice", frozenset(("bob", "carol")): "bob",
        frozenset(("bob", "dave")): "bob", frozenset(("carol", "dave")): "dave",
    }  # fmt: skip
    played = sum(play_round(post, "autumn", beaten_by(plan)) for _ in range(3))
    assert played == 6
    assert event_boards(post, "autumn") == []
    # Every two players met exactly once.
    pairs = [p for _, p in pairs_played(post, "autumn")]
    assert len(pairs) == len(set(pairs)) == 6
    # The winner and the final table went to every player.
    for address in (ALICE, BOB, CAROL, DAVE):
        [final] = post.delivered_to(address, "Emergo event autumn: alice wins")
        assert "The event autumn has ended: alice wins." in text(final)
    [table] = post.send("emergo event autumn", CAROL)
    lines = standings_lines(text(table))
    assert [line[:4] for line in lines[:4]] == [
        ["1", "alice", "2", "3"], ["2", "bob", "2", "2"],
        ["3", "carol", "1", "2"], ["4", "dave", "1", "1"],
    ]  # fmt: skip
    assert "The winner: alice." in text(table)
    assert text(table).startswith("The event autumn: round-robin, finished, round 3 of 3.")
    assert "Sonneborn-Berger" in text(table)
    with post.sessions() as session:
        status = session.scalar(select(Event.status).where(Event.name == "autumn"))
    assert status == "finished"
    # The web page agrees: the same winner, order and tie-break; the crosstable's results
    # link to the boards.
    with TestClient(create_app(post.sessions), raise_server_exceptions=False) as client:
        page = client.get("/events/autumn")
    assert page.status_code == 200
    assert re.search(r"The winner: <strong><a href=\"/players/alice\">alice</a>", page.text)
    rows = re.findall(
        r'<tr><td class="n">(\d)</td><td><a href="/players/(\w+)">\w+</a></td>'
        r'<td class="n">([^<]+)</td><td class="n">([^<]+)</td>',
        page.text,
    )
    assert [list(r) for r in rows] == [line[:4] for line in lines[:4]]
    crosstable = page.text[page.text.index('id="crosstable"') :]
    links = re.findall(r'<a href="/boards/(\d+)" title="board \d+">([10½])</a>', crosstable)
    assert len(links) == 12  # each of the six games, from both sides
    assert "Sonneborn-Berger" in page.text


def test_a_withdrawal_and_a_loss_on_time_mid_event(
    make_post: Callable[..., Post], db_config: Config, clock: Clock
) -> None:
    post = make_post()
    sign_up(post, "carol", "dave")
    admin(db_config, "event", "create", "winter", "--format", "round-robin",
          "--max-players", "4", "--nagtime", "1", "--forfeittime", "3")  # fmt: skip
    join(post, "winter", "alice", "bob", "carol", "dave")
    post.wait_for_scheduler()
    boards = event_boards(post, "winter")
    # dave withdraws: his board under way is resigned, his games to come are lost.
    [answer, *others] = [
        m
        for m in post.send(f"emergo withdraw winter dave {PW['dave']}", DAVE)
        if str(m["To"]) == DAVE and "withdrew" in str(m["Subject"])
    ]
    assert "Your boards under way are resigned" in text(answer)
    # The other board of round 1: its player to move (white) never moves and loses on time.
    [(number, white, black)] = [b for b in boards if "dave" not in b[1:]]
    clock.now += timedelta(days=3, minutes=1)
    post.wait_for_scheduler()
    clock.now += timedelta(days=1, minutes=1)
    post.wait_for_scheduler()
    post.wait_for_scheduler()
    assert post.board(number).outcome_reason == "forfeit"
    # Round 2 opened without dave: his game is lost without a board.
    round_two = event_boards(post, "winter")
    assert len(round_two) == 1 and "dave" not in round_two[0][1:]
    [table] = post.send("emergo event winter", ALICE)
    assert "Withdrawn: dave." in text(table)
    lines = {line[1]: line for line in standings_lines(text(table))}
    assert lines["dave"][2] == "0"
    with post.sessions() as session:
        on_time = session.scalar(
            select(EventPairing.result).where(EventPairing.board_number == number)
        )
    assert on_time == "black"  # the win on time
    assert white != black
    with post.sessions() as session:
        withdrawn = session.scalar(
            select(EventEntry.withdrawn_at)
            .join(Player, Player.id == EventEntry.player_id)
            .where(Player.userid == "dave")
        )
    assert withdrawn is not None


def _everyone_meets_once(rounds: Iterable[frozenset[int | None]]) -> bool:
    seen = list(rounds)
    return len(seen) == len(set(seen))


@pytest.mark.parametrize("players", [6])
def test_a_six_player_swiss_never_repeats_a_pairing(
    make_post: Callable[..., Post], db_config: Config, players: int
) -> None:
    post = make_post()
    sign_up(post, "carol", "dave", "erin", "frank")
    admin(db_config, "event", "create", "swiss6", "--format", "swiss", "--rounds", "3",
          "--max-players", str(players))  # fmt: skip
    join(post, "swiss6", *list(ADDRESS)[:players])
    post.wait_for_scheduler()
    order = list(ADDRESS)
    # The better seed wins every game.
    for _ in range(3):
        assert len(event_boards(post, "swiss6")) == 3
        play_round(post, "swiss6", lambda w, b: max(w, b, key=order.index))
    pairs = pairs_played(post, "swiss6")
    assert {r for r, _ in pairs} == {1, 2, 3}
    assert _everyone_meets_once(p for _, p in pairs)
    [final] = post.delivered_to(ALICE, "Emergo event swiss6: alice wins")
    assert "Buchholz" in text(final)


def test_a_knockout_of_four(make_post: Callable[..., Post], db_config: Config) -> None:
    post = make_post()
    sign_up(post, "carol", "dave")
    admin(db_config, "event", "create", "cup", "--format", "knockout", "--max-players", "4")
    join(post, "cup", "alice", "bob", "carol", "dave")
    post.wait_for_scheduler()
    # Semi-finals: alice-dave and bob-carol, two games each, colours turned round.
    assert len(event_boards(post, "cup")) == 4
    order = list(ADDRESS)
    # Each player wins with Ohs: both matches are level, and deciders follow.
    play_round(post, "cup", lambda w, b: b)
    deciders = event_boards(post, "cup")
    assert len(deciders) == 2
    # The lower seeds have Ohs in a decider; the higher seed wins it.
    assert all(order.index(w) > order.index(b) for _, w, b in deciders)
    play_round(post, "cup", lambda w, b: w)
    # The final: alice against bob.
    final = event_boards(post, "cup")
    assert sorted({final[0][1], final[0][2]}) == ["alice", "bob"]
    play_round(post, "cup", lambda w, b: "bob")
    [mail] = post.delivered_to(CAROL, "Emergo event cup: alice wins")
    assert "alice wins" in text(mail)


def test_a_league_season_promotes_and_relegates_into_the_next(
    make_post: Callable[..., Post], db_config: Config, clock: Clock
) -> None:
    post = make_post()
    sign_up(post, "carol", "dave", "erin", "frank")
    # Divisions of three: alice, bob, carol on top (by seed, all rated alike), then the rest.
    admin(db_config, "event", "create", "league", "--format", "league", "--max-players", "3",
          "--starts", "+1h")  # fmt: skip
    join(post, "league", *ADDRESS)
    clock.now += timedelta(hours=2)
    post.wait_for_scheduler()
    order = list(ADDRESS)
    # The lower seed wins every game: carol tops division 1, frank division 2.
    while event_boards(post, "league"):
        play_round(post, "league", lambda w, b: min(w, b, key=order.index))
    [mail] = post.delivered_to(ALICE, "Emergo league league: season 2")
    with post.sessions() as session:
        rows = session.execute(
            select(Player.userid, EventEntry.division)
            .join(EventEntry, EventEntry.player_id == Player.id)
            .join(Event, Event.id == EventEntry.event_id)
            .where(Event.name == "league-2")
        ).all()
    divisions = dict(rows)
    # Division 2's top two (frank, erin) go up; nobody in a division of three is sixth.
    assert divisions["frank"] == 1 and divisions["erin"] == 1
    assert divisions["dave"] == 2
    assert "season 2" in text(mail).lower() or "Season 2" in text(mail)
    # The next season opened by itself.
    post.wait_for_scheduler()
    assert event_boards(post, "league-2")


def test_robots_fill_the_empty_places(
    make_post: Callable[..., Post], db_config: Config, clock: Clock
) -> None:
    post = make_post()
    sign_up(post, "carol")
    admin(db_config, "event", "create", "bots", "--format", "round-robin", "--max-players", "4",
          "--robots", "fill", "--starts", "+1h")  # fmt: skip
    join(post, "bots", "alice", "bob", "carol")
    # Only three joined; at the start time a robot takes the fourth place.
    post.wait_for_scheduler()
    assert event_boards(post, "bots") == []
    clock.now += timedelta(hours=2)
    post.wait_for_scheduler()
    with post.sessions() as session:
        entered = session.scalars(
            select(Player.userid)
            .join(EventEntry, EventEntry.player_id == Player.id)
            .join(Event, Event.id == EventEntry.event_id)
            .where(Event.name == "bots")
        ).all()
    assert len(entered) == 4
    robots = [u for u in entered if u.startswith("robot")]
    # The players' mean rating is a new player's: robot2's ladder strength is nearest.
    assert robots == ["robot2"]
    assert len(event_boards(post, "bots")) == 2


def test_a_private_event_by_mail(make_post: Callable[..., Post]) -> None:
    post = make_post()
    sign_up(post, "carol")
    create = "emergo event create friends bob {pw} round-robin fr1ends {options}"
    [answer] = post.send(
        create.format(pw=PW["bob"], options="--max-players=3 --nagtime=2 --forfeittime=5"), BOB
    )
    assert "The private event friends (round-robin) is open." in text(answer), text(answer)
    assert "fr1ends" not in text(answer) and PW["bob"] not in text(answer)
    # Its password is needed, and never shown back.
    [refused] = post.send(f"emergo join friends alice {PW['alice']}", ALICE)
    assert "The event friends is private" in text(refused)
    [wrong] = post.send(f"emergo join friends alice {PW['alice']} friends1", ALICE)
    assert "The event friends is private" in text(wrong) and "friends1" not in text(wrong)
    for userid in ("alice", "bob", "carol"):
        [ok] = post.send(f"emergo join friends {userid} {PW[userid]} fr1ends", ADDRESS[userid])
        assert f"{userid} is in the event friends" in text(ok)
        assert "fr1ends" not in text(ok)
    # Full: it starts; three players, so one sits out each round.
    post.wait_for_scheduler()
    assert len(event_boards(post, "friends")) == 1
    # A player's private events are bounded: two at a time.
    [second] = post.send(create.replace("friends", "more").format(pw=PW["bob"], options=""), BOB)
    assert "is open" in text(second)
    [third] = post.send(create.replace("friends", "most").format(pw=PW["bob"], options=""), BOB)
    assert "bob has 2 private events open or under way already" in text(third)
    # Bad options are refused with the reason; nothing is created.
    [bad] = post.send(
        create.replace("friends", "odd")
        .format(pw=PW["alice"], options="--max-players=40")
        .replace("bob", "alice", 1),
        ALICE,
    )
    assert "at most 16 players" in text(bad)
