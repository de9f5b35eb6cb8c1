"""The value reads of the requests that list boards and name players (``emergo games``,
``emergo show``, ``all show``, ``emergo standings``, ``emergo history``, ``emergo showas``)
and of a challenge, and the players with a daily digest: ``reads.listed_boards``,
``read_account``, ``read_player`` and ``digest_players``, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import games, players, reads
from pbm_emergo.db.models import BOARD_FINISHED, CLOSED_PASSWORD_HASH, Board, Player
from pbm_emergo.db.reads.accounts import read_account
from pbm_emergo.db.reads.digests import digest_players
from pbm_emergo.db.reads.snapshot import read_player

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def _numbers(lines: list[reads.BoardLine]) -> list[int]:
    return [line.number for line in lines]


def test_a_players_boards_by_kind(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice = players.create_player(session, "alice", "secret-a", ["alice@example.org"], NOW)
        bob = players.create_player(session, "bob", "secret-b", ["bob@example.org"], NOW)
        carol = players.create_player(session, "carol", "secret-c", ["carol@example.org"], NOW)
        ids = alice.id, bob.id, carol.id
        games.create_board(session, alice, bob, NOW, number=101)  # alice to move
        games.create_board(session, carol, alice, NOW, number=102)  # carol to move
        games.create_board(session, bob, alice, NOW, number=103)
        games.create_board(session, bob, carol, NOW, number=104)
        session.execute(
            update(Board)
            .where(Board.number == 103)
            .values(status=BOARD_FINISHED, to_move=None, winner="white",
                    outcome_reason="resigned")
        )
        # bob closed his account: a board list names him by the userid as stored.
        session.execute(
            update(Player).where(Player.id == bob.id).values(password_hash=CLOSED_PASSWORD_HASH)
        )
    alice_id, bob_id, carol_id = ids
    with db_sessions() as session:
        listed = reads.listed_boards
        assert _numbers(listed(session, "all", player_id=alice_id)) == [101, 102, 103]
        assert _numbers(listed(session, "active", player_id=alice_id)) == [101, 102]
        assert _numbers(listed(session, "next", player_id=alice_id)) == [101]
        assert _numbers(listed(session, "next", player_id=carol_id)) == [102]
        assert _numbers(listed(session, "inactive", player_id=bob_id)) == [103]
        assert _numbers(listed(session, "next", player_id=bob_id)) == [104]
        # Everyone's boards: at most ``limit`` of them.
        assert _numbers(listed(session, "active")) == [101, 102, 104]
        assert _numbers(listed(session, "all", limit=2)) == [101, 102]
        first = listed(session, "all", player_id=alice_id)
        assert (first[0].white, first[0].black, first[0].to_move) == ("alice", "bob", "alice")
        finished = first[2]
        assert (finished.winner, finished.reason, finished.to_move) == ("bob", "resigned", None)
        # The public lists name a closed account as such.
        line = reads.board_line(session, 101)
        assert line is not None and line.black == "bob (closed)"


def test_an_account_read_as_a_value(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice = players.create_player(
            session, "Alice", "secret-a", ["alice@example.org", "Alice@Work.example"], NOW
        )
        players.create_player(session, "dora", "secret-d", [], NOW)
        alice_id = alice.id
    with db_sessions.begin() as session:
        account = read_account(session, "ALICE")
        assert account is not None
        assert (account.id, account.userid, account.active) == (alice_id, "Alice", True)
        assert account.addresses == ("alice@example.org", "Alice@Work.example")
        assert account.address_keys == {"alice@example.org", "alice@work.example"}
        assert account.primary_address == "alice@example.org"
        # No address yet (a first address waiting for its code), and no such player.
        dora = read_account(session, "dora")
        assert dora is not None and dora.addresses == () and dora.primary_address is None
        assert read_account(session, "nobody") is None
        players.sign_off(session, alice_id, NOW)
    with db_sessions() as session:
        account = read_account(session, "alice")
        assert account is not None and not account.active


def test_a_player_read_for_a_new_board(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        erin = players.create_player(
            session, "erin", "secret-e", ["erin@example.org", "erin@home.example"], NOW
        )
        session.execute(
            update(Player)
            .where(Player.id == erin.id)
            .values(board_limit=3, seeking=2, board_style="list", language="de")
        )
        erin_id = erin.id
    with db_sessions() as session:
        found = read_player(session, "ERIN")
        assert found is not None and read_player(session, "nobody") is None
        assert found.account == read_account(session, "erin")
        assert (found.refuses_challenges, found.board_limit, found.seeking) == (False, 3, 2)
        seat = found.seat
        assert (seat.id, seat.userid, seat.address) == (erin_id, "erin", "erin@example.org")
        assert (seat.board_style, seat.language) == ("list", "de")


def test_the_players_with_a_digest(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        made = [
            players.create_player(session, userid, f"secret-{userid}", addresses, NOW)
            for userid, addresses in (
                ("fay", ["fay@example.org", "fay@home.example"]),
                ("gus", []),
                ("hal", ["hal@example.org"]),
                ("ida", ["ida@example.org"]),
            )
        ]
        fay, gus, hal, ida = (p.id for p in made)
        session.execute(
            update(Player)
            .where(Player.id.in_([fay, gus, ida]))
            .values(digest_hour=7, timezone="Europe/Amsterdam")
        )
        players.sign_off(session, ida, NOW)
    with db_sessions() as session:
        found = digest_players(session)
        # hal asked for none; ida signed off. Each digest goes to the first address.
        assert [(p.id, p.userid, p.address) for p in found] == [
            (fay, "fay", "fay@example.org"), (gus, "gus", None),
        ]
        assert (found[0].digest_hour, found[0].timezone, found[0].last_digest_at) == (
            7, "Europe/Amsterdam", None,
        )
