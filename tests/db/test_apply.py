"""``db.apply`` on both databases: a decision's changes stored, each re-checking what the
decision read (a stale change raises what the data layer's write raises)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import get_args

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import errors, games, players, vacations
from pbm_emergo.db.apply import apply
from pbm_emergo.db.models import OTHER_SENDERS, Board, MoveRecord, Player, Vote
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.game.account_changes import (
    AccountClosed,
    AddressConfirmed,
    AddressesChanged,
    AttackNoticeMarked,
    Confirmations,
    LoginFailureRecorded,
    LoginFailuresCleared,
    MailBudgetCharged,
    OldLoginFailuresForgotten,
    PasswordHashStored,
    PlayerCreated,
    PlayerDeleted,
    PlayersMerged,
    SignedOff,
    VacationEnded,
    VacationStarted,
    WaitingAddress,
)
from pbm_emergo.game.board import BoardSnapshot, QueueItem
from pbm_emergo.game.board_changes import (
    AnalysisRequested,
    AutoplaySet,
    BoardCreated,
    ChallengePolicySet,
    NotificationsToggled,
    QueueCleared,
    QueueReplaced,
    ReminderSent,
    RobotGamesUnderLimit,
    SeekingSet,
    SeekTaken,
    SubscriptionAdded,
    SubscriptionsRemoved,
)
from pbm_emergo.game.challenges import ChallengeTerms
from pbm_emergo.game.changes import (
    CHANGE_TYPES,
    BoardDeclined,
    Change,
    GameFinished,
    MovesTakenBack,
    MoveStored,
    QueueTaken,
    VoteOpened,
    VoteRemoved,
)
from pbm_emergo.game.decision import Decision
from pbm_emergo.game.play import Play, decide_move
from pbm_emergo.game.ratings import GameRating, Standing
from pbm_emergo.ratings import game_rating
from pbm_emergo.rules import Game, Position, Termination

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def _board(session: Session) -> tuple[Player, Player]:
    alice = players.create_player(session, "alice", "secret-a", ["alice@example.org"], NOW)
    bob = players.create_player(session, "bob", "secret-b", ["bob@example.org"], NOW)
    games.create_board(session, alice, bob, NOW)
    return alice, bob


def _snapshot(session: Session) -> BoardSnapshot:
    found = read_board(session, 101)
    assert found is not None
    return found.snapshot


def _decide(session: Session, player: Player, text: str) -> Decision:
    request = Play.parse(101, player.id, player.userid, text)
    return decide_move(_snapshot(session), request, NOW)


def _first_moves(n: int) -> list[str]:
    game = Game()
    while len(game.moves) < n:
        game.play(game.position.legal_moves()[0])
    return [str(m) for m in game.moves]


def test_a_decided_move_is_stored_as_decided(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
    moves = _first_moves(4)
    for ply, move in enumerate(moves):
        with db_sessions.begin() as session:
            apply(session, _decide(session, (alice, bob)[ply % 2], move).changes)
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.ply == 4
        game = Game.from_moves(moves)
        assert games.current_position(board) == game.position
        assert games.resume_game(session, board).repetition_history() == (
            game.repetition_history()
        )
        assert games.move_notations(session, board) == moves


def test_a_stale_move_is_refused_as_before(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
        first = _decide(session, alice, _first_moves(1)[0])
    with db_sessions.begin() as session:
        apply(session, first.changes)
    stored = first.changes[0]
    assert isinstance(stored, MoveStored)
    # The same move again: the board is at move 2 now.
    with pytest.raises(errors.StaleMoveError), db_sessions.begin() as session:
        apply(session, first.changes)
    # boards.queued as read no longer holds.
    with db_sessions.begin() as session:
        second = _decide(session, bob, _first_moves(2)[1])
        session.execute(select(Board).where(Board.number == 101)).scalar_one().queued = True
        session.flush()
        with pytest.raises(errors.StaleMoveError):
            apply(session, second.changes)
        session.rollback()
    # A vote stored since the move read none.
    with db_sessions.begin() as session:
        second = _decide(session, bob, _first_moves(2)[1])
        session.add(Vote(board_number=101, kind="draw", player_id=alice.id, ply=1))
        session.flush()
        with pytest.raises(errors.StaleMoveError):
            apply(session, second.changes)
        session.rollback()
    # The game ended meanwhile.
    with db_sessions.begin() as session:
        second = _decide(session, bob, _first_moves(2)[1])
        games.finish_board(session, 101, "white", Termination.RESIGNED, NOW)
        with pytest.raises(errors.BoardFinishedError):
            apply(session, second.changes)
        session.rollback()
    with db_sessions() as session:
        assert len(session.scalars(select(MoveRecord)).all()) == 1


def test_votes_and_take_backs_re_check(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
        apply(session, _decide(session, alice, _first_moves(1)[0]).changes)
    with db_sessions.begin() as session:
        asked = _decide(session, alice, "undo")
    opened = asked.changes[0]
    assert isinstance(opened, VoteOpened)
    with db_sessions.begin() as session:
        apply(session, asked.changes)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, asked.changes)  # one vote of a kind
    with db_sessions.begin() as session:
        taken = _decide(session, bob, "accept")
    back = taken.changes[0]
    assert isinstance(back, MovesTakenBack)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [dataclasses.replace(back, expected_ply=5)])
    with db_sessions.begin() as session:
        apply(session, taken.changes)
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.ply == 0
        assert games.current_position(board) == Position()
        assert session.scalars(select(Vote)).all() == []
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [VoteRemoved(101, "undo", alice.id)])  # answered already


def test_queues_finishes_and_declines_re_check(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [QueueTaken(101, (12345,))])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [BoardDeclined(101, 3)])
    announced = GameRating(1600, 1600, 99, -99)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [GameFinished(101, "white", Termination.RESIGNED, NOW, announced)])
    with db_sessions.begin() as session:
        resigned = _decide(session, bob, "resign")  # before bob's first move: declines
        assert resigned.changes == (BoardDeclined(101, 0),)
        ended = GameFinished(
            101, "white", Termination.RESIGNED, NOW,
            game_rating(Standing(1600, 0), Standing(1600, 0), "white"),
        )  # fmt: skip
        apply(session, [ended])
        with pytest.raises(errors.BoardFinishedError):
            apply(session, [ended])
        session.rollback()
    with db_sessions.begin() as session:
        apply(session, resigned.changes)
    with db_sessions() as session:
        assert games.get_board(session, 101) is None


def test_an_end_or_a_reminder_off_the_mail_path_re_checks_the_move_count(
    db_sessions: sessionmaker[Session],
) -> None:
    """A game ended, or a reminder noted, as of a move count the board has left meanwhile
    (a move came while the scheduler, a robot or the operator decided): StaleMoveError or
    Conflict, nothing stored; as of the move count it is at, stored. A reminder noted by
    another run since it was read conflicts too."""
    with db_sessions.begin() as session:
        alice, bob = _board(session)
        apply(session, _decide(session, alice, _first_moves(1)[0]).changes)
    with db_sessions.begin() as session:
        resigned = _decide(session, alice, "resign")
    ended = resigned.changes[0]
    assert isinstance(ended, GameFinished) and ended.expected_ply == 1
    with pytest.raises(errors.StaleMoveError), db_sessions.begin() as session:
        apply(session, [dataclasses.replace(ended, expected_ply=0)])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [ReminderSent(101, NOW, expected_ply=0)])
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.status == "active" and board.last_reminder_at is None
    with db_sessions.begin() as session:
        apply(session, [ReminderSent(101, NOW, expected_ply=1)])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [ReminderSent(101, NOW, expected_ply=1)])  # another run reminded
    later = NOW + timedelta(days=3)
    with db_sessions.begin() as session:
        apply(session, [ReminderSent(101, later, expected_ply=1, expected_last=NOW), ended])
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.status == "finished" and board.winner == "black"
        assert board.last_reminder_at == later
    with pytest.raises(errors.BoardFinishedError), db_sessions.begin() as session:
        apply(session, [ended])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [ReminderSent(101, later, expected_ply=1, expected_last=later)])


def test_a_queued_move_played_with_the_move(db_sessions: sessionmaker[Session]) -> None:
    from pbm_emergo.db import autoplay

    moves = _first_moves(2)
    with db_sessions.begin() as session:
        alice, bob = _board(session)
        autoplay.replace_queue(session, 101, bob.id, 0, [QueueItem(bob.id, moves[1], 2)], NOW)
    with db_sessions.begin() as session:
        decision = _decide(session, alice, moves[0])
        assert [type(c) for c in decision.changes] == [MoveStored, MoveStored, QueueTaken]
        apply(session, decision.changes)
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.ply == 2 and not board.queued
        assert games.move_notations(session, board) == moves


# --- the changes of the other operations: each applied, each re-check as before ---------


def _player(session: Session, userid: str) -> Player:
    found = players.find_player(session, userid)
    assert found is not None
    session.refresh(found)
    return found


def _confirmations(*waiting: WaitingAddress, by: str = "alice@example.org") -> Confirmations:
    return Confirmations(
        waiting=waiting, at=NOW, expires_at=NOW + timedelta(days=7), requested_by=by,
        replaces=False, cap_since=NOW - timedelta(days=1), cap_per_requester=1, cap_in_all=3,
    )


def test_passwords_and_wrong_passwords(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, _ = _board(session)
        old_hash = alice.password_hash
    changed = PasswordHashStored(alice.id, players.hash_password("new-one"), old_hash, "new-one")
    assert "new-one" not in repr(changed)
    with db_sessions.begin() as session:
        apply(session, [changed])
    with db_sessions() as session:
        assert _player(session, "alice").password_hash == changed.new_hash
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [changed])  # over a hash no longer stored
    key = "mallory@example.net"
    first = LoginFailureRecorded(alice.id, key, None, 1, NOW, NOW, None)
    with db_sessions.begin() as session:
        apply(session, [first, LoginFailureRecorded(alice.id, OTHER_SENDERS, None, 1, NOW, NOW,
                                                    NOW + timedelta(hours=1))])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [first])  # another failure counted meanwhile
    with db_sessions.begin() as session:
        apply(session, [AttackNoticeMarked(alice.id, NOW, None)])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [AttackNoticeMarked(alice.id, NOW, None)])  # told meanwhile
    with db_sessions.begin() as session:
        apply(session, [LoginFailuresCleared(alice.id, (key,))])
        assert set(players.login_failures_of(session, alice.id)) == {OTHER_SENDERS}
        apply(session, [OldLoginFailuresForgotten(alice.id, NOW + timedelta(minutes=30))])
        assert set(players.login_failures_of(session, alice.id)) == {OTHER_SENDERS}  # locked
        apply(session, [LoginFailuresCleared(alice.id)])
        assert players.login_failures_of(session, alice.id) == {}
        apply(session, [LoginFailureRecorded(alice.id, key, None, 1, NOW, NOW, None),
                        OldLoginFailuresForgotten(alice.id, NOW + timedelta(seconds=1))])
        assert players.login_failures_of(session, alice.id) == {}


def test_accounts_and_addresses(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, _ = _board(session)
    waiting = WaitingAddress("carol@example.net", players.code_hash("CODE1"), 1)
    created = PlayerCreated(
        "carol", ("carol@example.org",), NOW, players.hash_password("pw-carol"),
        _confirmations(waiting, by="carol@example.org"), password="pw-carol",
    )
    assert "pw-carol" not in repr(created)
    with db_sessions.begin() as session:
        apply(session, [created])
    with db_sessions() as session:
        carol = _player(session, "carol")
        assert [a.address for a in carol.addresses] == ["carol@example.org"]
        [asked] = players.confirmations_of(session, carol.id)
        assert asked.address == "carol@example.net" and asked.requested_by == "carol@example.org"
    with pytest.raises(errors.UseridTakenError), db_sessions.begin() as session:
        apply(session, [dataclasses.replace(created, confirmations=_confirmations())])
    with db_sessions.begin() as session:
        apply(session, [AddressConfirmed(asked.id, NOW)])
    with db_sessions() as session:
        assert [a.address for a in _player(session, "carol").addresses] == [
            "carol@example.org", "carol@example.net",
        ]
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [AddressConfirmed(asked.id, NOW)])  # used already
    # Addresses changed: the new one at once, a waiting one; the cap re-checked.
    other = WaitingAddress("dave@example.net", players.code_hash("CODE2"), 1)
    changed = AddressesChanged(
        alice.id, ("alice@example.net",), (), _confirmations(other), NOW
    )
    with db_sessions.begin() as session:
        apply(session, [changed])
    with db_sessions() as session:
        assert [a.address for a in _player(session, "alice").addresses] == ["alice@example.net"]
        assert [c.address for c in players.confirmations_of(session, alice.id)] == [
            "dave@example.net"
        ]
    again = WaitingAddress("dave@example.net", players.code_hash("CODE3"), 1)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        # The same requester again within the day: over the cap (its first code kept).
        apply(session, [AddressesChanged(
            alice.id, (), ("dave@example.net",), _confirmations(again), NOW
        )])  # fmt: skip
    with db_sessions.begin() as session:
        apply(session, [SignedOff(carol.id, NOW)])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [SignedOff(carol.id, NOW)])
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [AddressesChanged(carol.id, ("c@example.org",), (), _confirmations(), NOW)])


def test_vacations_re_check_what_was_read(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, _ = _board(session)
    with db_sessions.begin() as session:
        apply(session, [VacationStarted(alice.id, NOW, 3, None)])
    with db_sessions() as session:
        assert _player(session, "alice").vacation_until == NOW + timedelta(days=3)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [VacationStarted(alice.id, NOW, 1, None)])  # started meanwhile
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [VacationEnded(alice.id, NOW, None)])
    later = NOW + timedelta(hours=1)
    with db_sessions.begin() as session:
        apply(session, [VacationEnded(alice.id, later, NOW + timedelta(days=3))])
    with db_sessions() as session:
        assert vacations.current_vacation(session, alice.id, later) is None


def test_support_cases(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
        carol = players.create_player(session, "carol", "pw", ["carol@example.org"], NOW)
        dave = players.create_player(session, "dave", "pw", ["dave@example.org"], NOW)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [PlayersMerged(alice.id, bob.id)])  # they play each other
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [AccountClosed(alice.id, NOW)])  # an active board
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [PlayerDeleted(alice.id)])  # a board
    with db_sessions.begin() as session:
        apply(session, [PlayersMerged(carol.id, alice.id), PlayerDeleted(dave.id)])
    with db_sessions() as session:
        assert players.find_player(session, "carol") is None
        assert players.find_player(session, "dave") is None
        assert "carol@example.org" in [a.address for a in _player(session, "alice").addresses]
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [PlayerDeleted(dave.id)])  # deleted already
    with db_sessions.begin() as session:
        games.finish_board(session, 101, "white", Termination.RESIGNED, NOW)
        apply(session, [AccountClosed(bob.id, NOW)])
    with db_sessions() as session:
        closed = _player(session, "bob")
        assert closed.signed_off_at is not None and closed.addresses == []


def test_challenges_and_robot_games(db_sessions: sessionmaker[Session]) -> None:
    with db_sessions.begin() as session:
        alice, bob = _board(session)
    created = BoardCreated(
        102, bob.id, alice.id, NOW,
        ChallengeTerms(rated=False, blocked_rule="draw", nag_days=5, forfeit_days=12),
    )
    with db_sessions.begin() as session:
        apply(session, [created, SeekingSet(alice.id, 2), SeekTaken(alice.id),
                        ChallengePolicySet(bob.id, True, 4)])
    with db_sessions() as session:
        board = games.get_board(session, 102)
        assert board is not None and board.white_player_id == bob.id and not board.rated
        assert board.blocked_rule == "draw" and board.forfeit_days == 12
        assert _player(session, "alice").seeking == 1
        policy = _player(session, "bob")
        assert policy.refuses_challenges and policy.board_limit == 4
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [created])  # the number taken
    limit = RobotGamesUnderLimit(alice.id, (bob.id,), 2)
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [limit])  # two active boards against bob already
    with db_sessions.begin() as session:
        apply(session, [dataclasses.replace(limit, limit=3)])


def test_queues_and_autoplay(db_sessions: sessionmaker[Session]) -> None:
    from pbm_emergo.db import autoplay

    with db_sessions.begin() as session:
        alice, bob = _board(session)
    move = _first_moves(2)[1]
    replaced = QueueReplaced(101, bob.id, 0, (QueueItem(bob.id, move, 2),), NOW)
    with db_sessions.begin() as session:
        apply(session, [replaced, AutoplaySet(bob.id, True)])
    with db_sessions() as session:
        assert [(q.player_id, q.notation) for q in autoplay.queue_of(session, 101)] == [
            (bob.id, move)
        ]
        assert _player(session, "bob").autoplay
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [dataclasses.replace(replaced, expected_ply=1)])  # not at that move
    with db_sessions.begin() as session:
        apply(session, [QueueCleared(101, bob.id), AutoplaySet(bob.id, False)])
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and not board.queued
        assert autoplay.queue_of(session, 101) == [] and not _player(session, "bob").autoplay


def test_reminders_subscriptions_and_analyses(db_sessions: sessionmaker[Session]) -> None:
    from pbm_emergo.db import analyses, spectators

    with db_sessions.begin() as session:
        alice, bob = _board(session)
        carol = players.create_player(session, "carol", "pw", ["carol@example.org"], NOW)
    with db_sessions.begin() as session:
        apply(session, [
            ReminderSent(101, NOW),
            SubscriptionAdded(carol.id, 101, NOW), SubscriptionAdded(carol.id, None, NOW),
            NotificationsToggled(carol.id, (None, 101), (), NOW),
        ])  # fmt: skip
    with db_sessions() as session:
        board = games.get_board(session, 101)
        assert board is not None and board.last_reminder_at == NOW
        assert spectators.subscriptions_of(session, carol.id) == [None, 101]
        assert spectators.notifications_of(session, carol.id) == [None, 101]
    with db_sessions.begin() as session:
        apply(session, [
            SubscriptionsRemoved(carol.id, (None,)),
            NotificationsToggled(carol.id, (), (None, 101), NOW),
        ])  # fmt: skip
    with db_sessions() as session:
        assert spectators.subscriptions_of(session, carol.id) == [101]
        assert spectators.notifications_of(session, carol.id) == []
    asked = AnalysisRequested(101, alice.id, "alice@example.org", NOW, 2, NOW - timedelta(1))
    with db_sessions.begin() as session:
        apply(session, [asked])
    with db_sessions() as session:
        assert [(q.board_number, q.player_id) for q in analyses.queued(session)] == [
            (101, alice.id)
        ]
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [asked])  # asked for this board meanwhile
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [dataclasses.replace(asked, board=102, limit=1)])  # the day's used


def test_a_mail_budget_charged_meanwhile_conflicts(db_sessions: sessionmaker[Session]) -> None:
    from pbm_emergo.db import outbox

    since = NOW - timedelta(hours=1)
    charged = MailBudgetCharged("carol@example.org", 7, 1, 1, 3, 2, since)
    with db_sessions.begin() as session:
        apply(session, [charged])  # nothing charged before: it fits
        outbox.queue_outbound(session, [
            outbox.outbound_row("alice@example.org", b"x", NOW, charged_to="carol@example.org"),
            outbox.outbound_row("bob@example.org", b"x", NOW, charged_to="carol2@example.org",
                                charged_account=7),
            outbox.outbound_row("bob@example.org", b"x", since - timedelta(seconds=1),
                                charged_to="carol@example.org", charged_account=7),
        ])  # fmt: skip
    with db_sessions.begin() as session:
        apply(session, [charged])  # one of each this hour: both still fit
        apply(session, [dataclasses.replace(charged, account_id=8, account_count=2)])  # not 7
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [dataclasses.replace(charged, count=3)])  # the sender's 3 an hour
    with pytest.raises(errors.Conflict), db_sessions.begin() as session:
        apply(session, [dataclasses.replace(charged, account_count=2)])  # the account's 2


def test_every_change_type_has_its_case() -> None:
    """Every change of ``CHANGE_TYPES`` is matched by ``db.apply`` (mypy's exhaustive match
    checks the union; this checks the tuple the tests and the docs name)."""
    assert set(CHANGE_TYPES) == set(get_args(Change))
    assert all(dataclasses.is_dataclass(kind) for kind in CHANGE_TYPES)
    assert all(vars(kind)["__dataclass_params__"].frozen for kind in CHANGE_TYPES)
