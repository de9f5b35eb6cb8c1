"""What one mail may cause to happen to other people: its budget of mails to others.

A mail's commands may send mail to people who did not write: a challenge's first board
mail to the opponent, a message, a chat, a confirmation code, a notice that someone used a
password. Each such mail is charged to the sender whose mail caused it: at most
``mails_to_others_per_mail`` for one mail and ``mails_to_others_per_hour`` for one sender in
an hour (counted from the outbox: ``charged_to``). A command that would go over is refused,
and nothing of it reaches anybody; a notice over the budget is left out.

Not charged: answers to the sender, mails the recipient asked for (:attr:`Reply.solicited`:
the board mail of a game under way, what a subscription sends), and mail the server sends
on its own (reminders, robots: no sender).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbm_emergo.app.messages import Reply, clean_address
from pbm_emergo.app.results import Refused

BUDGET_WINDOW = timedelta(hours=1)


def charged(reply: Reply, sender: str) -> bool:
    """Whether ``reply`` counts against the budget of ``sender``, the mail's author."""
    if not sender or reply.solicited:
        return False
    return (clean_address(reply.to) or reply.to.lower()) != sender.lower()


@dataclass
class MailBudget:
    """The mails to others one mail has caused so far, against its sender's budgets.

    ``used_before`` reads, once and only when first needed, how many mails to others the
    sender's earlier mails caused within the last hour.
    """

    sender: str
    per_mail: int
    per_hour: int
    used_before: Callable[[], int]
    spent: int = 0
    _earlier: int | None = field(default=None, repr=False)

    def _hourly_left(self) -> int:
        if self._earlier is None:
            self._earlier = self.used_before()
        return self.per_hour - self._earlier - self.spent

    def charge(self, replies: Sequence[Reply]) -> None:
        """Count the mails to others among ``replies``; :class:`Refused` (nothing counted)
        when they do not fit in what is left of this mail's or this hour's budget."""
        cost = sum(1 for r in replies if charged(r, self.sender))
        if not cost:
            return
        if self.spent + cost > self.per_mail:
            raise Refused(
                f"This command would send {_mails(cost)} to other people, and one mail may "
                f"cause at most {_mails(self.per_mail)} to others "
                f"({_mails(self.spent)} so far in this mail). Nothing was sent or changed: "
                "send the rest in another mail."
            )
        if cost > self._hourly_left():
            raise Refused(
                f"This command would send {_mails(cost)} to other people, and your mails may "
                f"cause at most {_mails(self.per_hour)} to others in an hour. Nothing was "
                "sent or changed: try again in an hour."
            )
        self.spent += cost

    def within(self, replies: Sequence[Reply]) -> list[Reply]:
        """``replies`` less the mails to others that do not fit (notices: left out, never
        refused), the rest counted."""
        kept: list[Reply] = []
        for reply in replies:
            try:
                self.charge([reply])
            except Refused:
                continue
            kept.append(reply)
        return kept


def _mails(n: int) -> str:
    return f"{n} mail{'s' if n != 1 else ''}"


def since(now: datetime) -> datetime:
    """The start of the hour whose mails count against the hourly budget."""
    return now - BUDGET_WINDOW


__all__ = ["BUDGET_WINDOW", "MailBudget", "charged", "since"]
