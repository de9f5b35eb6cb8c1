"""What one mail may cause to happen to other people: its budget of mails to others.

A mail's commands may send mail to people who did not write: a challenge's first board
mail to the opponent, a message, a chat, a confirmation code, a notice that someone used a
password. Each such mail is charged to the sender whose mail caused it: at most
``mails_to_others_per_mail`` for one mail and ``mails_to_others_per_hour`` for one sender in
an hour (counted from the outbox: ``charged_to``). A mail caused by a command that logged
in is charged to that account as well: at most ``mails_to_others_per_account_hour`` for
one account in an hour, whatever From its mails carry (``charged_account``). A command
that would go over is refused, and nothing of it reaches anybody; a notice over the budget
is left out. What a mail was charged is counted again in its write transaction
(:class:`~pbm_emergo.game.account_changes.MailBudgetCharged`): a worker that stored mails
of the same sender or account meanwhile makes the mail start over, and be refused.

Not charged: answers to the sender, mails the recipient asked for (:attr:`Reply.solicited`:
the board mail of a game under way, what a subscription sends), and mail the server sends
on its own (reminders, robots: no sender).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbm_emergo.app.messages import Reply, clean_address
from pbm_emergo.app.results import Refused
from pbm_emergo.game.account_changes import MailBudgetCharged
from pbm_emergo.views import i18n

BUDGET_WINDOW = timedelta(hours=1)


def charged(reply: Reply, sender: str) -> bool:
    """Whether ``reply`` counts against the budget of ``sender``, the mail's author."""
    if not sender or reply.solicited:
        return False
    return (clean_address(reply.to) or reply.to.lower()) != sender.lower()


@dataclass
class MailBudget:
    """The mails to others one mail has caused so far, against its sender's budgets and
    those of the accounts its commands logged in to.

    ``used_before`` reads, once and only when first needed, how many mails to others the
    sender's earlier mails caused within the last hour; ``account_used_before`` the same
    for an account (by player id), once an account. ``account`` is the account the command
    being run logged in to (None: none; see :meth:`command_started`, :meth:`logged_in`).
    """

    sender: str
    per_mail: int
    per_hour: int
    used_before: Callable[[], int]
    per_account_hour: int = 0
    account_used_before: Callable[[int], int] = lambda _account: 0
    spent: int = 0
    account: int | None = None
    spent_by_account: dict[int, int] = field(default_factory=dict)
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

    def _charged_to_account(self, reply: Reply) -> bool:
        return (
            self.account is not None and charged(reply, self.sender)
            and (clean_address(reply.to) or reply.to.lower()) not in self._own
        )

    def _hourly_left(self) -> int:
        if self._earlier is None:
            self._earlier = self.used_before()
        return self.per_hour - self._earlier - self.spent

    def _account_hourly_left(self, account: int) -> int:
        if account not in self._account_earlier:
            self._account_earlier[account] = self.account_used_before(account)
        return (
            self.per_account_hour - self._account_earlier[account]
            - self.spent_by_account.get(account, 0)
        )

    def charge(self, replies: Sequence[Reply]) -> None:
        """Count the mails to others among ``replies``; :class:`Refused` (nothing counted)
        when they do not fit in what is left of this mail's, this hour's or the logged-in
        account's budget."""
        cost = sum(1 for r in replies if charged(r, self.sender))
        if not cost:
            return
        account_cost = sum(1 for r in replies if self._charged_to_account(r))
        if self.spent + cost > self.per_mail:
            raise Refused(
                i18n._(
                    "This command would send %(cost)s to other people, and one mail may "
                    "cause at most %(most)s to others (%(spent)s so far in this mail). "
                    "Nothing was sent or changed: send the rest in another mail.",
                    cost=_mails(cost), most=_mails(self.per_mail), spent=_mails(self.spent),
                )
            )
        if cost > self._hourly_left():
            raise Refused(
                i18n._(
                    "This command would send %(cost)s to other people, and your mails may "
                    "cause at most %(most)s to others in an hour. Nothing was sent or "
                    "changed: try again in an hour.",
                    cost=_mails(cost), most=_mails(self.per_hour),
                )
            )
        account = self.account
        if (
            account is not None and account_cost
            and account_cost > self._account_hourly_left(account)
        ):
            raise Refused(
                i18n._(
                    "This command would send %(cost)s to other people, and the commands of "
                    "one account may cause at most %(most)s to others in an hour, from "
                    "whatever address. Nothing was sent or changed: try again in an hour.",
                    cost=_mails(account_cost), most=_mails(self.per_account_hour),
                )
            )
        self.spent += cost
        if account is not None and account_cost:
            self.spent_by_account[account] = (
                self.spent_by_account.get(account, 0) + account_cost
            )

    def fits(self, replies: Sequence[Reply]) -> bool:
        """Whether ``replies`` would fit in what is left (nothing counted): for a command
        whose answer must not depend on whether it sends them (``forgot``)."""
        spent, by_account = self.spent, dict(self.spent_by_account)
        try:
            self.charge(replies)
        except Refused:
            return False
        finally:
            self.spent, self.spent_by_account = spent, by_account
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
        return [
            dataclasses.replace(r, account=self.account) if self._charged_to_account(r)
            else r
            for r in replies
        ]

    def change(self, now: datetime) -> MailBudgetCharged:
        """What this mail has been charged so far, for the write transaction to count again
        (with the logged-in account's share)."""
        account = self.account
        return MailBudgetCharged(
            sender=self.sender,
            account_id=account,
            count=self.spent,
            account_count=self.spent_by_account.get(account, 0) if account is not None else 0,
            per_hour=self.per_hour,
            per_account_hour=self.per_account_hour,
            since=since(now),
        )


def _mails(n: int) -> str:
    return i18n.ngettext("%(num)s mail", "%(num)s mails", n)


def since(now: datetime) -> datetime:
    """The start of the hour whose mails count against the hourly budget."""
    return now - BUDGET_WINDOW


__all__ = ["BUDGET_WINDOW", "MailBudget", "charged", "since"]
