"""The budget of mails one mail may cause to others, on counts: which mails are charged,
to the sender and to the account that logged in, and which command goes over which
budget. No database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

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
from pbm_emergo.rules.reasons import Reason

ALICE = "alice@example.org"
BOB = "bob@example.org"
CAROL = "carol@example.org"
LIMITS = BudgetLimits(per_mail=5, per_hour=20, per_account_hour=10)


@pytest.mark.parametrize(
    ("mail", "sender", "expected"),
    [
        (Outgoing(BOB), ALICE, True),  # to someone else
        (Outgoing(ALICE), ALICE, False),  # the answer to the sender
        (Outgoing(ALICE), "Alice@Example.ORG", False),  # any letter case
        (Outgoing(BOB, solicited=True), ALICE, False),  # asked for (a game's board mail)
        (Outgoing(BOB), "", False),  # the server's own mail: no sender
    ],
)
def test_what_is_charged(mail: Outgoing, sender: str, expected: bool) -> None:
    assert is_charged(mail, sender) is expected


def test_the_costs_to_the_sender_and_to_the_account() -> None:
    mails = [Outgoing(ALICE), Outgoing(BOB), Outgoing(CAROL), Outgoing(CAROL, True)]
    assert costs(mails, ALICE, None, frozenset()) == (2, 0)
    assert costs(mails, ALICE, 7, frozenset()) == (2, 2)
    # The account's own address (a notice that its password came from elsewhere): charged
    # to the sender who caused it, not to the account.
    assert costs(mails, ALICE, 7, frozenset({BOB})) == (2, 1)
    assert costs([], ALICE, 7, frozenset()) == (0, 0)


def test_nothing_charged_changes_nothing() -> None:
    spent = Spent(3, ((7, 2),))
    assert decide_charge(spent, 0, 0, 7, LIMITS, earlier=99, account_earlier=99) is spent


def test_charges_add_up_per_mail_and_per_account() -> None:
    spent = Spent()
    for account, cost, account_cost in [(None, 1, 0), (7, 2, 2), (8, 1, 1), (7, 1, 0)]:
        decided = decide_charge(
            spent, cost, account_cost, account, LIMITS, earlier=0, account_earlier=0
        )
        assert isinstance(decided, Spent)
        spent = decided
    assert spent.mail == 5
    assert spent.of_account(7) == 2 and spent.of_account(8) == 1 and spent.of_account(9) == 0


@pytest.mark.parametrize(
    ("spent", "cost", "earlier", "code"),
    [
        (Spent(4), 2, 0, "over_mail_budget"),  # 6 > 5 in one mail
        (Spent(0), 6, 0, "over_mail_budget"),
        (Spent(0), 2, 19, "over_hour_budget"),  # 19 earlier + 2 > 20 in the hour
        (Spent(2), 2, 17, "over_hour_budget"),  # 17 + 2 so far + 2 > 20
        (Spent(4), 2, 19, "over_mail_budget"),  # the mail's budget is looked at first
    ],
)
def test_over_the_sender_budgets(spent: Spent, cost: int, earlier: int, code: str) -> None:
    decided = decide_charge(spent, cost, 0, None, LIMITS, earlier=earlier, account_earlier=0)
    assert isinstance(decided, Reason) and decided.code == code


def test_just_within_the_budgets() -> None:
    decided = decide_charge(Spent(2), 3, 3, 7, LIMITS, earlier=15, account_earlier=7)
    assert decided == Spent(5, ((7, 3),))


def test_over_the_account_budget_whatever_the_address() -> None:
    # A fresh sender address (nothing earlier) does not reset the account's hour.
    decided = decide_charge(Spent(), 2, 2, 7, LIMITS, earlier=0, account_earlier=9)
    assert isinstance(decided, Reason) and decided.code == "over_account_budget"
    # What the account's earlier commands in this mail were charged counts too.
    decided = decide_charge(
        Spent(3, ((7, 3),)), 1, 1, 7, LIMITS, earlier=0, account_earlier=7
    )
    assert isinstance(decided, Reason) and decided.code == "over_account_budget"
    # Mails to the account's own addresses cost the account nothing.
    assert decide_charge(Spent(), 2, 0, 7, LIMITS, earlier=0, account_earlier=10) == Spent(2)


def test_the_refusals_say_the_counts() -> None:
    over = decide_charge(Spent(4), 2, 0, None, LIMITS, earlier=0, account_earlier=0)
    assert str(over) == (
        "This command would send 2 mails to other people, and one mail may cause at most "
        "5 mails to others (4 mails so far in this mail). Nothing was sent or changed: "
        "send the rest in another mail."
    )
    one = decide_charge(
        Spent(), 2, 0, None, BudgetLimits(1, 1), earlier=0, account_earlier=0
    )
    assert "at most 1 mail to others" in str(one)


def test_the_change_counts_again_what_was_charged() -> None:
    now = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
    change = charged_change(ALICE, 7, Spent(3, ((7, 2), (8, 1))), LIMITS, now)
    assert (change.sender, change.account_id, change.count, change.account_count) == (
        ALICE, 7, 3, 2,
    )
    assert (change.per_hour, change.per_account_hour) == (20, 10)
    assert change.since == since(now) == now - timedelta(hours=1)
    assert charged_change(ALICE, None, Spent(3), LIMITS, now).account_count == 0


def test_what_was_charged_after_a_part_already_stored() -> None:
    """A ``multiple`` mail's lines store their charges one by one: the next line's
    re-count in the write transaction is of what the stored lines did not store."""
    stored = Spent(2, ((7, 1),))
    spent = Spent(5, ((7, 2), (9, 2)))
    assert spent.beyond(stored) == Spent(3, ((7, 1), (9, 2)))
    assert stored.beyond(stored) == Spent()
    assert spent.beyond(Spent()) == spent
