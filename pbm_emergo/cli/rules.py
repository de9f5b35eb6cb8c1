"""``pbm-emergo moves`` and ``pbm-emergo board``: the rules engine from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pbm_emergo.rules import Game, MoveError, render_board


def register(subparsers: Any) -> None:
    moves = subparsers.add_parser(
        "moves",
        help="replay moves from the start and list the legal moves",
        description="Replay MOVEs from the start position and print the legal moves, one "
        "per line, sorted. An illegal move exits with status 2 and the reason on stderr.",
    )
    moves.add_argument("moves", nargs="*", metavar="MOVE")
    moves.add_argument("--json", action="store_true", help="print one JSON object")
    moves.add_argument(
        "--blocked", choices=("loss", "draw"), default="loss",
        help="how a player with no legal move is scored (default: loss)",
    )
    moves.set_defaults(func=_moves)

    board = subparsers.add_parser(
        "board",
        help="print the ASCII board after some moves",
        description="Replay MOVEs from the start position and print the board.",
    )
    board.add_argument("moves", nargs="*", metavar="MOVE")
    board.add_argument("--white", default="Ohs", help="name shown for White")
    board.add_argument("--black", default="Eks", help="name shown for Black")
    board.set_defaults(func=_board)


def _replay(moves: list[str], blocked: str = "loss") -> Game | None:
    game = Game(blocked="draw" if blocked == "draw" else "loss")
    for number, text in enumerate(moves, start=1):
        try:
            game.play(text)
        except MoveError as err:
            print(f"pbm-emergo: move {number} ({text}): {err}", file=sys.stderr)
            return None
    return game


def _moves(args: argparse.Namespace) -> int:
    game = _replay(args.moves, args.blocked)
    if game is None:
        return 2
    position = game.position
    outcome = game.outcome()
    legal = [] if outcome else [str(m) for m in position.legal_moves()]
    if args.json:
        data = {
            "moves": [str(m) for m in game.moves],
            "legal_moves": legal,
            "to_move": position.to_move,
            "in_hand": {"white": position.in_hand("white"), "black": position.in_hand("black")},
            "capture_size": position.capture_size(),
            "columns": {
                cell: {"owner": col.owner, "own": col.own, "prisoners": col.prisoners}
                for cell, col in position.columns().items()
            },
            "ply": position.ply,
            "position": position.to_text(),
            "outcome": None if outcome is None
            else {"winner": outcome.winner, "reason": outcome.reason},
        }
        print(json.dumps(data, indent=2))
    else:
        for move in legal:
            print(move)
    return 0


def _board(args: argparse.Namespace) -> int:
    game = _replay(args.moves)
    if game is None:
        return 2
    sys.stdout.write(render_board(game.position, args.white, args.black))
    outcome = game.outcome()
    if outcome is not None:
        result = "a draw" if outcome.winner is None else f"{outcome.winner} wins"
        print(f"\nGame over: {result} ({outcome.reason}).")
    else:
        print(f"\nMove {game.position.ply + 1}: {game.position.to_move} to play.")
    return 0
