"""How often each robot errs, as the analysis of finished games judges its moves.

    .venv/bin/python bench/robot_mistakes.py [--games 4] [--seconds 0.5] [--nodes 20000]
        [--jobs 2] [--seed 0]

Plays --games games of each of the ladder's adjacent pairs (random against robot1, robot1
against robot2, robot2 against robot3, robot3 against robot3/4: the same games as
``bench/robot.py`` plays first, with the same openings and seeds) and analyses every game as
``emergo analyse`` does (:func:`pbm_emergo.robot.analysis.analyse`: the strong search, at most
--seconds and --nodes a position). Prints, for each player, the moves judged, the average
loss a move in men, and the inaccuracies, mistakes and blunders per 100 moves (thresholds:
docs/robot.md). The judge is robot3's own search, so robot3's figures measure only what a
deeper look at the position after its move changes; they are a floor, not a grade.
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import sys
from collections import Counter

from pbm_emergo.robot.analysis import analyse
from pbm_emergo.robot.match import RANDOM, game_opening, play_game, player_name

PAIRS = ((RANDOM, "1"), ("1", "2"), ("2", "3"), ("3", "3/4"))
LABELS = ("inaccuracy", "mistake", "blunder")
PLURALS = ("inaccuracies", "mistakes", "blunders")

Task = tuple[str, str, int, int, float, int]


def _judge(task: Task) -> list[tuple[str, int, str]]:
    """One game played and analysed: (player, loss, label) for each move after the opening."""
    a, b, number, seed, seconds, nodes = task
    played = play_game(a, b, number, seed=seed)
    moves = played.result.moves
    report = analyse(moves, seconds_per_move=seconds, node_limit=nodes)
    opening = len(game_opening(number, seed))
    white, black = (a, b) if played.result.a_white else (b, a)
    return [
        (white if verdict.side == 0 else black, verdict.loss, verdict.label)
        for verdict in report.verdicts[opening:]
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games of each pair")
    parser.add_argument("--seconds", type=float, default=0.5, help="analysis time a position")
    parser.add_argument("--nodes", type=int, default=20_000, help="analysis nodes a position")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    given = sys.argv[1:] if argv is None else argv
    print(f"command: python bench/robot_mistakes.py {' '.join(given)}".rstrip())
    print(f"python {platform.python_version()}; analysis at most {args.seconds:g} s and "
          f"{args.nodes:,} nodes a position", flush=True)
    tasks: list[Task] = [
        (a, b, number, args.seed, args.seconds, args.nodes)
        for a, b in PAIRS for number in range(1, args.games + 1)
    ]
    moves: Counter[str] = Counter()
    loss: Counter[str] = Counter()
    labels: dict[str, Counter[str]] = {}
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        for judged in pool.imap_unordered(_judge, tasks):
            for player, move_loss, label in judged:
                moves[player] += 1
                loss[player] += move_loss
                labels.setdefault(player, Counter())[label] += 1
    print(f"\n{'player':10} {'moves':>6} {'loss/move':>10} " +
          " ".join(f"{plural + '/100':>16}" for plural in PLURALS))
    for player in (RANDOM, "1", "2", "3/4", "3"):
        if not moves[player]:
            continue
        per_100 = [100 * labels[player][label] / moves[player] for label in LABELS]
        print(f"{player_name(player):10} {moves[player]:6d} "
              f"{loss[player] / moves[player] / 100:10.2f} "
              + " ".join(f"{value:16.1f}" for value in per_100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
