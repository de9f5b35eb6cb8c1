"""Boards for the commands: finding them, and the board mail every player receives."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select

from pbm_emergo.commands.api import Reply
from pbm_emergo.commands.base import CommandError, Context
from pbm_emergo.db import service
from pbm_emergo.db.models import (
    BLACK,
    BOARD_ACTIVE,
    WHITE,
    Board,
    MoveRecord,
    Player,
    RatingChange,
    Subscription,
    Vote,
)
from pbm_emergo.render import render
from pbm_emergo.rules import Game, render_board

BOARD_REF = re.compile(r"(\d{1,9})(?:#(\d{1,6}))?")
MOVE_GUARD = re.compile(r"(.*?)#(\d{1,6})")
# Board mails after a move list this many recent moves; show and game over list all.
RECENT_MOVES = 10

SIDE_NAMES = {WHITE: "Ohs", BLACK: "Eks"}
SIDE_LETTERS = {WHITE: "o", BLACK: "x"}


def parse_board_ref(text: str) -> tuple[int, int | None] | None:
    """``"101"`` -> (101, None); ``"101#7"`` -> (101, 7); anything else -> None."""
    match = BOARD_REF.fullmatch(text)
    if not match:
        return None
    return int(match[1]), int(match[2]) if match[2] else None


def split_guard(text: str) -> tuple[str, int | None]:
    """``"e4xc4#17"`` -> ("e4xc4", 17); no guard -> (text, None)."""
    match = MOVE_GUARD.fullmatch(text)
    if not match:
        return text, None
    return match[1], int(match[2])


def get_board(ctx: Context, text: str) -> tuple[Board, int | None]:
    """The board a ``board[#n]`` argument names, or a CommandError."""
    ref = parse_board_ref(text)
    if ref is None:
        raise CommandError(f"'{text[:40]}' is not a board number (boards are numbered from 101).")
    number, upto = ref
    board = service.get_board(ctx.session, number)
    if board is None:
        raise CommandError(f"There is no board {number}.")
    if upto is not None and upto > board.ply:
        raise CommandError(
            f"Board {number} has {_moves(board.ply)} so far, so there is no move {upto} to show.",
            board=number,
        )
    return board, upto


def _moves(n: int) -> str:
    return f"{n} move" if n == 1 else f"{n} moves"


def side_label(side: str) -> str:
    return f"{SIDE_NAMES[side]}, {SIDE_LETTERS[side]}"


def opponent(board: Board, player: Player) -> Player:
    return board.black_player if player.id == board.white_player_id else board.white_player


def result_sentence(board: Board, game: Game | None = None) -> str:
    """How a finished game ended, in one sentence."""
    reason = board.outcome_reason or ""
    if board.winner is not None:
        winner = board.player_of(board.winner).userid
        loser_side = BLACK if board.winner == WHITE else WHITE
        loser = board.player_of(loser_side).userid
        because = {
            "eliminated": f"{loser} has no men left",
            "blocked": f"{loser} is blocked and cannot move",
            "no legal entry": f"{loser} has men in hand but nowhere to enter them",
            "resigned": f"{loser} resigned",
            "forfeit": f"{loser} did not move in time",
        }.get(reason, reason)
        return f"{winner} ({SIDE_NAMES[board.winner]}) wins: {because}."
    stuck = None
    if game is not None:
        stuck = board.player_of(game.position.to_move).userid
    because = {
        "threefold repetition": "the same position came up for the third time",
        "draw agreed": "both players agreed",
        "blocked": f"{stuck} is blocked and cannot move (a draw under -blocked=draw)",
        "no legal entry": (
            f"{stuck} has men in hand but nowhere to enter them (a draw under -blocked=draw)"
        ),
    }.get(reason, reason)
    return f"The game is a draw: {because}."


def rating_lines(ctx: Context, board: Board) -> list[str]:
    """ "alice 1600 -> 1616 (+16)" for each player of a finished rated game, from the rating
    history of this board (the players' current ratings may have moved on since)."""
    history = {
        change.player_id: change
        for change in ctx.session.scalars(
            select(RatingChange).where(RatingChange.board_number == board.number)
        )
    }
    lines = []
    for side in (WHITE, BLACK):
        player = board.player_of(side)
        change = history.get(player.id)
        if change is None:
            continue
        delta = change.rating_after - change.rating_before
        lines.append(
            f"{player.userid} {change.rating_before} -> {change.rating_after} ({delta:+d})"
        )
    return lines


def options_text(board: Board) -> str:
    parts = ["rated" if board.rated else "unrated"]
    parts.append(
        "a blocked player draws" if board.blocked_rule == "draw" else "a blocked player loses"
    )
    parts.append(f"reminder after {board.nag_days} days, forfeit after {board.forfeit_days} days")
    return "; ".join(parts)


def move_rows(notations: list[str], first: int = 1) -> list[tuple[str, str]]:
    """Two columns: Ohs's moves (odd numbers) left, Eks's (even) right.

    ``first`` is the number of the first move given; it is made odd so rows line up.
    """
    cells = [f"{first + i:>3}. {text}" for i, text in enumerate(notations)]
    if first % 2 == 0:
        cells.insert(0, "")
    rows = []
    for i in range(0, len(cells), 2):
        left = cells[i]
        right = cells[i + 1] if i + 1 < len(cells) else ""
        rows.append((left, right))
    return rows


def duration(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return "less than a minute"
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = []
    if days:
        parts.append(f"{days} d")
    if hours:
        parts.append(f"{hours} h")
    if minutes and not days:
        parts.append(f"{minutes} min")
    return " ".join(parts)


def at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def move_records(ctx: Context, board: Board) -> list[MoveRecord]:
    return list(
        ctx.session.scalars(
            select(MoveRecord)
            .where(MoveRecord.board_number == board.number)
            .order_by(MoveRecord.number)
        )
    )


def open_votes(ctx: Context, board: Board) -> list[str]:
    """The open draw offer and undo request of a board, as sentences saying how to answer."""
    sentences = []
    votes = ctx.session.scalars(
        select(Vote).where(Vote.board_number == board.number).order_by(Vote.kind)
    )
    for vote in votes:
        asker = (
            board.white_player if vote.player_id == board.white_player_id else (board.black_player)
        )
        other = opponent(board, asker).userid
        if vote.kind == "draw":
            what = "offers a draw"
        else:
            first = undo_first_move(ctx, board, asker, vote.ply)
            what = f"asks to take back {span(first or vote.ply, vote.ply)}"
        sentences.append(
            f"{asker.userid} {what}; {other} may answer with "
            f"'emergo move {board.number} {other} PASSWORD accept' (or reject)."
        )
    return sentences


def undo_first_move(ctx: Context, board: Board, player: Player, ply: int) -> int | None:
    """The first move an undo by ``player`` takes back: their last move (and all after it)."""
    return ctx.session.scalar(
        select(MoveRecord.number)
        .where(
            MoveRecord.board_number == board.number,
            MoveRecord.player_id == player.id,
            MoveRecord.number <= ply,
        )
        .order_by(MoveRecord.number.desc())
        .limit(1)
    )


def span(first: int, last: int) -> str:
    return f"move {first}" if first == last else f"moves {first} to {last}"


@dataclass
class BoardView:
    """What one board mail shows."""

    subject: str
    text: str


def board_view(
    ctx: Context,
    board: Board,
    game: Game,
    *,
    upto: int | None = None,
    all_moves: bool = False,
    comment: str | None = None,
    commenter: str | None = None,
    headline: str | None = None,
) -> BoardView:
    """The board mail text of ``board`` (``game`` is its replayed game, up to ``upto``)."""
    records = move_records(ctx, board)
    notations = [str(m) for m in game.moves]
    over = board.status != BOARD_ACTIVE and upto is None
    if all_moves or over or upto is not None:
        first = 1
    else:
        first = max(1, len(notations) - RECENT_MOVES + 1)
        if first % 2 == 0:
            first -= 1
    position = game.position
    to_move = board.player_of(position.to_move)
    if board.status != BOARD_ACTIVE or board.to_move is None:
        subject = f"Emergo Board {board.number} Game over"
    else:
        subject = f"Emergo Board {board.number} {board.player_of(board.to_move).userid}"
    as_of = None
    if over:
        status = result_sentence(board, game)
    elif upto is not None and upto < board.ply:
        status = (
            f"After move {upto} it was {to_move.userid}'s turn ({side_label(position.to_move)})."
        )
    elif upto is not None and board.status != BOARD_ACTIVE:
        status = result_sentence(board, game)
    else:
        status = (
            f"It is {to_move.userid}'s turn ({side_label(position.to_move)}): "
            f"move {position.ply + 1}."
        )
    if upto is not None:
        as_of = f"The board as of move {upto}; {_moves(board.ply)} have been played."
    times: list[str] = []
    last_move = None
    if records and upto is None:
        spent = {WHITE: timedelta(), BLACK: timedelta()}
        previous = board.created_at
        for record in records:
            side = WHITE if record.player_id == board.white_player_id else BLACK
            spent[side] += max(record.played_at - previous, timedelta())
            previous = record.played_at
        last = records[-1]
        last_move = f"Last move: {at(last.played_at)} (move {last.number}, {last.notation})."
        times = [
            f"{board.player_of(side).userid} {duration(spent[side])}" for side in (WHITE, BLACK)
        ]
    text = render(
        "board.txt.j2",
        number=board.number,
        white=board.white_player.userid,
        black=board.black_player.userid,
        white_rating=board.white_player.rating,
        black_rating=board.black_player.rating,
        options=options_text(board),
        headline=headline,
        as_of=as_of,
        votes=open_votes(ctx, board) if board.status == BOARD_ACTIVE and upto is None else [],
        status=status,
        ratings=rating_lines(ctx, board) if over else [],
        moves_total=len(notations),
        moves_first=first,
        move_rows=move_rows(notations[first - 1 :], first),
        board=render_board(position, board.white_player.userid, board.black_player.userid),
        comment=comment or None,
        commenter=commenter,
        last_move=last_move,
        times=times,
    )
    return BoardView(subject=subject, text=text)


def primary_address(player: Player) -> str | None:
    return player.addresses[0].address if player.addresses else None


def board_mails(
    ctx: Context,
    board: Board,
    game: Game,
    *,
    comment: str | None = None,
    commenter: str | None = None,
    headline: str | None = None,
) -> list[Reply]:
    """The board mail after a change: one to each player and each subscriber."""
    ctx.session.flush()
    ctx.session.refresh(board)
    view = board_view(ctx, board, game, comment=comment, commenter=commenter, headline=headline)
    recipients: list[str] = []
    for player in (board.white_player, board.black_player, *subscribers(ctx, board)):
        address = primary_address(player)
        if address and address.lower() not in {r.lower() for r in recipients}:
            recipients.append(address)
    thread = f"board-{board.number}"
    return [Reply(to=r, subject=view.subject, body=view.text, thread=thread) for r in recipients]


def subscribers(ctx: Context, board: Board) -> list[Player]:
    rows = ctx.session.scalars(
        select(Player)
        .join(Subscription, Subscription.player_id == Player.id)
        .where(
            or_(Subscription.board_number == board.number, Subscription.board_number.is_(None)),
            Player.signed_off_at.is_(None),
        )
        .order_by(Player.userid_key)
    )
    return list(rows)
