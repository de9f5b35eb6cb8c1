"""Swiss pairings by FIDE's Dutch system (caissify-pairings) as the events use them: over
any results, no two players meet twice, everyone plays once a round, an odd player out has
a bye, a second one only when nobody without one could take it and leave the others
pairable without a rematch (FIDE C.2)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbm_emergo.app.swiss import swiss_pairings
from pbm_emergo.game.tournaments import BLACK_WON, BYE, DRAWN, WHITE_WON, Game


@settings(max_examples=25, deadline=None)
@given(
    st.integers(min_value=4, max_value=9),
    st.lists(st.sampled_from([WHITE_WON, BLACK_WON, DRAWN]), min_size=40, max_size=40),
)
def test_swiss_never_repeats_a_pairing(count: int, outcomes: list[str]) -> None:
    players = list(range(10, 10 + count))
    rounds_total = min(count - 1, 4)
    played: list[list[Game]] = []
    met: set[frozenset[int]] = set()
    byes: list[int] = []
    results = iter(outcomes)
    for number in range(1, rounds_total + 1):
        pairings = swiss_pairings(players, played, number, rounds_total)
        seen = [p for g in pairings for p in (g.white, g.black) if p is not None]
        assert sorted(seen) == players
        games = []
        met_before = set(met)
        for g in pairings:
            if g.black is None:
                if g.white in byes:  # a second bye only when no one else could take it
                    assert not any(
                        _pairable([q for q in players if q != p], met_before)
                        for p in players if p not in byes
                    )
                byes.append(g.white)
                games.append(Game(g.white, None, BYE))
                continue
            pair = frozenset((g.white, g.black))
            assert pair not in met
            met.add(pair)
            games.append(Game(g.white, g.black, next(results)))
        played.append(games)


def _pairable(players: list[int], met: set[frozenset[int]]) -> bool:
    """Whether ``players`` can all be paired without two who met before."""
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(
        _pairable([q for q in rest if q != other], met)
        for other in rest if frozenset((first, other)) not in met
    )
