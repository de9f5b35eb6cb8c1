"""The board mail of a board's state: its text and its HTML section, drawn from values alone.

A board mail shows a :class:`~pbm_emergo.game.board.BoardState` (the board as plain values:
its players, moves, votes, clocks, rating changes), as it is or as it was after some move:
:func:`board_view` renders the text (``board.txt.j2``) and the HTML section
(``board/section.html.j2``, with the picture of :mod:`pbm_emergo.views.picture`) from one
set of values, and :func:`board_html` puts sections into a whole HTML document. Who gets
which mail is the shell's (:func:`pbm_emergo.app.boards.board_mails_for`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm_emergo.config import Config
from pbm_emergo.game.board import BLACK, WHITE, BoardState
from pbm_emergo.game.clock import (
    TimeBank,
    bank_left,
    deadlines,
    side_periods,
    thinking_time,
)
from pbm_emergo.game.sentences import Said, undo_first_move, undo_said
from pbm_emergo.rules import Position
from pbm_emergo.views import board_text, i18n
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.picture import board_picture
from pbm_emergo.views.templating import render, render_html, render_html_part

# The width of a board mail's score sheet (the move list), indent included.
SCORE_SHEET_WIDTH = 72


def options_text(state: BoardState) -> str:
    """The board's terms in English, as the game record file writes them (a data format,
    docs/record.md): the board mail's words (:func:`board_text.options_text`) in English."""
    with speaking(None):
        return board_text.options_text(state)


def clock_lines(state: BoardState, now: datetime | None) -> list[str]:
    """For a board with a total thinking time: each player's time used and left; with a
    time bank: what is left of each player's bank."""
    bank = TimeBank.of(state.timebank_hours, state.increment_hours)
    if bank is not None:
        left = bank_left(
            state.created_at,
            [(m.player_id, m.played_at) for m in state.moves],
            lambda pid: state.side_of(pid) or WHITE,
            side_periods(state, now),
            state.to_move if state.active else None,
            now,
            bank,
        )
        return [
            board_text.bank_line(state.seat(side).userid, left[side]) for side in (WHITE, BLACK)
        ]
    if state.total_days is None:
        return []
    periods = side_periods(state, now)
    used = thinking_time(
        state.created_at,
        [(m.player_id, m.played_at) for m in state.moves],
        lambda pid: state.side_of(pid) or WHITE,
        periods,
        state.to_move if state.active else None,
        now,
    )
    total = timedelta(days=state.total_days)
    return [
        board_text.thinking_line(state.seat(side).userid, used[side], total - used[side])
        for side in (WHITE, BLACK)
    ]


def clock_title(state: BoardState) -> str:
    """What :func:`clock_lines` are: the thinking time, or the time bank, of each player."""
    return board_text.clock_title_text(state)


def vacation_lines(state: BoardState, now: datetime | None) -> list[str]:
    """A sentence for each player who is on vacation at ``now``."""
    if now is None or not state.active:
        return []
    return [
        board_text.vacation_text(seat.userid, seat.vacation_until)
        for seat in (state.white, state.black)
        if seat.vacation_until is not None and seat.on_vacation(now)
    ]


def deadline_texts(state: BoardState, now: datetime | None) -> list[str]:
    """When the reminder and the loss on time come if the player to move does not move."""
    due = None if now is None else deadlines(state, now)
    return [] if due is None else [board_text.deadline_text(due)]


def move_rows(notations: list[str], first: int = 1) -> list[tuple[str, str]]:
    """Two columns: Ohs's moves (odd numbers) left, Eks's (even) right.

    ``first`` is the number of the first move given; it is made odd so rows line up.
    """
    cells = [f"{first + i:>3}. {text}" for i, text in enumerate(notations)]
    if first % 2 == 0:
        cells.insert(0, "")
    rows = []
    for i in range(0, len(cells), 2):
        left = cells[i]
        right = cells[i + 1] if i + 1 < len(cells) else ""
        rows.append((left, right))
    return rows


def score_sheet(labels: list[str], width: int = SCORE_SHEET_WIDTH) -> list[str]:
    """The moves as a score sheet: each move numbered, Ohs's and Eks's of one turn kept
    together ("1. e4 2. e6"), as many turns a line as fit in ``width``, indented."""
    turns = []
    for i in range(0, len(labels), 2):
        turn = f"{i + 1}. {labels[i]}"
        if i + 1 < len(labels):
            turn += f" {i + 2}. {labels[i + 1]}"
        turns.append(turn)
    lines: list[str] = []
    line = ""
    for turn in turns:
        longer = f"{line}   {turn}" if line else turn
        if line and len(longer) + 2 > width:
            lines.append(line)
            line = turn
        else:
            line = longer
    if line:
        lines.append(line)
    return [f"  {line}" for line in lines]


def duration(delta: timedelta) -> str:
    """``2 d 3 h``: a time taken, in the reader's language."""
    return board_text.duration_text(delta)


def at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _votes(state: BoardState) -> list[tuple[str, str, str, int, int]]:
    """The open draw offer and undo request of a board: who asks, who may answer, the kind,
    and the moves an undo would take back (first, last)."""
    votes = []
    for vote in sorted(state.votes, key=lambda v: v.kind):
        asker = state.white if vote.player_id == state.white.id else state.black
        first = vote.ply
        if vote.kind != "draw":
            first = undo_first_move(state, asker.id, vote.ply) or vote.ply
        votes.append(
            (asker.userid, state.opponent(asker.id).userid, vote.kind, first, vote.ply)
        )
    return votes


def open_votes(state: BoardState) -> list[str]:
    """The open draw offer and undo request of a board, as sentences saying how to answer."""
    return [
        board_text.vote_text(asker, other, state.number, kind, first, last)
        for asker, other, kind, first, last in _votes(state)
    ]


def open_votes_said(state: BoardState) -> list[str]:
    """The open draw offer and undo request of a board, a sentence each, as the board mail's
    headline says them (for the web page: how to answer is for the player, by mail)."""
    return [
        board_text.headline_text(
            Said.of("offers_draw", userid=asker) if kind == "draw"
            else undo_said("asks_undo", first, last, userid=asker)
        ) or ""
        for asker, _, kind, first, last in _votes(state)
    ]


@dataclass
class BoardView:
    """What one board mail shows: ``html`` is the board's section of the HTML part
    (templates/board/section.html.j2, its values still marked: see
    :func:`~pbm_emergo.views.templating.render_html_part`); only :func:`board_html` puts it
    into a whole document."""

    subject: str
    text: str
    html: str = ""


def board_view(
    state: BoardState,
    *,
    position: Position | None = None,
    upto: int | None = None,
    comment: str | None = None,
    commenter: str | None = None,
    headline: str | Callable[[], str] | None = None,
    link: str | None = None,
    now: datetime | None = None,
    new_board: bool = False,
    queue: list[str] | None = None,
    turned: bool = False,
    style: str = "diagram",
) -> BoardView:
    """The board mail text of a board; with ``upto``, as it was after that many moves
    (``position`` is then the position after them). ``link``: the board's web page.
    ``now``: the time of the mail (vacations, thinking time); ``new_board``: the first mail
    of a new board; ``queue``: the lines about a player's queued moves (only for that
    player's eyes); ``turned``: the text board seen from Eks's side of the table;
    ``style``: ``list`` says the position in words instead of drawing the diamond (``board
    USERID PASSWORD list``). ``headline``: a callable is called here, so that a headline
    written by the code that made the change is in the language being rendered. Every mail
    lists the whole game, as a compact score sheet."""
    notations = [m.notation for m in state.moves]
    labels = [m.label for m in state.moves]
    if upto is not None:
        notations = notations[:upto]
        labels = labels[:upto]
    if position is None:
        position = state.position
    over = not state.active and upto is None
    current = upto is None or upto >= state.ply
    context = dict(
        number=state.number,
        white=state.white.userid,
        black=state.black.userid,
        white_rating=i18n.number(state.white.rating),
        black_rating=i18n.number(state.black.rating),
        options=board_text.options_text(state),
        headline=headline() if callable(headline) else board_text.headline_text(headline),
        # A challenge starts the game at once: the first mail says how to say no.
        decline=board_text.decline_text(state.number) if new_board else None,
        as_of=board_text.as_of_text(upto, state.ply) if upto is not None else None,
        votes=open_votes(state) if state.active and upto is None else [],
        status=board_text.status_text(state, position, upto),
        ratings=(
            board_text.rating_lines(state.rating, state.white.userid, state.black.userid)
            if over and state.rating is not None
            else []
        ),
        moves_total=len(notations),
        move_lines=score_sheet(labels),
        board=board_text.diagram_text(
            position, state.white.userid, state.black.userid, turned=turned
        ),
        words=(
            board_text.position_text(position, notations[-1] if notations else None)
            if style == "list" else None
        ),
        comment=comment or None,
        commenter=commenter,
        last_move=last_move_text(state) if upto is None else None,
        taken=time_taken_text(state) if upto is None else "",
        link=link,
        vacations=vacation_lines(state, now) if current else [],
        deadlines=deadline_texts(state, now) if upto is None else [],
        clocks=clock_lines(state, now) if current and upto is None else [],
        clock_title=clock_title(state),
        queue=queue or [],
    )
    text = render("board.txt.j2", **context)
    html = render_html_part(
        "board/section.html.j2",
        **context,
        picture=board_picture(position, notations[-1] if notations else None),
    )
    return BoardView(subject=board_subject(state, new_board), text=text, html=html)


def board_subject(state: BoardState, new_board: bool = False) -> str:
    """The Subject of a board mail: whose move it is (as pbmserv's), or that the game is
    over; ``New`` before it on a new board's first mail."""
    if not state.active or state.to_move is None:
        subject = f"Emergo Board {state.number} Game over"
    else:
        subject = f"Emergo Board {state.number} {state.seat(state.to_move).userid}"
    return f"New {subject}" if new_board else subject


def last_move_text(state: BoardState) -> str | None:
    """When the last move was played, and which it was (None before the first)."""
    if not state.moves:
        return None
    last = state.moves[-1]
    return i18n._(
        "Last move: %(when)s (move %(number)s, %(move)s).",
        when=i18n.moment(last.played_at, "UTC"), number=last.number, move=last.notation,
    )


def time_taken_lines(state: BoardState) -> list[str]:
    """Each player's time taken over their moves so far (none before the first move)."""
    if not state.moves:
        return []
    spent = {WHITE: timedelta(), BLACK: timedelta()}
    previous = state.created_at
    for move in state.moves:
        side = WHITE if move.player_id == state.white.id else BLACK
        spent[side] += max(move.played_at - previous, timedelta())
        previous = move.played_at
    return [
        f"{state.seat(side).userid} {board_text.duration_text(spent[side])}"
        for side in (WHITE, BLACK)
    ]


def time_taken_text(state: BoardState) -> str:
    """:func:`time_taken_lines` as the board mail's sentence lists them; a time that ends
    in its unit's period (German "31 Min.") ends the sentence too."""
    return ", ".join(time_taken_lines(state)).removesuffix(".")


def board_style_of(state: BoardState, address: str) -> str:
    """How a mail to ``address`` shows the board: ``list`` when it is the board mail
    address of a player of the board who chose ``board USERID PASSWORD list``."""
    for seat in (state.white, state.black):
        if seat.board_style == "list" and seat.address and seat.address.lower() == address.lower():
            return "list"
    return "diagram"


def board_html(title: str, sections: list[str], notice: list[str] | None = None) -> str:
    """The HTML part of a mail showing boards (sections from :func:`board_view`)."""
    return render_html(
        "board.html.j2", title=title, sections=sections, notice=notice or [], lang=i18n.current()
    )


def board_link(config: Config, number: int) -> str | None:
    """The board's page on the web view, when the operator set its public URL."""
    base = config.web_url
    return f"{base.rstrip('/')}/boards/{number}" if base else None
