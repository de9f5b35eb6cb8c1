"""The sentences of a tournament's or league's mails and page in the reader's language.

An event's clock shares its time bank and weekend words with the board mails
(:func:`pbm_emergo.views.board_text.clock_terms_text`). In English every sentence is, byte
for byte, the one these mails always said. Never translated: the event's name, its format
(an option's value: ``round-robin``, ``swiss``), the tie-breaks' names, userids and command
words.
"""

from __future__ import annotations

from pbm_emergo.views import i18n
from pbm_emergo.views.board_text import clock_terms_text


def clock_text(
    nag_days: int,
    forfeit_days: int,
    total_days: int | None,
    timebank_hours: int | None,
    increment_hours: int | None,
    weekends_off: bool,
) -> str:
    """An event's clock and vacation policy, in a sentence (its page and its mails)."""
    text = i18n._(
        "a reminder after %(nag)s days without a move, the game lost after %(forfeit)s",
        nag=nag_days,
        forfeit=forfeit_days,
    )
    if total_days:
        text += i18n._(", or after %(total)s days of thinking time in all", total=total_days)
    if timebank_hours is not None:
        text += i18n._(", or when the time bank runs out")
    terms = clock_terms_text(timebank_hours, increment_hours, weekends_off)
    if terms is not None:
        text += f"; {terms}"
    return text + i18n._("; vacation days stop the clock ('vacation').")


def status_text(status: str) -> str:
    """An event's status as a word of the reader's (the English is the stored value)."""
    words = {
        "open": i18n.pgettext("event status", "open"),
        "running": i18n.pgettext("event status", "running"),
        "finished": i18n.pgettext("event status", "finished"),
        "cancelled": i18n.pgettext("event status", "cancelled"),
    }
    return words.get(status, status)


def next_game_text(board: int, opponent: str, first: bool) -> str:
    """One of a player's next games in the event's table."""
    if first:
        return i18n._(
            "board %(board)s against %(opponent)s (Ohs, moving first)",
            board=board,
            opponent=opponent,
        )
    return i18n._("board %(board)s against %(opponent)s (Eks)", board=board, opponent=opponent)


def round_headline(event: str, number: int, white: str, black: str, clock: str) -> str:
    """The headline of a round's new board mail."""
    return i18n._(
        "The event %(event)s, round %(round)s: %(white)s plays Ohs (o) and moves first, "
        "%(black)s plays Eks (x). The clock: %(clock)s",
        event=event,
        round=number,
        white=white,
        black=black,
        clock=clock,
    )
