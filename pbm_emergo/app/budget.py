"""The shell of a mail's budget of mails to others (decided in :mod:`pbm_emergo.game.budget`).

:class:`MailBudget` keeps what one mail's commands have been charged so far, reads the
sender's and each account's earlier mails to others (from the outbox: ``charged_to``,
``charged_account``) once a mail and only when a command would send some, and says a
refusal in the reader's language. A command that would go over is refused, and nothing of
it reaches anybody; a notice over the budget is left out. What a mail was charged is
counted again in its write transaction
(:class:`~pbm_emergo.game.account_changes.MailBudgetCharged`): a worker that stored mails
of the same sender or account meanwhile makes the mail start over, and be refused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pbm_emergo.app.messages import Reply, clean_address
from pbm_emergo.app.results import Refused
from pbm_emergo.game.account_changes import MailBudgetCharged
from pbm_emergo.game.budget import (
    BudgetLimits,
    Outgoing,
    Spent,
    charged_change,
    costs,
    decide_charge,
    is_charged,
    since,
)
from pbm_emergo.views.reasons import said


def outgoing(reply: Reply) -> Outgoing:
    """``reply`` as the budget sees it."""
    return Outgoing(clean_address(reply.to) or reply.to.lower(), reply.solicited)


def charged(reply: Reply, sender: str) -> bool:
    """Whether ``reply`` counts against the budget of ``sender``, the mail's author."""
    return is_charged(outgoing(reply), sender)


@dataclass(frozen=True, slots=True)
class BudgetSoFar:
    """What one mail's budget holds between two units of work of the same mail (the lines
    of a ``multiple`` mail each run in their own): what the mail has been charged, how much
    of that is stored already (queued, so counted by the outbox's counts), and the earlier
    mails' counts as read (None: not read yet)."""

    spent: Spent = Spent()
    stored: Spent = Spent()
    earlier: int | None = None
    account_earlier: tuple[tuple[int, int], ...] = ()


@dataclass
class MailBudget:
    """The mails to others one mail has caused so far, against its sender's budgets and
    those of the accounts its commands logged in to.

    ``used_before`` reads how many mails to others the sender's earlier mails caused within
    the last hour; ``account_used_before`` the same for an account (by player id): each
    once, when a command first would send mail to others. ``account`` is the account the
    command being run logged in to (None: none; see :meth:`command_started`,
    :meth:`logged_in`). ``stored``: what of ``spent`` an earlier unit of work of the same
    mail stored (its mails are among those the outbox counts).
    """

    sender: str
    limits: BudgetLimits
    used_before: Callable[[], int]
    account_used_before: Callable[[int], int] = lambda _account: 0
    spent: Spent = Spent()
    stored: Spent = Spent()
    account: int | None = None
    _earlier: int | None = field(default=None, repr=False)
    _account_earlier: dict[int, int] = field(default_factory=dict, repr=False)
    _own: frozenset[str] = field(default=frozenset(), repr=False)

    def command_started(self) -> None:
        """A new command line: no account logged in yet."""
        self.account = None
        self._own = frozenset()

    def logged_in(self, account_id: int, addresses: Collection[str]) -> None:
        """The command being run logged in to ``account_id``, whose registered addresses
        are ``addresses``: what it sends to others is charged to that account too, except
        what goes to those addresses (the account's own, such as the notice that its
        password came from elsewhere)."""
        self.account = account_id
        self._own = frozenset(a.lower() for a in addresses)

    def _decided(self, replies: Sequence[Reply]) -> Spent:
        """What the mail is charged with ``replies`` added; Refused when they do not fit."""
        cost, account_cost = costs(map(outgoing, replies), self.sender, self.account, self._own)
        if not cost:
            return self.spent
        # The outbox's counts hold what this mail stored already: not earlier mails'.
        if self._earlier is None:
            self._earlier = max(0, self.used_before() - self.stored.mail)
        account = self.account
        if account is not None and account_cost and account not in self._account_earlier:
            self._account_earlier[account] = max(
                0, self.account_used_before(account) - self.stored.of_account(account)
            )
        decided = decide_charge(
            self.spent, cost, account_cost, account, self.limits,
            earlier=self._earlier,
            account_earlier=self._account_earlier.get(account, 0) if account is not None else 0,
        )
        if isinstance(decided, Spent):
            return decided
        raise Refused(said(decided))

    def charge(self, replies: Sequence[Reply]) -> None:
        """Count the mails to others among ``replies``; :class:`Refused` (nothing counted)
        when they do not fit in what is left of this mail's, this hour's or the logged-in
        account's budget."""
        self.spent = self._decided(replies)

    def fits(self, replies: Sequence[Reply]) -> bool:
        """Whether ``replies`` would fit in what is left (nothing counted): for a command
        whose answer must not depend on whether it sends them (``forgot``)."""
        try:
            self._decided(replies)
        except Refused:
            return False
        return True

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

    def tagged(self, replies: Sequence[Reply]) -> list[Reply]:
        """``replies``, those charged to the logged-in account marked with it, so that the
        outbox counts them against it."""
        if self.account is None:
            return list(replies)
        return [
            dataclasses.replace(r, account=self.account)
            if costs([outgoing(r)], self.sender, self.account, self._own)[1] else r
            for r in replies
        ]

    def change(self, now: datetime) -> MailBudgetCharged:
        """What this mail has been charged so far and not stored yet, for the write
        transaction to count again (with the logged-in account's share)."""
        return charged_change(
            self.sender, self.account, self.spent.beyond(self.stored), self.limits, now
        )

    def so_far(self) -> BudgetSoFar:
        """What the next unit of work of the same mail starts from, once this one's
        charges are stored."""
        return BudgetSoFar(
            spent=self.spent, stored=self.spent, earlier=self._earlier,
            account_earlier=tuple(self._account_earlier.items()),
        )

    def carry_on(self, so_far: BudgetSoFar) -> None:
        """Start from what an earlier unit of work of the same mail left (:meth:`so_far`)."""
        self.spent = so_far.spent
        self.stored = so_far.stored
        self._earlier = so_far.earlier
        self._account_earlier = dict(so_far.account_earlier)


__all__ = ["BudgetSoFar", "MailBudget", "charged", "outgoing", "since"]
