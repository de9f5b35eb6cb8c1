"""Timed work on active boards: reminders (nag time) and time forfeits.

The server's scheduler calls :func:`scheduled` every half minute (see ``pbm_emergo.server``).
A board's clock runs from its last move (or its creation) while a player is to move:

* after ``nag_days`` without a move, the player to move gets a reminder, and another one
  every ``nag_days`` after that;
* after ``forfeit_days`` without a move, the player to move loses the game ("forfeit"), and
  both players get the final board mail.

A player on vacation (``vacation_until`` in the future) gets neither; the time of the
vacation still counts once it is over, as in pbmserv, where vacation only pauses reminders
and timeouts while it lasts. A player locked out by wrong passwords (see
:mod:`pbm_emergo.commands.lockout`) loses no game on time while the lock lasts and for a
day after it; they still get reminders.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from pbm_emergo.commands import lockout
from pbm_emergo.commands.base import Context
from pbm_emergo.commands.boards import (
    BoardState,
    board_html,
    board_link,
    board_mails,
    board_view,
    other_side,
    primary_address,
)
from pbm_emergo.commands.move import Turn
from pbm_emergo.db import games, players
from pbm_emergo.db.models import BOARD_ACTIVE, Board, Player
from pbm_emergo.messages import Reply
from pbm_emergo.render import render
from pbm_emergo.rules import Termination

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from pbm_emergo.config import Config


def scheduled(session: Session, config: Config, now: datetime) -> list[Reply]:
    """Send the reminders that are due and forfeit the boards whose time ran out (in the
    caller's write transaction: each board's changes are applied as it is handled)."""
    ctx = Context(session=session, config=config, now=now, apply_at_once=True)
    replies: list[Reply] = []
    # Nag and forfeit times are whole days (at least one), so a board that saw a move within
    # the last day needs no look: the database filters those out, and the players of the
    # rest come in one query.
    idle_since = func.coalesce(Board.last_move_at, Board.created_at)
    query = (
        select(Board)
        .where(Board.status == BOARD_ACTIVE, idle_since <= now - timedelta(days=1))
        .options(
            selectinload(Board.white_player).selectinload(Player.addresses),
            selectinload(Board.black_player).selectinload(Player.addresses),
        )
        .order_by(Board.number)
    )
    if session.get_bind().dialect.name == "postgresql":
        # Every server and worker process runs the scheduler: a board another run holds is
        # its business (no second reminder); SQLite serialises the runs anyway.
        query = query.with_for_update(skip_locked=True, of=Board)
    boards = session.scalars(query).all()
    # Codes for addresses that nobody confirmed within their time are forgotten.
    players.drop_expired_confirmations(session, now)
    for board in boards:
        replies.extend(_check_board(ctx, board))
        ctx.apply_pending()
    return replies


def _check_board(ctx: Context, board: Board) -> list[Reply]:
    player = games.player_to_move(board)
    if player is None:
        return []
    if player.vacation_until is not None and player.vacation_until > ctx.now:
        return []
    waiting = ctx.now - (board.last_move_at or board.created_at)
    # A player locked out by wrong passwords (perhaps someone else's, in their name) loses
    # no game on time while the lock lasts, nor within a day after it; reminders go on.
    if waiting >= timedelta(days=board.forfeit_days) and not lockout.locked_out(
        ctx.session, player, ctx.now
    ):
        turn = Turn(ctx, board, player)
        state = turn.finish(turn.state, other_side(board.to_move or ""), Termination.FORFEIT)
        return board_mails(
            ctx, state,
            headline=f"{player.userid} did not move for {board.forfeit_days} days and "
            "loses the game on time.",
        )
    since_reminder = ctx.now - max(
        board.last_reminder_at or board.created_at, board.last_move_at or board.created_at
    )
    nag = timedelta(days=board.nag_days)
    if waiting < nag or since_reminder < nag:
        return []
    address = primary_address(player)
    if address is None:
        return []
    number, now = board.number, ctx.now
    ctx.write(lambda s: games.set_reminded(s, number, now))
    view = board_view(BoardState.load(ctx.session, board), link=board_link(ctx.config, number))
    left = timedelta(days=board.forfeit_days) - waiting
    words = dict(
        userid=player.userid,
        number=board.number,
        days=waiting.days,
        days_left=max(-(-left // timedelta(days=1)), 0),  # whole days, rounded up
    )
    body = render("notice/reminder.txt.j2", **words, board_text=view.text)
    subject = f"Emergo Board {board.number} reminder: {player.userid} to move"
    # The HTML part: the reminder's own words (the text without the board), then the board.
    notice = render("notice/reminder.txt.j2", **words, board_text="").splitlines()
    return [
        Reply(
            to=address,
            subject=subject,
            body=body,
            board=board.number,
            html=board_html(subject, [view.html], notice=[n for n in notice if n.strip()]),
        )
    ]
