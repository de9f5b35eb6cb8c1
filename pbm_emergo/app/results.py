"""What a request to the game layer gives back: its result, or why it was refused."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from typing import Any

from pbm_emergo.app.messages import Reply

# A change to store in the write transaction (db.apply): a typed change
# (pbm_emergo.game.changes), which re-checks what the request read and raises Conflict
# when that changed.
from pbm_emergo.db.apply import Write
from pbm_emergo.views import i18n
from pbm_emergo.views.reply_mail import Attachment

__all__ = ["Refused", "Result", "Write"]


@dataclass
class Result:
    """What a command did.

    ``summary`` is the one-line report of the operator's logs, in English; ``summary_said``
    the same in the sender's language, which the Results of a ``multiple`` mail show (the
    English ``summary`` where there is none). Given ``said``, a message of the catalogs
    (``lambda: i18n._(...)``), both are made of it: the summary is worded once.
    ``answer`` is the text for the sender alone (a help page, a board shown...), sent as its
    own mail with ``answer_subject``, or folded into the ``multiple`` report.
    ``replies`` are the other mails (board mails to each player, notices).
    """

    summary: str = ""
    answer: str | None = None
    summary_said: str | None = None
    answer_subject: str = "Emergo"
    answer_board: int | None = None
    replies: list[Reply] = field(default_factory=list)
    # The answer as HTML too (a board shown, a preview): the mail is multipart/alternative.
    answer_html: str | None = None
    # A file sent with the answer (a game record); a ``multiple`` report leaves it out.
    answer_attachment: Attachment | None = None
    said: InitVar[Callable[[], str] | None] = None

    def __post_init__(self, said: Callable[[], str] | None) -> None:
        if said is not None:
            self.summary = i18n.in_english(said)
            self.summary_said = said()


class Refused(Exception):
    """A request the game refuses; the sender gets an error reply.

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
