"""The sentences the decisions, the board mails and the web view share: how a game ended,
whose turn it is, which moves an undo takes back, the move list of a refusal."""

from __future__ import annotations

import re

from pbm_emergo.game.board import BLACK, WHITE, BoardState, other_side
from pbm_emergo.rules import Move, Position, Termination

SIDE_NAMES = {WHITE: "Ohs", BLACK: "Eks"}

MOVE_GUARD = re.compile(r"(.*?)#([0-9]{1,6})")


def split_guard(text: str) -> tuple[str, int | None]:
    """``"e4xc4#17"`` -> ("e4xc4", 17); no guard -> (text, None)."""
    match = MOVE_GUARD.fullmatch(text)
    if not match:
        return text, None
    return match[1], int(match[2])


def result_sentence(state: BoardState) -> str:
    """How a finished game ended, in one sentence."""
    reason = state.outcome_reason or ""
    if state.winner is not None:
        winner = state.seat(state.winner).userid
        loser = state.seat(other_side(state.winner)).userid
        because_by: dict[str, str] = {
            Termination.ELIMINATED: f"{loser} has no men left",
            Termination.BLOCKED: f"{loser} is blocked and cannot move",
            Termination.NO_LEGAL_ENTRY: f"{loser} has men in hand but nowhere to enter them",
            Termination.RESIGNED: f"{loser} resigned",
            Termination.FORFEIT: f"{loser} did not move in time",
            Termination.ADJUDICATED: "the server's operator adjudicated the game",
        }
        because = because_by.get(reason, reason)
        return f"{winner} ({SIDE_NAMES[state.winner]}) wins: {because}."
    if reason == Termination.VOIDED:
        return "The game is void: the server's operator annulled it (no result, no rating)."
    stuck = state.seat(state.position.to_move).userid
    draw_by: dict[str, str] = {
        Termination.REPETITION: "the same position came up for the third time",
        Termination.DRAW_AGREED: "both players agreed",
        Termination.BLOCKED: f"{stuck} is blocked and cannot move (a draw under -blocked=draw)",
        Termination.NO_LEGAL_ENTRY: (
            f"{stuck} has men in hand but nowhere to enter them (a draw under -blocked=draw)"
        ),
        Termination.ADJUDICATED: "the server's operator adjudicated the game",
    }
    because = draw_by.get(reason, reason)
    return f"The game is a draw: {because}."


def side_label(side: str) -> str:
    """``"Ohs"``: a side as the status sentence names it (the letters o and x are only
    the diagram's key)."""
    return SIDE_NAMES[side]


def status_sentence(
    state: BoardState, position: Position | None = None, upto: int | None = None
) -> str:
    """Where the game on ``state``'s board stands, in one sentence: how it ended, or whose
    turn it is; with ``upto`` (the board as of an earlier move, ``position`` the position
    then), whose turn it was after that move."""
    if position is None:
        position = state.position
    to_move = state.seat(position.to_move).userid
    if upto is not None and upto < state.ply:
        return f"After move {upto} it was {to_move}'s turn ({side_label(position.to_move)})."
    if not state.active:
        return result_sentence(state)
    return f"It is {to_move}'s turn ({side_label(position.to_move)}): move {position.ply + 1}."


def undo_first_move(state: BoardState, player_id: int, ply: int) -> int | None:
    """The first move an undo by the player takes back: their last move (and all after it)."""
    for move in reversed(state.moves):
        if move.player_id == player_id and move.number <= ply:
            return move.number
    return None


def span(first: int, last: int) -> str:
    return f"move {first}" if first == last else f"moves {first} to {last}"


def moves_in_lines(moves: list[Move], per_line: int = 8) -> list[str]:
    texts = [str(m) for m in moves]
    return ["  ".join(texts[i : i + per_line]) for i in range(0, len(texts), per_line)]
