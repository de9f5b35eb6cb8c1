"""Where quoted or forwarded text starts in a mail's body: found once, when the mail is parsed.

A reply quotes the mail it answers, and that mail may be someone else's (a chat, a message):
a command line planted in it must never run as the replying player's command, and the
quoted header block (an address, a Subject holding a password) must never reach a comment.
So the commands of a body and its comment are read only from the lines the sender wrote
above the first quoted or forwarded line (see :func:`pbm_emergo.commands.text.body_text_lines`).

quotequail finds the intro lines mail programs write: "On ... wrote:" (Gmail, Apple Mail,
Thunderbird), "Am ... schrieb ...:", "Le ... a écrit :", "Op ... schreef ...:", "El ...
escribió:", Outlook's "-----Original Message-----" and its German, Spanish and Dutch forms,
the forward separators and Outlook's line of underscores, also when a long intro line is
wrapped onto a second line. What it does not find is added here:

- a line starting with ``>`` (quotequail wants three of them; one is enough here);
- Italian ("Il giorno ... ha scritto:", "Inizio messaggio inoltrato:"), and any line
  ending in "wrote:", "schrieb ...:", "a écrit :", "schreef ...:", "escribió:" or
  "ha scritto:";
- any separator line of dashes around words ("-------- Messaggio originale --------",
  "---------- Weitergeleitete Nachricht ---------"), and a line of eight or more
  underscores;
- Outlook's header block without a separator above it: two header lines in a row
  ("Von:" then "Gesendet:", "De :" then "Envoyé :", "Da:" then "Inviato:") in English,
  German, French, Dutch, Spanish or Italian, with Outlook's bold ``*From:*`` too.

French puts a no-break space before a colon ("a écrit\u00a0:"); it is read as a space.
Finding quoted text where there is none only leaves lines unread (never runs one), so the
patterns lean that way.
"""

from __future__ import annotations

import re

import quotequail  # type: ignore[import-untyped]  # ships no type information

# French typography's no-break spaces (before ":" and inside dates), read as spaces.
_SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2007": " "})

# How every intro line that quotequail knows ends: "wrote:", "schrieb Alice <a@x>:", the
# date-and-address line "2026/03/12 Alice <a@x>", a separator of dashes or underscores.
_INTRO_ENDS = frozenset(":>-_")
# Intro lines quotequail does not know, or knows only in one program's exact form.
_INTRO = re.compile(
    r"^(?:.*\bwrote\s?:|.*\bschrieb\b.*:|.*\ba écrit\s?:|.*\bschreef\b.*:|.*\bescribió\s?:"
    r"|.*\bha scritto\s?:|(?:begin forwarded message|inizio messaggio inoltrato"
    r"|anfang der weitergeleiteten e-mail|début du message réexpédié"
    r"|inicio del mensaje reenviado|begin doorgestuurd bericht)\s?:"
    r"|-{2,}\s*[^\s-].*?\s*-{2,}|_{8,})$",
    re.IGNORECASE,
)
# The labels of a quoted mail's header block, as Outlook writes them in English, German,
# French, Dutch, Spanish and Italian ("Sent" / "Gesendet" / "Envoyé" / "Verzonden" /
# "Enviado el" / "Inviato"...); Thunderbird's forward block uses "Sujet", "Date", "De".
_HEADER_LABELS = (
    r"from|sent|date|to|cc|bcc|subject|reply-to"
    r"|von|gesendet|datum|an|betreff|kopie|antwort an"
    r"|de|envoyé|à|objet|sujet|date d'envoi|pour"
    r"|van|verzonden|aan|onderwerp"
    r"|enviado|enviado el|fecha|para|asunto|cco"
    r"|da|inviato|data|a|oggetto|ccn"
)
_HEADER_LINE = re.compile(rf"^\*?(?:{_HEADER_LABELS})\s?:\*?(?:\s|$)", re.IGNORECASE)


def quote_start(text: str) -> int | None:
    """The index of the first line of quoted or forwarded text in ``text`` (a body, read
    as ``text.splitlines()``), or None when it quotes nothing."""
    lines = text.translate(_SPACES).splitlines()
    own = _own_start(lines)
    above = lines if own is None else lines[: own + 1]
    found = [at for at in (_library_start(above), own) if at is not None]
    return min(found, default=None)


def _library_start(lines: list[str]) -> int | None:
    """Where quotequail finds the intro line of a reply or a forward.

    quotequail tries each of its patterns on every line it is given, and on each line
    joined with the next (a wrapped intro): a tenth of a millisecond a line. So it is
    given only a line that ends as every intro it knows ends, with the line before it."""
    for index, line in enumerate(lines):
        if line.rstrip()[-1:] not in _INTRO_ENDS:
            continue
        first = max(0, index - 1)
        window = lines[first : index + 1]
        # A limit past the last line: quotequail quotes everything after the limit's line.
        parts: list[tuple[bool, str]] = quotequail.quote(
            "\n".join(window), limit=len(window) + 2, quote_intro_line=True
        )
        if len(parts) > 1:
            return first + len(window) - len(parts[1][1].split("\n"))
    return None


def _own_start(lines: list[str]) -> int | None:
    """Where the first line quotequail does not know starts quoted text."""
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(">") or _INTRO.match(stripped):
            return index
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if _HEADER_LINE.match(stripped) and _HEADER_LINE.match(following):
            return index
    return None
