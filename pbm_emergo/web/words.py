"""The web pages' values in the reader's language: numbers and moments as the page's locale
writes them (Babel), and the words that the pure layers give in English (the engine's verdicts,
the standings' sections, the robots' ladder) said in the page's language.

Each function reads the locale the request is rendered in (:func:`pbm_emergo.views.i18n.current`,
set by :class:`pbm_emergo.web.language.LanguageMiddleware`); in English every value reads as it
always did.
"""

from __future__ import annotations

from datetime import datetime

from babel.dates import format_date
from babel.numbers import format_decimal, format_percent

from pbm_emergo.db.reads import ESTABLISHED, PROVISIONAL
from pbm_emergo.game.numbers import INACTIVE_DAYS, PROVISIONAL_DEVIATION
from pbm_emergo.robot.ladder import LADDER
from pbm_emergo.views import i18n


def number(value: float, places: int | None = None) -> str:
    """``value`` as the page's locale writes it; with ``places``, with that many decimals
    (``1.35`` in English, ``1,35`` in German). Signed: see :func:`signed`."""
    if places is None:
        return i18n.number(value)
    if i18n.current() == i18n.DEFAULT:
        return f"{value:.{places}f}"
    return format_decimal(value, format="0." + "0" * places, locale=i18n.current())


def signed(value: float, places: int = 2) -> str:
    """``value`` with its sign, as an evaluation is written: ``+1.35``, ``-0.40``."""
    if i18n.current() == i18n.DEFAULT:
        return f"{value:+.{places}f}"
    digits = "0." + "0" * places if places else "0"
    return format_decimal(value, format=f"+{digits};-{digits}", locale=i18n.current())


def when(moment: datetime | None) -> str:
    """A moment of the server (its database keeps UTC) as the page's locale reads it:
    ``2026-12-01 14:00 UTC`` in English, ``1. Dezember 2026 14:00 UTC`` in German."""
    return i18n.moment(moment, "UTC") if moment is not None else ""


def day(moment: datetime) -> str:
    """The day of ``moment`` (UTC): ``2026-12-01`` in English, ``01.12.2026`` in German."""
    if i18n.current() == i18n.DEFAULT:
        return f"{moment:%Y-%m-%d}"
    return format_date(moment, "medium", locale=i18n.current())


def verdict(label: str) -> str:
    """The engine's name for a move that lost value (``inaccuracy``, ``mistake``, ``blunder``)."""
    names = {
        "inaccuracy": i18n._("inaccuracy"),
        "mistake": i18n._("mistake"),
        "blunder": i18n._("blunder"),
    }
    return names.get(label, label)


def verdict_loss(label: str, loss: int) -> str:
    """The verdict on a move and what it lost, in men: ``Mistake, 1.20 lost.``"""
    men = number(loss / 100, 2)
    if label == "inaccuracy":
        return i18n._("Inaccuracy, %(men)s lost.", men=men)
    if label == "mistake":
        return i18n._("Mistake, %(men)s lost.", men=men)
    if label == "blunder":
        return i18n._("Blunder, %(men)s lost.", men=men)
    return i18n._("%(men)s lost.", men=men)


def event_status(status: str) -> str:
    """The state of a league or tournament (``open``, ``running``, ``finished``)."""
    names = {
        "open": i18n._("open"),
        "running": i18n._("running"),
        "finished": i18n._("finished"),
        "cancelled": i18n._("cancelled"),
    }
    return names.get(status, status)


def reason(termination: str) -> str:
    """How a game ended (:class:`pbm_emergo.rules.game.Termination`'s stored words)."""
    names = {
        "eliminated": i18n._("eliminated"),
        "blocked": i18n._("blocked"),
        "no legal entry": i18n._("no legal entry"),
        "threefold repetition": i18n._("threefold repetition"),
        "resigned": i18n._("resigned"),
        "draw agreed": i18n._("draw agreed"),
        "forfeit": i18n._("forfeit"),
        "adjudicated": i18n._("adjudicated"),
        "void": i18n._("void"),
    }
    return names.get(termination, termination)


def section_title(section: str) -> str:
    """The heading of a section of the standings (:mod:`pbm_emergo.db.reads.rating_table`)."""
    if section == ESTABLISHED:
        return i18n._("Established players")
    if section == PROVISIONAL:
        return i18n._(
            "Provisional players (rating deviation above %(deviation)s)",
            deviation=number(PROVISIONAL_DEVIATION),
        )
    return i18n._(
        "Inactive players (no game under way, no rated game for %(days)s days)",
        days=number(INACTIVE_DAYS),
    )


def ladder_text(userid: str) -> str | None:
    """A robot's ladder rating (:mod:`pbm_emergo.robot.ladder`): ``ladder Elo 850
    (570-1129)``; None for anyone not on the ladder."""
    entry = LADDER.get(userid.lower())
    if entry is None:
        return None
    return i18n._(
        "ladder Elo %(rating)s (%(low)s-%(high)s)",
        rating=number(entry.rating), low=number(entry.low), high=number(entry.high),
    )  # fmt: skip


def ladder_texts(userids: list[str]) -> dict[str, str]:
    """:func:`ladder_text` of each of ``userids`` on the ladder."""
    found = {userid: ladder_text(userid) for userid in userids}
    return {userid: text for userid, text in found.items() if text is not None}


def ladder_explanation() -> str:
    """What the ladder ratings are (:data:`pbm_emergo.robot.ladder.LADDER_EXPLANATION`)."""
    return i18n._(
        "Ladder Elo: the robots' strength measured in games robot against robot, on the Elo "
        "scale with the random mover at 0 (%(interval)s interval in brackets); it does not "
        "move with their games here and is not comparable with the players' ratings.",
        interval=format_percent(0.95, locale=i18n.current()),
    )


__all__ = [
    "day",
    "event_status",
    "ladder_explanation",
    "ladder_text",
    "ladder_texts",
    "number",
    "reason",
    "section_title",
    "signed",
    "verdict",
    "verdict_loss",
    "when",
]
