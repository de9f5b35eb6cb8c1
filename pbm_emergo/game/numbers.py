"""The numbers the server plays by, named once: the commands' help quotes them, the shell
and the data layer apply them."""

from __future__ import annotations

# A new player's Glicko-2 rating, rating deviation and volatility (the deviation and the
# volatility are Glicko-2's own starting values; the rating keeps this server's scale).
START_RATING = 1600
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
# A rating is provisional while its deviation is above this (lichess's threshold: about ten
# rated games against established players bring a newcomer below it).
PROVISIONAL_DEVIATION = 110
# A rated board's game moves ratings only when each player made at least this many moves on
# it, and only when its two players finished no game that moved ratings against each other
# in this many days before (game/ratings.py, counts_for_rating).
RATED_MOVES_EACH = 4
PAIR_RATED_DAYS = 7
# A player with no rated game within this many days, and none under way, is listed as
# inactive.
INACTIVE_DAYS = 365
# `emergo history` lists at most this many games.
HISTORY_LIMIT = 100
# A new board's reminder (nag) and forfeit times, in days, unless its challenge sets them.
DEFAULT_NAG_DAYS = 7
DEFAULT_FORFEIT_DAYS = 28
# The most active boards a limit may name, and the most games one may seek.
MAX_LIMIT = 999
MAX_SEEK = 99
