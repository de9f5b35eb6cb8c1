"""``emergo move board userid password MOVE[#n]``: play a move, or resign, offer or answer
a draw, ask to take a move back. ``emergo resign board userid password`` is a short form.

The move number guard ``#n`` takes the move only as move n of the game (both players'
moves counted); otherwise nothing changes and the reply names the move number due.
"""

from __future__ import annotations

from sqlalchemy import delete, select, update

from pbm_emergo.commands.accounts import authenticate
from pbm_emergo.commands.api import Reply
from pbm_emergo.commands.base import Command, CommandError, Context, Result
from pbm_emergo.commands.boards import (
    board_mails,
    board_view,
    get_board,
    opponent,
    result_sentence,
    span,
    split_guard,
    undo_first_move,
)
from pbm_emergo.db import service
from pbm_emergo.db.models import BLACK, BOARD_ACTIVE, WHITE, Board, MoveRecord, Player, Vote
from pbm_emergo.rules import (
    AmbiguousMoveError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Move,
)

KEYWORDS = ("resign", "propose", "accept", "reject", "undo")


def board_text(ctx: Context, board: Board, game: Game | None = None) -> str:
    """The board part of an error reply."""
    game = game or service.load_game(ctx.session, board)
    return board_view(ctx, board, game, all_moves=board.status != BOARD_ACTIVE).text


def moves_in_lines(moves: list[Move], per_line: int = 8) -> list[str]:
    texts = [str(m) for m in moves]
    return ["  ".join(texts[i : i + per_line]) for i in range(0, len(texts), per_line)]


class MoveCommand(Command):
    name = "emergo move"
    argument_description = "board userid password MOVE[#n]"
    description = "play MOVE (e4, e4-e5, e4xc4xc6), or resign, propose, accept, reject, undo"
    details = (
        "Plays MOVE on the board for USERID. Notation: e4 enters a man (or the shadowpiece), "
        "e4-e5 moves a piece, e4xc4xc6 captures (the start cell, then every landing cell). "
        "Add #n to play the move only as move n of the game (both players' moves counted): "
        "e4xc4#17. Instead of a move: resign; propose (offer a draw); undo (ask to take "
        "back your last move); accept or reject (answer your opponent's offer or request). "
        "The body of the mail is a comment both players see."
    )
    section = "emergo"
    secret_args = (2,)
    min_args = max_args = 4

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        return play(ctx, args[0], args[1], args[2], args[3])


class ResignCommand(Command):
    name = "emergo resign"
    argument_description = "board userid password"
    description = "resign the game on that board"
    section = "emergo"
    secret_args = (2,)
    min_args = max_args = 3

    def process(self, ctx: Context, args: list[str]) -> Result:
        self.check_arity(args)
        return play(ctx, args[0], args[1], args[2], "resign")


def play(ctx: Context, board_arg: str, userid: str, password: str, move_arg: str) -> Result:
    """Everything ``emergo move`` does, after its arguments were counted."""
    board, upto = get_board(ctx, board_arg)
    number = board.number
    if upto is not None:
        raise CommandError(
            f"Write the move number after the move, not after the board: "
            f"emergo move {number} {userid} PASSWORD MOVE#{upto}.",
            board=number,
        )
    player = authenticate(ctx, userid, password, board=number)
    if board.side_of(player) is None:
        raise CommandError(
            f"{player.userid} does not play on board {number}: it is "
            f"{board.white_player.userid} against {board.black_player.userid}.",
            board=number,
        )
    game = service.load_game(ctx.session, board)
    if board.status != BOARD_ACTIVE:
        raise CommandError(
            f"The game on board {number} is over: {result_sentence(board, game)}",
            board=number,
            board_text=board_text(ctx, board, game),
        )
    text, guard = split_guard(move_arg)
    if guard is not None and guard != board.ply + 1:
        raise CommandError(
            f"Board {number} is at move {board.ply + 1}, not move {guard}: nothing was done.",
            board=number,
            template="error/stale_move.txt.j2",
            board_text=board_text(ctx, board, game),
            given=guard,
            expected=board.ply + 1,
        )
    keyword = text.lower()
    if keyword == "resign":
        return resign(ctx, board, player, game)
    if keyword == "propose":
        return propose(ctx, board, player, game)
    if keyword == "undo":
        return request_undo(ctx, board, player, game)
    if keyword in ("accept", "reject"):
        return answer(ctx, board, player, game, accept=keyword == "accept")
    return play_move(ctx, board, player, game, text)


def play_move(ctx: Context, board: Board, player: Player, game: Game, text: str) -> Result:
    number = board.number
    position = game.position
    if board.side_of(player) != position.to_move:
        raise CommandError(
            f"It is not your turn on board {number}: it is "
            f"{board.player_of(position.to_move).userid}'s.",
            board=number,
            board_text=board_text(ctx, board, game),
        )
    try:
        move = position.parse_move(text)
    except InvalidMoveError as err:
        raise CommandError(
            str(err),
            board=number,
            template="error/malformed_move.txt.j2",
            board_text=board_text(ctx, board, game),
        ) from None
    except AmbiguousMoveError as err:
        raise CommandError(
            f"{text} matches several capture routes on board {number}; write the whole route.",
            board=number,
            template="error/ambiguous_move.txt.j2",
            board_text=board_text(ctx, board, game),
            candidates=[str(m) for m in err.candidates],
        ) from None
    except IllegalMoveError as err:
        legal = position.legal_moves()
        raise CommandError(
            f"{text} is not a legal move on board {number} now.",
            board=number,
            template="error/illegal_move.txt.j2",
            board_text=board_text(ctx, board, game),
            why=str(err),
            capture_size=position.capture_size(),
            legal_lines=moves_in_lines(legal),
            legal_count=len(legal),
        ) from None
    try:
        applied = service.apply_move(
            ctx.session, board, board.ply, str(move), player, ctx.comment or None, ctx.now,
            game=game,
        )
    except service.StaleMoveError as err:
        # Another move on this board was committed between our read and our write.
        raise CommandError(
            str(err) + " Nothing was done; look at the board and try again.", board=number
        ) from None
    except service.BoardFinishedError:
        # The game ended (a resignation, a forfeit) between our read and our write.
        raise CommandError(
            f"The game on board {number} is over: {result_sentence(board, game)}",
            board=number,
        ) from None
    # A move answers "no" to the opponent's draw offer, and any undo request is void.
    ctx.session.execute(
        delete(Vote).where(
            Vote.board_number == number, (Vote.kind == "undo") | (Vote.player_id != player.id)
        )
    )
    headline = f"{player.userid} played {applied.move} (move {applied.record.number})."
    replies = _tell_players(ctx, board, applied.game, player, headline)
    summary = f"played {applied.move} on board {number}"
    if applied.outcome is not None:
        summary += f"; {result_sentence(board, applied.game)}"
    return Result(summary=summary, replies=replies)


def resign(ctx: Context, board: Board, player: Player, game: Game) -> Result:
    winner = BLACK if board.side_of(player) == WHITE else WHITE
    try:
        service.finish_board(ctx.session, board, winner, "resigned", ctx.now)
    except service.BoardFinishedError as err:
        raise CommandError(str(err), board=board.number) from None
    replies = _tell_players(ctx, board, game, player, f"{player.userid} resigned.")
    return Result(summary=f"resigned on board {board.number}", replies=replies)


def _tell_players(
    ctx: Context, board: Board, game: Game, player: Player, headline: str
) -> list[Reply]:
    """The board mail after ``player``'s command, with their comment and a headline."""
    return board_mails(
        ctx, board, game, comment=ctx.comment, commenter=player.userid, headline=headline
    )


def _vote(ctx: Context, board: Board, kind: str) -> Vote | None:
    return ctx.session.scalars(
        select(Vote).where(Vote.board_number == board.number, Vote.kind == kind)
    ).one_or_none()


def _open_vote_of(ctx: Context, board: Board, player: Player) -> Vote | None:
    return ctx.session.scalars(
        select(Vote).where(Vote.board_number == board.number, Vote.player_id == player.id)
    ).first()


def propose(ctx: Context, board: Board, player: Player, game: Game) -> Result:
    number = board.number
    existing = _vote(ctx, board, "draw")
    if existing is not None and existing.player_id != player.id:
        # Both players want a draw: that is an agreement.
        return answer(ctx, board, player, game, accept=True)
    _refuse_second_vote(ctx, board, player)
    return _open_vote(
        ctx, board, player, game, "draw",
        headline=f"{player.userid} offers a draw.",
        summary=f"offered a draw on board {number}",
    )


def _refuse_second_vote(ctx: Context, board: Board, player: Player) -> None:
    """A player has at most one open vote on a board: refuse another until it is answered."""
    mine = _open_vote_of(ctx, board, player)
    if mine is not None:
        what = "offered a draw" if mine.kind == "draw" else "asked to take back a move"
        raise CommandError(
            f"You have already {what} on board {board.number}; wait for "
            f"{opponent(board, player).userid}'s answer.",
            board=board.number,
        )


def _open_vote(
    ctx: Context, board: Board, player: Player, game: Game, kind: str, *,
    headline: str, summary: str,
) -> Result:
    """Record a draw offer or an undo request and tell both players."""
    ctx.session.add(
        Vote(board_number=board.number, kind=kind, player_id=player.id, ply=board.ply,
             created_at=ctx.now)
    )
    replies = _tell_players(ctx, board, game, player, headline)
    return Result(summary=summary, replies=replies)


def request_undo(ctx: Context, board: Board, player: Player, game: Game) -> Result:
    number = board.number
    first = undo_first_move(ctx, board, player, board.ply)
    if first is None:
        raise CommandError(
            f"You have no move to take back on board {number}.",
            board=number,
            board_text=board_text(ctx, board, game),
        )
    _refuse_second_vote(ctx, board, player)
    if _vote(ctx, board, "undo") is not None:
        raise CommandError(
            f"{opponent(board, player).userid} has asked to take back a move on board {number}; "
            "answer that first with accept or reject.",
            board=number,
        )
    return _open_vote(
        ctx, board, player, game, "undo",
        headline=f"{player.userid} asks to take back {span(first, board.ply)}.",
        summary=f"asked to take back {span(first, board.ply)}",
    )


def answer(ctx: Context, board: Board, player: Player, game: Game, *, accept: bool) -> Result:
    number = board.number
    other = opponent(board, player)
    vote = ctx.session.scalars(
        select(Vote).where(Vote.board_number == number, Vote.player_id == other.id)
    ).first()
    if vote is None:
        raise CommandError(
            f"{other.userid} has neither offered a draw nor asked to take back a move on "
            f"board {number}, so there is nothing to {'accept' if accept else 'reject'}.",
            board=number,
        )
    what = "draw offer" if vote.kind == "draw" else "request to take back a move"
    if not accept:
        ctx.session.delete(vote)
        headline = f"{player.userid} rejected {other.userid}'s {what}."
        replies = _tell_players(ctx, board, game, player, headline)
        return Result(summary=f"rejected the {what} on board {number}", replies=replies)
    if vote.kind == "draw":
        service.finish_board(ctx.session, board, None, "draw agreed", ctx.now)
        headline = f"{player.userid} accepted {other.userid}'s draw offer."
        replies = _tell_players(ctx, board, game, player, headline)
        return Result(summary=f"agreed to a draw on board {number}", replies=replies)
    first = undo_first_move(ctx, board, other, vote.ply)
    if first is None or vote.ply != board.ply:  # the board moved on: the request is void
        ctx.session.delete(vote)
        raise CommandError(
            f"The request to take back a move on board {number} no longer fits the game.",
            board=number,
        )
    game = take_back(ctx, board, first)
    ctx.session.execute(delete(Vote).where(Vote.board_number == number))
    headline = (
        f"{player.userid} accepted: {span(first, vote.ply)} taken back. "
        f"It is {other.userid}'s turn again."
    )
    replies = _tell_players(ctx, board, game, player, headline)
    return Result(summary=f"took back {span(first, vote.ply)} on board {number}", replies=replies)


def take_back(ctx: Context, board: Board, first: int) -> Game:
    """Remove moves ``first`` and later; the board is as it was after move ``first - 1``."""
    ply = board.ply
    game = service.load_game(ctx.session, board, upto=first - 1)
    result = ctx.session.execute(
        update(Board)
        .where(Board.number == board.number, Board.ply == ply, Board.status == BOARD_ACTIVE)
        .values(ply=first - 1, position=game.position.to_text(), to_move=game.position.to_move)
        .execution_options(synchronize_session=False)
    )
    if service.rowcount(result) != 1:
        raise CommandError(f"Board {board.number} has changed meanwhile; nothing was taken back.")
    ctx.session.execute(
        delete(MoveRecord).where(
            MoveRecord.board_number == board.number, MoveRecord.number >= first
        )
    )
    ctx.session.expire(board)
    return game
