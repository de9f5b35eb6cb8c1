"""Applying the changes of the shell's operations in the write transaction, each
re-checked as it is written (:mod:`pbm_emergo.game.changes` and its siblings say what each
relies on).

``apply(session, changes)`` runs them in order, each through the data layer's write for
it; a change whose re-check fails raises what that write raises (``Conflict``,
``StaleMoveError``, ``BoardFinishedError``, ``UseridTakenError``), and the caller starts
over. Every write is a typed change: there is no other way to write through a unit of work.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias, assert_never

from sqlalchemy.orm import Session

from pbm_emergo.db import (
    analyses,
    autoplay,
    blocks,
    challenges,
    credentials,
    events,
    games,
    notes,
    outbox,
    players,
    resets,
    spectators,
    submitted,
    support,
    vacations,
)
from pbm_emergo.db.errors import Conflict
from pbm_emergo.game.account_changes import (
    AccountClosed,
    AddressConfirmed,
    AddressesChanged,
    AttackNoticeMarked,
    Confirmations,
    ExpiredConfirmationsDropped,
    LoginFailureRecorded,
    LoginFailuresCleared,
    MailBudgetCharged,
    OldLoginFailuresForgotten,
    PasswordHashStored,
    PasswordResetMailed,
    PasswordResetUsed,
    PlayerCreated,
    PlayerDeleted,
    PlayersMerged,
    SignedOff,
    VacationEnded,
    VacationEndTold,
    VacationStarted,
)
from pbm_emergo.game.blocks import BlockAdded, BlockRemoved
from pbm_emergo.game.board_changes import (
    AnalysisFinished,
    AnalysisRequested,
    AutoplaySet,
    BoardCreated,
    BoardStyleSet,
    ChallengePolicySet,
    MoveSubmitted,
    NotificationsToggled,
    QueueCleared,
    QueueReplaced,
    ReminderSent,
    RobotGamesUnderLimit,
    SeekingSet,
    SeekTaken,
    SubmittedMoveDropped,
    SubscriptionAdded,
    SubscriptionsRemoved,
)
from pbm_emergo.game.changes import (
    BoardDeclined,
    Change,
    GameFinished,
    MovesTakenBack,
    MoveStored,
    QueueTaken,
    VoteOpened,
    VoteRemoved,
    VotesDropped,
)
from pbm_emergo.game.event_changes import (
    DivisionsSet,
    EntryAdded,
    EntryWithdrawn,
    EventCreated,
    EventStatusSet,
    NewsTold,
    NewsToTell,
    PairingDecided,
    RoundFinished,
    RoundOpened,
    SeasonOpened,
)
from pbm_emergo.game.notes import NoteAdded
from pbm_emergo.game.setting_changes import DigestSent, DigestSet, LanguageSet, TimezoneSet
from pbm_emergo.game.tournaments import NEWS_SEASON

__all__ = ["Write", "apply", "apply_change"]

# What a unit of work hands to the write transaction: a typed change.
Write: TypeAlias = Change


def apply(session: Session, changes: Iterable[Write]) -> None:
    """Apply ``changes`` in order in ``session`` (the write transaction)."""
    for change in changes:
        apply_change(session, change)


def apply_change(session: Session, change: Write) -> None:
    """Apply one change, with the re-check it carries."""
    match change:
        # --- a game's moves ---
        case MoveStored():
            games.store_move(
                session, change.board, change.expected_ply, change.position,
                change.repetition, change.to_move, change.player_id, change.notation,
                change.comment, change.played_at, autoplayed=change.autoplayed,
                expected_queued=change.expected_queued,
                expected_no_votes=change.expected_no_votes,
            )
        case VotesDropped():
            games.drop_votes(session, change.board, keep_draw_of=change.keep_draw_of)
        case VoteOpened():
            games.open_vote(
                session, change.board, change.kind, change.player_id, change.ply, change.at
            )
        case VoteRemoved():
            games.remove_vote(session, change.board, change.kind, change.player_id)
        case MovesTakenBack():
            games.take_back(
                session, change.board, change.expected_ply, change.position, change.repetition
            )
            # The moves' ids alone cannot tell a taken-back move (its id may be given again).
            submitted.drop_board(session, change.board)
        case QueueTaken():
            autoplay.take_queue(session, change.board, list(change.item_ids))
        case GameFinished():
            games.finish_board(
                session, change.board, change.winner, change.termination, change.at,
                expected_rating=change.expected_rating, rated=change.rated,
                expected_ply=change.expected_ply,
            )
        case BoardDeclined():
            challenges.remove_declined_board(session, change.board, change.expected_ply)
        # --- accounts ---
        case PasswordHashStored():
            players.store_password_hash(
                session, change.player_id, change.new_hash, expected_hash=change.expected_hash
            )
            if change.password is not None:
                credentials.cache().remember(change.player_id, change.new_hash, change.password)
        case LoginFailureRecorded():
            players.record_login_failure(
                session, change.player_id, sender_key=change.sender_key,
                previous=change.previous, count=change.count,
                window_start=change.window_start, now=change.at,
                locked_until=change.locked_until,
            )
        case OldLoginFailuresForgotten():
            players.forget_old_login_failures(session, change.player_id, change.before)
        case AttackNoticeMarked():
            players.mark_attack_notified(
                session, change.player_id, change.at, previous=change.previous
            )
        case LoginFailuresCleared():
            players.clear_login_failures(session, change.player_id, change.sender_keys)
        case PlayerCreated():
            player = players.create_player(
                session, change.userid, None, list(change.addresses), change.at,
                password_hash=change.password_hash,
            )
            _add_confirmations(session, player.id, change.confirmations)
            if change.language is not None:
                players.set_language(session, player.id, change.language)
            # The password just set is as good as one just checked.
            credentials.cache().remember(player.id, change.password_hash, change.password)
        case AddressesChanged():
            if change.at_once:
                players.replace_addresses(
                    session, change.player_id, list(change.at_once), change.at
                )
            players.drop_confirmations(session, change.player_id, keep=change.kept)
            _add_confirmations(session, change.player_id, change.confirmations)
        case AddressConfirmed():
            players.confirm_address(session, change.confirmation_id, change.at)
        case SignedOff():
            players.sign_off(session, change.player_id, change.at)
        case VacationStarted():
            vacations.start_vacation(
                session, change.player_id, change.at, change.days, expected=change.expected
            )
        case VacationEnded():
            vacations.end_vacation(
                session, change.player_id, change.at, expected=change.expected
            )
        case VacationEndTold():
            vacations.mark_end_told(session, change.vacation_id)
        case AccountClosed():
            support.close_account(session, change.player_id, change.at)
        case PlayerDeleted():
            support.delete_player(session, change.player_id)
        case PlayersMerged():
            support.merge_players(session, change.old_id, change.kept_id)
        # --- around the games ---
        case BoardCreated():
            terms = change.terms
            games.create_board(
                session, change.white_id, change.black_id, change.at, rated=terms.rated,
                blocked_rule=terms.blocked_rule, nag_days=terms.nag_days,
                forfeit_days=terms.forfeit_days, total_days=terms.total_days,
                number=change.number, reserved=change.reserved, event_id=change.event_id,
                event_round=change.event_round,
                timebank_hours=terms.timebank_hours, increment_hours=terms.increment_hours,
                weekends_off=terms.weekends_off,
            )
        case MailBudgetCharged():
            outbox.recheck_mail_budget(
                session, change.sender, change.account_id, count=change.count,
                account_count=change.account_count, per_hour=change.per_hour,
                per_account_hour=change.per_account_hour, since=change.since,
            )
        case RobotGamesUnderLimit():
            active = games.active_boards_against(
                session, change.person_id, list(change.robot_ids)
            )
            if len(active) >= change.limit:
                raise Conflict("Another robot game started meanwhile.")
        case SeekTaken():
            challenges.take_seek(session, change.player_id)
        case SeekingSet():
            challenges.set_seeking(session, change.player_id, change.count)
        case ChallengePolicySet():
            challenges.set_policy(
                session, change.player_id, refuses=change.refuses,
                board_limit=change.board_limit,
            )
        case QueueReplaced():
            autoplay.replace_queue(
                session, change.board, change.player_id, change.expected_ply,
                list(change.items), change.at,
            )
        case QueueCleared():
            autoplay.clear_queue(session, change.board, change.player_id)
        case AutoplaySet():
            autoplay.set_autoplay(session, change.player_id, change.on)
        case ReminderSent():
            games.set_reminded(
                session, change.board, change.at, expected_ply=change.expected_ply,
                expected_last=change.expected_last,
            )
        case SubscriptionAdded():
            spectators.add_subscription(session, change.player_id, change.board, change.at)
        case SubscriptionsRemoved():
            spectators.remove_subscriptions(session, change.player_id, list(change.boards))
        case NotificationsToggled():
            for number in change.on:
                spectators.add_notification(session, change.player_id, number, change.at)
            spectators.remove_notifications(session, change.player_id, list(change.off))
        case AnalysisRequested():
            analyses.add_request(
                session, change.board, change.player_id, change.address, change.at,
                limit=change.limit, since=change.since,
            )
        # --- self-service ---
        case PasswordResetMailed():
            resets.add_reset(
                session, change.player_id, change.code_hash, change.requested_by, change.at,
                expires_at=change.expires_at, since=change.since, per_day=change.per_day,
            )
        case PasswordResetUsed():
            resets.use_reset(session, change.reset_id, change.at)
        case BlockAdded():
            blocks.add_block(session, change.player_id, change.blocked_id, change.at)
        case BlockRemoved():
            blocks.remove_block(session, change.player_id, change.blocked_id)
        case NoteAdded():
            notes.add_note(
                session, change.board, change.player_id, change.ply, change.text, change.at,
                limit=change.limit,
            )
        case MoveSubmitted():
            submitted.store(session, change)
        case SubmittedMoveDropped():
            submitted.drop(session, change.board, change.player_id)
        # --- leagues and tournaments ---
        case EventCreated():
            _create_event(session, change)
        case SeasonOpened():
            created = _create_event(session, change.event)
            for player_id, division in change.entries:
                events.add_entry(
                    session, created, player_id, change.event.at, max_players=None,
                    division=division,
                )
            events.add_news(session, created, NEWS_SEASON, change.event.at)
        case EntryAdded():
            events.add_entry(
                session, change.event_id, change.player_id, change.at,
                max_players=change.max_players, division=change.division,
            )
        case EntryWithdrawn():
            events.withdraw_entry(session, change.event_id, change.player_id, change.at)
        case EventStatusSet():
            events.set_status(
                session, change.event_id, change.expected, change.status, change.at
            )
        case RoundOpened():
            events.open_round(
                session, change.event_id, change.number, change.at, change.pairings,
                expected=change.expected,
            )
        case PairingDecided():
            events.decide_pairing(session, change.pairing_id, change.result)
        case RoundFinished():
            events.finish_round(session, change.event_id, change.number, change.at)
        case DivisionsSet():
            events.set_divisions(session, change.event_id, change.divisions)
        case NewsToTell():
            events.add_news(
                session, change.event_id, change.kind, change.at, board=change.board,
                round_number=change.round_number,
            )
        case NewsTold():
            events.drop_news(session, change.news_id)
        case TimezoneSet():
            players.set_timezone(session, change.player_id, change.timezone)
        case LanguageSet():
            players.set_language(session, change.player_id, change.language)
        case DigestSet():
            players.set_digest(session, change.player_id, change.hour, change.at)
        case DigestSent():
            players.digest_sent(session, change.player_id, change.at, expected=change.expected)
        case ExpiredConfirmationsDropped():
            players.drop_expired_confirmations(session, change.at)
        case AnalysisFinished():
            analyses.finish(
                session, change.request_id,
                None if change.report is None else dict(change.report), change.at,
            )
        case BoardStyleSet():
            autoplay.set_board_style(session, change.player_id, change.style)
        case _:
            assert_never(change)


def _add_confirmations(session: Session, player_id: int, asked: Confirmations) -> None:
    """The codes of the addresses waiting for their owners, stored for ``player_id``."""
    cap = players.CodeMailCap(
        since=asked.cap_since, per_requester=asked.cap_per_requester, in_all=asked.cap_in_all
    )
    for waiting in asked.waiting:
        players.add_confirmation(
            session, player_id, waiting.address, waiting.code_hash, asked.at,
            expires_at=asked.expires_at, requested_by=asked.requested_by,
            position=waiting.position, replaces=asked.replaces, cap=cap,
        )  # fmt: skip


def _create_event(session: Session, change: EventCreated) -> int:
    """The event ``change`` made (Conflict if its name is taken); its id."""
    return events.create_event(
        session, change.name, change.event_format, change.at, rounds=change.rounds,
        max_players=change.max_players, starts_at=change.starts_at,
        nag_days=change.nag_days, forfeit_days=change.forfeit_days,
        total_days=change.total_days, robots=change.robots, rated=change.rated,
        owner_id=change.owner_id, join_password_hash=change.join_password_hash,
        league=change.league, season=change.season,
        timebank_hours=change.timebank_hours, increment_hours=change.increment_hours,
        weekends_off=change.weekends_off,
    ).id
