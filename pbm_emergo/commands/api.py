"""The contract between the mail layer and the command layer.

The listener reads a mail's commands once, on receipt, into a
:class:`~pbm_emergo.commands.text.CommandText` (:func:`pbm_emergo.commands.describe`) and
stores it with the mail. The mail worker owns the unit of work, as GNU Mailman's runner owns
``_dispose``: it opens a reading session (no write lock) and hands it, the
:class:`CommandMail` and its text to a :class:`CommandProcessor` (in production
:func:`pbm_emergo.commands.dispatch`), which runs the commands (parsing, passwords, loading
the board, checking the move, rendering the replies) and gives back every :class:`Reply` and
the writes it wants; the worker builds the reply mails, then applies the writes in one short
write transaction, re-checking what they relied on, with its own (queue the replies, mark
the mail done). When a re-check fails (:class:`~pbm_emergo.db.errors.Conflict`) it starts
over from a fresh read. Nothing calls back into the mail layer. The types the two share live
in :mod:`pbm_emergo.app.messages`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from pbm_emergo.app.messages import CommandMail, Reply
from pbm_emergo.app.results import Write
from pbm_emergo.commands.text import CommandText

if TYPE_CHECKING:
    from pbm_emergo.config import Config
    from pbm_emergo.db.session import Session


class CommandProcessor(Protocol):
    """Runs the commands of one mail (``text``: as read on receipt) in ``session``: the
    replies, and the writes to store. With ``apply_at_once`` ``session`` is the write
    transaction: each command's writes are applied as it finishes, none are returned."""

    def __call__(
        self,
        session: Session,
        mail: CommandMail,
        config: Config,
        now: datetime,
        *,
        text: CommandText,
        apply_at_once: bool = False,
    ) -> tuple[list[Reply], list[Write]]: ...


__all__ = ["CommandMail", "CommandProcessor", "CommandText", "Reply", "Write"]
