"""``pbm-emergo robot-match``: two robot levels (or a random mover) play each other."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pbm_emergo.robot.match import (
    OPENING_PLIES,
    GameResult,
    describe,
    parse_player,
    play_match,
    player_name,
)

HELP = "play robot levels (or random) against each other and print the score"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "robot-match", help=HELP, description=HELP,
        epilog="Example: pbm-emergo robot-match 3 random --games 20 --budget 10",
    )
    parser.add_argument(
        "a", metavar="A", help="1, 2, 3 (robot levels), 3/4 (robot3 at a quarter of the budget) "
        "or random",
    )
    parser.add_argument("b", metavar="B", help="1, 2, 3, 3/4 or random")
    parser.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    parser.add_argument(
        "--budget", type=float, default=10.0, metavar="SECONDS",
        help="a robot's time budget a move (default 10)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of game 1 (default 0)")
    parser.add_argument(
        "--opening", type=int, default=OPENING_PLIES, metavar="PLIES",
        help=f"random plies that open each pair of games (default {OPENING_PLIES})",
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="a line per game")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        a, b = parse_player(args.a), parse_player(args.b)
    except ValueError as error:
        print(f"pbm-emergo: {error}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("pbm-emergo: --games must be at least 1", file=sys.stderr)
        return 2

    def show(game: GameResult) -> None:
        if args.verbose:
            colour = "White" if game.a_white else "Black"
            print(f"game {game.number}: {player_name(a)} {colour}, score {game.score_a:g}, "
                  f"{game.reason}, {game.plies} plies", flush=True)

    if args.opening < 0:
        print("pbm-emergo: --opening must be at least 0", file=sys.stderr)
        return 2
    result = play_match(
        a, b, args.games, args.budget, args.seed, on_game=show, opening_plies=args.opening
    )
    for line in describe(result):
        print(line)
    return 0
