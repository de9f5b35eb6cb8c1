"""How long one reply may be, so that nobody can use the server to amplify mail.

A short command mail may ask for long answers (a ``multiple`` of 30 ``emergo help`` lines
was a 237 kB reply, 232 kB of unknown lines a 999 kB one): every reply is at most
:data:`MAX_REPLY_BYTES`: its text is cut with a line that says so, and an HTML version
that does not fit as well is left out. The ``multiple`` report keeps within it by
itself (see :mod:`pbm_emergo.app.multiple`); the mail layer cuts any other reply.
"""

from __future__ import annotations

from pbm_emergo.views.templating import render

MAX_REPLY_BYTES = 64 * 1024  # the text of one reply, UTF-8


def size_of(text: str) -> int:
    """``text``'s size in a mail (UTF-8 bytes)."""
    return len(text.encode("utf-8"))


def cut_to_size(text: str, limit: int = MAX_REPLY_BYTES) -> str:
    """``text`` if it fits in ``limit`` bytes; else its first lines and a line saying that
    the rest was cut (the result fits in ``limit``)."""
    if size_of(text) <= limit:
        return text
    lines = text.splitlines(keepends=True)
    # Room for the notice with the largest count it can carry.
    room = limit - size_of(_notice(max(2, len(lines)))) - 1
    kept: list[str] = []
    used = 0
    for line in lines:
        size = size_of(line)
        if used + size > room:
            break
        kept.append(line)
        used += size
    if not kept:
        # One line longer than the limit: as much of it as fits (whole characters).
        kept = [lines[0].encode("utf-8")[: max(0, room)].decode("utf-8", "ignore") + "\n"]
        left = len(lines) - 1
    else:
        left = len(lines) - len(kept)
    head = "".join(kept)
    if not head.endswith("\n"):
        head += "\n"
    return head + _notice(left)


def fit_alternative(
    text: str, html: str | None, limit: int = MAX_REPLY_BYTES
) -> tuple[str, str | None]:
    """The text and the HTML version of one reply, within ``limit`` together: when both do
    not fit, the HTML version (a picture of what the text says) is left out, and the text
    says so."""
    if not html:
        return text, None
    if size_of(text) + size_of(html) <= limit:
        return text, html
    notice = render("notice/html_left_out.txt.j2", limit_kb=limit // 1024)
    return cut_to_size(text, limit - size_of(notice) - 1).rstrip("\n") + "\n\n" + notice, None


def _notice(left: int) -> str:
    # The reason is always the size of one mail (also for a part of a report cut shorter).
    return render("notice/reply_cut.txt.j2", limit_kb=MAX_REPLY_BYTES // 1024, left=left)


__all__ = ["MAX_REPLY_BYTES", "cut_to_size", "fit_alternative", "size_of"]
