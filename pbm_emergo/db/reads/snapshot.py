"""A board as the decisions read it: one :class:`~pbm_emergo.game.board.BoardSnapshot` per
operation, from the board row (with its players and their addresses, read in one query by
:func:`pbm_emergo.db.games.get_board_and_facts`) and the facts read beside it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from pbm_emergo.db import autoplay, games, ratings, vacations
from pbm_emergo.db.games import REPETITION_SEPARATOR, BoardFacts
from pbm_emergo.db.models import BOARD_ACTIVE, BOARD_FINISHED, Board, Player
from pbm_emergo.game.board import (
    BoardSnapshot,
    BoardState,
    OpenVote,
    PlayedMove,
    Seat,
    may_end_rated,
)
from pbm_emergo.game.ratings import GameRating


def primary_address(player: Player) -> str | None:
    """Where the player's board mails go: their first registered address."""
    return player.addresses[0].address if player.addresses else None


def seat_of(player: Player) -> Seat:
    """The player as a board shows them and the decisions need them."""
    return Seat(
        player.id, player.shown_userid, player.rating, primary_address(player),
        player.vacation_until, rated_games=player.rated_games, autoplay=player.autoplay,
        timezone=player.timezone, deviation=player.deviation, volatility=player.volatility,
        digest=player.digest_hour is not None,
        board_style=player.board_style,
        language=player.language,
    )


def load_state(session: Session, board: Board, facts: BoardFacts | None = None) -> BoardState:
    """The state of ``board`` as stored (its moves, votes and rating changes read;
    ``facts``: read with the board, they spare the queries that would find nothing). When
    its game may end rated soon, when its two players last finished a rated game against
    each other is read too (the rule of ``counts_for_rating``); a board a few moves old
    needs no such query."""
    rating = None
    if board.status == BOARD_FINISHED and board.rated:
        history = ratings.history_of_board(session, board.number)
        white = history.get(board.white_player_id)
        black = history.get(board.black_player_id)
        if white is not None and black is not None:
            rating = GameRating(
                white.rating_before,
                black.rating_before,
                white.rating_after - white.rating_before,
                black.rating_after - black.rating_before,
            )
    away: list[tuple[int, datetime, datetime]] = []
    # The vacations count on a board with a total thinking time, and for the deadlines of
    # the turn under way when a player's vacation reached into it.
    turn_began = board.last_move_at or board.created_at
    if (
        board.total_days is not None
        or board.timebank_hours is not None
        or any(
            p.vacation_until is not None and p.vacation_until > turn_began
            for p in (board.white_player, board.black_player)
        )
    ):
        periods = vacations.periods_of(
            session, (board.white_player_id, board.black_player_id), board.created_at
        )
        away = [(pid, s, e) for pid, spans in periods.items() for s, e in spans]
    white_seat, black_seat = seat_of(board.white_player), seat_of(board.black_player)
    pair_rated_at = None
    if board.status == BOARD_ACTIVE and may_end_rated(
        board.rated, board.ply, board.queued, white_seat.autoplay or black_seat.autoplay
    ):
        pair_rated_at = (
            games.pair_rated_at(session, white_seat.id, black_seat.id)
            if facts is None
            else facts.pair_rated_at
        )
    return BoardState(
        number=board.number,
        white=white_seat,
        black=black_seat,
        rated=board.rated,
        blocked_rule=board.blocked_rule,
        nag_days=board.nag_days,
        forfeit_days=board.forfeit_days,
        created_at=board.created_at,
        status=board.status,
        ply=board.ply,
        to_move=board.to_move,
        winner=board.winner,
        outcome_reason=board.outcome_reason,
        position=games.current_position(board),
        moves=tuple(
            PlayedMove(r.number, r.player_id, r.notation, r.played_at, r.autoplayed)
            for r in games.played_moves(session, board.number)
        ),
        votes=(
            tuple(
                OpenVote(v.kind, v.player_id, v.ply)
                for v in games.open_votes(session, board.number)
            )
            if facts is None or facts.votes
            else ()
        ),
        rating=rating,
        total_days=board.total_days,
        vacations=tuple(away),
        watched=facts is None or facts.watched,
        pair_rated_at=pair_rated_at,
        in_event=board.event_id is not None,
        last_reminder_at=board.last_reminder_at,
        timebank_hours=board.timebank_hours,
        increment_hours=board.increment_hours,
        weekends_off=board.weekends_off,
        # What each result would do to the ratings (the decisions are pure: the rating
        # model's results come to them as values).
        rating_outcomes=(
            ratings.outcomes(white_seat, black_seat)
            if board.status == BOARD_ACTIVE and board.rated
            else ()
        ),
    )


def read_snapshot(
    session: Session, board: Board, facts: BoardFacts | None = None, *,
    state: BoardState | None = None, with_queue: bool = True,
) -> BoardSnapshot:
    """The snapshot of ``board`` (``state``: its state already read). ``with_queue``: read
    its queued moves when ``boards.queued`` says it has any (only a move can play them)."""
    if state is None:
        state = load_state(session, board, facts)
    queue = (
        tuple(autoplay.queue_of(session, board.number)) if with_queue and board.queued else ()
    )
    return BoardSnapshot(
        state=state,
        repetition=(
            tuple(board.repetition.split(REPETITION_SEPARATOR)) if board.repetition else None
        ),
        queued=board.queued,
        queue=queue,
    )
