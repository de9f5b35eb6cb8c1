"""Swiss pairings: FIDE's Dutch system, as the ``caissify-pairings`` library implements it
(checked against the FIDE-endorsed bbpPairings). The shell gives it each player's score,
colours, floats and byes so far, recomputed from the event's games every round, as the
library asks of its callers; it never pairs two players who have met."""

from __future__ import annotations

from collections.abc import Sequence

from caissify_pairings import generate_pairings

from pbm_emergo.game.tournaments import Game, Pairing, points


def swiss_pairings(
    seeded: Sequence[int],
    rounds: Sequence[Sequence[Game]],
    round_number: int,
    total_rounds: int,
) -> list[Pairing]:
    """Round ``round_number``'s pairings of the players ``seeded`` (in seed order), given
    the games of each round before."""
    colours: dict[int, list[str]] = {p: [] for p in seeded}
    floats: dict[int, list[str]] = {p: [] for p in seeded}
    byes = dict.fromkeys(seeded, 0)
    met: set[tuple[int, int]] = set()
    played: list[Game] = []
    for round_games in rounds:
        before = points(seeded, played, 1.0)
        for game in round_games:
            if game.black is None:
                byes[game.white] = byes.get(game.white, 0) + 1
                colours[game.white].append("none")
                floats[game.white].append("down")
                continue
            met.add((min(game.white, game.black), max(game.white, game.black)))
            colours[game.white].append("white")
            colours[game.black].append("black")
            white, black = before[game.white], before[game.black]
            floats[game.white].append(_float(white, black))
            floats[game.black].append(_float(black, white))
        played += round_games
    scores = points(seeded, played, 1.0)
    entries = [
        {
            "id": player, "name": str(player), "score": scores[player],
            "rating": 0, "starting_number": seed,
            "color_hist": colours[player], "float_history": floats[player],
            "bye_count": byes[player],
        }
        for seed, player in enumerate(seeded, start=1)
    ]  # fmt: skip
    found = generate_pairings(
        system="dutch",
        players=entries,
        previous_pairings=met,
        round_number=round_number,
        total_rounds=max(total_rounds, round_number),
    )
    return [Pairing(int(p["white_id"]), p.get("black_id")) for p in found]


def _float(mine: float, theirs: float) -> str:
    """A game's float for the player: down against a lower score, up against a higher."""
    return "down" if mine > theirs else "up" if mine < theirs else "none"
