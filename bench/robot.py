"""Benchmark of the robots: the strength and speed targets.

    nice -n 10 .venv/bin/python bench/robot.py [--random-games 200] [--strong-games 100]
        [--medium-games 100] [--budget 10] [--seed 0]

Plays, from the start position, with colours alternating:

* robot3 against a uniformly random mover (aim: at least 99% wins);
* robot3 against robot1 (aim: at least 80% score);
* robot2 against robot1 (aim: above 60% score);

and prints each match's score with Wilson's 95% interval, and the time per move (mean,
median, worst) and nodes per second of each robot. Aim for time: robot3's median under
2 s a move, its worst under its budget. The full run takes hours on a shared two-core
machine; smaller counts give the same figures with wider intervals. A count of 0 skips
that match.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from pbm_emergo.robot.match import GameResult, MatchResult, describe, play_match


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random-games", type=int, default=200)
    parser.add_argument("--strong-games", type=int, default=100, help="robot3 vs robot1")
    parser.add_argument("--medium-games", type=int, default=100, help="robot2 vs robot1")
    parser.add_argument("--budget", type=float, default=10.0, help="seconds a move")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    args = parser.parse_args(argv)
    print(f"command: .venv/bin/python bench/robot.py {' '.join(argv or sys.argv[1:])}".rstrip())
    print(f"python {sys.version.split()[0]}, budget {args.budget:g} s a move", flush=True)

    def progress(game: GameResult) -> None:
        if not args.quiet:
            print(f"  game {game.number}: score {game.score_a:g} ({game.reason}, "
                  f"{game.plies} plies)", flush=True)

    verdicts = []
    robot3_times: list[float] = []
    for a, b, games, aim, name in (
        ("3", "random", args.random_games, 0.99, "robot3 vs random: at least 99%"),
        ("3", "1", args.strong_games, 0.80, "robot3 vs robot1: at least 80%"),
        ("2", "1", args.medium_games, 0.6000001, "robot2 vs robot1: above 60%"),
    ):
        if games <= 0:
            continue
        started = time.perf_counter()
        result: MatchResult = play_match(a, b, games, args.budget, args.seed, on_game=progress)
        for line in describe(result):
            print(line)
        print(f"  ({time.perf_counter() - started:.0f} s)", flush=True)
        if a == "3":
            robot3_times += result.stats["a"].times
        met = result.score_a >= aim
        verdicts.append(f"{name}: {'met' if met else 'NOT met'} "
                        f"({100 * result.score_a:.1f}% over {games} games)")
    if robot3_times:
        median, worst = statistics.median(robot3_times), max(robot3_times)
        verdicts.append(
            f"robot3 median move under 2 s: {'met' if median < 2 else 'NOT met'} "
            f"({median:.3f} s); worst under the budget: "
            f"{'met' if worst < args.budget else 'NOT met'} ({worst:.3f} s, "
            f"{len(robot3_times)} moves)"
        )
    print("aims:")
    for verdict in verdicts:
        print(f"  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
