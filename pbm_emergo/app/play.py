"""Playing on a board: a move, resigning, a draw offered or answered, a move taken back.

:func:`play` is what ``emergo move`` asks for, once the command found the board and
logged the player in; the robots' runner and the scheduler use :class:`Turn` and the steps
below directly.
"""


from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pbm_emergo.app.boards import (
    BoardState,
    OpenVote,
    board_mails,
    board_view,
    finish_game,
    other_side,
    result_sentence,
    span,
    split_guard,
    undo_first_move,
)
from pbm_emergo.app.chain import play_and_follow
from pbm_emergo.app.decline import decline, has_moved
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import games, ratings
from pbm_emergo.db.games import BoardFacts
from pbm_emergo.db.models import Board, Player
from pbm_emergo.db.ratings import GameRating
from pbm_emergo.rules import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Termination,
)
from pbm_emergo.telemetry.sections import timed

if TYPE_CHECKING:
    from pbm_emergo.db.session import Session

KEYWORDS = ("resign", "propose", "accept", "reject", "undo")


def board_text(state: BoardState) -> str:
    """The board part of an error reply."""
    return board_view(state).text


def moves_in_lines(moves: list[Move], per_line: int = 8) -> list[str]:
    texts = [str(m) for m in moves]
    return ["  ".join(texts[i : i + per_line]) for i in range(0, len(texts), per_line)]


class Turn:
    """One player's command on one board: what it read, and what its writes will store."""

    def __init__(
        self, ctx: UnitOfWork, board: Board, player: Player, facts: BoardFacts | None = None
    ) -> None:
        self.ctx = ctx
        self.board = board
        self.player = player
        self.state = BoardState.load(ctx.session, board, facts)
        self.number = board.number

    def error(self, reason: str, *, with_board: bool = True, **details: Any) -> Refused:
        text = board_text(self.state) if with_board else None
        return Refused(reason, board=self.number, board_text=text, **details)

    @property
    def other(self) -> str:
        return self.state.opponent(self.player.id).userid

    def tell_players(self, state: BoardState, headline: str) -> Result:
        """The board mail after this player's command, with their comment and a headline."""
        return Result(
            summary="",
            replies=board_mails(
                self.ctx, state, comment=self.ctx.comment, commenter=self.player.userid,
                headline=headline,
            ),
        )

    def finish(
        self, state: BoardState, winner: str | None, termination: Termination,
        rating: GameRating | None = None,
    ) -> BoardState:
        """End the game now (stored by a write that re-checks the ratings it announces:
        ``rating``, else the players' ratings as read)."""
        return finish_game(self.ctx, self.board, state, winner, termination, rating)


def play(
    ctx: UnitOfWork, player: Player, board: Board, move: str, facts: BoardFacts | None = None
) -> Result:
    """Everything ``emergo move`` does once the board was found and the player logged in:
    ``move`` (``MOVE[#n]`` or a keyword) played by ``player`` on ``board`` (``facts``: read
    with it)."""
    number = board.number
    if board.side_of(player) is None:
        raise Refused(
            f"{player.userid} does not play on board {number}: it is "
            f"{board.white_player.userid} against {board.black_player.userid}.",
            board=number,
        )
    turn = Turn(ctx, board, player, facts)
    if not turn.state.active:
        raise turn.error(f"The game on board {number} is over: {result_sentence(turn.state)}")
    text, guard = split_guard(move)
    if guard is not None and guard != board.ply + 1:
        raise turn.error(
            f"Board {number} is at move {board.ply + 1}, not move {guard}: nothing was done.",
            template="error/stale_move.txt.j2",
            given=guard,
            expected=board.ply + 1,
        )
    keyword = text.lower()
    if keyword == "resign":
        return resign(turn)
    if keyword == "propose":
        return propose(turn)
    if keyword == "undo":
        return request_undo(turn)
    if keyword in ("accept", "reject"):
        return answer(turn, accept=keyword == "accept")
    return play_move(turn, text)


def play_move(turn: Turn, text: str) -> Result:
    with timed("rules"):
        return _play_move(turn, text)


def _play_move(turn: Turn, text: str) -> Result:
    ctx, board, player, number = turn.ctx, turn.board, turn.player, turn.number
    game = games.resume_game(ctx.session, board, turn.state.position)
    position = game.position
    if board.side_of(player) != position.to_move:
        raise turn.error(
            f"It is not your turn on board {number}: it is "
            f"{turn.state.seat(position.to_move).userid}'s."
        )
    try:
        move = position.parse_move(text)
    except InvalidMoveError as err:
        raise turn.error(str(err), template="error/malformed_move.txt.j2") from None
    except AmbiguousMoveError as err:
        raise turn.error(
            f"{text} matches several capture routes on board {number}; write the whole route.",
            template="error/ambiguous_move.txt.j2",
            candidates=[str(m) for m in err.candidates],
        ) from None
    except IllegalMoveError as err:
        legal = position.legal_moves()
        raise turn.error(
            f"{text} is not a legal move on board {number} now.",
            template="error/illegal_move.txt.j2",
            why=str(err),
            capture_size=position.capture_size(),
            legal_lines=moves_in_lines(legal),
            legal_count=len(legal),
        ) from None
    # The move, then the queued and forced moves it leads to (game/chain.py), stored
    # together; one board mail lists them all.
    chain, state = play_and_follow(ctx, board, turn.state, game, player, move)
    replies = chain.mails(state, comment=ctx.comment, commenter=player.userid)
    return Result(summary=chain.summary(state), replies=replies)


def resign(turn: Turn) -> Result:
    if not has_moved(turn.state, turn.player.id):
        # Resigning before one's first move declines the game (game/decline.py).
        return decline(turn.ctx, turn.state, turn.player.id)
    winner = other_side(turn.state.side_of(turn.player.id) or "")
    state = turn.finish(turn.state, winner, Termination.RESIGNED)
    result = turn.tell_players(state, f"{turn.player.userid} resigned.")
    result.summary = f"resigned on board {turn.number}"
    return result


def resign_all(
    ctx: UnitOfWork, player: Player, boards: Sequence[Board], headline: str
) -> list[Reply]:
    """Resign each of ``boards`` for ``player`` (signing off, an operator's deletion): the
    final board mails, each with ``headline``. Each resignation moves the ratings the next
    one starts from."""
    replies: list[Reply] = []
    standing: dict[int, ratings.Standing] = {}
    for board in boards:
        turn = Turn(ctx, board, player)
        winner = other_side(turn.state.side_of(player.id) or "")
        rating = None
        if board.rated:
            white, black = (
                standing.get(p.id, ratings.Standing(p.rating, p.rated_games))
                for p in (board.white_player, board.black_player)
            )
            rating = ratings.game_rating(white, black, winner)
            standing[board.white_player_id] = white.after(rating.white_change)
            standing[board.black_player_id] = black.after(rating.black_change)
        state = turn.finish(turn.state, winner, Termination.RESIGNED, rating)
        replies += board_mails(ctx, state, headline=headline)
    return replies


def propose(turn: Turn) -> Result:
    existing = _vote(turn.state, "draw")
    if existing is not None and existing.player_id != turn.player.id:
        # Both players want a draw: that is an agreement.
        return answer(turn, accept=True)
    _refuse_second_vote(turn)
    return _open_vote(
        turn, "draw",
        headline=f"{turn.player.userid} offers a draw.",
        summary=f"offered a draw on board {turn.number}",
    )


def _vote(state: BoardState, kind: str) -> OpenVote | None:
    return next((v for v in state.votes if v.kind == kind), None)


def _refuse_second_vote(turn: Turn) -> None:
    """A player has at most one open vote on a board: refuse another until it is answered."""
    mine = next((v for v in turn.state.votes if v.player_id == turn.player.id), None)
    if mine is not None:
        what = "offered a draw" if mine.kind == "draw" else "asked to take back a move"
        raise turn.error(
            f"You have already {what} on board {turn.number}; wait for {turn.other}'s answer.",
            with_board=False,
        )


def _open_vote(turn: Turn, kind: str, *, headline: str, summary: str) -> Result:
    """Record a draw offer or an undo request and tell both players."""
    number, player_id, ply, now = turn.number, turn.player.id, turn.state.ply, turn.ctx.now
    turn.ctx.write(lambda s: games.open_vote(s, number, kind, player_id, ply, now))
    state = turn.state.replace(votes=(*turn.state.votes, OpenVote(kind, player_id, ply)))
    result = turn.tell_players(state, headline)
    result.summary = summary
    return result


def request_undo(turn: Turn) -> Result:
    state = turn.state
    first = undo_first_move(state, turn.player.id, state.ply)
    if first is None:
        raise turn.error(f"You have no move to take back on board {turn.number}.")
    _refuse_second_vote(turn)
    if _vote(state, "undo") is not None:
        raise turn.error(
            f"{turn.other} has asked to take back a move on board {turn.number}; "
            "answer that first with accept or reject.",
            with_board=False,
        )
    return _open_vote(
        turn, "undo",
        headline=f"{turn.player.userid} asks to take back {span(first, state.ply)}.",
        summary=f"asked to take back {span(first, state.ply)}",
    )


def answer(turn: Turn, *, accept: bool) -> Result:
    ctx, state, number = turn.ctx, turn.state, turn.number
    other = state.opponent(turn.player.id)
    vote = next((v for v in state.votes if v.player_id == other.id), None)
    if vote is None:
        raise turn.error(
            f"{other.userid} has neither offered a draw nor asked to take back a move on "
            f"board {number}, so there is nothing to {'accept' if accept else 'reject'}.",
            with_board=False,
        )
    what = "draw offer" if vote.kind == "draw" else "request to take back a move"
    me = turn.player.userid
    kind, asker = vote.kind, other.id
    if not accept:
        ctx.write(lambda s: games.remove_vote(s, number, kind, asker))
        after = state.replace(votes=tuple(v for v in state.votes if v != vote))
        result = turn.tell_players(after, f"{me} rejected {other.userid}'s {what}.")
        result.summary = f"rejected the {what} on board {number}"
        return result
    if vote.kind == "draw":
        after = turn.finish(state, None, Termination.DRAW_AGREED)
        result = turn.tell_players(after, f"{me} accepted {other.userid}'s draw offer.")
        result.summary = f"agreed to a draw on board {number}"
        return result
    first = undo_first_move(state, other.id, vote.ply)
    if first is None or vote.ply != state.ply:  # the board moved on: the request is void
        ctx.write(lambda s: games.remove_vote(s, number, kind, asker))
        raise Refused(
            f"The request to take back a move on board {number} no longer fits the game.",
            board=number,
            writes=ctx.writes[-1:],
        )
    game = games.load_game(ctx.session, turn.board, upto=first - 1)
    ply = state.ply

    def take_back(session: Session) -> None:
        games.take_back(session, number, ply, game)
        games.drop_votes(session, number)

    ctx.write(take_back)
    after = state.replace(
        ply=game.position.ply,
        position=game.position,
        to_move=game.position.to_move,
        moves=tuple(m for m in state.moves if m.number < first),
        votes=(),
    )
    headline = (
        f"{me} accepted: {span(first, vote.ply)} taken back. "
        f"It is {other.userid}'s turn again."
    )
    result = turn.tell_players(after, headline)
    result.summary = f"took back {span(first, vote.ply)} on board {number}"
    return result
