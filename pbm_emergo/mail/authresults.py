"""What our own MTA found out about the sender: Authentication-Results (RFC 8601).

The From header is whatever the sender typed. Behind a real MTA that checks DMARC (Postfix
with OpenDKIM and OpenDMARC, see deploy/), the trustworthy signal is the
``Authentication-Results`` header that MTA adds, recognised by its authserv-id (the
``authserv_id`` setting). A header counts only as that MTA writes it, read from the raw,
undecoded header field:

- the authserv-id is the very first token of the value, with nothing but folding white
  space before it and nothing but white space and an optional version between it and the
  first ``;``: a comment, a quoted string or an encoded word around it, or any other
  authserv-id, and the header is anyone's and is ignored;
- its ``pass`` counts only when the header stands above the topmost ``Received`` header
  (RFC 8601, sections 5 and 7.1: the MTA prepends it above its own trace fields, and
  whatever the sender wrote comes below the Received header of our MTA). A ``fail`` counts
  wherever such a header stands: a header can only make its own mail less trusted.

The MTA must also remove incoming headers that name its id (RFC 8601, section 5;
deploy/postfix/header_checks does it).

:func:`sender_verdict` gives one word for the From domain: the DMARC result when there is
one (``pass`` or ``fail``), else the SPF result for the same domain, else ``none``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from pbm_emergo.mail.headertext import without_comments

PASS = "pass"
FAIL = "fail"
NONE = "none"

# A result: method[/version]=result, or ptype.property=value, or reason=...; values may be
# quoted strings (which may hold spaces and semicolons).
_TOKEN = re.compile(r'[^\s=;"]+\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^\s;"]*)|"(?:[^"\\]|\\.)*"|[^\s;"]+')
# The start of a value as our MTA writes it: folding white space, the authserv-id, an
# optional version, the first ";". An id is a token (RFC 2045): no quote, comment or
# encoded word ("=?" starts one; "?" is no token character) gets through.
_OWN_START = re.compile(
    r"[ \t\r\n]*([!#$%&'*+.0-9A-Z^_`a-z{|}~-]+)(?:[ \t\r\n]+[0-9]+)?[ \t\r\n]*;"
)
RECEIVED = "received"
AUTHENTICATION_RESULTS = "authentication-results"


@dataclass(frozen=True)
class Result:
    """One resinfo of an Authentication-Results header: ``dmarc=fail header.from=x.org``."""

    method: str
    result: str
    properties: dict[str, str] = field(default_factory=dict)


def _split(value: str) -> list[str]:
    """The ``;``-separated parts of a header value, quoted strings respected."""
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for char in value:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == ";" and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def parse_header(value: str) -> tuple[str, list[Result]]:
    """The authserv-id (lower case) and the results of one raw Authentication-Results
    value; ``("", [])`` when the value does not start as our MTA writes it (see the
    module's docstring)."""
    start = _OWN_START.match(value)
    if start is None:
        return "", []
    authserv_id = start[1].lower()
    parts = _split(" ".join(without_comments(value[start.end():]).split()))
    results: list[Result] = []
    for part in parts:
        tokens = _TOKEN.findall(part)
        if not tokens or "=" not in tokens[0]:
            continue  # "none": no results; or something we cannot read
        method, _, result = tokens[0].partition("=")
        properties: dict[str, str] = {}
        for token in tokens[1:]:
            name, _, prop = token.partition("=")
            properties[name.strip().lower()] = _unquote(prop)
        results.append(
            Result(method.split("/")[0].strip().lower(), _unquote(result).lower(), properties)
        )
    return authserv_id, results


def _domain(value: str | None) -> str | None:
    if not value:
        return None
    return value.rpartition("@")[2].strip().strip(".").lower() or None


def sender_verdict(
    fields: Iterable[tuple[str, str]], authserv_id: str, from_domain: str | None
) -> str:
    """``fail`` when our MTA's headers say the From domain failed DMARC (or, with no DMARC
    result for it, SPF for that same domain), ``pass`` when they say it passed, else
    ``none``. ``fields`` are the mail's header fields in order, each its name and its raw
    value. Any ``fail`` wins over a ``pass``, and a ``pass`` below the topmost Received
    header is not read (a header the sender wrote cannot make mail good)."""
    ours = authserv_id.strip().lower()
    domain = (from_domain or "").lower()
    dmarc: list[str] = []
    spf: list[str] = []
    above = True  # no Received header yet
    for name, value in fields:
        field_name = name.strip().lower()
        if field_name == RECEIVED:
            above = False
            continue
        if field_name != AUTHENTICATION_RESULTS:
            continue
        found_id, results = parse_header(value)
        if found_id != ours:
            continue
        for result in results:
            if not above and result.result != FAIL:
                continue
            if result.method == "dmarc":
                checked = _domain(result.properties.get("header.from"))
                if checked is None or checked == domain:
                    dmarc.append(result.result)
            elif result.method == "spf":
                checked = _domain(
                    result.properties.get("smtp.mailfrom") or result.properties.get("smtp.helo")
                )
                if checked == domain:
                    spf.append(result.result)
    # DMARC first; its "none" (the domain publishes no policy) or an error says nothing,
    # and then SPF for the same domain decides.
    for found in (dmarc, spf):
        if FAIL in found:
            return FAIL
        if PASS in found:
            return PASS
    return NONE
