"""What one mail may cause to happen to other people, decided on counts.

A mail's commands may send mail to people who did not write: a challenge's first board
mail to the opponent, a message, a chat, a confirmation code, a notice that someone used a
password. Each such mail is charged to the sender whose mail caused it: at most
``per_mail`` for one mail and ``per_hour`` for one sender in an hour. A mail caused by a
command that logged in is charged to that account as well (``per_account_hour``), whatever
From its mails carry, except what goes to the account's own addresses. A command that would
go over is refused as a whole (:func:`decide_charge`).

Not charged: answers to the sender, mails the recipient asked for (``solicited``: the board
mail of a game under way, what a subscription sends), and mail the server sends on its own
(no sender). The shell reads how many mails the sender's and the account's earlier mails
caused within :data:`BUDGET_WINDOW`, and stores what a mail was charged
(:class:`~pbm_emergo.game.account_changes.MailBudgetCharged`, made by :func:`charged_change`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from pbm_emergo.game.account_changes import MailBudgetCharged
from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

__all__ = [
    "BUDGET_WINDOW",
    "BudgetLimits",
    "Outgoing",
    "Spent",
    "charged_change",
    "costs",
    "decide_charge",
    "is_charged",
    "since",
]

BUDGET_WINDOW = timedelta(hours=1)


def since(now: datetime) -> datetime:
    """The start of the hour whose mails count against the hourly budgets."""
    return now - BUDGET_WINDOW


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A mail a command would send, as the budget sees it: ``recipient`` lower-cased (the
    plain address where it is one)."""

    recipient: str
    solicited: bool = False


def is_charged(mail: Outgoing, sender: str) -> bool:
    """Whether ``mail`` counts against the budget of ``sender``, the author of the mail
    that caused it."""
    return bool(sender) and not mail.solicited and mail.recipient != sender.lower()


@dataclass(frozen=True, slots=True)
class BudgetLimits:
    """The operator's limits (``Config.mails_to_others_per_mail``, ``..._per_hour``,
    ``account_mails_to_others_per_hour``)."""

    per_mail: int
    per_hour: int
    per_account_hour: int = 0


@dataclass(frozen=True, slots=True)
class Spent:
    """What one mail's commands have been charged so far: ``mail`` mails to others in all,
    and of those the share of each account that logged in (``by_account``: id, count)."""

    mail: int = 0
    by_account: tuple[tuple[int, int], ...] = ()

    def of_account(self, account: int) -> int:
        return next((n for a, n in self.by_account if a == account), 0)

    def beyond(self, stored: Spent) -> Spent:
        """What of this was charged after ``stored`` (an earlier part of the same mail's
        charges, already counted where they are stored)."""
        return Spent(
            self.mail - stored.mail,
            tuple(
                (a, n - stored.of_account(a)) for a, n in self.by_account
                if n > stored.of_account(a)
            ),
        )


def costs(
    mails: Iterable[Outgoing], sender: str, account: int | None, own: frozenset[str]
) -> tuple[int, int]:
    """How many of ``mails`` are charged to ``sender``, and how many of those to
    ``account`` (the account the command logged in to; ``own``: its addresses, whose mails
    are the account's own business)."""
    cost = account_cost = 0
    for mail in mails:
        if is_charged(mail, sender):
            cost += 1
            if account is not None and mail.recipient not in own:
                account_cost += 1
    return cost, account_cost


def decide_charge(
    spent: Spent,
    cost: int,
    account_cost: int,
    account: int | None,
    limits: BudgetLimits,
    *,
    earlier: int,
    account_earlier: int,
) -> Spent | Reason:
    """What the mail has been charged once a command's ``cost`` (``account_cost`` of it
    to ``account``) is added, or why the command is refused: past the mail's budget, the
    sender's hour (``earlier``: charged to the sender within the hour before this mail), or
    the account's hour (``account_earlier``: the same for the account)."""
    if not cost:
        return spent
    if spent.mail + cost > limits.per_mail:
        return refusal(
            "over_mail_budget",
            cost=_mails(cost), most=_mails(limits.per_mail), spent=_mails(spent.mail),
        )
    if cost > limits.per_hour - earlier - spent.mail:
        return refusal("over_hour_budget", cost=_mails(cost), most=_mails(limits.per_hour))
    if account is not None and account_cost:
        used = spent.of_account(account)
        if account_cost > limits.per_account_hour - account_earlier - used:
            return refusal(
                "over_account_budget",
                cost=_mails(account_cost), most=_mails(limits.per_account_hour),
            )
        others = tuple(item for item in spent.by_account if item[0] != account)
        return Spent(spent.mail + cost, (*others, (account, used + account_cost)))
    return replace(spent, mail=spent.mail + cost)


def _mails(n: int) -> Reason:
    return refusal("mails", num=n)


def charged_change(
    sender: str, account: int | None, spent: Spent, limits: BudgetLimits, now: datetime
) -> MailBudgetCharged:
    """What the mail has been charged, for the write transaction to count again (with the
    share of ``account``, the account its last command logged in to)."""
    return MailBudgetCharged(
        sender=sender,
        account_id=account,
        count=spent.mail,
        account_count=spent.of_account(account) if account is not None else 0,
        per_hour=limits.per_hour,
        per_account_hour=limits.per_account_hour,
        since=since(now),
    )
