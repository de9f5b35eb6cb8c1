"""Header values as text: RFC 5322 comments taken out (used by the loop checks in
:mod:`pbm_emergo.mail.parse` and by :mod:`pbm_emergo.mail.authresults`)."""

from __future__ import annotations


def without_comments(value: str) -> str:
    """``value`` with its RFC 5322 comments removed: ``(...)``, nested, with ``\\``
    escapes; text in double quotes is kept as it is."""
    out: list[str] = []
    depth = 0
    quoted = escaped = False
    for char in value:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(char)
            continue
        if char == "\\" and (depth or quoted):
            escaped = True
            if depth == 0:
                out.append(char)
        elif quoted:
            quoted = char != '"'
            out.append(char)
        elif char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif depth == 0:
            quoted = char == '"'
            out.append(char)
    return "".join(out)
