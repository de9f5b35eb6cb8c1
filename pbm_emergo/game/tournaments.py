"""Leagues and tournaments as values: who plays whom, how a table is ranked, who goes
through a knock-out match, who moves up and down a league.

Pure: players are their ids (ints), results the words the pairings store. The shell
(:mod:`pbm_emergo.app.events`) reads an event, asks these functions, and writes what they
say. Swiss pairing is the one decision not made here: it is FIDE's Dutch system, which the
shell asks of a library (``caissify-pairings``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ROUND_ROBIN = "round-robin"
SWISS = "swiss"
KNOCKOUT = "knockout"
LEAGUE = "league"
EVENT_FORMATS = (ROUND_ROBIN, SWISS, KNOCKOUT, LEAGUE)

EVENT_OPEN = "open"
EVENT_RUNNING = "running"
EVENT_FINISHED = "finished"
EVENT_CANCELLED = "cancelled"
EVENT_STATUSES = (EVENT_OPEN, EVENT_RUNNING, EVENT_FINISHED, EVENT_CANCELLED)
# Still to be played: taking entries, or under way.
EVENT_UNDER_WAY = (EVENT_OPEN, EVENT_RUNNING)

# What an event still has to tell its players, stored with the change that makes it news
# and mailed after that change is committed: a round's new board (its first board mail),
# the event cancelled for want of players, its final table, a league's next season.
NEWS_BOARD = "board"
NEWS_CANCELLED = "cancelled"
NEWS_FINISHED = "finished"
NEWS_SEASON = "season"
NEWS_KINDS = (NEWS_BOARD, NEWS_CANCELLED, NEWS_FINISHED, NEWS_SEASON)

ROBOTS_FILL = "fill"
ROBOTS_NONE = "none"
ROBOT_POLICIES = (ROBOTS_FILL, ROBOTS_NONE)

WHITE_WON = "white"
BLACK_WON = "black"
DRAWN = "draw"
BYE = "bye"
PAIRING_RESULTS = (WHITE_WON, BLACK_WON, DRAWN, BYE)

# A league division's places: the top two go up, the sixth and below go down.
PROMOTED = 2
FIRST_RELEGATED = 6


@dataclass(frozen=True)
class Pairing:
    """One game of a round: ``black`` None is a bye for ``white``."""

    white: int
    black: int | None


@dataclass(frozen=True)
class Game:
    """A game of an event as the tables count it: ``result`` one of PAIRING_RESULTS, or
    None while it is played (it counts for nothing yet)."""

    white: int
    black: int | None
    result: str | None


# --- round robin --------------------------------------------------------------------------


def berger_rounds(players: Sequence[int], cycles: int = 1) -> list[list[Pairing]]:
    """The rounds of a round robin by Berger's tables: every two players meet once per
    cycle (with the colours turned round in the second), each plays once a round; with an
    odd number of players, the one who would meet the missing player has a bye.

    The players are in seed order. The last seat stays put while the others turn round it,
    and it changes colour every round, so that colours alternate as far as they can."""
    seats: list[int | None] = list(players)
    if len(seats) % 2:
        seats.append(None)
    count = len(seats)
    if count < 2:
        return []
    fixed = seats[-1]
    turning = seats[:-1]
    first: list[list[Pairing]] = []
    for number in range(count - 1):
        # Berger: each round the turning seats move on by half the table.
        shift = (number * (count // 2)) % (count - 1)
        ring = turning[shift:] + turning[:shift]
        games: list[tuple[int | None, int | None]] = []
        games.append((ring[0], fixed) if number % 2 == 0 else (fixed, ring[0]))
        for i in range(1, count // 2):
            games.append((ring[i], ring[count - 1 - i]))
        first.append([_seated(white, black) for white, black in games])
    rounds = [list(r) for r in first]
    for cycle in range(1, cycles):
        for r in first:
            rounds.append([_turned(p) if cycle % 2 else p for p in r])
    return rounds


def _seated(white: int | None, black: int | None) -> Pairing:
    """A game of two seats; a seat without a player makes a bye for the other."""
    if white is None:
        assert black is not None
        return Pairing(black, None)
    return Pairing(white, black)


def _turned(pairing: Pairing) -> Pairing:
    if pairing.black is None:
        return pairing
    return Pairing(pairing.black, pairing.white)


# --- standings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One player's line of a table: place, points, the tie-break, games played."""

    place: int
    player: int
    points: float
    tiebreak: float
    played: int
    won: int
    drawn: int
    lost: int


def points(players: Iterable[int], games: Iterable[Game], bye_points: float) -> dict[int, float]:
    """Each player's points: 1 a win, ½ a draw, ``bye_points`` a bye."""
    scores = {p: 0.0 for p in players}
    for game in games:
        for player, score in _scores(game, bye_points):
            scores[player] = scores.get(player, 0.0) + score
    return scores


def _scores(game: Game, bye_points: float) -> list[tuple[int, float]]:
    if game.result is None:
        return []
    if game.result == BYE or game.black is None:
        return [(game.white, bye_points)]
    white = {WHITE_WON: 1.0, BLACK_WON: 0.0, DRAWN: 0.5}[game.result]
    return [(game.white, white), (game.black, 1.0 - white)]


def sonneborn_berger(players: Iterable[int], games: Sequence[Game]) -> dict[int, float]:
    """Sonneborn-Berger: the points of each opponent beaten, and half those of each one
    drawn with (byes count nothing)."""
    scores = points(players, games, 0.0)
    result = {p: 0.0 for p in scores}
    for game in games:
        for player, score in _scores(game, 0.0):
            if game.black is None:
                continue
            opponent = game.black if player == game.white else game.white
            result[player] = result.get(player, 0.0) + score * scores.get(opponent, 0.0)
    return result


def buchholz(players: Iterable[int], games: Sequence[Game]) -> dict[int, float]:
    """Buchholz: the sum of the points of every opponent met (byes count nothing)."""
    scores = points(players, games, 1.0)
    result = {p: 0.0 for p in scores}
    for game in games:
        if game.result is None or game.black is None:
            continue
        result[game.white] = result.get(game.white, 0.0) + scores.get(game.black, 0.0)
        result[game.black] = result.get(game.black, 0.0) + scores.get(game.white, 0.0)
    return result


def standings(players: Sequence[int], games: Sequence[Game], event_format: str) -> list[Line]:
    """The table: points first, then the tie-break (Buchholz for a Swiss, Sonneborn-Berger
    otherwise), then the seed (the order of ``players``). A Swiss bye counts a point; a
    round robin's bye is a round off and counts nothing."""
    swiss = event_format == SWISS
    scores = points(players, games, 1.0 if swiss else 0.0)
    ties = buchholz(players, games) if swiss else sonneborn_berger(players, games)
    seed = {p: i for i, p in enumerate(players)}
    tally = {p: [0, 0, 0] for p in players}
    for game in games:
        if game.result is None or game.black is None:
            continue
        for player, score in _scores(game, 0.0):
            tally[player][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    order = sorted(players, key=lambda p: (-scores[p], -ties[p], seed[p]))
    return [
        Line(
            place=i + 1,
            player=p,
            points=scores[p],
            tiebreak=ties[p],
            played=sum(tally[p]),
            won=tally[p][0],
            drawn=tally[p][1],
            lost=tally[p][2],
        )
        for i, p in enumerate(order)
    ]


def points_text(value: float) -> str:
    """``2``, ``2½``, ``½``: points as a table shows them."""
    whole, half = int(value), value - int(value) >= 0.5
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


# --- knock-out ----------------------------------------------------------------------------


def knockout_size(count: int) -> int:
    """The bracket's size: the smallest power of two that seats ``count`` players."""
    size = 1
    while size < count:
        size *= 2
    return size


def knockout_rounds(count: int) -> int:
    """How many rounds a knock-out of ``count`` players has."""
    return max(knockout_size(count).bit_length() - 1, 1)


def first_knockout_round(seeded: Sequence[int]) -> list[Pairing]:
    """The first round's matches: seed 1 against the last seat, 2 against the one before...;
    the top seeds meet the empty seats of a bracket that is not full (byes)."""
    size = knockout_size(len(seeded))
    seats: list[int | None] = list(seeded) + [None] * (size - len(seeded))
    return [_seated(seats[i], seats[size - 1 - i]) for i in range(size // 2)]


def next_knockout_round(winners: Sequence[int]) -> list[Pairing]:
    """The next round: the winners of matches 1 and 2 meet, of 3 and 4, and so on (the
    bracket as drawn), the winner of the earlier match with Ohs first."""
    return [
        Pairing(winners[i], winners[i + 1] if i + 1 < len(winners) else None)
        for i in range(0, len(winners), 2)
    ]


def match_games(first: Pairing) -> list[Pairing]:
    """A match's two games: the colours turned round in the second."""
    if first.black is None:
        return [first]
    return [first, Pairing(first.black, first.white)]


def match_winner(higher_seed: int, lower_seed: int, games: Sequence[Game]) -> int | None:
    """Who goes through a match of ``games`` (two games, then a decider if needed):
    the player with more points after the first two games; level after two, a third game
    (the decider) decides; a drawn decider puts the higher seed through. None while a
    game that decides is still being played, or a decider is needed and not played."""
    decided = [g for g in games if g.result is not None]
    if len(decided) < min(len(games), 2):
        return None
    scores = points((higher_seed, lower_seed), decided[:2], 1.0)
    if scores[higher_seed] != scores[lower_seed]:
        return higher_seed if scores[higher_seed] > scores[lower_seed] else lower_seed
    if len(games) < 3:
        return None
    decider = games[2]
    if decider.result is None:
        return None
    if decider.result == DRAWN:
        return higher_seed
    return decider.white if decider.result == WHITE_WON else decider.black


def decider(higher_seed: int, lower_seed: int) -> Pairing:
    """A level match's third game: the lower seed has Ohs (the first move), since a drawn
    decider puts the higher seed through."""
    return Pairing(lower_seed, higher_seed)


# --- leagues ------------------------------------------------------------------------------


def next_season(
    divisions: Sequence[Sequence[int]], leaving: Iterable[int] = (), joining: Sequence[int] = ()
) -> list[list[int]]:
    """The divisions of the next season from this season's final tables (each division's
    players in their final order, division 1 the top): the top ``PROMOTED`` of every
    division but the first go up one, the ``FIRST_RELEGATED``-th and below of every division
    but the last go down one; everyone else stays. Players ``leaving`` are left out,
    ``joining`` ones start in the last division. Empty divisions are dropped."""
    gone = set(leaving)
    result: list[list[int]] = [[] for _ in divisions]
    last = len(divisions) - 1
    for index, table in enumerate(divisions):
        for place, player in enumerate(table, start=1):
            if player in gone:
                continue
            target = index
            if index > 0 and place <= PROMOTED:
                target = index - 1
            elif index < last and place >= FIRST_RELEGATED:
                target = index + 1
            result[target].append(player)
    if result:
        result[-1].extend(p for p in joining if p not in gone)
    else:
        result = [[p for p in joining if p not in gone]]
    return [division for division in result if division]


def league_divisions(seeded: Sequence[int], size: int) -> list[list[int]]:
    """A first season's divisions: the players in seed order, ``size`` to a division (a
    last division of fewer than half a division joins the one above)."""
    size = max(size, 2)
    chunks = [list(seeded[i : i + size]) for i in range(0, len(seeded), size)]
    if len(chunks) > 1 and len(chunks[-1]) < max(size // 2, 2):
        chunks[-2].extend(chunks.pop())
    return chunks
