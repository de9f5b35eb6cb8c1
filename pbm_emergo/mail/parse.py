"""Turn the raw bytes of an inbound mail into what the command layer needs.

:func:`parse_mail` never raises: mail comes from anyone, and a message we cannot read still
deserves a log line (and, when we know whom to tell, a reply), never a crashed worker.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses
from html.parser import HTMLParser
from typing import Any

from pbm_emergo.app.messages import CommandMail, clean_address, clean_subject
from pbm_emergo.commands import body as body_commands
from pbm_emergo.commands.text import CommandText, body_text_lines
from pbm_emergo.mail import authresults, limits
from pbm_emergo.mail.headertext import without_comments
from pbm_emergo.mail.quotes import quote_start
from pbm_emergo.wire import policies
from pbm_emergo.wire.marks import ERROR_ID_STRING, LOOP_HEADER

log = logging.getLogger(__name__)

_WHITESPACE = re.compile(r"\s+")

# The Subject of a mail answering an error of ours: the error's Subject behind "Re:"-like
# prefixes (any language's: "AW:", "SV:", "RE :") or an autoresponder's words before a
# colon ("Automatic reply:", "Abwesend:"), or none.
_ANSWERING = re.compile(r"(?:[^:]{1,40}:)*\s*emergo (?:board \d{1,9} )?error", re.IGNORECASE)

# No control characters: ids go into text columns, and PostgreSQL refuses NUL in text.
_MSGID = re.compile(r"<([^<>\s@\x00-\x1f\x7f]{1,200}@[^<>\s@\x00-\x1f\x7f]{1,200})>")
# Plain header values, the shapes most mail has, read without the email package's header
# parser (see _PlainHeaders). atext and dot-atom as in RFC 5322.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_DOT_ATOM = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_PLAIN_MSGID = re.compile(rf"<{_DOT_ATOM}@{_DOT_ATOM}>")
# "local@domain", or "Some Name <local@domain>" with a name of plain words.
_PLAIN_FROM = re.compile(
    rf"({_DOT_ATOM}@{_DOT_ATOM})|(?:{_ATEXT}+(?: {_ATEXT}+)* )?<({_DOT_ATOM}@{_DOT_ATOM})>"
)
# Loop safety (RFC 3834, and what GNU Mailman does): mail marked as sent by a program is
# never answered. Precedence is not standardised; these are the values programs use.
_NOT_ANSWERED_PRECEDENCE = {"bulk", "junk", "list", "auto_reply", "auto-reply"}
# Headers that autoresponders add: with any value but "no", a program sent the mail.
_AUTORESPONDER_HEADERS = ("X-Autoreply", "X-Autorespond")
# Delivery status, read receipts and abuse reports (RFC 6522 and the types it carries).
_REPORT_TYPES = {
    "multipart/report",
    "message/delivery-status",
    "message/global-delivery-status",
    "message/disposition-notification",
    "message/global-disposition-notification",
    "message/feedback-report",
}


@dataclass(frozen=True)
class ParsedMail:
    """A parsed inbound mail: the command mail, plus what the mail layer decides on its own."""

    message_id: str  # with angle brackets, as it goes into In-Reply-To
    sender: str | None  # the address to answer, lower-cased; None when there is none
    subject: str
    body: str
    references: tuple[str, ...]  # the mail's own References, oldest first
    defects: tuple[str, ...]
    # Why this mail must not be answered (loop safety), or None when it may be.
    not_answered: str | None
    # The From domain's DMARC/SPF verdict by our MTA (see CommandMail.sender_auth).
    sender_auth: str = ""
    # Its commands as the listener read them on receipt (see mail.commands.describe); None when
    # not read yet.
    commands: CommandText | None = None
    # The index of the body's first quoted or forwarded line (see mail.quotes), or None:
    # the commands and the comment are read only from the lines above it.
    quote_at: int | None = None
    # Which bound of :mod:`pbm_emergo.mail.limits` the raw mail passes, or None: such a mail
    # is not parsed at all (and the listener refuses it).
    over_limit: str | None = None
    # The mail's Content-Language header (RFC 3282), as written: "" when it has none.
    content_language: str = ""

    def to_stored(self) -> dict[str, Any]:
        """What the worker needs of the parse that the row does not hold already (the
        sender and ``not_answered`` have columns of their own): stored with the mail on
        receipt, so that it is parsed and its commands read once (see :meth:`from_stored`)."""
        stored: dict[str, Any] = {
            "message_id": self.message_id,
            "subject": self.subject,
            "body": self.body,
            "references": list(self.references),
            "defects": list(self.defects),
            "sender_auth": self.sender_auth,
            "quote_at": self.quote_at,
            "content_language": self.content_language,
        }
        if self.commands is not None:
            stored["commands"] = self.commands.to_stored()
        return stored

    @classmethod
    def from_stored(
        cls,
        stored: dict[str, Any],
        *,
        sender: str | None,
        not_answered: str | None,
    ) -> ParsedMail:
        """The parse stored by :meth:`to_stored`, with the row's own columns. A parse
        stored without ``quote_at`` (before it was stored) has its quoted text found now."""
        commands = stored.get("commands")
        body = str(stored["body"])
        quote_at = stored["quote_at"] if "quote_at" in stored else quote_start(body)
        return cls(
            message_id=str(stored["message_id"]),
            sender=sender,
            subject=str(stored["subject"]),
            body=body,
            references=tuple(str(r) for r in stored["references"]),
            defects=tuple(str(d) for d in stored["defects"]),
            not_answered=not_answered,
            sender_auth=str(stored["sender_auth"]),
            commands=None if commands is None else CommandText.from_stored(commands),
            quote_at=None if quote_at is None else int(quote_at),
            content_language=str(stored.get("content_language") or ""),
        )

    def command_mail(self) -> CommandMail:
        """The mail as the command layer sees it (only for mail that may be answered)."""
        return CommandMail(
            sender=self.sender or "",
            subject=self.subject,
            body=self.body,
            message_id=self.message_id,
            sender_auth=self.sender_auth,
            content_language=self.content_language,
        )


def html_to_text(html: str) -> str:
    """The readable text of an HTML body: tags dropped, blocks on their own lines."""
    extractor = _TextExtractor()
    try:
        extractor.feed(html)
        extractor.close()
    except Exception:  # noqa: BLE001 - HTMLParser is lenient; this is a last guard
        log.warning("HTML body could not be converted", exc_info=True)
    lines = (_WHITESPACE.sub(" ", line).strip() for line in "".join(extractor.parts).split("\n"))
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


# Containers that mail programs put around quoted or forwarded text in HTML mail (Gmail's
# "gmail_quote", Outlook's "divRplyFwdMsg", Thunderbird's "moz-cite-prefix").
_QUOTE_CONTAINERS = ("gmail_quote", "divrplyfwdmsg", "moz-cite-prefix", "yahoo_quoted")


def _is_quote_container(attrs: list[tuple[str, str | None]]) -> bool:
    for name, value in attrs:
        if name in ("class", "id") and value:
            lowered = value.lower()
            if any(marker in lowered for marker in _QUOTE_CONTAINERS):
                return True
    return False


class _TextExtractor(HTMLParser):
    _BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
               "blockquote", "table", "ul", "ol", "hr"}
    _HIDDEN = {"script", "style", "head", "title"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self._hidden += 1
        elif tag == "blockquote" or _is_quote_container(attrs):
            # Quoted text (a reply's or a forward's): a ">" line marks where it starts, so
            # that command lines and comments stop there, as in a plain-text mail.
            self.parts.append("\n>\n")
        elif tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def parse_mail(
    raw: bytes,
    envelope_sender: str | None = None,
    *,
    own_address: str = "",
    authserv_id: str | None = None,
) -> ParsedMail:
    """Parse ``raw`` (the bytes as received) into a :class:`ParsedMail`; never raises.

    ``envelope_sender`` is the SMTP ``MAIL FROM`` (``""`` for the null sender, None when
    unknown); ``own_address`` is the server's address, whose mail is never answered;
    ``authserv_id`` names our MTA's Authentication-Results headers (None: not checked).
    A mail past a bound of :mod:`pbm_emergo.mail.limits` is not parsed: it has no From, no
    Subject, no body, and is not answered.
    """
    reason = limits.over_limit(raw)
    if reason is not None:
        log.warning("mail of %d bytes not read: %s", len(raw), reason)
        return ParsedMail(
            message_id=_generated_id(raw),
            sender=_envelope_address(envelope_sender),
            subject="",
            body="",
            references=(),
            defects=(reason,),
            not_answered=f"not read: {reason}"[:200],
            over_limit=reason,
        )
    try:
        return _parse(raw, envelope_sender, own_address.lower(), authserv_id)
    except Exception as exc:  # noqa: BLE001 - the last guard: a mail must never crash a worker
        log.exception("unparseable mail (%d bytes)", len(raw))
        return ParsedMail(
            message_id=_generated_id(raw),
            sender=_envelope_address(envelope_sender),
            subject="",
            body="",
            references=(),
            defects=(f"{type(exc).__name__}: {exc}"[:200],),
            not_answered=None if _envelope_address(envelope_sender) else "no address to answer",
        )


def _parse(
    raw: bytes, envelope_sender: str | None, own_address: str, authserv_id: str | None
) -> ParsedMail:
    msg = BytesParser(policy=policies.READ).parsebytes(raw)
    defects = [type(d).__name__ for part in _walk(msg) for d in part.defects]

    plain = _PlainHeaders(msg)
    message_id = _message_id(plain.message_id()) or _generated_id(raw)
    references = tuple(_message_ids(plain.text("References") or ""))[-20:]
    from_address = plain.from_address()
    sender = from_address or _envelope_address(envelope_sender)
    raw_subject = plain.text("Subject") or ""
    subject = clean_subject(raw_subject)
    body = _body(msg, defects)
    quote_at = quote_start(body)
    if defects:
        log.info("mail %s has defects: %s", message_id, ", ".join(sorted(set(defects))))
    return ParsedMail(
        message_id=message_id,
        sender=sender,
        subject=subject,
        body=body,
        references=references,
        defects=tuple(defects),
        not_answered=(
            _not_answered(msg, envelope_sender, sender, own_address)
            or _answering_our_error(msg, raw_subject, subject, body, quote_at)
        ),
        sender_auth=_sender_auth(msg, from_address, authserv_id),
        content_language=(plain.text("Content-Language") or "")[:64],
        quote_at=quote_at,
    )


class _PlainHeaders:
    """Headers of a parsed mail, read without parsing them when their value is plain.

    Parsing a header into the email package's header object was a third of the time it
    took to parse a mail on receipt. Most mail has the same plain shapes: a Subject of
    printable ASCII without encoded words (also References), a Message-ID ``<a.b@c.d>``, a
    From of ``local@domain`` or ``Plain Name <local@domain>``. For those the parsed
    header's text is known without parsing it; each method gives exactly what the full path
    (:func:`_header`, :func:`_from_address`) gives, which the tests check on generated
    values, and takes that path for anything else.
    """

    def __init__(self, msg: Message) -> None:
        self.msg = msg
        self.first: dict[str, str] = {}
        for name, value in msg.raw_items():
            self.first.setdefault(name.lower(), value)

    def _plain(self, name: str) -> str | None:
        """The first ``name`` header's value, unfolded as the parser unfolds it, if it is
        printable ASCII without an encoded word; else None."""
        value = self.first.get(name.lower())
        if not isinstance(value, str):  # absent (or, in a built message, a header object)
            return None
        value = "".join(value.splitlines())
        if value.isascii() and value.isprintable() and "=?" not in value:
            return value
        return None

    def text(self, name: str) -> str | None:
        """An unstructured header's text (Subject, References), as :func:`_header` gives
        it."""
        if name.lower() not in self.first:
            return None
        plain = self._plain(name)
        return plain if plain is not None else _header(self.msg, name)

    def message_id(self) -> str | None:
        """The Message-ID's text, as :func:`_header` gives it: plain when it is one
        ``<id>`` (the parser reads one id and mends a broken one)."""
        if "message-id" not in self.first:
            return None
        plain = self._plain("Message-ID")
        if plain is not None and _PLAIN_MSGID.fullmatch(plain):
            return plain
        return _header(self.msg, "Message-ID")

    def from_address(self) -> str | None:
        """:func:`_from_address`, without parsing a plain From."""
        if "from" not in self.first:
            return None
        plain = self._plain("From")
        match = _PLAIN_FROM.fullmatch(plain) if plain is not None else None
        if match is not None:
            cleaned = clean_address(match.group(1) or match.group(2))
            if cleaned:
                return cleaned
        return _from_address(self.msg)


def _sender_auth(msg: Message, from_address: str | None, authserv_id: str | None) -> str:
    """The verdict of our MTA's Authentication-Results headers, read from the raw header
    fields in their order (never decoded: see :mod:`pbm_emergo.mail.authresults`)."""
    if not authserv_id:
        return ""
    if from_address is None:
        # No From address (answered at the envelope sender, if at all): DMARC proves a
        # From domain, and there is none, so nothing is proven; nor is it a failure.
        return authresults.NONE
    fields = [(name, value) for name, value in msg.raw_items() if isinstance(value, str)]
    domain = from_address.rpartition("@")[2]
    return authresults.sender_verdict(fields, authserv_id, domain)


def _message_ids(text: str) -> list[str]:
    return [f"<{m}>" for m in _MSGID.findall(text)]


def _walk(msg: Message) -> list[Message]:
    try:
        return list(msg.walk())
    except Exception:  # noqa: BLE001
        return [msg]


def _header(msg: Message, name: str) -> str | None:
    """A header's decoded text; falls back to decoding the raw value when parsing fails."""
    try:
        value = msg.get(name)
        return None if value is None else str(value)
    except Exception:  # noqa: BLE001 - malformed header: decode it by hand below
        pass
    for key, raw_value in msg.raw_items():
        if key.lower() == name.lower():
            try:
                return str(make_header(decode_header(raw_value)))
            except Exception:  # noqa: BLE001
                return raw_value.encode("ascii", "replace").decode("ascii")
    return None


def _message_id(value: str | None) -> str | None:
    if not value:
        return None
    match = _MSGID.search(value)
    return f"<{match.group(1)}>" if match else None


def _generated_id(raw: bytes) -> str:
    # Derived from the content, so that a resent copy of the same id-less mail is a duplicate.
    return f"<{hashlib.sha256(raw).hexdigest()[:32]}@generated.pbm-emergo.invalid>"


def _envelope_address(envelope_sender: str | None) -> str | None:
    return clean_address(envelope_sender)


def _from_address(msg: Message) -> str | None:
    """The first address of the From header, as the header's own syntax gives it: the
    addr-spec parsed from the raw field, never an address found in text that an encoded
    word decodes to (``From: =?utf-8?q?alice=40a=2Eexample?=`` holds no address, and a
    DMARC checker reads none in it). None when it holds none."""
    try:
        header = msg.get("From")
    except Exception:  # noqa: BLE001 - malformed header: the raw field below
        header = None
    if header is not None:
        for address in getattr(header, "addresses", ()):
            # A local part without a domain is no address (an encoded word is read as one).
            if not address.domain:
                continue
            cleaned = clean_address(address.addr_spec)
            if cleaned:
                return cleaned
        return None
    # The parser failed on the field: its raw value, undecoded, read as addresses.
    raw_values = [value for key, value in msg.raw_items()
                  if key.lower() == "from" and isinstance(value, str)]
    if not raw_values:
        return None
    try:
        pairs = getaddresses(raw_values[:1])
    except Exception:  # noqa: BLE001
        return None
    for _name, address in pairs:
        cleaned = clean_address(address)
        if cleaned and "=?" not in address:
            return cleaned
    return None


def _not_answered(
    msg: Message, envelope_sender: str | None, sender: str | None, own_address: str
) -> str | None:
    if envelope_sender is not None and envelope_sender.strip() in ("", "<>"):
        return "null sender"
    for address in (envelope_sender or "", sender or ""):
        if address.strip("<>").lower().partition("@")[0] == "mailer-daemon":
            return "mail from MAILER-DAEMON"
    report = _report_type(msg)
    if report is not None:
        return f"a delivery or read report ({report})"
    # RFC 3834: any Auto-Submitted but "no" (in any case, with comments or parameters) says
    # a program sent the mail; a mail with several such headers counts if any one says so.
    for value in _headers(msg, "Auto-Submitted"):
        keyword = _keyword(value)
        if keyword != "no":
            return f"Auto-Submitted: {keyword[:40] or '(empty)'}"
    precedence = _keyword(_header(msg, "Precedence") or "")
    if precedence in _NOT_ANSWERED_PRECEDENCE:
        return f"Precedence: {precedence}"
    for name in _AUTORESPONDER_HEADERS:
        if any(_keyword(value) != "no" for value in _headers(msg, name)):
            return f"{name} (an autoresponder)"
    if _header(msg, LOOP_HEADER) is not None:
        return f"our own loop header {LOOP_HEADER}"
    # A mailing list's copy (RFC 2919): a reply would go to the list, or to whoever the
    # list let post as someone else; list software sets List-Id on every mail it sends.
    if _headers(msg, "List-Id"):
        return "List-Id: mail from a mailing list"
    # X-Loop (procmail, Mailman and many autoresponders add it with their own address): our
    # address there means the mail has passed through us already.
    if own_address and any(own_address in value.lower() for value in _headers(msg, "X-Loop")):
        return "X-Loop names our address"
    if sender is None:
        return "no address to answer"
    if own_address and sender == own_address:
        return "mail from our own address"
    return None


def _answering_our_error(
    msg: Message, raw_subject: str, subject: str, body: str, quote_at: int | None
) -> str | None:
    """Why a mail answering one of our error replies must not be answered, or None.

    An autoresponder that ignores Auto-Submitted answers our error with a mail that is no
    command, which would earn another error, and so on. A player who answers an error to
    try again writes a command (in the Subject, as pbmserv players do, or in the body
    above the quote): that mail is run as any other."""
    ids = " ".join(
        value for name in ("In-Reply-To", "References") for value in _headers(msg, name)
    )
    by_id = f".{ERROR_ID_STRING}@" in ids.lower()
    by_subject = _ANSWERING.fullmatch(" ".join(raw_subject.split())) is not None
    if not (by_id or by_subject):
        return None
    lines = body_text_lines(body, quote_at)[0]
    reading = body_commands.read(subject, lines)
    if reading.multiple or reading.from_body or body_commands.is_command(subject):
        return None
    return "an answer to our error reply, with no command in it"


def _report_type(msg: Message) -> str | None:
    """The report content type of a delivery status notification, read receipt or feedback
    report (at the top, or a part of the top-level multipart), or None."""
    try:
        parts = [msg, *(msg.get_payload() if msg.is_multipart() else [])]
        for part in parts:
            if isinstance(part, Message) and part.get_content_type() in _REPORT_TYPES:
                return part.get_content_type()
    except Exception:  # noqa: BLE001 - a broken structure is no report
        pass
    return None


def _headers(msg: Message, name: str) -> list[str]:
    """Every value of header ``name`` (raw when a value cannot be parsed)."""
    try:
        return [str(value) for value in msg.get_all(name, [])]
    except Exception:  # noqa: BLE001 - malformed header: the raw values
        return [value for key, value in msg.raw_items() if key.lower() == name.lower()]


def _keyword(value: str) -> str:
    """The keyword of a structured header value such as Auto-Submitted or Precedence: what
    comes before the first ``;`` (parameters), without comments, lower-cased."""
    return " ".join(without_comments(value).split(";")[0].split()).lower()


def _body(msg: Message, defects: list[str]) -> str:
    """The first text/plain part that is not an attachment; else the first HTML part as text."""
    html: str | None = None
    for part in _walk(msg):
        if part.is_multipart():
            continue
        content_type = part.get_content_type()
        if content_type not in ("text/plain", "text/html"):
            continue
        if _is_attachment(part):
            continue
        text = _text_of(part, defects)
        if content_type == "text/plain":
            return _normalise_newlines(text)
        if html is None:
            html = text
    if html is not None:
        return _normalise_newlines(html_to_text(html))
    return ""


def _is_attachment(part: Message) -> bool:
    try:
        return (part.get_content_disposition() or "") == "attachment"
    except Exception:  # noqa: BLE001
        return False


def _text_of(part: Message, defects: list[str]) -> str:
    if isinstance(part, EmailMessage):
        try:
            content = part.get_content()
            if isinstance(content, str):
                return content
        except Exception as exc:  # noqa: BLE001 - unknown charset, broken encoding...
            defects.append(f"undecodable text part ({type(exc).__name__})")
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # noqa: BLE001
        payload = None
    if isinstance(payload, bytes):
        return payload.decode("utf-8", "replace")
    raw = part.get_payload()
    return raw if isinstance(raw, str) else ""


def _normalise_newlines(text: str) -> str:
    # NUL is dropped too: PostgreSQL refuses it in text (comments, command lines as userids).
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
