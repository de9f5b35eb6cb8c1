"""What our own MTA found out about the sender: Authentication-Results (RFC 8601).

The From header is whatever the sender typed. Behind a real MTA that checks DMARC (Postfix
with OpenDKIM and OpenDMARC, see deploy/), the trustworthy signal is the
``Authentication-Results`` header that MTA adds, recognised by its authserv-id (the
``authserv_id`` setting). Headers with any other authserv-id may come from anyone and are
ignored; the MTA must remove incoming headers that carry its own id (RFC 8601, section 5;
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
_VERSION = re.compile(r"\d+")


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
    """The authserv-id (lower case) and the results of one Authentication-Results value."""
    parts = _split(" ".join(without_comments(value).split()))
    head = parts[0].split()
    if not head or (len(head) > 1 and not _VERSION.fullmatch(head[1])):
        return "", []  # not the form RFC 8601 gives: authserv-id [version]
    authserv_id = head[0].lower()
    results: list[Result] = []
    for part in parts[1:]:
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


def sender_verdict(headers: Iterable[str], authserv_id: str, from_domain: str | None) -> str:
    """``fail`` when our MTA's headers say the From domain failed DMARC (or, with no DMARC
    result for it, SPF for that same domain), ``pass`` when they say it passed, else
    ``none``. Any ``fail`` wins over a ``pass`` (a forged header cannot make mail good)."""
    ours = authserv_id.strip().lower()
    domain = (from_domain or "").lower()
    dmarc: list[str] = []
    spf: list[str] = []
    for value in headers:
        found_id, results = parse_header(value)
        if found_id != ours:
            continue
        for result in results:
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
