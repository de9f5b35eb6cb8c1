"""What every mail command is made of: the context it runs in, its result, its errors.

Each command is a small class (one module per command) with a ``name``, an
``argument_description``, a ``description`` and a ``process`` method; the registry in
:mod:`pbm_emergo.commands.registry` lists them all and ``help`` is generated from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from pbm_emergo.commands.api import Write
from pbm_emergo.game.messages import Reply
from pbm_emergo.game.secrets import Known, Secrets

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from pbm_emergo.config import Config


@dataclass
class Context:
    """Everything a command may use while it runs.

    ``session`` reads. A command does not write through it: it hands its changes to
    :meth:`write` (data-layer writes that re-check what the command read), and the caller
    applies them in one short write transaction after the command has answered. With
    ``apply_at_once`` (the lines of a ``multiple`` mail, the scheduler) the session is the
    write transaction itself and each command's writes are applied when it has finished,
    so that the next command sees them.
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
    apply_at_once: bool = False
    # The command line as it may be shown back: only words known not to be secret.
    masked_line: str = ""
    # The userids and boards of the mail's command lines that exist (see masking).
    known: Known = field(default_factory=Known)
    # What no reply may contain: the hidden words, the passwords verified so far.
    secrets: Secrets = field(default_factory=Secrets)
    # True while running the lines of a `multiple` mail.
    in_multiple: bool = False
    # The comment (body) for commands that carry one; empty for `multiple` lines.
    comment: str = ""
    # Notices to other people caused by this mail (a password used from a foreign
    # address ...), sent whether the command succeeds or not; once per userid and mail.
    notices: list[Reply] = field(default_factory=list)
    notified: set[str] = field(default_factory=set)
    # The writes of the commands that succeeded, in order (see the class docstring).
    writes: list[Write] = field(default_factory=list)

    applied: int = 0  # how many of ``writes`` were applied (apply_at_once)

    def reveal(self, *words: str) -> None:
        """Words of the command that turned out not to be secrets and may appear in its
        replies (a new userid and addresses checked by signup, ...)."""
        self.secrets.reveal(words)

    def write(self, change: Write) -> None:
        """Store ``change`` with the command's answer (see the class docstring)."""
        self.writes.append(change)

    def apply_pending(self) -> None:
        """With ``apply_at_once``: apply the writes not applied yet, in the session."""
        if not self.apply_at_once:
            return
        for change in self.writes[self.applied :]:
            change(self.session)
        self.applied = len(self.writes)
        self.session.flush()


@dataclass
class Result:
    """What a command did.

    ``summary`` is the one-line report used in the Results of a ``multiple`` mail.
    ``answer`` is the text for the sender alone (a help page, a board shown...), sent as its
    own mail with ``answer_subject``, or folded into the ``multiple`` report.
    ``replies`` are the other mails (board mails to each player, notices).
    """

    summary: str
    answer: str | None = None
    answer_subject: str = "Emergo"
    answer_board: int | None = None
    replies: list[Reply] = field(default_factory=list)
    # The answer as HTML too (a board shown, a preview): the mail is multipart/alternative.
    answer_html: str | None = None


class CommandError(Exception):
    """A command that cannot be carried out; the sender gets an error reply.

    ``reason`` is one plain sentence. ``template`` names the error template under
    ``templates/error/``; ``details`` are its extra variables. ``board`` (a board number)
    makes the Subject ``Emergo Board N Error``. ``writes`` are stored all the same (the
    command's own writes are dropped).
    """

    def __init__(
        self,
        reason: str,
        *,
        board: int | None = None,
        template: str = "error/error.txt.j2",
        board_text: str | None = None,
        replies: list[Reply] | None = None,
        writes: list[Write] | None = None,
        **details: Any,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.board = board
        self.template = template
        self.board_text = board_text
        self.details = details
        # Mails that must go out even though the command failed (lock-out notices ...).
        self.replies = replies or []
        # Changes stored even though the command failed (a wrong password counted ...).
        self.writes = writes or []


class UsageError(CommandError):
    """The arguments do not fit the command; the reply shows how to write it."""


class Command:
    """Base class of the mail commands."""

    name: ClassVar[str]  # the command words, lower case: "signup", "emergo move"
    argument_description: ClassVar[str] = ""
    description: ClassVar[str]  # one line for the help summary
    # Longer text for `help NAME`; defaults to the description.
    details: ClassVar[str] = ""
    # Positions (in the arguments after the command words) that hold passwords: masked
    # even when the word there looks like something known (see commands.masking).
    secret_args: ClassVar[tuple[int, ...]] = ()
    # The positions of a userid and its password, for commands that log a player in: the
    # password is checked ahead, outside the write transaction (see dispatcher.handle).
    credential_args: ClassVar[tuple[int, int] | None] = None
    # Whether the command is listed by `help` (aliases are not).
    listed: ClassVar[bool] = True
    # The help section: "account" or "emergo".
    section: ClassVar[str] = "account"
    # How many arguments the command takes (max None: any number).
    min_args: ClassVar[int] = 0
    max_args: ClassVar[int | None] = None

    def process(self, ctx: Context, args: list[str]) -> Result:
        raise NotImplementedError

    @classmethod
    def arity_fits(cls, count: int) -> bool:
        return count >= cls.min_args and (cls.max_args is None or count <= cls.max_args)

    def check_arity(self, args: list[str]) -> None:
        """Raise a usage error unless the number of arguments fits the command."""
        if not self.arity_fits(len(args)):
            raise self.usage_error()

    @classmethod
    def usage(cls) -> str:
        return f"{cls.name} {cls.argument_description}".rstrip()

    def usage_error(self, reason: str | None = None) -> UsageError:
        return UsageError(
            reason or f"The command {self.name} needs these arguments: {self.usage()}.",
            template="error/usage.txt.j2",
            usage=self.usage(),
        )
