"""Boards for the commands: finding them, and who gets the board mail after a change.

A board mail is drawn from a :class:`~pbm_emergo.game.board.BoardState`: the board as plain
values (its players, moves, votes, rating changes), by :mod:`pbm_emergo.views.board_mail`.
A decision that changes a board computes the state after the change from the state it read
(:mod:`pbm_emergo.game`), the shell mails that and leaves the storing to its changes; so the
mail shows exactly what the write transaction stores, without reading it back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.records import record_attachment
from pbm_emergo.app.results import Refused
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.config import Config
from pbm_emergo.db.reads import watchers as board_watchers
from pbm_emergo.db.reads.snapshot import BoardRead, read_board
from pbm_emergo.db.reads.watchers import Watcher
from pbm_emergo.db.session import Session
from pbm_emergo.game.board import BoardState
from pbm_emergo.game.decision import finish
from pbm_emergo.game.ratings import GameRating
from pbm_emergo.robot import ROBOTS
from pbm_emergo.rules import Termination
from pbm_emergo.views import i18n
from pbm_emergo.views.board_mail import (
    board_html,
    board_link,
    board_subject,
    board_view,
    options_text,
)
from pbm_emergo.views.i18n import speaking

__all__ = [
    "board_mails",
    "board_mails_for",
    "finish_game",
    "get_board_read",
    "watchers_of",
]


def get_board_read(ctx: UnitOfWork, number: int, upto: int | None) -> BoardRead:
    """Board ``number`` (``upto``: the move number written after it, if any), read as
    values for a move (see :func:`pbm_emergo.db.reads.snapshot.read_board`), or a
    Refused."""
    read = read_board(ctx.session, number)
    if read is None:
        raise Refused(i18n._("There is no board %(number)s.", number=number))
    _check_upto(number, read.snapshot.state.ply, upto)
    return read


def _check_upto(number: int, ply: int, upto: int | None) -> None:
    """Refuse a move number past the board's ``ply`` moves."""
    if upto is not None and upto > ply:
        raise Refused(
            i18n.ngettext(
                "Board %(board)s has %(num)s move so far, so there is no move %(upto)s to show.",
                "Board %(board)s has %(num)s moves so far, so there is no move %(upto)s to show.",
                ply, board=number, upto=upto,
            ),
            board=number,
        )


# --- the end of a game, and the parts of the board mail ---------------------------------


def finish_game(
    ctx: UnitOfWork, state: BoardState, winner: str | None, termination: Termination,
    rating: GameRating | None = None,
) -> BoardState:
    """End the game now: stored by a change that re-checks the ratings it announces
    (``rating``, else the players' ratings as read); returns the state after it."""
    ended = finish(state, winner, termination, ctx.now, rating)
    for change in ended.changes:
        ctx.write(change)
    return ended.state_after


def board_mails(
    ctx: UnitOfWork,
    state: BoardState,
    *,
    comment: str | None = None,
    commenter: str | None = None,
    headline: str | Callable[[], str] | None = None,
    new_board: bool = False,
) -> list[Reply]:
    """The board mail after a change, to the players and those who watch the board
    (:func:`watchers_of`, read in ``ctx``'s session), drawn by :func:`board_mails_for`."""
    return board_mails_for(
        state, watchers_of(ctx.session, state), config=ctx.config, now=ctx.now,
        sender=ctx.sender, comment=comment, commenter=commenter, headline=headline,
        new_board=new_board,
    )


def watchers_of(session: Session, state: BoardState) -> list[Watcher]:
    """Who gets the board mail of ``state`` besides its players: its subscribers (looked
    for only when the board's read found some), and once its game is over those who asked
    for its final board mail (``emergo notify``)."""
    watchers = board_watchers.subscribers(session, state.number) if state.watched else []
    if not state.active:
        watchers += board_watchers.notified(session, state.number)
    return watchers


def board_mails_for(
    state: BoardState,
    watchers: Sequence[Watcher],
    *,
    config: Config,
    now: datetime,
    sender: str,
    comment: str | None = None,
    commenter: str | None = None,
    headline: str | Callable[[], str] | None = None,
    new_board: bool = False,
) -> list[Reply]:
    """The board mail of ``state`` after a change made by ``sender``'s mail (``""``: by the
    server), drawn from values alone: one to each player and each of ``watchers``
    (``new_board``: the first mails of a new board). A comment is for the two players
    only: watchers get the board without it (as the web pages show it)."""
    drawings = _Drawings(
        state, comment, commenter, headline, board_link(config, state.number), now, new_board
    )
    # The text and HTML parts in each recipient's language (the sender's as their mail's
    # replies are), in words for those who asked (board USERID PASSWORD list).
    readers = [
        (state.white.address, state.white.board_style, state.white.language),
        (state.black.address, state.black.board_style, state.black.language),
        *((w.address, w.board_style, w.language) for w in watchers),
    ]
    in_words = {address.lower() for address, style, _ in readers if address and style == "list"}
    languages = {address.lower(): language for address, _, language in readers
                 if address and language}
    languages.setdefault(sender.lower(), i18n.current())

    def parts_for(address: str, public: bool) -> tuple[str, str]:
        style = "list" if address.lower() in in_words else "diagram"
        return drawings.parts(public, style, languages.get(address.lower()))

    players = {a.lower() for a in (state.white.address, state.black.address) if a}
    # The last board mail of a game carries its record file.
    record = (
        None if state.active
        else record_attachment(state, config.address, options_text(state))
    )
    # A robot to answer: the mail waits a little for the robot's, which takes its place
    # (app.outbox); not a new board's first mail, which says how to decline the game.
    robot_next = (
        state.active and state.to_move is not None and not new_board
        and state.seat(state.to_move).userid.lower() in ROBOTS
    )
    recipients = _recipients(state, watchers, sender=sender, new_board=new_board)
    # The Subject in English for all; " **": the mail carries a comment to read (as
    # pbmserv marks it).
    subject = board_subject(state, new_board)
    commented = f"{subject} **" if comment else subject
    mails = [
        Reply(to=r, subject=commented, body=parts[0], board=state.number, html=parts[1],
              solicited=solicited, attachment=record, awaits_robot=robot_next)
        for r, solicited in recipients.items() if r.lower() in players or not comment
        for parts in [parts_for(r, False)]
    ]
    if comment:
        mails += [
            Reply(to=r, subject=subject, body=parts[0],
                  board=state.number, html=parts[1], solicited=True, attachment=record,
                  awaits_robot=robot_next)
            for r in recipients if r.lower() not in players
            for parts in [parts_for(r, True)]
        ]
    return mails


def _recipients(
    state: BoardState, watchers: Sequence[Watcher], *, sender: str, new_board: bool
) -> dict[str, bool]:
    """Who gets the board mail, each address once (the first spelling), and whether they
    asked for it: the players for the mail of their game under way, subscribers for what
    they subscribed to; a new board's first mail to the opponent is the challenger's doing
    (charged to the challenger: game.budget). A player with a daily digest (notify digest)
    gets no board mail of a change someone else made on a game under way: the digest lists
    the board. Their own command's answer, a new board and the end of a game still come at
    once."""
    digested = {
        seat.address.lower()
        for seat in (state.white, state.black)
        if seat.digest and seat.address and state.active and not new_board
        and seat.address.lower() != sender.lower()
    }
    chosen: dict[str, tuple[str, bool]] = {}
    for address, solicited in (
        (state.white.address, not new_board), (state.black.address, not new_board),
        *((w.address, True) for w in watchers),
    ):
        if address and address.lower() not in digested:
            chosen.setdefault(address.lower(), (address, solicited))
    return dict(chosen.values())


@dataclass
class _Drawings:
    """The board mail's text and HTML parts, each kind drawn once: with the comment (for
    the players) or without it (``public``: for watchers), as a diagram or in words, in a
    language."""

    state: BoardState
    comment: str | None
    commenter: str | None
    headline: str | Callable[[], str] | None
    link: str | None
    now: datetime
    new_board: bool
    made: dict[tuple[bool, str, str], tuple[str, str]] = field(default_factory=dict)

    def parts(self, public: bool, style: str, language: str | None) -> tuple[str, str]:
        """The text and HTML parts of one kind (``language`` None or unknown: English)."""
        key = (public, style, i18n.supported(language) or i18n.DEFAULT)
        if key not in self.made:
            with speaking(key[2]):
                view = board_view(
                    self.state, comment=None if public else self.comment,
                    commenter=None if public else self.commenter, headline=self.headline,
                    link=self.link, now=self.now, new_board=self.new_board, style=style,
                )
                self.made[key] = (view.text, board_html(view.subject, [view.html]))
        return self.made[key]
