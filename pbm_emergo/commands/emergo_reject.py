"""``emergo reject userid password``: refuse every challenge."""

from __future__ import annotations

from pbm_emergo.commands.challenge_policy import PolicyCommand


class RejectCommand(PolicyCommand):
    name = "emergo reject"
    description = "refuse every challenge (the challenger is told, you are not)"
    details = (
        "Every challenge of you is refused until you send 'emergo accept' or 'emergo "
        "limit': the challenger gets an error mail, you are not told. Your boards go on. "
        "To reject a draw offer or a take-back request on a board, use 'emergo move BOARD "
        "USERID PASSWORD reject'."
    )

