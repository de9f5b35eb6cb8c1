"""Build the reply mails: every header from our own values or sanitised text, never raw input."""

from __future__ import annotations

import re
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from pbm_emergo.mail import policies
from pbm_emergo.mail.parse import LOOP_HEADER
from pbm_emergo.messages import Reply, clean_address
from pbm_emergo.reply_size import MAX_REPLY_BYTES, cut_to_size, fit_alternative

SUBJECT_LIMIT = 200
_UNSAFE = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


def sanitise_subject(subject: str) -> str:
    """One line of plain text: control characters (CR, LF...) become spaces, length capped."""
    subject = " ".join(_UNSAFE.sub(" ", subject).split())
    if len(subject) > SUBJECT_LIMIT:
        subject = subject[: SUBJECT_LIMIT - 3].rstrip() + "..."
    return subject or "pbm-emergo"


def thread_id(board: int, domain: str) -> str:
    """The Message-ID-like token that keeps one board's mails in one thread."""
    return f"<board-{board}.pbm-emergo@{domain}>"


def build_reply(
    reply: Reply,
    *,
    server_address: str,
    now: datetime,
    in_reply_to: str | None = None,
    references: tuple[str, ...] = (),
) -> EmailMessage:
    """The reply as an :class:`EmailMessage`; raises ValueError for a recipient that is not a
    plain address (so that no user text can reach a header). Mail to a non-ASCII address
    (RFC 6531/6532) has its headers in UTF-8 (see :func:`policies.write_policy`)."""
    to = clean_address(reply.to)
    if to is None:
        raise ValueError(f"not a plain mail address: {reply.to!r}")
    domain = server_address.rpartition("@")[2] or "localhost"
    msg = EmailMessage(policy=policies.write_policy(to))
    msg["From"] = server_address
    msg["To"] = to
    msg["Subject"] = sanitise_subject(reply.subject)
    msg["Date"] = format_datetime(now)
    msg["Message-ID"] = make_msgid(idstring="pbm-emergo", domain=domain)
    # The board's thread id stays first (the thread's root); then the command mail's chain.
    root = [thread_id(reply.board, domain)] if reply.board is not None else []
    chain: list[str] = []
    for ref in (*references, in_reply_to):
        if ref and ref not in chain and ref not in root:
            chain.append(ref)
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    if root or chain:
        msg["References"] = " ".join(root + chain[-9:])
    msg["Auto-Submitted"] = "auto-replied"
    msg[LOOP_HEADER] = server_address
    body = reply.body.replace("\r\n", "\n").replace("\r", "\n")
    if not body.endswith("\n"):
        body += "\n"
    # One reply is at most MAX_REPLY_BYTES, so that a short mail cannot ask for a long one:
    # longer text is cut, a picture that does not fit is left out (each with a line saying so).
    body, html = fit_alternative(cut_to_size(body, MAX_REPLY_BYTES), reply.html)
    # Plain 7bit/8bit keeps the board readable in any mail client; quoted-printable only
    # when a line is too long for SMTP.
    longest = max(len(line.encode("utf-8")) for line in body.split("\n"))
    plain = "7bit" if body.isascii() else "8bit"
    cte = "quoted-printable" if longest > 990 else plain
    msg.set_content(body, charset="utf-8", cte=cte)
    if html:
        # multipart/alternative: the text exactly as without it, then the HTML picture.
        msg.add_alternative(html, subtype="html", charset="utf-8", cte=_cte(html))
    return msg


def _cte(text: str) -> str:
    """7bit/8bit unless a line is too long for SMTP (then quoted-printable)."""
    longest = max(len(line.encode("utf-8")) for line in text.split("\n"))
    if longest > 990:
        return "quoted-printable"
    return "7bit" if text.isascii() else "8bit"


def readdressed_bytes(raw: bytes, to: str, *, server_address: str) -> tuple[bytes, str]:
    """The wire form ``raw`` of a mail made by :func:`build_reply`, for another recipient:
    the same bytes with a new To and Message-ID, and that Message-ID (a board mail goes to
    both players with the same text: building and writing it once is much cheaper, above
    all with its HTML picture). The two header lines are made by the policy and put in place
    of the old ones in the top-level header block (the To in UTF-8 for a non-ASCII address,
    as in build_reply; the other headers stay as they are). ValueError as in build_reply."""
    address = clean_address(to)
    if address is None:
        raise ValueError(f"not a plain mail address: {to!r}")
    domain = server_address.rpartition("@")[2] or "localhost"
    message_id = make_msgid(idstring="pbm-emergo", domain=domain)
    new = {
        b"to": policies.write_policy(address).fold_binary("To", address),
        b"message-id": policies.WRITE.fold_binary("Message-ID", message_id),
    }
    head, blank, body = raw.partition(b"\r\n\r\n")
    lines: list[bytes] = []
    replacing = False
    for line in head.split(b"\r\n"):
        if line[:1] in (b" ", b"\t"):  # a folded continuation of the header above
            if not replacing:
                lines.append(line)
            continue
        name = line.partition(b":")[0].strip().lower()
        replacing = name in new
        lines.append(new.pop(name).rstrip(b"\r\n") if replacing else line)
    if new:  # build_reply always writes both headers
        raise ValueError("not a mail made by build_reply")
    return b"\r\n".join(lines) + blank + body, message_id


def reply_bytes(msg: EmailMessage) -> bytes:
    """The wire form (CRLF line ends) as stored in the outbox and handed to the relay."""
    utf8 = getattr(msg.policy, "utf8", False)
    return msg.as_bytes(policy=policies.WRITE_UTF8 if utf8 else policies.WRITE)
