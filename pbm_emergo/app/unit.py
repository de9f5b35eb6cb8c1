"""The unit of work: what one request to the game layer reads, and the writes it leaves.

Anything may open one: a mail's commands, the scheduler, the robots. It reads through
``session``; its writes wait in ``writes`` as typed changes (:mod:`pbm_emergo.game.changes`
and its siblings: values, each re-checking what was read; no callable of the session)
until the owner of the unit (a :class:`pbm_emergo.app.runner.Runner`: the mail worker, the
scheduler, the robots' runner ...) applies them (:func:`pbm_emergo.db.apply.apply`) in one
short write transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.app import budget as mail_budget
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Write
from pbm_emergo.app.secrets import Secrets
from pbm_emergo.db import outbox
from pbm_emergo.game.budget import BudgetLimits

if TYPE_CHECKING:
    from pbm_emergo.config import Config
    from pbm_emergo.db.session import Session



@dataclass
class UnitOfWork:
    """Everything one request to the game may use while it runs.

    ``session`` reads. A command does not write through it: it hands its changes to
    :meth:`write` (changes that re-check what the command read), and the caller applies
    them (:func:`pbm_emergo.db.apply.apply`) in one short write transaction after the
    command has answered.
    """

    session: Session
    config: Config
    now: datetime
    # The address the command came from (answers go there); "" for the scheduler.
    sender: str = ""
    # False when our MTA found that the mail failed its From domain's DMARC (else SPF)
    # check: nothing that relies on the address alone (challenges, the lock-out exemption
    # of registered addresses, signup without confirmation) trusts it then.
    sender_trusted: bool = True
    # True only when our MTA found that the mail passed its From domain's DMARC (else SPF)
    # check: only such mail may lock out a registered address (app.lockout).
    sender_proven: bool = False
    # The command line as it may be shown back: only words known not to be secret.
    masked_line: str = ""
    # What no reply may contain: the hidden words, the passwords verified so far.
    secrets: Secrets = field(default_factory=Secrets)
    # The comment (body) for commands that carry one; empty for `multiple` lines. It goes
    # to others, so it is ``comment_written`` scrubbed (Secrets.scrub_comment), again each
    # time a password is verified: the hidden words' masks must not hide a password's line.
    comment: str = ""
    comment_written: str = ""
    # Notices to other people caused by this mail (a password used from a foreign
    # address ...), sent whether the command succeeds or not; once per userid and mail.
    notices: list[Reply] = field(default_factory=list)
    notified: set[str] = field(default_factory=set)
    # Wrong passwords this mail has had hashed so far (capped per mail: app.lockout).
    password_failures: int = 0
    # The writes of the commands that succeeded, in order (see the class docstring).
    writes: list[Write] = field(default_factory=list)
    # A board number set aside for the next board this unit makes (a challenge that lost
    # the number it read to another board: mail.answering), used once.
    board_number: int | None = None
    _budget: mail_budget.MailBudget | None = field(default=None, repr=False)

    @property
    def budget(self) -> mail_budget.MailBudget:
        """What the mail may still cause to others (see :mod:`pbm_emergo.app.budget`)."""
        if self._budget is None:
            self._budget = mail_budget.MailBudget(
                sender=self.sender,
                limits=BudgetLimits(
                    per_mail=self.config.mails_to_others_per_mail,
                    per_hour=self.config.mails_to_others_per_hour,
                    per_account_hour=self.config.account_mails_to_others_per_hour,
                ),
                used_before=lambda: outbox.mails_charged_to(
                    self.session, self.sender, mail_budget.since(self.now)
                ),
                account_used_before=lambda account: outbox.mails_charged_to_account(
                    self.session, account, mail_budget.since(self.now)
                ),
            )
        return self._budget

    def reveal(self, *words: str) -> None:
        """Words of the command that turned out not to be secrets and may appear in its
        replies (a new userid and addresses checked by signup, ...)."""
        self.secrets.reveal(words)

    def write(self, change: Write) -> None:
        """Store ``change`` with the command's answer (see the class docstring)."""
        self.writes.append(change)
