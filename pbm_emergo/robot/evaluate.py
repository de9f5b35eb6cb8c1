"""A static evaluation of Emergo positions, in hundredths of a man, for the side to move.

The terms, each for both sides (the side to move's minus the other's):

* **material**: men that still fight, i.e. the men in a side's own sections (the caps and the
  men under them of the same colour) and in its hand. A capture moves one man from the
  loser's material to a prisoner; a liberation gives the prisoners back.
* **prisoners under a thin cap**: a side's men held under an enemy cap of few men are likely
  to be freed (one capture frees them all when the cap is one man), so they count for part
  of a man, less the taller the cap above them.
* **mobility**: steps a side could make (a vacant neighbour of one of its caps). A side that
  cannot move loses, so this weighs more once its hand is empty.
* **safety of entries**: while a side has men in hand, the cells it could enter on without
  feeding; none at all means losing by "no legal entry".
* **men in hand and the shadowpiece**: a man in hand cannot be captured and may come in
  where it is needed; the side whose opponent has emptied his hand enters all its men at
  once as the shadowpiece, a tall column that is hard to take, so men still in hand then
  weigh a little more.
* **threats**: the side to move is never to capture here (a search evaluates only quiet
  positions), but the other side may have captures waiting; each of the side to move's
  columns that can be jumped costs part of a man.

The weights were set by hand and checked by robot matches (README, "Robots").
"""

from __future__ import annotations

from dataclasses import dataclass

from pbm_emergo.rules import Position
from pbm_emergo.rules.board import VALID

MAN = 100


@dataclass(frozen=True, slots=True)
class Weights:
    """How much each term counts (hundredths of a man per unit)."""

    prisoner_under_one: int = 40  # a prisoner under a one-man enemy cap
    step: int = 3  # a possible step, while the side still has men in hand
    step_no_hand: int = 8  # a possible step, once the hand is empty
    blocked_soon: int = 150  # no step at all with an empty hand (the search sees the loss)
    safe_entry: int = 2  # a cell to enter on without feeding (counted up to 10)
    no_safe_entry: int = 250  # men in hand and no safe cell left
    shadow: int = 15  # a man in hand when the opponent's hand is empty
    threatened: int = 35  # a column of the side to move that the opponent can jump
    material_only: bool = False


FULL = Weights()
MATERIAL = Weights(material_only=True)


def evaluate(pos: Position, weights: Weights = FULL) -> int:
    """The value of ``pos`` for the side to move, in hundredths of a man."""
    hands = pos.hands
    table = _MATERIAL.get(weights.prisoner_under_one)
    if table is None:
        table = _MATERIAL[weights.prisoner_under_one] = _material_table(weights)
    # The cells' sum in C (map over a dict), not a Python loop: the leaves' largest cost.
    white_ahead = (hands[0] - hands[1]) * MAN + sum(map(table.__getitem__, pos.cell_values))
    side = pos.side_index
    score = white_ahead if side == 0 else -white_ahead
    if weights.material_only:
        return score

    masks = pos.cap_masks
    mine = masks[side]
    theirs = masks[1 - side]
    vacant = VALID & ~(mine | theirs)
    my_hand = hands[side]
    their_hand = hands[1 - side]
    score += _mobility(mine, vacant, my_hand, weights) - _mobility(theirs, vacant, their_hand,
                                                                  weights)
    if my_hand:
        score += _entries(mine, theirs, vacant, weights)
        if not their_hand:
            score += my_hand * weights.shadow
    if their_hand:
        score -= _entries(theirs, mine, vacant, weights)
        if not my_hand:
            score -= their_hand * weights.shadow
    # My columns with an enemy cap on one side and a vacant cell on the other.
    jumpable = mine & (
        (theirs << 11 & vacant >> 11)
        | (theirs >> 11 & vacant << 11)
        | (theirs << 1 & vacant >> 1)
        | (theirs >> 1 & vacant << 1)
    )
    if jumpable:
        score -= jumpable.bit_count() * weights.threatened
    return score


def _material_table(weights: Weights) -> dict[int, int]:
    """Every cell value's material for White minus Black: the column's own men, and its
    prisoners under a thin cap for their side (a cell holds at most 31 men of each side)."""
    under = weights.prisoner_under_one
    table = {0: 0}
    for own in range(1, 32):
        for prisoners in range(32):
            worth = own * MAN - prisoners * under // own
            table[own | prisoners << 5] = worth
            table[-(own | prisoners << 5)] = -worth
    return table


#: The material tables by the weight of a prisoner under a one-man cap.
_MATERIAL: dict[int, dict[int, int]] = {}


def _mobility(caps: int, vacant: int, hand: int, weights: Weights) -> int:
    steps = (
        (caps & vacant << 11).bit_count()
        + (caps & vacant >> 11).bit_count()
        + (caps & vacant << 1).bit_count()
        + (caps & vacant >> 1).bit_count()
    )
    if hand:
        return steps * weights.step
    if not steps and caps:
        return -weights.blocked_soon
    return steps * weights.step_no_hand


def _entries(mine: int, theirs: int, vacant: int, weights: Weights) -> int:
    """The worth of ``mine``'s safe entry cells (feeding judged as if it were to move)."""
    attacked = theirs & (
        (mine << 11 & vacant << 22)
        | (mine >> 11 & vacant >> 22)
        | (mine << 1 & vacant << 2)
        | (mine >> 1 & vacant >> 2)
    )
    if attacked:
        return 10 * weights.safe_entry  # any vacant cell will do
    safe = vacant & ~(
        (theirs << 11 & vacant >> 11)
        | (theirs >> 11 & vacant << 11)
        | (theirs << 1 & vacant >> 1)
        | (theirs >> 1 & vacant << 1)
    )
    count = safe.bit_count()
    if not count:
        return -weights.no_safe_entry
    return min(count, 10) * weights.safe_entry
