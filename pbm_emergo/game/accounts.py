"""Accounts on values: which userids and passwords a player may choose, and how a userid
reads at a glance (so that nobody passes for another player or for the server).

A userid has 2 to 16 characters and starts with a letter; the reserved words, and any
userid that reads like the server's own (its robots, its administrators, the server
itself), are refused, compared as they read at a glance: letter case, the separators
``_ - .`` and the digits 0 and 1 (for o and l, as I is) do not count.
"""

from __future__ import annotations

from pbm_emergo.game.reasons import refusal
from pbm_emergo.game.words import MIN_PASSWORD, RESERVED_USERIDS, USERID_PATTERN
from pbm_emergo.rules.reasons import Reason

__all__ = [
    "LOOKALIKE_FOLDS",
    "MAX_PASSWORD",
    "password_fault",
    "userid_fault",
    "userid_key",
    "userid_skeleton",
]

MAX_PASSWORD = 128

# What a userid is read as by someone who does not look closely (the database folds the
# stored keys the same way: db.players.lookalike_userid).
LOOKALIKE_FOLDS = (("_", ""), ("-", ""), (".", ""), ("0", "o"), ("1", "l"), ("i", "l"))


def userid_key(userid: str) -> str:
    """The case-insensitive key of a userid (what ``players.userid_key`` holds)."""
    return userid.strip().lower()


def userid_skeleton(userid: str) -> str:
    """``userid`` as it reads at a glance: ``Bob_``, ``b0b`` and ``bob`` read alike."""
    skeleton = userid_key(userid)
    for found, read_as in LOOKALIKE_FOLDS:
        skeleton = skeleton.replace(found, read_as)
    return skeleton


_RESERVED_SKELETONS = frozenset(userid_skeleton(word) for word in RESERVED_USERIDS)
# Userids that would pass for the server's own: any that starts like these (robot4,
# Admin_2, pbmserv-bot), or is one of the names below with digits or _ - added (root1,
# emergo_), compared as they read at a glance (r0bot is robot).
_SERVER_PREFIXES = tuple(
    userid_skeleton(word)
    for word in ("robot", "admin", "pbmserv", "postmaster", "mailerdaemon", "moderator", "sysop")
)
_SERVER_NAMES = frozenset(
    userid_skeleton(word)
    for word in (
        "abuse", "emergo", "hostmaster", "nobody", "noreply", "official", "owner", "root",
        "server", "staff", "support", "system", "webmaster",
    )
)  # fmt: skip


def userid_fault(userid: str) -> Reason | None:
    """Why ``userid`` may not be chosen as a new userid, or None (whether a player has it,
    or one like it, the shell looks up)."""
    if not USERID_PATTERN.fullmatch(userid):
        return refusal("userid_not_allowed", userid=userid[:40])
    skeleton = userid_skeleton(userid)
    if userid.lower() in RESERVED_USERIDS or skeleton in _RESERVED_SKELETONS:
        return refusal("userid_reserved", userid=userid)
    bare = userid_skeleton(userid.lower().rstrip("0123456789_-"))
    if skeleton.startswith(_SERVER_PREFIXES) or bare in _SERVER_NAMES:
        return refusal("userid_server_like", userid=userid)
    return None


def password_fault(password: str) -> Reason | None:
    """Why ``password`` may not be chosen as a new password, or None."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return refusal("password_length", least=MIN_PASSWORD, most=MAX_PASSWORD)
    return None
