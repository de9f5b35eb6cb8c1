"""Why a command line does not fit its command, as a value
(:class:`~pbm_emergo.rules.reasons.Reason`): the command layer has no catalogs, so the shell
says it in the reader's language; ``str()`` of it is the English sentence of :data:`TEXTS`."""

from __future__ import annotations

from pbm_emergo.rules.reasons import Reason

__all__ = ["TEXTS", "unfit"]

TEXTS: dict[str, str | tuple[str, str]] = {
    "start_here": "This server plays Emergo by mail, and your mail has no command it knows.",
    "emergo_alone": (
        "The command 'emergo' needs a second word such as help, challenge, move or show."
    ),
    "emergo_alone_meant": (
        "The command 'emergo' needs a second word such as help, challenge, move or show. "
        "Did you mean '%(meant)s'?"
    ),
    "too_many_arguments": "The command has more than %(num)s arguments.",
    "multiple_inside": "'multiple' works only as the Subject of a mail, not inside one.",
    "board_or_all": (
        "The command %(command)s needs a board number or 'all' first: "
        "%(command)s 101 USERID PASSWORD."
    ),
    "board_alone": "Write the board number alone: %(command)s.",
    "accept_reject_on_board": (
        "To %(keyword)s a draw offer or a take-back request on a board, write "
        "'emergo move %(board)s USERID PASSWORD %(keyword)s'; 'emergo %(keyword)s "
        "USERID PASSWORD' is about challenges."
    ),
    "seek_number": "The number of games sought is a number from 0 to %(num)s, or off.",
    "digest_hour": (
        "Write the hour of your digest (0 to 23, in your time zone) or off after the "
        "password: notify digest userid password HOUR|off."
    ),
    "board_style": "Write list or diagram after the password: board userid password list|diagram.",
    "vacation_days": (
        "Write a number of days or off after the password: vacation userid password DAYS|off."
    ),
    "autoplay_on_off": (
        "Write on or off after the password: emergo autoplay userid password on|off."
    ),
    "limit_number": "The limit is a number of active boards from 0 to %(num)s, or off.",
    "no_time_zone": (
        "The ZONE after the password is no time zone: write a name of the IANA time zone "
        "database, such as Europe/Amsterdam, America/New_York or UTC."
    ),
    "signup_language": "Write language=en, language=nl, language=de or language=fr.",
}


def unfit(code: str, **values: str | int | Reason) -> Reason:
    """The command layer's reason ``code`` naming ``values``."""
    return Reason(code, tuple(values.items()), TEXTS[code])
