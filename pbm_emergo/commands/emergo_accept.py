"""``emergo accept userid password``: accept every challenge (the default)."""

from __future__ import annotations

from pbm_emergo.commands.challenge_policy import PolicyCommand


class AcceptCommand(PolicyCommand):
    name = "emergo accept"
    description = "accept every challenge (the default)"
    details = (
        "Every challenge of you starts a board again (undoes emergo reject and emergo "
        "limit). To accept a draw offer or a take-back request on a board, use 'emergo "
        "move BOARD USERID PASSWORD accept'."
    )

