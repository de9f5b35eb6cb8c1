"""``pbm-emergo db ...`` (migrations) and ``pbm-emergo admin ...`` (the operator's view).

Every subcommand reads the same configuration as the server (``--config``, ``--data-dir``,
``--database-url`` or the ``PBM_EMERGO_*`` environment). Tables are printed aligned for a
terminal; ``--json`` prints JSON for scripts (a list, ``[]`` when there is nothing).

This module parses the arguments, opens the session and formats; the queries are in
:mod:`pbm_emergo.db.reads` (and ``admin requeue`` writes through :mod:`pbm_emergo.db.inbox`
and :mod:`pbm_emergo.db.outbox`); the support cases (a new password, a lock-out lifted, a
board resigned or adjudicated, a player deleted or merged) are :mod:`pbm_emergo.app.support`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from pbm_emergo.cli.settings import WrongDatabase, add_config_options, checked_config, config_for
from pbm_emergo.config import Config
from pbm_emergo.db import ratings, reads
from pbm_emergo.db.reads import BoardRow, MailRow
from pbm_emergo.ops.backup import BackupError, backup_database
from pbm_emergo.ops.stats import StatsError, format_stats, read_stats

MAIL_STATUSES = ("pending", "processing", "sending", "done", "sent", "failed", "dead", "ignored")
ERROR_WIDTH = 60
MAIL_PAGE_SIZE = 20


class AdminError(Exception):
    """A problem to report in one line on stderr (exit status 1)."""


# --- argument parsing ------------------------------------------------------------------


def _config_options(parser: argparse.ArgumentParser) -> None:
    add_config_options(parser)


def register(subparsers: Any) -> None:
    db = subparsers.add_parser("db", help="database migrations")
    db_commands = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    upgrade = db_commands.add_parser("upgrade", help="migrate the database to the newest schema")
    current = db_commands.add_parser("current", help="show the schema revision of the database")
    downgrade = db_commands.add_parser("downgrade", help="migrate down to REVISION ('base': empty)")
    downgrade.add_argument("revision")
    for parser, handler in (
        (upgrade, db_upgrade),
        (current, db_current),
        (downgrade, db_downgrade),
    ):
        _config_options(parser)
        parser.set_defaults(func=handler)

    admin = subparsers.add_parser("admin", help="inspect games, players and mail in the database")
    commands = admin.add_subparsers(dest="admin_command", metavar="ACTION", required=True)

    games = commands.add_parser("games", help="list boards")
    games.add_argument("--status", choices=("active", "finished"))
    games.add_argument("--player", metavar="USERID")
    games.set_defaults(func=admin_games)

    show = commands.add_parser("show", help="one board: players, moves, the board, outcome")
    show.add_argument("board", type=int, metavar="BOARD")
    show.set_defaults(func=admin_show)

    players = commands.add_parser("players", help="list players")
    players.set_defaults(func=admin_players)

    standings = commands.add_parser(
        "standings", help="the rating table, as the standings mail and the web page show it"
    )
    standings.set_defaults(func=admin_standings)

    player = commands.add_parser(
        "player", help="one player (by userid or a registered address): addresses, boards, "
        "ratings"
    )
    player.add_argument("userid", metavar="USERID|ADDRESS")
    player.set_defaults(func=admin_player)

    mail = commands.add_parser("mail", help="the inbound and outbound mail queues")
    mail.add_argument("--status", choices=MAIL_STATUSES)
    mail.add_argument("--queue", choices=("inbound", "outbound"))
    mail.add_argument("--page", type=_positive, default=1,
                      help="which page, newest mail first (1: the newest)")
    mail.add_argument("--page-size", "--limit", dest="page_size", type=_positive,
                      default=MAIL_PAGE_SIZE, help=f"messages to a page ({MAIL_PAGE_SIZE})")
    mail.set_defaults(func=admin_mail)

    requeue = commands.add_parser(
        "requeue", help="retry a message: ID as shown by `admin mail` (in-12, out-7)"
    )
    requeue.add_argument("message", metavar="ID")
    requeue.set_defaults(func=admin_requeue)

    for parser in (games, show, players, standings, player, mail, requeue):
        _config_options(parser)
        if parser is not requeue:
            parser.add_argument("--json", action="store_true", help="print JSON")

    stats = commands.add_parser(
        "stats", help="queues, dead letters, boards and mail figures, once (--json too)"
    )
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.add_argument(
        "--metrics-url", dest="metrics_url", metavar="URL",
        help="also the counters of a running server, e.g. http://127.0.0.1:9108/metrics",
    )
    stats.set_defaults(func=admin_stats)
    backup = commands.add_parser(
        "backup", help="copy the live SQLite database to PATH (PostgreSQL: use pg_dump)"
    )
    backup.add_argument("path", metavar="PATH")
    backup.add_argument("--force", action="store_true", help="replace PATH if it exists")
    backup.add_argument("--parents", action="store_true",
                        help="create PATH's folder if it does not exist")
    backup.set_defaults(func=admin_backup)
    for parser in (stats, backup):
        _config_options(parser)
    _register_support(commands)
    _register_copy_and_console(commands)
    _register_events(commands)


def _positive(text: str) -> int:
    """An argparse type: a whole number from 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1")
    return value


def _config(args: argparse.Namespace) -> Config:
    """The settings of ``db``: it may create and migrate any database it is given."""
    return config_for(args)


def _admin_config(args: argparse.Namespace) -> Config:
    """The settings of ``admin``: only on the configured, existing database (see
    :func:`pbm_emergo.cli.settings.checked_config`)."""
    try:
        return checked_config(args)
    except WrongDatabase as err:
        raise AdminError(str(err)) from None


# --- db --------------------------------------------------------------------------------


def db_upgrade(args: argparse.Namespace) -> int:
    from pbm_emergo.db.session import upgrade_to_head

    upgrade_to_head(_config(args))
    return db_current(args)


def db_downgrade(args: argparse.Namespace) -> int:
    from pbm_emergo.db.session import downgrade_to

    downgrade_to(args.revision, _config(args))
    return db_current(args)


def db_current(args: argparse.Namespace) -> int:
    from pbm_emergo.db.session import create_engine_for, current_revision, head_revision

    config = _config(args)
    engine = create_engine_for(config.effective_database_url)
    try:
        revision = current_revision(engine)
    finally:
        engine.dispose()
    head = head_revision()
    state = "up to date" if revision == head else f"head is {head}: run `pbm-emergo db upgrade`"
    print(f"{_safe_url(config.effective_database_url)}: revision {revision or 'none'} ({state})")
    return 0


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


# --- admin -----------------------------------------------------------------------------


def _database_error(err: DBAPIError) -> int:
    """Say what a database error most likely means; the exit status 1."""
    print(
        f"pbm-emergo admin: database error ({err.orig}); is the database migrated? "
        "Run `pbm-emergo db upgrade`.",
        file=sys.stderr,
    )
    return 1


def _run(args: argparse.Namespace, action: Any, *, writes: bool = False) -> int:
    """Open a session on the configured database, run ``action(session, args)``, report
    problems in one line. On the process-wide engine: a process that runs several commands
    (a test calling :func:`pbm_emergo.cli.main`) compiles their statements once. A session
    that only reads (unless ``writes``: one write transaction) takes no write lock, so that
    a look at a busy server's database holds up none of its writers."""
    from pbm_emergo.db.session import get_engine, reading_engine

    try:
        config = _admin_config(args)
    except AdminError as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    try:
        engine = get_engine(config)
        with _session(engine if writes else reading_engine(engine)) as session:
            status: int = action(session, args)
            return status
    except AdminError as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    except DBAPIError as err:
        return _database_error(err)


@contextmanager
def _session(engine: Any) -> Iterator[Session]:
    with Session(engine) as session, session.begin():
        yield session


def admin_games(args: argparse.Namespace) -> int:
    return _run(args, _games)


def admin_show(args: argparse.Namespace) -> int:
    return _run(args, _show)


def admin_players(args: argparse.Namespace) -> int:
    return _run(args, _players)


def admin_standings(args: argparse.Namespace) -> int:
    return _run(args, _standings)


def admin_player(args: argparse.Namespace) -> int:
    return _run(args, _player)


def admin_mail(args: argparse.Namespace) -> int:
    return _run(args, _mail)


def admin_requeue(args: argparse.Namespace) -> int:
    return _run(args, _requeue, writes=True)


def _time(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value else None


def _short_time(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "-"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Rows under headers, each column as wide as its widest cell, numbers on the right."""
    cells = [[("-" if v is None else str(v)) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    numeric = [
        bool(rows) and all(isinstance(row[i], int) for row in rows) for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(row) for row in cells)
    return "\n".join(out)


def _print_list(args: argparse.Namespace, items: list[dict[str, Any]], table: str) -> None:
    if args.json:
        print(json.dumps(items, indent=2, ensure_ascii=False))
    elif items:
        print(table)
    else:
        print("(none)")


def _board_json(row: BoardRow) -> dict[str, Any]:
    return {
        "board": row.number,
        "players": {"white": row.white, "black": row.black},
        "status": row.status,
        "move_count": row.move_count,
        "to_move": row.to_move,
        "outcome": (
            None
            if row.outcome is None
            else {"winner": row.outcome.winner, "reason": row.outcome.reason}
        ),
        "rated": row.rated,
        "created_at": _time(row.created_at),
        "last_move_at": _time(row.last_move_at),
    }


def _result_text(row: BoardRow) -> str:
    outcome = row.outcome
    if outcome is None:
        return "-"
    if outcome.reason == "void":
        return "void"
    if outcome.winner is None:
        return f"draw ({outcome.reason})"
    return f"{outcome.winner} won ({outcome.reason})"


def _games(session: Session, args: argparse.Namespace) -> int:
    try:
        boards = reads.game_rows(session, status=args.status, player=args.player)
    except reads.UnknownPlayerError as err:
        raise AdminError(f"no player {err.userid!r}") from None
    rows = [
        [
            b.number,
            b.white,
            b.black,
            b.status,
            b.move_count,
            b.to_move,
            _short_time(b.last_move_at or b.created_at),
            _result_text(b),
        ]
        for b in boards
    ]
    headers = ["board", "white", "black", "status", "moves", "to move", "last move", "result"]
    _print_list(args, [_board_json(b) for b in boards], format_table(headers, rows))
    return 0


def _show(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.rules import render_board

    report = reads.board_report(session, args.board)
    if report is None:
        raise AdminError(f"no board {args.board}")
    board = report.board
    # The move list is the source of truth: the report replays it; say so if the cache
    # disagrees.
    if report.cache_differs:
        print(
            f"warning: board {board.number}: the cached position differs from the replayed "
            "moves; showing the replay",
            file=sys.stderr,
        )
    summary = _board_json(board)
    changes = report.rating_changes
    item: dict[str, Any] = {
        "board": board.number,
        "players": summary["players"],
        "moves": [m.notation for m in report.moves],
        "to_move": board.to_move,
        "outcome": summary["outcome"],
        "position": report.position.to_text(),
        "status": board.status,
        "ply": board.move_count,
        "rated": board.rated,
        "blocked_rule": report.blocked_rule,
        "nag_days": report.nag_days,
        "forfeit_days": report.forfeit_days,
        "created_at": _time(board.created_at),
        "last_move_at": _time(board.last_move_at),
        "finished_at": _time(report.finished_at),
        "rating_changes": (
            None if changes is None else {"white": changes.white, "black": changes.black}
        ),
        "move_list": [
            {
                "number": m.number,
                "player": m.player,
                "move": m.notation,
                "played_at": _time(m.played_at),
                "comment": m.comment,
            }
            for m in report.moves
        ],
    }
    if args.json:
        print(json.dumps(item, indent=2, ensure_ascii=False))
        return 0
    white, black = board.white, board.black
    options = [
        "rated" if board.rated else "unrated",
        f"blocked={report.blocked_rule}",
        f"nag {report.nag_days}d",
        f"forfeit {report.forfeit_days}d",
    ]
    print(f"Board {board.number}: {white} (Ohs, white) vs {black} (Eks, black)")
    print(f"Status: {board.status}, {board.move_count} moves; options: {', '.join(options)}")
    print(f"Created {_short_time(board.created_at)}, last move {_short_time(board.last_move_at)}")
    if board.outcome:
        line = f"Result: {_result_text(board)}"
        if changes:
            line += f"; ratings {white} {changes.white:+d}, {black} {changes.black:+d}"
        print(line)
    else:
        print(f"It is {board.to_move}'s turn.")
    print()
    if report.moves:
        rows = [[m.number, m.player, m.notation, _short_time(m.played_at)] for m in report.moves]
        print(format_table(["move", "player", "notation", "played"], rows))
        print()
    print(render_board(report.position, white, black).rstrip("\n"))
    return 0


def _players(session: Session, args: argparse.Namespace) -> int:
    players = reads.player_rows(session)
    items: list[dict[str, Any]] = [
        {
            "userid": p.userid,
            "rating": p.rating,
            "provisional": p.provisional,
            "won": p.won,
            "lost": p.lost,
            "drawn": p.drawn,
            "active_boards": p.active_boards,
            "addresses": list(p.addresses),
            "created_at": _time(p.created_at),
            "vacation_until": _time(p.vacation_until),
            "signed_off_at": _time(p.signed_off_at),
            "is_admin": p.is_admin,
        }
        for p in players
    ]
    rows = [
        [
            p.userid,
            ratings.rating_text(p.rating, p.provisional),
            p.won,
            p.lost,
            p.drawn,
            p.active_boards,
            ", ".join(p.addresses) or "-",
            "signed off" if p.signed_off_at else "",
        ]
        for p in players
    ]
    headers = ["userid", "rating", "won", "lost", "drawn", "active", "addresses", "flags"]
    _print_list(args, items, format_table(headers, rows))
    return 0


def _standings(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.db.types import utcnow

    table = reads.standings(session, utcnow())
    items: list[dict[str, Any]] = [
        {
            "rank": r.rank,
            "userid": r.userid,
            "rating": r.rating,
            "deviation": r.deviation,
            "rated_games": r.rated_games,
            "won": r.won,
            "lost": r.lost,
            "drawn": r.drawn,
            "active_boards": r.active_boards,
            "seeking": r.seeking,
            "section": r.section,
            "last_rated_at": _time(r.last_rated_at),
        }
        for r in table
    ]
    rows = [
        [r.rank, r.userid, r.rating, r.deviation, r.won, r.lost, r.drawn, r.active_boards,
         r.seeking or None, r.section]
        for r in table
    ]
    headers = [
        "rank", "userid", "rating", "rd", "won", "lost", "drawn", "active", "seeking", "section"
    ]
    _print_list(args, items, format_table(headers, rows))
    return 0


def _player(session: Session, args: argparse.Namespace) -> int:
    report = reads.player_report(session, args.userid)
    if report is None:
        what = "with the address" if "@" in args.userid else ""
        raise AdminError(f"no player {what + ' ' if what else ''}{args.userid!r}")
    player, failure = report.player, report.login_failures
    item: dict[str, Any] = {
        "userid": player.userid,
        "addresses": list(player.addresses),
        "created_at": _time(player.created_at),
        "vacation_until": _time(player.vacation_until),
        "signed_off_at": _time(player.signed_off_at),
        "is_admin": player.is_admin,
        "rating": player.rating,
        "provisional": player.provisional,
        "rated_games": player.rated_games,
        "won": player.won,
        "lost": player.lost,
        "drawn": player.drawn,
        "boards": [_board_json(b) for b in report.boards],
        "rating_history": [
            {"board": h.board, "before": h.before, "after": h.after, "at": _time(h.at)}
            for h in report.rating_history
        ],
        "failed_logins": (
            None
            if failure is None
            else {
                "count": failure.count,
                "window_start": _time(failure.window_start),
                "locked_until": _time(failure.locked_until),
            }
        ),
    }
    if args.json:
        print(json.dumps(item, indent=2, ensure_ascii=False))
        return 0
    provisional = " provisional" if player.provisional else ""
    print(f"Player {player.userid}")
    print(f"Addresses: {', '.join(player.addresses) or '-'}")
    print(f"Created {_short_time(player.created_at)}", end="")
    if player.vacation_until:
        print(f"; on vacation until {_short_time(player.vacation_until)}", end="")
    if player.signed_off_at:
        print(f"; signed off {_short_time(player.signed_off_at)}", end="")
    print()
    print(
        f"Rating {player.rating}{provisional} after {player.rated_games} rated game(s); "
        f"won {player.won}, lost {player.lost}, drawn {player.drawn}"
    )
    if failure is not None and failure.count:
        locked = (
            f", locked until {_short_time(failure.locked_until)}" if failure.locked_until else ""
        )
        print(f"Failed logins: {failure.count} since {_short_time(failure.window_start)}{locked}")
    print()
    if report.boards:
        rows = [
            [b.number, b.white, b.black, b.status, b.move_count, b.to_move, _result_text(b)]
            for b in report.boards
        ]
        headers = ["board", "white", "black", "status", "moves", "to move", "result"]
        print(format_table(headers, rows))
    else:
        print("No boards.")
    return 0


def _mail_json(row: MailRow) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": row.label,
        "queue": row.queue,
        "status": row.status,
        "attempts": row.attempts,
        "time": _time(row.time),
        "address": row.address,
        "subject": row.subject,
        "message_id": row.message_id,
        "board": row.board,
        "last_error": row.last_error,
        "claimed_by": row.claimed_by,
        "size": row.size,
    }
    if row.queue == "outbound":
        item["next_attempt_at"] = _time(row.next_attempt_at)
        item["sent_at"] = _time(row.sent_at)
        item["in_reply_to"] = f"in-{row.inbound_id}" if row.inbound_id else None
    return item


def _mail(session: Session, args: argparse.Namespace) -> int:
    """A page of mail, newest first, under a line saying which and how many; ``--json``: the
    page's list alone."""
    found = reads.mail_page(
        session,
        queues=reads.QUEUES if args.queue is None else (args.queue,),
        status=args.status,
        page=args.page,
        per_page=args.page_size,
    )
    messages = found.rows
    if not messages and found.total and not args.json:
        pages = -(-found.total // args.page_size)
        raise AdminError(
            f"there is no page {args.page}: {found.total} messages make {pages} "
            f"page{'s' if pages > 1 else ''} of {args.page_size}"
        )
    rows = [
        [
            m.label,
            m.status,
            m.attempts,
            (_time(m.time) or "-").replace("T", " ")[:16],
            ("<>" if m.address == "" else m.address),
            m.subject,
            _one_line(m.last_error),
        ]
        for m in messages
    ]
    headers = ["id", "status", "tries", "time", "from/to", "subject", "last error"]
    if messages and not args.json:
        last = found.first + len(messages) - 1
        more = (
            f"; --page {args.page + 1} for the next {min(args.page_size, found.total - last)}"
            if last < found.total
            else ""
        )
        print(f"showing {found.first}-{last} of {found.total}, newest first{more}")
    _print_list(args, [_mail_json(m) for m in messages], format_table(headers, rows))
    return 0


def _one_line(text: str | None) -> str | None:
    if not text:
        return None
    line = " ".join(text.split())
    return line if len(line) <= ERROR_WIDTH else line[: ERROR_WIDTH - 3] + "..."


def _requeue(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.db import inbox, outbox
    from pbm_emergo.db.types import utcnow

    text = args.message.strip().lower()
    queue: reads.Queue | None = None
    for name, prefix in reads.QUEUE_PREFIXES.items():
        if text.startswith(prefix):
            queue, text = name, text[len(prefix) :]
    if not text.isdigit():
        raise AdminError(f"bad message id {args.message!r}: use the id from `admin mail`")
    number = int(text)
    if queue is None:
        found = reads.message_queues(session, number)
        if len(found) != 1:
            raise AdminError(
                f"message {number}: "
                + (
                    "no such message"
                    if not found
                    else f"ambiguous: use in-{number} or out-{number}"
                )
            )
        queue = found[0]
    label = f"{reads.QUEUE_PREFIXES[queue]}{number}"
    requeue = inbox.requeue_inbound if queue == "inbound" else outbox.requeue_outbound
    if not requeue(session, number, utcnow()):
        status = reads.message_status(session, queue, number)
        if status is None:
            raise AdminError(f"{label}: no such message")
        if queue == "inbound" and status != "processing":
            raise AdminError(
                f"{label} is {status}: only dead mail is requeued (running a processed "
                "mail again would repeat its commands)"
            )
        raise AdminError(f"{label} is being handled now")
    print(f"{label} requeued")
    return 0


# --- stats, backup ---------------------------------------------------------------------


def admin_stats(args: argparse.Namespace) -> int:
    """The figures of :mod:`pbm_emergo.ops.stats`, as text or JSON."""
    try:
        result = read_stats(_admin_config(args), args.metrics_url)
    except (StatsError, AdminError) as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if args.json else format_stats(result))
    return 0


def admin_backup(args: argparse.Namespace) -> int:
    """A copy of the live SQLite database (:mod:`pbm_emergo.ops.backup`)."""
    try:
        print(backup_database(_admin_config(args), args.path, force=args.force,
                              parents=args.parents))
    except (BackupError, AdminError) as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    return 0


# --- support: passwords, lock-outs, boards, accounts ------------------------------------


def _register_support(commands: Any) -> None:
    """The operator's support cases (:mod:`pbm_emergo.app.support`). Each takes the reason
    the players are told and the log line records."""
    reset = commands.add_parser(
        "reset-password", help="mail a player a new password (to a registered address)"
    )
    reset.add_argument("userid", metavar="USERID")
    reset.add_argument(
        "--address", metavar="ADDRESS", help="which registered address (default: the first)"
    )
    reset.set_defaults(func=admin_reset_password)
    unlock = commands.add_parser("unlock", help="forget a player's wrong passwords: locks end")
    unlock.add_argument("userid", metavar="USERID")
    unlock.set_defaults(func=admin_unlock)
    resign = commands.add_parser("resign", help="resign a game for one of its players")
    resign.add_argument("board", type=int, metavar="BOARD")
    resign.add_argument("userid", metavar="USERID")
    resign.set_defaults(func=admin_resign)
    adjudicate = commands.add_parser(
        "adjudicate", help="end a game as decided: RESULT is the winner's userid or 'draw'"
    )
    adjudicate.add_argument("board", type=int, metavar="BOARD")
    adjudicate.add_argument("result", metavar="RESULT")
    adjudicate.add_argument(
        "--unrated", action="store_true",
        help="count the result, but change no rating (the board becomes unrated)",
    )
    adjudicate.set_defaults(func=admin_adjudicate)
    void = commands.add_parser(
        "void", help="annul a game: no result counted, no rating change"
    )
    void.add_argument("board", type=int, metavar="BOARD")
    void.set_defaults(func=admin_void)
    delete = commands.add_parser(
        "delete-player", help="delete an account (closed if it has finished games)"
    )
    delete.add_argument("userid", metavar="USERID")
    delete.add_argument(
        "--resign-games", dest="resign_games", action="store_true",
        help="resign the player's active games first (else they refuse the deletion)",
    )
    delete.set_defaults(func=admin_delete_player)
    merge = commands.add_parser(
        "merge-players", help="merge the account OLD into KEPT (games, addresses, record)"
    )
    merge.add_argument("old", metavar="OLD")
    merge.add_argument("kept", metavar="KEPT")
    merge.set_defaults(func=admin_merge_players)
    for parser in (reset, unlock, resign, adjudicate, void, delete, merge):
        parser.add_argument(
            "--reason", required=True, metavar="TEXT",
            help="why (mailed to the players and logged)",
        )
        _config_options(parser)


def admin_reset_password(args: argparse.Namespace) -> int:
    from pbm_emergo.app import support

    return _support(
        args, "reset-password", args.userid,
        lambda ctx: support.reset_password(ctx, args.userid, args.reason, address=args.address),
    )


def admin_unlock(args: argparse.Namespace) -> int:
    from pbm_emergo.app import support

    return _support(
        args, "unlock", args.userid, lambda ctx: support.unlock(ctx, args.userid, args.reason)
    )


def admin_resign(args: argparse.Namespace) -> int:
    from pbm_emergo.app import support

    return _support(
        args, "resign", f"{args.board} {args.userid}",
        lambda ctx: support.resign_board(ctx, args.board, args.userid, args.reason),
    )


def admin_adjudicate(args: argparse.Namespace) -> int:
    from pbm_emergo.app import support

    return _support(
        args, "adjudicate", f"{args.board} {args.result}",
        lambda ctx: support.adjudicate(ctx, args.board, args.result, args.reason,
                                       rated=not args.unrated),
    )


def admin_void(args: argparse.Namespace) -> int:
    from pbm_emergo.app import support

    return _support(
        args, "void", str(args.board),
        lambda ctx: support.void_board(ctx, args.board, args.reason),
    )


def admin_delete_player(args: argparse.Namespace) -> int:
    from pbm_emergo.app import support

    return _support(
        args, "delete-player", args.userid,
        lambda ctx: support.delete_player(
            ctx, args.userid, args.reason, resign_games=args.resign_games
        ),
    )


def admin_merge_players(args: argparse.Namespace) -> int:
    from pbm_emergo.app import support

    return _support(
        args, "merge-players", f"{args.old} {args.kept}",
        lambda ctx: support.merge_players(ctx, args.old, args.kept, args.reason),
    )


def _support(
    args: argparse.Namespace, action: str, target: str, case: Any, *, carry: Any = None
) -> int:
    """Run one support case as the scheduler runs timed work (``app.support.carry_out``):
    read, decided and its mails rendered in a reading session, then its writes stored and
    its mails queued in the outbox in one short write transaction; then print its summary
    and log one line with the operator's reason. A refusal is reported in one line and
    changes nothing."""
    import logging

    from sqlalchemy.orm import sessionmaker

    from pbm_emergo.app.results import Refused
    from pbm_emergo.app.support import carry_out
    from pbm_emergo.db.errors import Conflict
    from pbm_emergo.db.session import get_engine
    from pbm_emergo.telemetry.logs import event, setup_logging

    try:
        config = _admin_config(args)
    except AdminError as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    if not logging.getLogger().handlers:
        setup_logging(logging.INFO, config.log_format)
    try:
        sessions = sessionmaker(get_engine(config), expire_on_commit=False)
        # ``carry``: a case that cannot run as the runners do (an event's start, in order).
        done = carry(sessions, config) if carry else carry_out(sessions, config, case)
    except Refused as refused:
        print(f"pbm-emergo admin: {refused.reason}", file=sys.stderr)
        return 1
    except Conflict as conflict:
        print(f"pbm-emergo admin: {conflict}; nothing was changed, run it again", file=sys.stderr)
        return 1
    except DBAPIError as err:
        return _database_error(err)
    event(
        logging.getLogger(__name__), logging.INFO, "admin", action=action, target=target,
        reason=" ".join(args.reason.split()), result=done.result.summary,
        mails=len(done.result.replies),
    )
    print(done.summary)
    return 0


# --- copy-to: from SQLite to PostgreSQL; console-user: the web console's operators -----


def _register_copy_and_console(commands: Any) -> None:
    copy = commands.add_parser(
        "copy-to", help="copy the SQLite database into an empty, migrated PostgreSQL database"
    )
    copy.add_argument("target", metavar="URL", help="postgresql+psycopg://USER@HOST/DATABASE")
    copy.set_defaults(func=admin_copy_to)
    console_user = commands.add_parser(
        "console-user",
        help="add an operator of the web console (or give one a new password): the "
        "password is read from standard input",
    )
    console_user.add_argument("name", metavar="NAME")
    console_user.set_defaults(func=admin_console_user)
    for parser in (copy, console_user):
        _config_options(parser)


def admin_copy_to(args: argparse.Namespace) -> int:
    """Copy the server's SQLite database into PostgreSQL (:mod:`pbm_emergo.db.copy`), print
    what was copied and the setting that moves the server over."""
    from pbm_emergo.db.copy import CopyError, copy_database

    config = _config(args)
    try:
        report = copy_database(config.effective_database_url, args.target)
    except CopyError as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    except DBAPIError as err:
        print(f"pbm-emergo admin: database error ({err.orig}); nothing was copied",
              file=sys.stderr)  # fmt: skip
        return 1
    print(format_table(
        ["table", "rows", "checksum"],
        [[t.name, t.rows, t.checksum[:16]] for t in report.tables],
    ))  # fmt: skip
    rows = sum(t.rows for t in report.tables)
    print(f"{rows} rows in {len(report.tables)} tables copied to {report.target} "
          f"(revision {report.revision}), row counts and checksums verified")  # fmt: skip
    print(f"To switch the server over, stop it and start it with "
          f"PBM_EMERGO_DATABASE_URL={report.target} "
          f"(database_url in the configuration file)")  # fmt: skip
    return 0


def admin_console_user(args: argparse.Namespace) -> int:
    """Add an operator to the web console's file (``console_users_file``), the password
    read from standard input (one line; asked for without echo on a terminal)."""
    import getpass

    from pbm_emergo.web.operators import OperatorsError, set_operator

    config = _config(args)
    if config.console_users_file is None:
        print("pbm-emergo admin: set PBM_EMERGO_CONSOLE_USERS_FILE (console_users_file in "
              "the configuration file) to the file of the console's operators",
              file=sys.stderr)  # fmt: skip
        return 1
    if sys.stdin.isatty():
        password = getpass.getpass(f"password for {args.name}: ")
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    try:
        new = set_operator(config.console_users_file, args.name, password, config)
    except OperatorsError as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    what = "added to" if new else "has a new password in"
    print(f"operator {args.name} {what} {config.console_users_file}")
    return 0


# --- leagues and tournaments --------------------------------------------------------------


def _register_events(commands: Any) -> None:
    """``admin event create|start|cancel|show NAME`` and ``admin events``."""
    from pbm_emergo.game.tournaments import EVENT_FORMATS, ROBOT_POLICIES

    listing = commands.add_parser("events", help="list the leagues and tournaments")
    listing.add_argument("--all", action="store_true", help="finished and cancelled ones too")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=admin_events)
    event = commands.add_parser("event", help="create, start, cancel or show an event")
    actions = event.add_subparsers(dest="event_command", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="create an event open for entries")
    create.add_argument("name", metavar="NAME")
    create.add_argument("--format", required=True, choices=EVENT_FORMATS, dest="event_format")
    create.add_argument(
        "--rounds", type=_positive, metavar="N",
        help="a Swiss's rounds (default 5); a round robin's or league's cycles (1 or 2)",
    )
    create.add_argument(
        "--max-players", dest="max_players", type=_positive, metavar="N",
        help="the most players (a league: a division's size, default 8); full starts it",
    )
    create.add_argument(
        "--starts", metavar="WHEN",
        help="when the first round opens: 'now', +Nd, +Nh, or YYYY-MM-DD[THH:MM] (UTC)",
    )
    create.add_argument("--nagtime", type=_positive, metavar="D", help="days before a reminder")
    create.add_argument(
        "--forfeittime", type=_positive, metavar="D", help="days without a move that lose"
    )
    create.add_argument(
        "--totaltime", type=_positive, metavar="D", help="each player's thinking days a game"
    )
    create.add_argument(
        "--timebank", type=_clock_hours, metavar="T",
        help="each player's capped time bank a game: 240h or 10d (a time bank game)",
    )
    create.add_argument(
        "--increment", type=_clock_hours, metavar="T",
        help="what each move adds to the time bank, up to its size: 36h or 1d",
    )
    create.add_argument(
        "--weekends", action="store_true",
        help="the clocks stop on Saturdays and Sundays in each player's time zone",
    )
    create.add_argument("--robots", choices=ROBOT_POLICIES, default="none")
    create.add_argument("--rated", choices=("yes", "no"), default="yes")
    create.set_defaults(func=admin_event_create, reason="event create")
    for action, handler, what in (
        ("start", admin_event_start, "open the first round now"),
        ("cancel", admin_event_cancel, "cancel an event (its boards go on as ordinary games)"),
        ("show", admin_event_show, "an event's table, crosstable and schedule"),
    ):
        parser = actions.add_parser(action, help=what)
        parser.add_argument("name", metavar="NAME")
        parser.set_defaults(func=handler, reason=f"event {action}")
        _config_options(parser)
    _config_options(create)
    _config_options(listing)


def _clock_hours(text: str) -> int:
    """``--timebank`` and ``--increment``: hours (36h) or days (10d, or 10)."""
    from pbm_emergo.game.clock import hours_of

    hours = hours_of(text)
    if hours is None:
        raise argparse.ArgumentTypeError(f"{text!r}: hours (240h) or days (10d)")
    return hours


def parse_when(text: str | None, now: datetime) -> datetime | None:
    """``--starts``: 'now', +Nd, +Nh, or a date and time in UTC."""
    import re
    from datetime import UTC, timedelta

    if text is None:
        return None
    if text == "now":
        return now
    relative = re.fullmatch(r"\+([0-9]{1,4})([dh])", text)
    if relative:
        amount = int(relative[1])
        return now + (timedelta(days=amount) if relative[2] == "d" else timedelta(hours=amount))
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as err:
        raise AdminError(f"--starts {text!r}: 'now', +Nd, +Nh or YYYY-MM-DD[THH:MM]") from err
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def admin_event_create(args: argparse.Namespace) -> int:
    from pbm_emergo.app import events
    from pbm_emergo.db.models import DEFAULT_FORFEIT_DAYS, DEFAULT_NAG_DAYS
    from pbm_emergo.db.types import utcnow
    from pbm_emergo.game.event_terms import EventTerms

    try:
        starts = parse_when(args.starts, utcnow())
    except AdminError as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    terms = EventTerms(
        event_format=args.event_format, rounds=args.rounds, max_players=args.max_players,
        starts_at=starts, nag_days=args.nagtime or DEFAULT_NAG_DAYS,
        forfeit_days=args.forfeittime or DEFAULT_FORFEIT_DAYS, total_days=args.totaltime,
        robots=args.robots, rated=args.rated == "yes", timebank_hours=args.timebank,
        increment_hours=args.increment, weekends_off=args.weekends,
    )
    return _support(args, "event create", args.name,
                    lambda ctx: events.create_event(ctx, args.name, terms))


def admin_event_start(args: argparse.Namespace) -> int:
    from pbm_emergo.app import events

    return _support(args, "event start", args.name, None,
                    carry=lambda sessions, config: events.start_now(sessions, config, args.name))


def admin_event_cancel(args: argparse.Namespace) -> int:
    from pbm_emergo.app import events
    from pbm_emergo.app.results import Result

    def cancel(ctx: Any) -> Result:
        event = events.require_event(ctx.session, args.name)
        replies = events.cancel_event(ctx, event)
        return Result(summary=f"cancelled the event {event.name}", replies=replies)

    return _support(args, "event cancel", args.name, cancel)


def admin_event_show(args: argparse.Namespace) -> int:
    def show(session: Session, args: argparse.Namespace) -> int:
        from pbm_emergo.app import events
        from pbm_emergo.app.results import Refused

        try:
            event = events.require_event(session, args.name)
        except Refused as refused:
            raise AdminError(refused.reason) from refused
        view = events.event_view(session, event)
        print(events.event_text(view), end="")
        rows = [
            (g["round"], g["division"], g["game"], g["white"], g["black"] or "(bye)",
             g["board"] or "-", g["result"])
            for g in view.schedule
        ]  # fmt: skip
        if rows:
            print()
            print(format_table(
                ("Round", "Division", "Game", "White", "Black", "Board", "Result"), rows
            ))  # fmt: skip
        return 0

    return _run(args, show)


def admin_events(args: argparse.Namespace) -> int:
    def listing(session: Session, args: argparse.Namespace) -> int:
        from pbm_emergo.db import events
        from pbm_emergo.db.reads.events import events_with_status

        statuses = ("open", "running", "finished", "cancelled") if args.all else (
            "open", "running"
        )
        found = events_with_status(session, statuses)
        counts = events.entry_counts(session, [e.id for e in found])
        items = [
            {
                "name": e.name, "format": e.format, "status": e.status,
                "players": counts.get(e.id, 0), "max_players": e.max_players,
                "round": e.current_round, "starts_at": _time(e.starts_at),
                "robots": e.robots, "rated": e.rated,
            }
            for e in found
        ]  # fmt: skip
        rows = [
            (i["name"], i["format"], i["status"], i["players"], i["max_players"] or "-",
             i["round"], i["starts_at"] or "-")
            for i in items
        ]  # fmt: skip
        _print_list(args, items, format_table(
            ("Event", "Format", "Status", "Players", "Max", "Round", "Starts"), rows
        ))  # fmt: skip
        return 0

    return _run(args, listing)
