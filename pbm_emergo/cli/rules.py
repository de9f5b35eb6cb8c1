"""``pbm-emergo moves``, ``pbm-emergo board`` and ``pbm-emergo rules replay``: the rules
engine from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pbm_emergo.rules import Game, MoveError, render_board
from pbm_emergo.rules.record import RecordError, parse_record, replay


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
        "--blocked",
        choices=("loss", "draw"),
        default="loss",
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

    rules = subparsers.add_parser(
        "rules",
        help="check a game record file and print its final position",
        description="The rules engine on files.",
    )
    tools = rules.add_subparsers(dest="rules_command", metavar="COMMAND", required=True)
    replayer = tools.add_parser(
        "replay",
        help="check a game record file and print its final position",
        description="Read a game record file (docs/record.md; - for standard input), play "
        "its moves on the rules and print the board after the last. A malformed file or an "
        "illegal move exits with status 2 and the line and move number on stderr.",
    )
    replayer.add_argument("file", metavar="FILE")
    replayer.set_defaults(func=_replay_record)


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
            "outcome": None
            if outcome is None
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


def _replay_record(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as file:
                text = file.read()
    except (OSError, UnicodeDecodeError) as err:
        print(f"pbm-emergo: cannot read {args.file}: {err}", file=sys.stderr)
        return 2
    try:
        record = parse_record(text)
        game = replay(record)
    except RecordError as err:
        print(f"pbm-emergo: {args.file}: {err}", file=sys.stderr)
        return 2
    white, black = record.tag("White") or "Ohs", record.tag("Black") or "Eks"
    sys.stdout.write(render_board(game.position, white, black))
    outcome = game.outcome()
    moves = f"{len(record.moves)} move{'' if len(record.moves) == 1 else 's'}"
    if outcome is not None:
        result = "a draw" if outcome.winner is None else f"{outcome.winner} wins"
        print(f"\nAfter {moves}: game over, {result} ({outcome.reason}).")
    else:
        print(
            f"\nAfter {moves}: {game.position.to_move} to play; the record's result is "
            f"{record.result}."
        )
    return 0
