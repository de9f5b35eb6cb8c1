"""The formats of events on values: Berger tables, tables with their tie-breaks, knock-out
matches, a league's promotion and relegation."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from pbm_emergo.game.tournaments import (
    BLACK_WON,
    BYE,
    DRAWN,
    KNOCKOUT,
    ROUND_ROBIN,
    SWISS,
    WHITE_WON,
    Game,
    Pairing,
    berger_rounds,
    buchholz,
    decider,
    first_knockout_round,
    knockout_rounds,
    league_divisions,
    match_games,
    match_winner,
    next_knockout_round,
    next_season,
    points_text,
    sonneborn_berger,
    standings,
)


@given(st.integers(min_value=2, max_value=24), st.integers(min_value=1, max_value=2))
def test_berger_tables_pair_every_two_players_exactly_once_a_cycle(count: int, cycles: int) -> None:
    players = list(range(1, count + 1))
    rounds = berger_rounds(players, cycles)
    per_cycle = count - 1 if count % 2 == 0 else count
    assert len(rounds) == per_cycle * cycles
    met: dict[frozenset[int], int] = {}
    for games in rounds:
        seen = [p for g in games for p in (g.white, g.black) if p is not None]
        assert sorted(seen) == players  # everyone once a round (a bye counts)
        assert sum(1 for g in games if g.black is None) == count % 2
        for g in games:
            if g.black is not None:
                key = frozenset((g.white, g.black))
                met[key] = met.get(key, 0) + 1
    assert set(met) == {frozenset(pair) for pair in combinations(players, 2)}
    assert set(met.values()) == {cycles}


def test_a_double_round_robin_turns_the_colours_round() -> None:
    rounds = berger_rounds([1, 2, 3, 4], 2)
    whites = {(g.white, g.black) for r in rounds for g in r}
    assert all((b, w) in whites for w, b in whites)


@given(st.integers(min_value=3, max_value=12))
def test_colours_stay_balanced_in_a_round_robin(count: int) -> None:
    rounds = berger_rounds(list(range(count)), 1)
    for player in range(count):
        white = sum(1 for r in rounds for g in r if g.white == player and g.black is not None)
        black = sum(1 for r in rounds for g in r if g.black == player)
        assert abs(white - black) <= 1


def test_round_robin_table_breaks_ties_by_sonneborn_berger() -> None:
    # 1 beats 2, 2 beats 3, 3 beats 1 would tie all three; 4 loses to all but 1.
    games = [
        Game(1, 2, WHITE_WON), Game(2, 3, WHITE_WON), Game(3, 1, WHITE_WON),
        Game(1, 4, BLACK_WON), Game(2, 4, WHITE_WON), Game(3, 4, DRAWN),
    ]  # fmt: skip
    table = standings([1, 2, 3, 4], games, ROUND_ROBIN)
    scores = {line.player: line.points for line in table}
    assert scores == {1: 1.0, 2: 2.0, 3: 1.5, 4: 1.5}
    sb = sonneborn_berger([1, 2, 3, 4], games)
    # 3 drew with 4 (1.5 points) and beat 1 (1 point): 1 + 0.75; 4 beat 1, drew with 3.
    assert sb[3] == 1.75 and sb[4] == 1.75
    assert [line.player for line in table][:1] == [2]
    assert table[0].won == 2 and table[0].lost == 1
    # Level on points and on Sonneborn-Berger: the seed decides.
    assert [line.player for line in table][1:3] == [3, 4]


def test_swiss_table_counts_a_bye_and_breaks_ties_by_buchholz() -> None:
    games = [Game(1, 2, WHITE_WON), Game(3, None, BYE), Game(3, 1, BLACK_WON), Game(2, None, BYE)]
    table = standings([1, 2, 3], games, SWISS)
    assert {line.player: line.points for line in table} == {1: 2.0, 2: 1.0, 3: 1.0}
    bh = buchholz([1, 2, 3], games)
    assert bh == {1: 2.0, 2: 2.0, 3: 2.0}
    assert [line.player for line in table] == [1, 2, 3]


def test_a_game_being_played_counts_nothing() -> None:
    table = standings([1, 2], [Game(1, 2, None)], ROUND_ROBIN)
    assert [(line.points, line.played) for line in table] == [(0.0, 0), (0.0, 0)]


def test_points_are_shown_with_halves() -> None:
    assert [points_text(v) for v in (0.0, 0.5, 2.0, 2.5)] == ["0", "½", "2", "2½"]


def test_knockout_brackets_give_the_top_seeds_the_byes() -> None:
    assert knockout_rounds(4) == 2 and knockout_rounds(5) == 3 and knockout_rounds(2) == 1
    assert first_knockout_round([1, 2, 3, 4]) == [Pairing(1, 4), Pairing(2, 3)]
    assert first_knockout_round([1, 2, 3]) == [Pairing(1, None), Pairing(2, 3)]
    assert next_knockout_round([1, 3]) == [Pairing(1, 3)]
    assert match_games(Pairing(1, 4)) == [Pairing(1, 4), Pairing(4, 1)]


def test_a_match_is_won_on_points_then_by_a_decider_then_by_the_higher_seed() -> None:
    won = [Game(1, 4, WHITE_WON), Game(4, 1, DRAWN)]
    assert match_winner(1, 4, won) == 1
    assert match_winner(1, 4, [Game(1, 4, WHITE_WON), Game(4, 1, None)]) is None
    level = [Game(1, 4, WHITE_WON), Game(4, 1, WHITE_WON)]
    assert match_winner(1, 4, level) is None  # a decider is due
    assert decider(1, 4) == Pairing(4, 1)
    assert match_winner(1, 4, [*level, Game(4, 1, WHITE_WON)]) == 4
    assert match_winner(1, 4, [*level, Game(4, 1, DRAWN)]) == 1


def test_a_league_promotes_the_top_two_and_relegates_sixth_and_below() -> None:
    top = [1, 2, 3, 4, 5, 6, 7]
    second = [11, 12, 13, 14, 15, 16]
    third = [21, 22, 23]
    after = next_season([top, second, third], leaving=[3], joining=[31])
    assert after[0] == [1, 2, 4, 5, 11, 12]
    assert after[1] == [6, 7, 13, 14, 15, 21, 22]
    assert after[2] == [16, 23, 31]


@given(st.lists(st.lists(st.integers(), min_size=1, max_size=9), min_size=1, max_size=4))
def test_a_new_season_keeps_everyone_who_stays(tables: list[list[int]]) -> None:
    seen: set[int] = set()
    divisions = []
    for table in tables:
        unique = [p for p in dict.fromkeys(table) if p not in seen]
        seen.update(unique)
        if unique:
            divisions.append(unique)
    if not divisions:
        return
    after = next_season(divisions)
    assert sorted(p for d in after for p in d) == sorted(seen)


def test_first_season_divisions_by_seed() -> None:
    assert league_divisions(list(range(9)), 4) == [[0, 1, 2, 3], [4, 5, 6, 7, 8]]
    assert league_divisions(list(range(8)), 4) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert KNOCKOUT == "knockout"
