"""The requests that show boards and tables: ``list``, ``emergo games``, ``emergo show``,
``emergo moves``, ``emergo record``, ``emergo preview``, ``emergo standings``, ``emergo
history``, ``emergo showas``, ``all show``."""

from __future__ import annotations

from typing import Any

from pbm_emergo.app import resolve
from pbm_emergo.app.accounts import is_registered, require_account
from pbm_emergo.app.boards import get_board_read
from pbm_emergo.app.context import Context
from pbm_emergo.app.handlers import handles
from pbm_emergo.app.notes import add_note, shown_notes
from pbm_emergo.app.play import moves_in_lines
from pbm_emergo.app.queue import shown_queue
from pbm_emergo.app.records import record_attachment
from pbm_emergo.app.resolve import login_seated
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.db import games, players, ratings, reads
from pbm_emergo.db.reads import BoardLine
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import BoardRead
from pbm_emergo.game.board import BOARD_ACTIVE, BOARD_FINISHED, BoardState
from pbm_emergo.game.numbers import START_RATING
from pbm_emergo.game.requests import (
    AllShowRequest,
    GamesRequest,
    HistoryRequest,
    ListRequest,
    MovesRequest,
    NoteRequest,
    PreviewRequest,
    RecordRequest,
    ShowAsRequest,
    ShowRequest,
    StandingsRequest,
)
from pbm_emergo.game.sentences import SIDE_NAMES, side_label
from pbm_emergo.robot.ladder import LADDER_EXPLANATION, ladder_texts
from pbm_emergo.rules import AmbiguousMoveError, IllegalMoveError, MoveError
from pbm_emergo.views import board_text, i18n
from pbm_emergo.views.board_mail import board_html, board_link, board_view, move_rows, options_text
from pbm_emergo.views.picture import board_picture
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render, render_html

# `emergo show` sends at most this many boards at once; `emergo games` lists at most this
# many rows.
MAX_BOARDS = 20
MAX_ROWS = 200
SECTION_TITLES = reads.SECTION_TITLES


def boards_for(ctx: Context, account: Account, which: str) -> list[BoardRead]:
    """A player's boards, read as values: all, active, inactive (finished) or next (their
    turn)."""
    return [
        get_board_read(ctx, line.number, None)
        for line in reads.listed_boards(ctx.session, which, player_id=account.id)
    ]


def status_text(line: BoardLine) -> str:
    if line.to_move is not None:
        return board_text.to_move_text(line.to_move)
    if line.winner:
        return board_text.won_text(line.winner, line.reason or "None")
    return board_text.drawn_text(line.reason or "None")


def result_text(row: BoardLine) -> str:
    """``alice won (resigned)`` or ``draw (draw agreed)``."""
    if row.winner:
        return board_text.won_text(row.winner, row.reason)
    return board_text.drawn_text(row.reason)


def points_text(row: BoardLine) -> str:
    """``alice +16, bob -16``; ``unrated`` for an unrated game."""
    if not row.rated or row.white_change is None or row.black_change is None:
        return board_text.unrated_text()
    return ", ".join(
        f"{name} {'+' if change >= 0 else '-'}{i18n.number(abs(change))}"
        for name, change in ((row.white, row.white_change), (row.black, row.black_change))
    )


@handles(ListRequest)
def list_games(ctx: Context, request: ListRequest) -> Result:
    counts = games.count_by_status(ctx.session)
    return Result(
        said=lambda: i18n._("sent the list of games"),
        answer=render(
            "list.txt.j2",
            games=[
                {
                    "name": "emergo",
                    "active": counts.get(BOARD_ACTIVE, 0),
                    "finished": counts.get(BOARD_FINISHED, 0),
                }
            ],
            players=players.count_active(ctx.session),
        ),
        answer_subject="Emergo: games on this server",
    )


@handles(GamesRequest)
def games_table(ctx: Context, request: GamesRequest) -> Result:
    userids, which = list(request.userids), request.which
    boards: dict[int, BoardLine] = {}
    if userids:
        for userid in userids:
            account = require_account(ctx, userid)
            found = reads.listed_boards(ctx.session, which, player_id=account.id)
            boards.update((line.number, line) for line in found)
    else:
        found = reads.listed_boards(ctx.session, which, limit=MAX_ROWS + 1)
        boards.update((line.number, line) for line in found)
    rows = [
        {
            "number": line.number,
            "move": line.ply + 1 if line.active else line.ply,
            "white": line.white,
            "black": line.black,
            "status": status_text(line),
        }
        for line in sorted(boards.values(), key=lambda line: line.number)[:MAX_ROWS]
    ]
    return Result(
        said=lambda: i18n.ngettext(
            "sent a table of %(num)s board", "sent a table of %(num)s boards", len(rows)
        ),
        answer=render(
            "games.txt.j2",
            rows=rows,
            which=which,
            userids=userids,
            white=SIDE_NAMES["white"],
            black=SIDE_NAMES["black"],
            truncated=len(boards) > MAX_ROWS,
            limit=MAX_ROWS,
        ),
        answer_subject="Emergo games",
    )


@handles(ShowRequest)
def show(ctx: Context, request: ShowRequest) -> Result:
    # Board numbers and userids mixed, then maybe a filter: read word by word.
    which = request.which
    words = [str(target) for target in request.targets]
    shown: list[tuple[BoardRead, int | None]] = []
    for target in request.targets:
        if not isinstance(target, str):
            shown.append((resolve.board_read(ctx, target), target.upto))
            continue
        account = require_account(ctx, target)
        # A board of two of the players named is sent once.
        already = {read.snapshot.number for read, upto in shown if upto is None}
        shown.extend(
            (get_board_read(ctx, line.number, None), None)
            for line in reads.listed_boards(ctx.session, which, player_id=account.id)
            if line.number not in already
        )
    if not shown:
        raise Refused(_no_boards(which, " ".join(words)))
    if len(shown) > MAX_BOARDS:
        raise Refused(
            i18n._(
                "That is %(count)s boards; at most %(most)s are sent at once.",
                count=len(shown), most=MAX_BOARDS,
            )
        )
    views = []
    for read, upto in shown:
        snapshot = read.snapshot
        position = None if upto is None else snapshot.replayed(upto).position
        link = board_link(ctx.config, snapshot.number)
        # A player's queued moves, to that player only (app/queue.py).
        queue = shown_queue(ctx, read) if upto is None else []
        views.append(
            board_view(
                snapshot.state, position=position, upto=upto, link=link,
                now=ctx.now, queue=queue, style=_style_for_sender(ctx, read),
            )
        )
    if len(views) == 1:
        subject = views[0].subject
        board_number: int | None = shown[0][0].snapshot.number
    else:
        subject = f"Emergo boards {', '.join(str(r.snapshot.number) for r, _ in shown)}"
        board_number = None
    numbers = ", ".join(
        f"{r.snapshot.number}#{upto}" if upto is not None else str(r.snapshot.number)
        for r, upto in shown
    )
    return Result(
        said=lambda: i18n.ngettext(
            "sent board %(boards)s", "sent boards %(boards)s", len(views), boards=numbers
        ),
        answer=render(
            "show.txt.j2",
            # The sender's own notes after each board, when asked for as it is now.
            boards=[
                v.text + (shown_notes(ctx, r.snapshot.number) if upto is None else "")
                for v, (r, upto) in zip(views, shown, strict=True)
            ],
        ),
        answer_subject=subject,
        answer_board=board_number,
        answer_html=board_html(subject, [v.html for v in views]),
    )


@handles(MovesRequest)
def legal_moves(ctx: Context, request: MovesRequest) -> Result:
    read = resolve.board_read(ctx, request.board)
    snapshot, upto = read.snapshot, request.board.upto
    state, number = snapshot.state, snapshot.number
    if upto is None:
        if not state.active:
            raise Refused(
                i18n._(
                    "The game on board %(number)s is over: %(result)s",
                    number=number, result=board_text.result_text(state),
                ),
                board=number,
            )
        position = state.position  # the stored position: no replay needed
    else:
        position = snapshot.replayed(upto).position
    legal = position.legal_moves()
    player = read.account_of(position.to_move)
    return Result(
        said=lambda: i18n.ngettext(
            "sent the %(num)s legal move on board %(board)s",
            "sent the %(num)s legal moves on board %(board)s",
            len(legal),
            board=number,
        ),
        answer=render(
            "moves.txt.j2",
            number=number,
            move_number=position.ply + 1,
            userid=player.userid,
            side=side_label(position.to_move),
            count=len(legal),
            lines=moves_in_lines(legal),
            capture_size=position.capture_size(),
            in_hand=position.in_hand(position.to_move),
        ),
        answer_subject=f"Emergo Board {number} moves",
        answer_board=number,
    )


@handles(RecordRequest)
def record(ctx: Context, request: RecordRequest) -> Result:
    read = resolve.board_read(ctx, request.board)  # a move number after it is let pass
    view = read.snapshot.state
    number = view.number
    if view.active:
        # The stored position says whose turn it is; no replay needed.
        to_move = view.position.to_move
        state = board_text.in_progress_text(
            read.account_of(to_move).userid, side_label(to_move), view.ply + 1
        )
    else:
        state = board_text.result_text(view)
    white, black = read.userids
    return Result(
        said=lambda: i18n._("sent the record of board %(board)s", board=number),
        answer=render(
            "record.txt.j2",
            number=number,
            white=white,
            black=black,
            options=board_text.options_text(view),
            started=i18n.moment(view.created_at, "UTC"),
            finished=i18n.moment(view.finished_at, "UTC") if view.finished_at else None,
            state=state,
            rows=move_rows([m.notation for m in view.moves]),
        )
        + shown_notes(ctx, number),
        answer_subject=f"Emergo Board {number} record",
        answer_board=number,
        answer_attachment=record_attachment(
            view, ctx.config.address, options_text(view),
            reads.board_analysis(ctx.session, number),
        ),
    )


@handles(PreviewRequest)
def preview(ctx: Context, request: PreviewRequest) -> Result:
    read = resolve.board_read(ctx, request.board)
    snapshot, upto = read.snapshot, request.board.upto
    number, played = snapshot.number, len(snapshot.state.moves)
    white, black = read.userids
    game = snapshot.replayed(played if upto is None else upto)
    start = game.position.ply
    tried: list[str] = []
    for text in request.moves:
        position = game.position
        try:
            tried.append(str(game.play(text)))
        except MoveError as err:
            details: dict[str, Any] = {}
            if isinstance(err, IllegalMoveError | AmbiguousMoveError):
                legal = position.legal_moves()
                details = {
                    "legal_lines": moves_in_lines(legal),
                    "legal_count": len(legal),
                    "capture_size": position.capture_size(),
                }
            else:
                details = {"legal_lines": [], "legal_count": 0, "capture_size": 0}
            raise Refused(
                i18n._(
                    "Preview of board %(number)s: %(move)s cannot be move %(ply)s.",
                    number=number, move=text, ply=position.ply + 1,
                ),
                board=number,
                template="error/illegal_move.txt.j2",
                why=said(err.reason or str(err)),
                board_text=board_text.diagram_text(
                    position, white, black
                ),
                **details,
            ) from None
    outcome = game.outcome()
    position = game.position
    status = board_text.preview_status_text(
        read.account_of(position.to_move).userid, side_label(position.to_move),
        position.ply + 1,
        None if outcome is None or outcome.winner is None
        else read.account_of(outcome.winner).userid,
        None if outcome is None else outcome.termination,
        outcome is not None,
    )
    return Result(
        said=lambda: i18n._(
            "previewed %(moves)s on board %(board)s", moves=" ".join(tried), board=number
        ),
        answer=render(
            "preview.txt.j2",
            number=number,
            start=start,
            current=snapshot.state.ply,
            tried=tried,
            status=status,
            board=board_text.diagram_text(
                position, white, black
            ),
        ),
        answer_subject=f"Emergo Board {number} preview",
        answer_board=number,
        answer_html=render_html(
            "preview.html.j2",
            number=number,
            white=white,
            black=black,
            start=start,
            current=snapshot.state.ply,
            tried=tried,
            status=status,
            picture=board_picture(position, tried[-1] if tried else None),
            lang=i18n.current(),
        ),
    )


def section_title(name: str) -> str:
    """The title of a part of the standings (the English is ``reads.SECTION_TITLES``)."""
    if name == reads.ESTABLISHED:
        return i18n._("Established players")
    if name == reads.PROVISIONAL:
        return i18n._(
            "Provisional players (rating deviation above %(deviation)s)",
            deviation=i18n.number(ratings.PROVISIONAL_DEVIATION),
        )
    if name == reads.INACTIVE:
        return i18n._(
            "Inactive players (no game under way, no rated game for %(days)s days)",
            days=reads.INACTIVE_DAYS,
        )
    return SECTION_TITLES[name]


@handles(StandingsRequest)
def standings(ctx: Context, request: StandingsRequest) -> Result:
    wanted = [require_account(ctx, userid).userid for userid in request.userids]
    rows = reads.standings(ctx.session, ctx.now)
    if wanted:
        keys = {userid.lower() for userid in wanted}
        rows = [row for row in rows if row.userid.lower() in keys]
    sections = [
        {"title": section_title(name), "rows": [r for r in rows if r.section == name]}
        for name in reads.SECTIONS
    ]
    return Result(
        said=lambda: i18n.ngettext(
            "sent the standings (%(num)s player)", "sent the standings (%(num)s players)", len(rows)
        ),
        answer=render(
            "standings.txt.j2",
            sections=[s for s in sections if s["rows"]],
            userids=wanted,
            start=START_RATING,
            start_deviation=round(ratings.START_DEVIATION),
            provisional_deviation=ratings.PROVISIONAL_DEVIATION,
            inactive_days=reads.INACTIVE_DAYS,
            ladder=ladder_texts(row.userid for row in rows),
            ladder_explanation=LADDER_EXPLANATION,
        ),
        answer_subject="Emergo standings",
    )


@handles(HistoryRequest)
def history(ctx: Context, request: HistoryRequest) -> Result:
    found = [require_account(ctx, userid) for userid in request.userids]
    rows = reads.finished_games(
        ctx.session, [p.id for p in found] if found else None,
        limit=reads.HISTORY_LIMIT + 1,
    )
    lines = [
        {
            "date": i18n.day(row.last_activity),  # a column of the table
            "number": row.number,
            "players": f"{row.white} - {row.black}",
            "result": result_text(row),
            "points": points_text(row),
        }
        for row in rows[: reads.HISTORY_LIMIT]
    ]
    return Result(
        said=lambda: i18n.ngettext(
            "sent the history (%(num)s game)", "sent the history (%(num)s games)", len(lines)
        ),
        answer=render(
            "history.txt.j2",
            rows=lines,
            userids=[p.userid for p in found],
            truncated=len(rows) > reads.HISTORY_LIMIT,
            limit=reads.HISTORY_LIMIT,
        ),
        answer_subject="Emergo history",
    )


@handles(NoteRequest)
def note(ctx: Context, request: NoteRequest) -> Result:
    read = resolve.board_read(ctx, request.board, alone=True)
    player = login_seated(ctx, request.userid, request.password, read)
    return add_note(ctx, player, read.snapshot.state, request.text)


# `all show` sends at most this many boards in one mail (one reply's size holds about so
# many text boards).
MAX_ALL_BOARDS = 40


@handles(ShowAsRequest)
def show_as(ctx: Context, request: ShowAsRequest) -> Result:
    state = resolve.board_read(ctx, request.board, alone=True).snapshot.state
    player = require_account(ctx, request.userid)
    side = state.side_of(player.id)
    if side is None:
        raise Refused(
            i18n._(
                "%(userid)s does not play on board %(number)s: 'emergo showas' shows a board "
                "as one of its two players sees it.",
                userid=player.userid, number=state.number,
            ),
            board=state.number,
        )
    you = state.seat(side).userid
    turned = side != "white"
    view = board_view(
        state,
        headline=_seen_as(state, side, you),
        link=board_link(ctx.config, state.number),
        now=ctx.now,
        turned=turned,
    )
    return Result(
        said=lambda: i18n._(
            "sent board %(board)s as %(userid)s sees it", board=state.number, userid=you
        ),
        answer=view.text,
        answer_subject=f"Emergo Board {state.number} as {you}",
        answer_board=state.number,
    )


@handles(AllShowRequest)
def all_show(ctx: Context, request: AllShowRequest) -> Result:
    player = require_account(ctx, request.userid)
    boards = boards_for(ctx, player, request.which)
    if not boards:
        if request.which == "next":
            raise Refused(
                i18n._("%(userid)s has no boards where it is their turn.", userid=player.userid)
            )
        raise Refused(i18n._("%(userid)s has no boards under way.", userid=player.userid))
    shown, left_out = boards[:MAX_ALL_BOARDS], len(boards) - MAX_ALL_BOARDS
    views = []
    for read in shown:
        views.append(
            board_view(
                read.snapshot.state, link=board_link(ctx.config, read.snapshot.number),
                now=ctx.now, queue=shown_queue(ctx, read),
            )
        )
    texts = [v.text for v in views]
    if left_out > 0:
        texts.append(
            i18n.ngettext(
                "%(num)s more board left out: at most %(most)s are sent at once ('emergo "
                "games %(userid)s' lists them all).",
                "%(num)s more boards left out: at most %(most)s are sent at once ('emergo "
                "games %(userid)s' lists them all).",
                left_out, most=MAX_ALL_BOARDS, userid=player.userid,
            )
        )
    subject = f"Emergo: all boards of {player.userid}"
    if request.which == "next":
        subject = f"Emergo: {player.userid}'s turn on {len(boards)} board{'s' * (len(boards) != 1)}"
    return Result(
        said=lambda: i18n.ngettext(
            "sent %(num)s board of %(userid)s",
            "sent %(num)s boards of %(userid)s",
            len(shown),
            userid=player.userid,
        ),
        answer=render("show.txt.j2", boards=texts),
        answer_subject=subject,
        answer_html=board_html(subject, [v.html for v in views]),
    )


def _no_boards(which: str, names: str) -> str:
    """The refusal of a show that found no boards of ``which`` kind for ``names``."""
    if which == "all":
        return i18n._("There are no boards of %(names)s.", names=names)
    if which == "inactive":
        return i18n._("There are no inactive boards for %(names)s.", names=names)
    if which == "next":
        return i18n._("There is no board where it is the turn of %(names)s.", names=names)
    if which == "active":
        return i18n._("There are no active boards for %(names)s.", names=names)
    return f"There are no {which} boards for {names}."


def _seen_as(state: BoardState, side: str, you: str) -> str:
    """The headline of ``emergo showas``: the board as the player of ``side`` sees it."""
    values = {"number": state.number, "you": you}
    if state.active and state.to_move is not None and state.to_move == side:
        if side == "white":
            return i18n._(
                "Board %(number)s as %(you)s sees it: you play Ohs (o), moving first. It is "
                "your turn, %(you)s.",
                **values,
            )
        return i18n._(
            "Board %(number)s as %(you)s sees it: you play Eks (x). It is your turn, %(you)s. "
            "The board is turned round: row I at the top.",
            **values,
        )
    if state.active and state.to_move is not None:
        other = state.seat(state.to_move).userid
        if side == "white":
            return i18n._(
                "Board %(number)s as %(you)s sees it: you play Ohs (o), moving first. It is "
                "%(other)s's turn; you wait.",
                other=other, **values,
            )
        return i18n._(
            "Board %(number)s as %(you)s sees it: you play Eks (x). It is %(other)s's turn; "
            "you wait. The board is turned round: row I at the top.",
            other=other, **values,
        )
    if side == "white":
        return i18n._(
            "Board %(number)s as %(you)s sees it: you play Ohs (o), moving first. The game is "
            "over.",
            **values,
        )
    return i18n._(
        "Board %(number)s as %(you)s sees it: you play Eks (x). The game is over. The board "
        "is turned round: row I at the top.",
        **values,
    )


def _style_for_sender(ctx: Context, read: BoardRead) -> str:
    """``list`` when the mail comes from a registered address of a player of the board
    who chose ``board USERID PASSWORD list`` (a board shown to them as their board mails
    are), else ``diagram``."""
    if ctx.sender:
        state = read.snapshot.state
        for seat, account in zip((state.white, state.black), read.accounts, strict=True):
            if seat.board_style == "list" and is_registered(account, ctx.sender):
                return "list"
    return "diagram"
