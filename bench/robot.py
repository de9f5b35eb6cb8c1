"""The robots' ladder: random, robot1, robot2, robot3 and robot3 at a quarter of its budget
play each other; scores, Bradley-Terry ratings with intervals, time per move.

    nice -n 10 .venv/bin/python bench/robot.py [--random-robot1 400] [--robot1-robot2 300]
        [--robot2-robot3 100] [--robot3-quarter 140] [--pair A B GAMES ...]
        [--round-robin --games 40] [--budget 10] [--opening 4] [--seed 0] [--jobs N] [--quiet]

Players: ``random`` (a uniformly random mover), ``1``, ``2``, ``3`` (the robots at the budget,
by default the server's 10 s) and ``3/4`` (robot3 with a quarter of it). The pairs played: every
adjacent pair (random-robot1, robot1-robot2, robot2-robot3) and robot3 against robot3/4, each
with the games its option says (0 leaves a pair out); ``--round-robin`` plays every pair of the
five with ``--games``; ``--pair A B GAMES`` sets a pair's count (or adds a pair). Games come in
pairs from the same opening (``--opening`` seeded random plies), each player White once
(:mod:`pbm_emergo.robot.match`), so counts are rounded up to even numbers.

``--jobs N`` plays N games at a time in separate processes, one game a task; the games and so
the results are the same whatever N (a robot's move depends on its node allowance, not the
clock), only the times per move change with the machine's load.

Prints a line per game, then each pair's score with Wilson's 95% interval, robot3 against
robot3/4 against its aim (at least 65%), the ratings (:mod:`pbm_emergo.robot.ladder`), the time
per move and nodes per second of each robot, and the Python literal of the measured table for
``pbm_emergo/robot/ladder.py``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import statistics
import sys
import time
from itertools import combinations

from pbm_emergo.robot.ladder import fit
from pbm_emergo.robot.match import (
    OPENING_PLIES,
    RANDOM,
    MatchResult,
    PlayedGame,
    SideStats,
    describe,
    parse_player,
    play_game,
    player_name,
    wilson,
)

PLAYERS = (RANDOM, "1", "2", "3", "3/4")
ADJACENT = ((RANDOM, "1"), ("1", "2"), ("2", "3"))
QUARTER = ("3", "3/4")
#: The options giving the games of each default pair, and their defaults: the full run on 16
#: cores in about 5 minutes. The cheap pairs (a game in a second or less) are played most, as
#: a pair won 100% only says that the difference is large.
PAIR_OPTIONS = ("--random-robot1", "--robot1-robot2", "--robot2-robot3", "--robot3-quarter")
PAIR_GAMES = (400, 300, 100, 140)
#: robot3 at the budget against robot3 at a quarter of it: the score aimed at.
QUARTER_AIM = 0.65
#: The robot accounts of the server and the ladder players they are.
ACCOUNTS = {"robot1": "1", "robot2": "2", "robot3": "3"}
#: A rough cost of a game by the stronger player, to start the longest games first.
_COST = {RANDOM: 0, "1": 1, "2": 2, "3/4": 3, "3": 4}

Task = tuple[int, str, str, int, float, int, int]


def _play(task: Task) -> tuple[int, PlayedGame, float]:
    pair, a, b, number, budget, seed, opening_plies = task
    started = time.perf_counter()
    played = play_game(a, b, number, budget, seed, opening_plies)
    return pair, played, time.perf_counter() - started


def _pairs(args: argparse.Namespace) -> list[tuple[str, str, int]]:
    if args.round_robin:
        counts = {pair: args.games for pair in combinations(PLAYERS, 2)}
    else:
        counts = {
            pair: getattr(args, option.removeprefix("--").replace("-", "_"))
            for option, pair in zip(PAIR_OPTIONS, (*ADJACENT, QUARTER), strict=True)
        }
    for a_text, b_text, games_text in args.pair or []:
        a, b = parse_player(a_text), parse_player(b_text)
        key = (b, a) if (b, a) in counts else (a, b)
        counts[key] = int(games_text)
    return [(a, b, games + games % 2) for (a, b), games in counts.items() if games > 0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for option, default, (a, b) in zip(PAIR_OPTIONS, PAIR_GAMES, (*ADJACENT, QUARTER),
                                        strict=True):
        parser.add_argument(option, type=int, default=default, metavar="GAMES",
                            help=f"{player_name(a)} vs {player_name(b)} (default {default})")
    parser.add_argument("--games", type=int, default=40, help="each pair of --round-robin")
    parser.add_argument("--pair", nargs=3, action="append", metavar=("A", "B", "GAMES"),
                        help="the games of one pair (repeatable), e.g. --pair 1 3 20")
    parser.add_argument("--round-robin", action="store_true", help="every pair, --games each")
    parser.add_argument("--budget", type=float, default=10.0, help="seconds a move")
    parser.add_argument("--opening", type=int, default=OPENING_PLIES,
                        help="random plies that open each pair of games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="games played at a time")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    args = parser.parse_args(argv)
    command = f"python bench/robot.py {' '.join(sys.argv[1:] if argv is None else argv)}"
    print(f"command: {command.rstrip()}")
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, {args.jobs} jobs, "
          f"budget {args.budget:g} s a move, openings of {args.opening} plies", flush=True)

    pairs = _pairs(args)
    tasks: list[Task] = [
        (index, a, b, number, args.budget, args.seed, args.opening)
        for index, (a, b, games) in enumerate(pairs)
        for number in range(1, games + 1)
    ]
    # The longest games first, so that the last ones to finish are short.
    tasks.sort(key=lambda t: -max(_COST[t[1]], _COST[t[2]]) - min(_COST[t[1]], _COST[t[2]]))
    played: list[dict[int, PlayedGame]] = [{} for _ in pairs]
    started = time.perf_counter()
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        for done, (index, game, seconds) in enumerate(pool.imap_unordered(_play, tasks), 1):
            played[index][game.result.number] = game
            if not args.quiet:
                a, b, _ = pairs[index]
                r = game.result
                print(f"[{done}/{len(tasks)} {time.perf_counter() - started:.0f} s] "
                      f"{player_name(a)} vs {player_name(b)} game {r.number} "
                      f"({player_name(a)} {'White' if r.a_white else 'Black'}): "
                      f"{r.score_a:g}, {r.reason}, {r.plies} plies, {seconds:.0f} s", flush=True)
    wall = time.perf_counter() - started

    print(f"\nscores ({len(tasks)} games, {wall:.0f} s):")
    scores: dict[tuple[str, str], tuple[float, int]] = {}
    stats: dict[str, SideStats] = {}
    quarter: MatchResult | None = None
    for (a, b, _), games in zip(pairs, played, strict=True):
        match = MatchResult(a, b)
        for number in sorted(games):
            match.add(games[number])
        print(describe(match)[0])
        scores[player_name(a), player_name(b)] = (
            sum(g.score_a for g in match.games), len(match.games)
        )
        for key, player in (("a", a), ("b", b)):
            if player != RANDOM:
                stats.setdefault(player_name(player), SideStats()).merge(match.stats[key])
        if {a, b} == set(QUARTER):
            quarter = match

    if quarter is not None:
        score = quarter.score_a if quarter.a == "3" else 1 - quarter.score_a
        low, high = wilson(score, len(quarter.games))
        verdict = "met" if score >= QUARTER_AIM else "NOT met"
        print(f"\naim: robot3 at least {100 * QUARTER_AIM:.0f}% against robot3/4: {verdict} "
              f"({100 * score:.1f}%, 95% interval {100 * low:.1f}%-{100 * high:.1f}%, "
              f"{len(quarter.games)} games)")

    try:
        ratings = fit(scores, anchor=RANDOM)
    except ValueError as error:
        print(f"\nno ratings: {error}")
        ratings = {}
    if ratings:
        print("\nratings (Bradley-Terry, MAP with one virtual draw a pair, random = 0, "
              "95% Laplace intervals):")
    for name, rating in sorted(ratings.items(), key=lambda item: item[1].rating):
        print(f"  {name:10} {rating.rating:6.0f}  ({rating.low:.0f} to {rating.high:.0f})")

    print("\ntime a move:")
    for name in sorted(stats):
        times = stats[name].times
        if times:
            print(f"  {name:10} {len(times)} moves, median {statistics.median(times):.3f} s, "
                  f"mean {statistics.fmean(times):.3f} s, worst {max(times):.3f} s; "
                  f"{stats[name].nodes_per_second:,.0f} nodes/s")

    if not ratings:
        return 0
    counts = ", ".join(f"{player_name(a)}-{player_name(b)} {n}" for a, b, n in pairs)
    print("\nfor pbm_emergo/robot/ladder.py:")
    print("LADDER_SOURCE = (")
    print(f'    "{os.cpu_count()} CPUs, python {platform.python_version()}, budget '
          f'{args.budget:g} s a move, "')
    print(f'    "games a pair: {counts}"')
    print(")")
    print(f"LADDER_COMMAND = {command.rstrip()!r}")
    print("LADDER: dict[str, LadderEntry] = {")
    for account, player in ACCOUNTS.items():
        rating = ratings.get(player_name(player))
        if rating is not None:
            print(f'    "{account}": LadderEntry({rating.rating:.0f}, {rating.low:.0f}, '
                  f'{rating.high:.0f}),')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
