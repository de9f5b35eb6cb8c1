"""Render a reply as a mail: every header from our own values or sanitised text, never raw
input.

A reply is built and written with the library's compat32 classes and policy
(:data:`policies.WRITE_COMPAT32`): header values (all of them ours or checked here) are
stored folded by :class:`email.header.Header` and written as they are, and each text part
is made by ``Message.set_payload`` with a UTF-8 charset that gives 7bit, 8bit or
quoted-printable. The modern policy parses every value it is given with its header
registry, and its content manager parses Content-Type again at each step: building and
writing a board mail (text and HTML picture) took three times as long. The message
:func:`build_reply` returns has the modern write policy, so it reads like a parsed mail
(``msg["To"]``, ``get_body``, ``get_content``); :func:`reply_bytes` writes it with compat32.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from email.charset import QP, Charset
from email.generator import BytesGenerator
from email.header import Header
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from io import BytesIO
from typing import Protocol

from pbm_emergo.views.fit import fit
from pbm_emergo.views.reply_size import MAX_REPLY_BYTES, cut_to_size, fit_alternative
from pbm_emergo.wire import policies
from pbm_emergo.wire.addresses import clean_address
from pbm_emergo.wire.marks import ERROR_ID_STRING, LOOP_HEADER, is_error_subject

SUBJECT_LIMIT = 200
# An attachment larger than this is left out of the reply.
MAX_ATTACHMENT_BYTES = MAX_REPLY_BYTES // 2
_UNSAFE = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")
_FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,60}", re.ASCII)


def sanitise_subject(subject: str) -> str:
    """One line of plain text: control characters (CR, LF...) become spaces, length capped."""
    subject = " ".join(_UNSAFE.sub(" ", subject).split())
    if len(subject) > SUBJECT_LIMIT:
        subject = subject[: SUBJECT_LIMIT - 3].rstrip() + "..."
    return subject or "pbm-emergo"


class ReplyContent(Protocol):
    """What a reply says and to whom (:class:`pbm_emergo.app.messages.Reply` is one)."""

    @property
    def to(self) -> str: ...  # one address, checked here
    @property
    def subject(self) -> str: ...  # plain text, sanitised here
    @property
    def body(self) -> str: ...
    @property
    def board(self) -> int | None: ...  # one board's mails share a thread
    @property
    def html(self) -> str | None: ...  # sent as multipart/alternative, the text first
    @property
    def attachment(self) -> Attachment | None: ...  # a text file sent with it


@dataclass(frozen=True)
class Attachment:
    """A plain-text file sent with a reply (a game record): multipart/mixed, the reply
    first."""

    filename: str  # ASCII letters, digits, dots and hyphens only: it goes into a header
    text: str

    def __post_init__(self) -> None:
        if not _FILENAME.fullmatch(self.filename):
            raise ValueError(f"not a plain file name: {self.filename!r}")


def thread_id(board: int, domain: str) -> str:
    """The Message-ID-like token that keeps one board's mails in one thread."""
    return f"<board-{board}.pbm-emergo@{domain}>"


@dataclass(frozen=True)
class ReplyMail:
    """A reply as written, and the values of the headers the outbox records."""

    raw: bytes  # CRLF line ends: as stored in the outbox and handed to the relay
    to: str  # the recipient's address, cleaned
    message_id: str
    subject: str  # sanitised, as it reads (not RFC 2047-encoded)


def reply_mail(
    reply: ReplyContent,
    *,
    server_address: str,
    now: datetime,
    in_reply_to: str | None = None,
    references: tuple[str, ...] = (),
) -> ReplyMail:
    """The reply written out: what ``reply_bytes(build_reply(...))`` gives, with its To,
    Message-ID and Subject as given to it (reading them back from an :class:`EmailMessage`
    parses them: a quarter of the time it takes to build and write a board mail).
    ValueError as in :func:`build_reply`."""
    msg, mail = _compose(reply, server_address, now, in_reply_to, references)
    return ReplyMail(_written(msg), *mail)


def build_reply(
    reply: ReplyContent,
    *,
    server_address: str,
    now: datetime,
    in_reply_to: str | None = None,
    references: tuple[str, ...] = (),
) -> EmailMessage:
    """The reply as an :class:`EmailMessage`, to be written with :func:`reply_bytes`; raises
    ValueError for a recipient that is not a plain address or a message id with a control
    character in it (so that no user text can reach a header). Mail to a non-ASCII address
    (RFC 6531/6532) has its To header in UTF-8 and the policy :data:`policies.WRITE_UTF8`."""
    msg, mail = _compose(reply, server_address, now, in_reply_to, references)
    # From here on it reads like a parsed mail (header objects made when asked for).
    for part in msg.walk():
        part.policy = policies.write_policy(mail[0])
    return msg


def _compose(
    reply: ReplyContent,
    server_address: str,
    now: datetime,
    in_reply_to: str | None,
    references: tuple[str, ...],
) -> tuple[EmailMessage, tuple[str, str, str]]:
    """The reply built with the compat32 policy, and its To, Message-ID and Subject."""
    to = clean_address(reply.to)
    if to is None:
        raise ValueError(f"not a plain mail address: {reply.to!r}")
    for ref in (*references, in_reply_to):
        if ref and _UNSAFE.search(ref):
            raise ValueError(f"not a message id: {ref!r}")
    domain = server_address.rpartition("@")[2] or "localhost"
    # Every line within 72 columns, whatever put it together (the templates' own lines
    # already are; a sentence the code built may not be).
    body = fit(reply.body.replace("\r\n", "\n").replace("\r", "\n"))
    if not body.endswith("\n"):
        body += "\n"
    # One reply is at most MAX_REPLY_BYTES, so that a short mail cannot ask for a long one:
    # longer text is cut, a picture that does not fit is left out (each with a line saying so).
    # The HTML is a jinja Markup: a plain str, or each of its str methods makes a new Markup.
    html = None if reply.html is None else str(reply.html)
    # An attached file counts towards the cap too; one larger than half of it is left out
    # (a record that long is on the web view).
    attachment = reply.attachment
    attached = 0 if attachment is None else len(attachment.text.encode("utf-8"))
    if attached > MAX_ATTACHMENT_BYTES:
        attachment, attached = None, 0
    limit = MAX_REPLY_BYTES - attached
    body, html = fit_alternative(cut_to_size(body, limit), html, limit)
    subject = sanitise_subject(reply.subject)
    # An error reply's id says so: a mail answering it is recognised (mail.parse).
    idstring = ERROR_ID_STRING if is_error_subject(subject) else "pbm-emergo"
    message_id = make_msgid(idstring=idstring, domain=domain)
    msg = EmailMessage(policy=policies.WRITE_COMPAT32)
    msg["From"] = server_address
    # An address cannot be an encoded word: a non-ASCII one goes in UTF-8 (RFC 6532), kept
    # as the parser keeps 8-bit header bytes (compat32 writes such a value as it is).
    msg["To"] = _compat32_to(to)
    msg["Subject"] = _folded("Subject", subject)
    msg["Date"] = format_datetime(now)
    msg["Message-ID"] = message_id
    for name, value in _thread_headers(reply.board, domain, in_reply_to, references):
        msg[name] = value
    msg["Auto-Submitted"] = "auto-replied"
    msg[LOOP_HEADER] = server_address
    if attachment is not None:
        # multipart/mixed: the reply as it would be alone, then the file.
        msg["MIME-Version"] = "1.0"
        file_text = attachment.text.replace("\r\n", "\n")
        msg.add_header(
            "Content-Type", "multipart/mixed", boundary=_boundary(body, html or "", file_text)
        )
        inner = EmailMessage(policy=policies.WRITE_COMPAT32)
        _body_parts(inner, body, html)
        del inner["MIME-Version"]
        msg.attach(inner)
        part = _text_part(EmailMessage(policy=policies.WRITE_COMPAT32), file_text, "plain")
        del part["MIME-Version"]
        part["Content-Disposition"] = f'attachment; filename="{attachment.filename}"'
        msg.attach(part)
    else:
        _body_parts(msg, body, html)
    return msg, (to, message_id, subject)


def _thread_headers(
    board: int | None, domain: str, in_reply_to: str | None, references: tuple[str, ...]
) -> list[tuple[str, str]]:
    """The In-Reply-To and References a reply carries, as stored (folded)."""
    # The board's thread id stays first (the thread's root); then the command mail's chain.
    root = [thread_id(board, domain)] if board is not None else []
    chain: list[str] = []
    for ref in (*references, in_reply_to):
        if ref and ref not in chain and ref not in root:
            chain.append(ref)
    headers = []
    if in_reply_to:
        headers.append(("In-Reply-To", _folded("In-Reply-To", in_reply_to)))
    if root or chain:
        headers.append(("References", _folded("References", " ".join(root + chain[-9:]))))
    return headers


def _body_parts(msg: EmailMessage, body: str, html: str | None) -> None:
    """The text of a reply into ``msg``: text/plain, or multipart/alternative with the
    HTML picture."""
    if html:
        # multipart/alternative: the text exactly as without it, then the HTML picture.
        msg["MIME-Version"] = "1.0"
        msg.add_header("Content-Type", "multipart/alternative", boundary=_boundary(body, html))
        for text, subtype in ((body, "plain"), (html, "html")):
            part = _text_part(EmailMessage(policy=policies.WRITE_COMPAT32), text, subtype)
            del part["MIME-Version"]  # set_payload adds it; the top level has it
            msg.attach(part)
    else:
        _text_part(msg, body, "plain")


# UTF-8 text parts: plain 7bit/8bit keeps the board readable in any mail client;
# quoted-printable only when a line is too long for SMTP. (The stock utf-8 charset says
# base64; these instances are ours, the library's registry stays as it is.)
_UTF8_8BIT = Charset("utf-8")
_UTF8_8BIT.body_encoding = None  # type: ignore[assignment]  # None: 7bit or 8bit as needed
_UTF8_QP = Charset("utf-8")
_UTF8_QP.body_encoding = QP
_LONGEST_LINE = 990  # octets, within SMTP's 998
_HEADER_LINE = 78  # characters (RFC 5322)


def _text_part(part: EmailMessage, text: str, subtype: str) -> EmailMessage:
    """``part`` with ``text`` as its text/``subtype`` body in UTF-8 (Content-Type with the
    charset, Content-Transfer-Encoding and MIME-Version added by ``set_payload``)."""
    longest = max(map(len, text.encode("utf-8").split(b"\n")))
    part["Content-Type"] = f"text/{subtype}"
    part.set_payload(text, _UTF8_QP if longest > _LONGEST_LINE else _UTF8_8BIT)
    return part


def _folded(name: str, value: str) -> str:
    """A header value as written: folded at spaces into lines of at most 78 characters
    where its words allow (RFC 5322), as RFC 2047 encoded words if it is not ASCII. The
    policy writes it as it is (it folds only lines longer than 998 octets)."""
    if value.isascii():
        if len(name) + 2 + len(value) <= _HEADER_LINE:
            return value
        # Header puts a first word too long to follow the name on a line of its own: the
        # value would read back with a space in front. Such a word stays after the name.
        fits = len(name) + 2 + len(value.partition(" ")[0]) <= _HEADER_LINE
        header = Header(value, maxlinelen=_HEADER_LINE, header_name=name if fits else None)
    else:
        header = Header(value, "utf-8", maxlinelen=_HEADER_LINE, header_name=name)
    return header.encode()


def _boundary(*texts: str) -> str:
    """A multipart boundary found in none of ``texts`` (short enough for the Content-Type
    to fit on one line). It starts with ``=_``, which quoted-printable never writes, so
    only text sent as it is needs looking at."""
    while True:
        boundary = "=_" + secrets.token_hex(12)
        if not any(boundary in text for text in texts):
            return boundary


def readdressed_bytes(raw: bytes, to: str, *, server_address: str) -> tuple[bytes, str]:
    """The wire form ``raw`` of a mail made by :func:`reply_mail` or :func:`build_reply`
    (and :func:`reply_bytes`), for another recipient:
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
    return _with_headers(raw, new), message_id


def rethreaded_bytes(
    raw: bytes,
    to: str,
    *,
    server_address: str,
    subject: str,
    board: int | None,
    in_reply_to: str | None = None,
    references: tuple[str, ...] = (),
) -> tuple[bytes, str]:
    """As :func:`readdressed_bytes`, and threaded as :func:`reply_mail` threads a reply to
    ``to`` with ``in_reply_to`` and ``references`` (none: not threaded to a mail): the
    same bytes as that reply built anew, but for the Message-ID and the boundary (the
    board mail to the mover answers their mail, the one to the opponent does not; the text
    is the same). ``subject`` and ``board``: the reply's, as built. ValueError as in
    build_reply."""
    address = clean_address(to)
    if address is None:
        raise ValueError(f"not a plain mail address: {to!r}")
    for ref in (*references, in_reply_to):
        if ref and _UNSAFE.search(ref):
            raise ValueError(f"not a message id: {ref!r}")
    domain = server_address.rpartition("@")[2] or "localhost"
    idstring = ERROR_ID_STRING if is_error_subject(subject) else "pbm-emergo"
    message_id = make_msgid(idstring=idstring, domain=domain)
    write = policies.WRITE_COMPAT32
    new: dict[bytes, bytes | None] = {
        b"to": write.fold_binary("To", _compat32_to(address)),
        b"message-id": write.fold_binary("Message-ID", message_id),
        b"in-reply-to": None,
        b"references": None,
    }
    threads = b"".join(
        write.fold_binary(name, value)
        for name, value in _thread_headers(board, domain, in_reply_to, references)
    )
    return _with_headers(raw, new, before=b"auto-submitted", insert=threads), message_id


def _compat32_to(address: str) -> str:
    """The To value of a reply as :func:`_compose` stores it."""
    return (
        address if address.isascii() else address.encode("utf-8").decode("ascii", "surrogateescape")
    )


def _with_headers(
    raw: bytes,
    new: dict[bytes, bytes] | dict[bytes, bytes | None],
    *,
    before: bytes | None = None,
    insert: bytes = b"",
) -> bytes:
    """``raw`` with the top-level header lines named in ``new`` (lower case) put in place
    of the old ones (None: left out), and ``insert`` (whole header lines) before the
    header ``before``. ValueError if a header to replace is not there."""
    wanted = {name for name, line in new.items() if line is not None}
    head, blank, body = raw.partition(b"\r\n\r\n")
    lines: list[bytes] = []
    replacing = False
    for line in head.split(b"\r\n"):
        if line[:1] in (b" ", b"\t"):  # a folded continuation of the header above
            if not replacing:
                lines.append(line)
            continue
        name = line.partition(b":")[0].strip().lower()
        if name == before and insert:
            lines.append(insert.removesuffix(b"\r\n"))
            insert = b""
        replacing = name in new
        if replacing:
            wanted.discard(name)
            put = new[name]
            if put is not None:
                lines.append(put.rstrip(b"\r\n"))
        else:
            lines.append(line)
    if wanted or insert:  # build_reply always writes these headers
        raise ValueError("not a mail made by build_reply")
    return b"\r\n".join(lines) + blank + body


def reply_bytes(msg: EmailMessage) -> bytes:
    """The wire form (CRLF line ends) of a mail made by :func:`build_reply`, as stored in the
    outbox and handed to the relay."""
    return _written(msg)


class _ReplyGenerator(BytesGenerator):
    """The library's generator (made only with :data:`policies.WRITE_COMPAT32`), writing a
    text body in one piece with every line end (CR LF, CR or LF) made the policy's, as the
    library's ``_write_lines`` does line by line (that was a tenth of the time it took to
    write a board mail)."""

    def _write_lines(self, lines: str) -> None:
        if lines:
            one = lines.replace("\r\n", "\n").replace("\r", "\n")
            self.write(one.replace("\n", policies.WRITE_COMPAT32.linesep))


def _written(msg: EmailMessage) -> bytes:
    """``msg.as_bytes(policy=policies.WRITE_COMPAT32)``, by :class:`_ReplyGenerator`."""
    out = BytesIO()
    _ReplyGenerator(out, mangle_from_=False, policy=policies.WRITE_COMPAT32).flatten(msg)
    return out.getvalue()
