"""Bounds on a mail's header fields and MIME structure, checked on its raw bytes before the
email package parses it.

The email package's header parser takes time quadratic in a field's length (a From or
Subject of encoded words: 0.07 s at 16 kB, seconds at 250 kB), and its parse of deeply
nested MIME grows as fast. The listener works out every mail in one thread, so one such
mail would hold up everybody else's. :func:`over_limit` reads the raw bytes once, line by
line, in time linear in their length, and says which bound a mail passes; such a mail is
refused (see :meth:`pbm_emergo.mail.inbound.InboxHandler.handle_DATA`), never parsed.

It follows the parser's reading of a mail: an entity's header block ends at its first
empty line (or a line that is no header), a ``multipart/*`` entity's parts start at its
boundary lines (an outer boundary also ends the inner parts), and the body of a
``message/*`` entity is a message of its own, one level deeper.
"""

from __future__ import annotations

import re

# One header field, unfolded (its name, its value and its continuation lines), in bytes.
MAX_HEADER_FIELD = 8 * 1024
# One entity's header block (the mail's, or a part's), in bytes.
MAX_HEADER_BLOCK = 64 * 1024
# How deep MIME entities nest: the mail itself is at depth 1, its parts at 2, and so on.
MAX_MIME_DEPTH = 20
# How many entities a mail holds, itself and every part at any depth.
MAX_MIME_PARTS = 200

_HEADER_LINE = re.compile(rb"[\x21-\x39\x3b-\x7e]+[ \t]*:")
_CONTENT_TYPE = re.compile(rb"content-type[ \t]*:(.*)", re.IGNORECASE | re.DOTALL)
_BOUNDARY = re.compile(rb'boundary[ \t]*=[ \t]*(?:"([^"]+)"|([^\s;"]+))', re.IGNORECASE)


def over_limit(raw: bytes) -> str | None:
    """Which bound the mail ``raw`` passes, in words for its sender, or None."""
    lines = raw.splitlines()
    count = len(lines)
    # The boundaries of the multipart entities open at this point, outermost first, each
    # with the depth of its parts.
    open_boundaries: list[tuple[bytes, int]] = []
    entities = 0
    depth = 1  # the depth of the entity whose header block comes next
    i = 0
    while i < count:
        # An entity's header block.
        entities += 1
        if entities > MAX_MIME_PARTS:
            return f"it has more than {MAX_MIME_PARTS} MIME parts"
        if depth > MAX_MIME_DEPTH:
            return f"its MIME parts are nested more than {MAX_MIME_DEPTH} deep"
        block = 0
        field = 0
        content_type: list[bytes] | None = None
        found: bytes | None = None  # the Content-Type field, once it is complete
        while i < count:
            line = lines[i]
            if line[:1] in (b" ", b"\t") and field:
                field += len(line)
                if content_type is not None:
                    content_type.append(line)
            elif _HEADER_LINE.match(line):
                if content_type is not None and found is None:
                    found = b"".join(content_type)
                field = len(line)
                content_type = [line] if found is None and _CONTENT_TYPE.match(line) else None
            else:
                break  # the empty line after the headers, or the body's first line
            block += len(line) + 2
            if field > MAX_HEADER_FIELD:
                return (f"a header field is longer than {MAX_HEADER_FIELD} bytes "
                        f"(line {i + 1})")
            if block > MAX_HEADER_BLOCK:
                return f"a header block is longer than {MAX_HEADER_BLOCK} bytes"
            i += 1
        if content_type is not None and found is None:
            found = b"".join(content_type)
        if i < count and lines[i] == b"":
            i += 1
        kind = _content_type(found)
        if kind.startswith(b"message/"):
            depth += 1  # its body is a message: headers again, one level deeper
            continue
        if kind.startswith(b"multipart/"):
            boundary = _BOUNDARY.search(found or b"")
            if boundary is not None:
                open_boundaries.append(
                    ((boundary.group(1) or boundary.group(2)).strip(), depth + 1)
                )
        if not open_boundaries:
            return None  # the rest is one body: nothing more to parse
        # The body, up to the next boundary line of an open multipart.
        next_depth = None
        while i < count and next_depth is None:
            line = lines[i]
            i += 1
            if not line.startswith(b"--"):
                continue
            stripped = line[2:].rstrip(b" \t")
            for at in range(len(open_boundaries) - 1, -1, -1):
                boundary_text, part_depth = open_boundaries[at]
                if stripped == boundary_text:
                    del open_boundaries[at + 1:]
                    next_depth = part_depth
                    break
                if stripped == boundary_text + b"--":
                    del open_boundaries[at:]
                    break
        if next_depth is None:
            return None
        depth = next_depth
    return None


def _content_type(field: bytes | None) -> bytes:
    """The lower-cased type of a Content-Type field (``text/plain`` when there is none)."""
    if field is None:
        return b"text/plain"
    match = _CONTENT_TYPE.match(field)
    value = match.group(1) if match else b""
    return value.split(b";", 1)[0].strip().lower()
