"""What a mail command asks for, as the command layer read it: one frozen value per command
(or per family of commands), holding the words of its line by part as its grammar bound them.

The command layer (:mod:`pbm_emergo.commands`) turns a line into one of these, or raises
:class:`Unfit` when the line names no command or its arguments do not fit; it reads no
database and renders nothing. The shell (:mod:`pbm_emergo.app.handlers`) runs a request:
it finds the boards and players it names, verifies its password, calls the game's
operations and renders the replies.

Board numbers are parsed here (``101#7``: board 101, as of move 7, :func:`parse_board_ref`);
a password is a :class:`Password`, which the shell verifies and nothing shows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules.reasons import Reason

# A board number, optionally with a move number: "101", "101#7". ASCII digits only: \d and
# int() also take other scripts' digits ("١٠١" would be 101).
BOARD_REF = re.compile(r"([0-9]{1,9})(?:#([0-9]{1,6}))?")


def parse_board_ref(text: str) -> tuple[int, int | None] | None:
    """``"101"`` -> (101, None); ``"101#7"`` -> (101, 7); anything else -> None."""
    match = BOARD_REF.fullmatch(text)
    if not match:
        return None
    return int(match[1]), int(match[2]) if match[2] else None


def not_a_board(text: str) -> Reason:
    """The reason given for a word where a board number belongs."""
    return refusal("not_a_board", word=text[:40])


class Unfit(ValueError):
    """A command line the command layer makes no request of: it names no command, or its
    arguments do not fit the command. The sender gets an error reply: ``reason`` is one
    sentence (in English; ``reason_value``: as a value the shell says in the reader's
    language, where it was given one), ``template`` the error template, ``details`` its
    other variables; ``start_here``: the mail is answered with where to start, not as an
    error."""

    def __init__(
        self,
        reason: str | Reason,
        *,
        template: str = "error/error.txt.j2",
        start_here: bool = False,
        **details: Any,
    ) -> None:
        super().__init__(str(reason))
        self.reason = str(reason)
        self.reason_value = reason if isinstance(reason, Reason) else None
        self.template = template
        self.start_here = start_here
        self.details = details


@dataclass(frozen=True)
class Password:
    """A password as written in a command line: the shell verifies it (or sets it); it is
    never shown, not even in a ``repr``."""

    text: str = field(repr=False)

    def __repr__(self) -> str:
        return "Password(********)"


@dataclass(frozen=True)
class BoardRef:
    """A board argument: the board's number and the move number written after it
    (``101#7``), if any. ``alone``: the reason given where the command takes no move number
    there (the command as written with the board number alone)."""

    number: int
    upto: int | None = None
    alone: str | Reason = ""

    def __str__(self) -> str:
        """As written: ``101`` or ``101#7``."""
        return str(self.number) if self.upto is None else f"{self.number}#{self.upto}"


@dataclass(frozen=True)
class HelpEntry:
    """One command in the help texts: how it is written, one line about it, its section
    (``account`` or ``emergo``)."""

    usage: str
    description: str
    section: str

    def shown(self) -> dict[str, str]:
        """As the templates take it."""
        return {"usage": self.usage, "description": self.description, "section": self.section}


@dataclass(frozen=True, kw_only=True)
class Request:
    """What every request carries: its command words (``emergo move``) and how the command
    is written (its usage, for the refusals that show it)."""

    command: str
    usage: str


# --- help ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CommandHelp:
    """The help of one command, as mailed."""

    name: str
    usage: str  # wrapped
    description: str
    # As written in the registry (paragraphs, example lines): said and wrapped in the
    # reader's language by the views.
    details: str


@dataclass(frozen=True, kw_only=True)
class HelpRequest(Request):
    """``help [topic]``, ``emergo help``: the summary, the Emergo page, or one command's
    help. ``entries``: every listed command (the registry's help, as plain data);
    ``topic``: the command asked about (its usage wrapped, its description, its details
    as mailed), None for the summary; ``unknown_topic``: a topic that names no command, as
    it may be shown; ``emergo``: the Emergo help page; ``rules``: the rules for players
    (``help rules``)."""

    entries: tuple[HelpEntry, ...]
    emergo: bool = False
    rules: bool = False
    topic: CommandHelp | None = None
    unknown_topic: str | None = None


# --- accounts -----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SignupRequest(Request):
    """``signup userid password [address ...]``: no login, the account is new."""

    userid: str
    password: Password
    addresses: tuple[str, ...]
    language: str | None = None  # language=LANG among the words: the replies' language


@dataclass(frozen=True, kw_only=True)
class LoginRequest(Request):
    """A request whose userid and password the shell verifies before it acts."""

    userid: str
    password: Password


@dataclass(frozen=True, kw_only=True)
class ChangePasswordRequest(LoginRequest):
    """``change password userid old new``."""

    new: Password


@dataclass(frozen=True, kw_only=True)
class ChangeAddressRequest(LoginRequest):
    """``change address userid password address ...``."""

    addresses: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class ConfirmRequest(Request):
    """``confirm CODE``."""

    code: Password


@dataclass(frozen=True, kw_only=True)
class SignoffRequest(LoginRequest):
    """``signoff userid password``."""


@dataclass(frozen=True, kw_only=True)
class VacationRequest(LoginRequest):
    """``vacation userid password DAYS|off``: ``days`` None for off."""

    days: int | None


@dataclass(frozen=True, kw_only=True)
class ListRequest(Request):
    """``list``."""


@dataclass(frozen=True, kw_only=True)
class MessageRequest(LoginRequest):
    """``message userid password to [to ...]``: the mail's comment goes to them."""

    to: tuple[str, ...]


# --- boards -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ChallengeRequest(Request):
    """``emergo challenge u1 u2 [options]``: the options as written, in any order."""

    white: str
    black: str
    options: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class MoveRequest(Request):
    """``emergo move board userid password MOVE[#n]`` (and ``emergo resign board userid
    password``, whose move is ``resign``): ``upto`` is a move number written after the
    board (``101#5``), which a move refuses."""

    board: int
    upto: int | None
    userid: str
    password: Password
    move: str


@dataclass(frozen=True, kw_only=True)
class QueueRequest(LoginRequest):
    """``emergo queue board userid password MOVE[#n] | OPP=MINE ... | clear``."""

    board: BoardRef
    moves: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class AutoplayRequest(LoginRequest):
    """``emergo autoplay userid password on|off``."""

    on: bool


@dataclass(frozen=True, kw_only=True)
class ShowRequest(Request):
    """``emergo show board[#n] ... | userid ... [filter]``: each target a board or a
    userid, in the order written; ``which``: the filter for the userids' boards."""

    targets: tuple[BoardRef | str, ...]
    which: str


@dataclass(frozen=True, kw_only=True)
class GamesRequest(Request):
    """``emergo games [userid ...] [filter]``."""

    userids: tuple[str, ...]
    which: str


@dataclass(frozen=True, kw_only=True)
class BoardRequest(Request):
    """A command about one board and nothing else: ``emergo moves``, ``emergo record``."""

    board: BoardRef


@dataclass(frozen=True, kw_only=True)
class MovesRequest(BoardRequest):
    """``emergo moves board[#n]``."""


@dataclass(frozen=True, kw_only=True)
class RecordRequest(BoardRequest):
    """``emergo record board``."""


@dataclass(frozen=True, kw_only=True)
class PreviewRequest(BoardRequest):
    """``emergo preview board[#n] MOVE ...``."""

    moves: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class AnalyseRequest(LoginRequest):
    """``emergo analyse board userid password``."""

    board: BoardRef


@dataclass(frozen=True, kw_only=True)
class ChatRequest(LoginRequest):
    """``emergo chat board userid password``: the mail's comment goes to the board."""

    board: BoardRef


@dataclass(frozen=True, kw_only=True)
class SubscriptionRequest(LoginRequest):
    """``emergo subscribe|unsubscribe board|all userid password``: ``board`` None for
    all; ``subscribe`` False to unsubscribe."""

    board: int | None
    subscribe: bool


@dataclass(frozen=True, kw_only=True)
class NotifyRequest(LoginRequest):
    """``emergo notify userid password [board ...]``: the board words as written (each is
    checked, then looked up, in order)."""

    boards: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class PlayersRequest(Request):
    """``emergo standings [userid ...]`` (``ratings``), ``emergo history [userid ...]``."""

    userids: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class StandingsRequest(PlayersRequest):
    """``emergo standings [userid ...]``, ``emergo ratings``."""


@dataclass(frozen=True, kw_only=True)
class HistoryRequest(PlayersRequest):
    """``emergo history [userid ...]``."""


# --- challenges ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SeekRequest(LoginRequest):
    """``emergo seek userid password [N|off]``: ``count`` 0 for off."""

    count: int


@dataclass(frozen=True, kw_only=True)
class SeeksRequest(Request):
    """``emergo seeks``."""


@dataclass(frozen=True, kw_only=True)
class PolicyRequest(LoginRequest):
    """``emergo accept|reject userid password``, ``emergo limit userid password N|off``:
    the player's policy towards challenges. ``policy``: ``accept``, ``reject`` or
    ``limit``; ``limit``: the number of active boards (None for off)."""

    policy: str
    limit: int | None = None


# --- self-service: closing an account, a forgotten password, blocks, notes ---------------


@dataclass(frozen=True, kw_only=True)
class DeleteRequest(LoginRequest):
    """``delete userid password``: close one's own account."""


@dataclass(frozen=True, kw_only=True)
class ForgotRequest(Request):
    """``forgot userid``: mail a reset code to the player's registered addresses."""

    userid: str


@dataclass(frozen=True, kw_only=True)
class ResetRequest(Request):
    """``reset CODE NEWPASSWORD``: set a new password with a mailed reset code."""

    code: Password
    new: Password


@dataclass(frozen=True, kw_only=True)
class BlockRequest(LoginRequest):
    """``block userid password other`` (``on``) or ``unblock userid password other``."""

    other: str
    on: bool


@dataclass(frozen=True, kw_only=True)
class NoteRequest(LoginRequest):
    """``emergo note board userid password TEXT``: ``text`` the words after the password
    (none: the mail's body is the note)."""

    board: BoardRef
    text: str


# --- rematch, showas, all show, submit and confirm ----------------------------------------


@dataclass(frozen=True, kw_only=True)
class RematchRequest(LoginRequest):
    """``emergo rematch board userid password``."""

    board: BoardRef


@dataclass(frozen=True, kw_only=True)
class ShowAsRequest(Request):
    """``emergo showas board userid``: the board as that player of it sees it."""

    board: BoardRef
    userid: str


@dataclass(frozen=True, kw_only=True)
class AllShowRequest(Request):
    """``all show userid [active|next]``: every board of the player in one mail."""

    userid: str
    which: str


@dataclass(frozen=True, kw_only=True)
class SubmitRequest(LoginRequest):
    """``emergo submit board userid password MOVE[#n]``: ``move`` as written, guard
    included."""

    board: BoardRef
    move: str


@dataclass(frozen=True, kw_only=True)
class ConfirmMoveRequest(LoginRequest):
    """``emergo confirm board userid password``: play the submitted move."""

    board: BoardRef


# --- leagues and tournaments ----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class EventsRequest(Request):
    """``emergo events``."""


@dataclass(frozen=True, kw_only=True)
class EventRequest(Request):
    """``emergo event NAME``."""

    name: str


@dataclass(frozen=True, kw_only=True)
class JoinRequest(LoginRequest):
    """``emergo join NAME userid password [EVENTPASSWORD]``: the event's own password for
    a private event."""

    name: str
    event_password: Password | None = None


@dataclass(frozen=True, kw_only=True)
class WithdrawRequest(LoginRequest):
    """``emergo withdraw NAME userid password``."""

    name: str


@dataclass(frozen=True, kw_only=True)
class EventCreateRequest(LoginRequest):
    """``emergo event create NAME userid password FORMAT EVENTPASSWORD [options]``: a
    private event, joined with EVENTPASSWORD; the options as written."""

    name: str
    event_format: str
    event_password: Password
    options: tuple[str, ...]


# --- a player's settings ------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class TimezoneRequest(LoginRequest):
    """``timezone userid password ZONE``: ``zone`` an IANA time zone as the time zone data
    spell it (the command checked it), ``written`` as the line wrote it."""

    zone: str
    written: str


@dataclass(frozen=True, kw_only=True)
class DigestRequest(LoginRequest):
    """``notify digest userid password HOUR|off``: ``hour`` 0-23 (None for off)."""

    hour: int | None
# --- how board mails show the position ----------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class BoardStyleRequest(LoginRequest):
    """``board userid password list|diagram``: ``style`` is ``list`` or ``diagram``."""

    style: str


# --- the language of a player's replies ---------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class LanguageRequest(LoginRequest):
    """``language userid password LANG``: ``language`` a locale the server writes in."""

    language: str
