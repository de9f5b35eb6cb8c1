"""Computer opponents for Emergo: pure, standard library only, no I/O (like ``rules``).

::

    from pbm_emergo.robot import choose_move
    move = choose_move(position, level=3, budget_s=10.0, seed=0)

Levels: 1 (weak: one ply and the captures it leads to, material only, noisy), 2 (medium:
three plies, full evaluation) and 3 (strong: iterative deepening as far as its node limit and
time budget allow). :func:`think` also returns the score, depth and nodes searched.
"""

from pbm_emergo.robot.evaluate import FULL, MATERIAL, Weights, evaluate
from pbm_emergo.robot.search import (
    LEVELS,
    WIN,
    Decision,
    Level,
    choose_move,
    resigns,
    think,
)

#: The robot accounts of the server (made by a migration) and their levels.
ROBOTS: dict[str, int] = {"robot1": 1, "robot2": 2, "robot3": 3}
#: How each level plays, in a word, for the help page.
STRENGTH: dict[int, str] = {1: "weak", 2: "medium", 3: "strong"}

__all__ = [
    "FULL",
    "LEVELS",
    "MATERIAL",
    "ROBOTS",
    "STRENGTH",
    "WIN",
    "Decision",
    "Level",
    "Weights",
    "choose_move",
    "evaluate",
    "resigns",
    "think",
]
