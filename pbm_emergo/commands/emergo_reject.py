"""``emergo reject userid password``: refuse every challenge."""

from __future__ import annotations

from pbm_emergo.app.challenges import reject_challenges
from pbm_emergo.commands.base import Arguments, Context, Result
from pbm_emergo.commands.challenge_policy import PolicyCommand
from pbm_emergo.db.models import Player


class RejectCommand(PolicyCommand):
    name = "emergo reject"
    description = "refuse every challenge (the challenger is told, you are not)"
    details = (
        "Every challenge of you is refused until you send 'emergo accept' or 'emergo "
        "limit': the challenger gets an error mail, you are not told. Your boards go on. "
        "To reject a draw offer or a take-back request on a board, use 'emergo move BOARD "
        "USERID PASSWORD reject'."
    )

    def set_policy(self, ctx: Context, player: Player, args: Arguments) -> Result:
        return reject_challenges(ctx, player)
