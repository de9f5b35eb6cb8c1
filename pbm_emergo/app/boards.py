"""Boards for the commands: finding them, and who gets the board mail after a change.

A board mail is drawn from a :class:`~pbm_emergo.game.board.BoardState`: the board as plain
values (its players, moves, votes, rating changes), by :mod:`pbm_emergo.views.board_mail`.
A decision that changes a board computes the state after the change from the state it read
(:mod:`pbm_emergo.game`), the shell mails that and leaves the storing to its changes; so the
mail shows exactly what the write transaction stores, without reading it back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from pbm_emergo.views.board_mail import board_html, board_link, board_view, options_text
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
    link = board_link(config, state.number)
    # The text and HTML parts in each recipient's language (the sender's as their mail's
    # replies are); the Subject in English for all.
    with speaking(None):
        view = board_view(
            state, comment=comment, commenter=commenter, headline=headline,
            link=link, now=now, new_board=new_board,
        )
    html = board_html(view.subject, [view.html])
    recipients: list[str] = []
    subscribed = [w.address for w in watchers]
    # Who asked for the position in words (board USERID PASSWORD list), by address.
    listeners = {
        address.lower()
        for address, style in (
            (state.white.address, state.white.board_style),
            (state.black.address, state.black.board_style),
            *((w.address, w.board_style) for w in watchers),
        )
        if address and style == "list"
    }
    # The players asked for the mail of their game under way, subscribers for what they
    # subscribed to; a new board's first mail to the opponent is the challenger's doing
    # (charged to the challenger: game.budget).
    asked: dict[str, bool] = {}
    # A player with a daily digest (notify digest) gets no board mail of a change someone
    # else made on a game under way: the digest lists the board. Their own command's
    # answer, a new board and the end of a game still come at once.
    digested = {
        seat.address.lower()
        for seat in (state.white, state.black)
        if seat.digest and seat.address and state.active and not new_board
        and seat.address.lower() != sender.lower()
    }
    for address, solicited in (
        (state.white.address, not new_board), (state.black.address, not new_board),
        *((a, True) for a in subscribed),
    ):
        if address and address.lower() in digested:
            continue
        if address and address.lower() not in {r.lower() for r in recipients}:
            recipients.append(address)
            asked[address.lower()] = solicited
    # " **": the mail carries a comment to read (as pbmserv marks it).
    subject = f"{view.subject} **" if comment else view.subject
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
    languages = {
        address.lower(): language
        for address, language in (
            (state.white.address, state.white.language),
            (state.black.address, state.black.language),
            *((w.address, w.language) for w in watchers),
        )
        if address and language
    }
    languages.setdefault(sender.lower(), i18n.current())
    made: dict[tuple[bool, str, str], tuple[str, str]] = {}

    def parts_for(address: str, public: bool) -> tuple[str, str]:
        """The text and HTML parts for ``address``: the text in words for those who asked,
        both in their language (each kind made once)."""
        style = "list" if address.lower() in listeners else "diagram"
        language = i18n.supported(languages.get(address.lower())) or i18n.DEFAULT
        if style == "diagram" and language == i18n.DEFAULT:
            return (public_view.text, public_html) if public else (view.text, html)
        key = (public, style, language)
        if key not in made:
            with speaking(language):
                made_view = board_view(
                    state, comment=None if public else comment,
                    commenter=None if public else commenter, headline=headline, link=link,
                    now=now, new_board=new_board, style=style,
                )
                made[key] = (made_view.text, board_html(made_view.subject, [made_view.html]))
        return made[key]

    public_view, public_html = view, html
    mails = [
        Reply(to=r, subject=subject, body=parts[0], board=state.number, html=parts[1],
              solicited=asked[r.lower()], attachment=record, awaits_robot=robot_next)
        for r in recipients if r.lower() in players or not comment
        for parts in [parts_for(r, False)]
    ]
    watching = [r for r in recipients if r.lower() not in players]
    if comment and watching:
        with speaking(None):
            public_view = board_view(
                state, headline=headline, link=link, now=now, new_board=new_board
            )
            public_html = board_html(public_view.subject, [public_view.html])
        mails += [
            Reply(to=r, subject=public_view.subject, body=parts[0],
                  board=state.number, html=parts[1], solicited=True, attachment=record,
                  awaits_robot=robot_next)
            for r in watching
            for parts in [parts_for(r, True)]
        ]
    return mails
