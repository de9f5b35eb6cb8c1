"""``pbm-emergo db ...`` (migrations) and ``pbm-emergo admin ...`` (the operator's view).

Every subcommand reads the same configuration as the server (``--config``, ``--data-dir``,
``--database-url`` or the ``PBM_EMERGO_*`` environment). Tables are printed aligned for a
terminal; ``--json`` prints JSON for scripts (a list, ``[]`` when there is nothing).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from pbm_emergo.config import Config, load_config

MAIL_STATUSES = ("pending", "processing", "sending", "done", "sent", "failed", "dead", "ignored")
ERROR_WIDTH = 60


class AdminError(Exception):
    """A problem to report in one line on stderr (exit status 1)."""


# --- argument parsing ------------------------------------------------------------------


def _config_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="a TOML configuration file (PBM_EMERGO_CONFIG)")
    parser.add_argument("--data-dir", dest="data_dir", help="PBM_EMERGO_DATA_DIR")
    parser.add_argument(
        "--database-url", dest="database_url", help="PBM_EMERGO_DATABASE_URL (default: SQLite)"
    )


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

    player = commands.add_parser("player", help="one player: addresses, boards, ratings")
    player.add_argument("userid", metavar="USERID")
    player.set_defaults(func=admin_player)

    mail = commands.add_parser("mail", help="the inbound and outbound mail queues")
    mail.add_argument("--status", choices=MAIL_STATUSES)
    mail.add_argument("--queue", choices=("inbound", "outbound"))
    mail.add_argument("--limit", type=int, default=100, help="newest N of each queue (100)")
    mail.set_defaults(func=admin_mail)

    requeue = commands.add_parser(
        "requeue", help="retry a message: ID as shown by `admin mail` (in-12, out-7)"
    )
    requeue.add_argument("message", metavar="ID")
    requeue.set_defaults(func=admin_requeue)

    for parser in (games, show, players, player, mail, requeue):
        _config_options(parser)
        if parser is not requeue:
            parser.add_argument("--json", action="store_true", help="print JSON")


def _config(args: argparse.Namespace) -> Config:
    return load_config(
        {"data_dir": args.data_dir, "database_url": args.database_url}, config_file=args.config
    )


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


def _run(args: argparse.Namespace, action: Any) -> int:
    """Open a session on the configured database, run ``action(session, args)``, report
    problems in one line."""
    from pbm_emergo.db.session import create_engine_for

    config = _config(args)
    engine = create_engine_for(config.effective_database_url)
    try:
        with _session(engine) as session:
            status: int = action(session, args)
            return status
    except AdminError as err:
        print(f"pbm-emergo admin: {err}", file=sys.stderr)
        return 1
    except DBAPIError as err:
        print(
            f"pbm-emergo admin: database error ({err.orig}); is the database migrated? "
            "Run `pbm-emergo db upgrade`.",
            file=sys.stderr,
        )
        return 1
    finally:
        engine.dispose()


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


def admin_player(args: argparse.Namespace) -> int:
    return _run(args, _player)


def admin_mail(args: argparse.Namespace) -> int:
    return _run(args, _mail)


def admin_requeue(args: argparse.Namespace) -> int:
    return _run(args, _requeue)


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


def _games(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.db import service
    from pbm_emergo.db.models import Board

    stmt = select(Board).order_by(Board.number)
    if args.status:
        stmt = stmt.where(Board.status == args.status)
    if args.player:
        player = service.find_player(session, args.player)
        if player is None:
            raise AdminError(f"no player {args.player!r}")
        stmt = stmt.where(
            or_(Board.white_player_id == player.id, Board.black_player_id == player.id)
        )
    boards = list(session.scalars(stmt))
    items = [_board_summary(board) for board in boards]
    rows = [
        [
            item["board"],
            item["players"]["white"],
            item["players"]["black"],
            item["status"],
            item["move_count"],
            item["to_move"],
            _short_time(board.last_move_at or board.created_at),
            _result_text(item),
        ]
        for item, board in zip(items, boards, strict=True)
    ]
    headers = ["board", "white", "black", "status", "moves", "to move", "last move", "result"]
    _print_list(args, items, format_table(headers, rows))
    return 0


def _board_summary(board: Any) -> dict[str, Any]:
    from pbm_emergo.db import service

    to_move = service.player_to_move(board)
    return {
        "board": board.number,
        "players": {"white": board.white_player.userid, "black": board.black_player.userid},
        "status": board.status,
        "move_count": board.ply,
        "to_move": to_move.userid if to_move else None,
        "outcome": _outcome(board),
        "rated": board.rated,
        "created_at": _time(board.created_at),
        "last_move_at": _time(board.last_move_at),
    }


def _outcome(board: Any) -> dict[str, Any] | None:
    if board.outcome_reason is None:
        return None
    winner = board.player_of(board.winner).userid if board.winner else None
    return {"winner": winner, "reason": board.outcome_reason}


def _result_text(item: dict[str, Any]) -> str:
    outcome = item["outcome"]
    if outcome is None:
        return "-"
    if outcome["winner"] is None:
        return f"draw ({outcome['reason']})"
    return f"{outcome['winner']} won ({outcome['reason']})"


def _show(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.db import service
    from pbm_emergo.rules import render_board

    board = service.get_board(session, args.board)
    if board is None:
        raise AdminError(f"no board {args.board}")
    records = list(board.moves)
    # The move list is the source of truth: replay it, and say so if the cache disagrees.
    game = service.load_game(session, board)
    position = game.position
    if position.to_text() != board.position:
        print(
            f"warning: board {board.number}: the cached position differs from the replayed "
            "moves; showing the replay",
            file=sys.stderr,
        )
    summary = _board_summary(board)
    item: dict[str, Any] = {
        "board": board.number,
        "players": summary["players"],
        "moves": [record.notation for record in records],
        "to_move": summary["to_move"],
        "outcome": summary["outcome"],
        "position": position.to_text(),
        "status": board.status,
        "ply": board.ply,
        "rated": board.rated,
        "blocked_rule": board.blocked_rule,
        "nag_days": board.nag_days,
        "forfeit_days": board.forfeit_days,
        "created_at": _time(board.created_at),
        "last_move_at": _time(board.last_move_at),
        "finished_at": _time(board.finished_at),
        "rating_changes": (
            None
            if board.white_rating_change is None
            else {
                "white": board.white_rating_change,
                "black": board.black_rating_change,
            }
        ),
        "move_list": [
            {
                "number": r.number,
                "player": r.player.userid,
                "move": r.notation,
                "played_at": _time(r.played_at),
                "comment": r.comment,
            }
            for r in records
        ],
    }
    if args.json:
        print(json.dumps(item, indent=2, ensure_ascii=False))
        return 0
    white, black = item["players"]["white"], item["players"]["black"]
    options = [
        "rated" if board.rated else "unrated",
        f"blocked={board.blocked_rule}",
        f"nag {board.nag_days}d",
        f"forfeit {board.forfeit_days}d",
    ]
    print(f"Board {board.number}: {white} (Ohs, white) vs {black} (Eks, black)")
    print(f"Status: {board.status}, {board.ply} moves; options: {', '.join(options)}")
    print(f"Created {_short_time(board.created_at)}, last move {_short_time(board.last_move_at)}")
    if item["outcome"]:
        line = f"Result: {_result_text(item)}"
        if item["rating_changes"]:
            changes = item["rating_changes"]
            line += f"; ratings {white} {changes['white']:+d}, {black} {changes['black']:+d}"
        print(line)
    else:
        print(f"It is {item['to_move']}'s turn.")
    print()
    if records:
        rows = [[r.number, r.player.userid, r.notation, _short_time(r.played_at)] for r in records]
        print(format_table(["move", "player", "notation", "played"], rows))
        print()
    print(render_board(position, white, black).rstrip("\n"))
    return 0


def _players(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.db import service
    from pbm_emergo.db.models import BOARD_ACTIVE, Board, Player

    active = dict(
        session.execute(
            select(Player.id, func.count(Board.number))
            .join(
                Board,
                or_(Board.white_player_id == Player.id, Board.black_player_id == Player.id),
            )
            .where(Board.status == BOARD_ACTIVE)
            .group_by(Player.id)
        ).all()
    )
    players = list(session.scalars(select(Player).order_by(Player.userid_key)))
    items: list[dict[str, Any]] = [
        {
            "userid": p.userid,
            "rating": p.rating,
            "provisional": service.is_provisional(p),
            "won": p.won,
            "lost": p.lost,
            "drawn": p.drawn,
            "active_boards": active.get(p.id, 0),
            "addresses": [a.address for a in p.addresses],
            "created_at": _time(p.created_at),
            "vacation_until": _time(p.vacation_until),
            "signed_off_at": _time(p.signed_off_at),
            "is_admin": p.is_admin,
        }
        for p in players
    ]
    rows = [
        [
            item["userid"],
            f"{item['rating']}{'?' if item['provisional'] else ''}",
            item["won"],
            item["lost"],
            item["drawn"],
            item["active_boards"],
            ", ".join(item["addresses"]) or "-",
            "signed off" if item["signed_off_at"] else "",
        ]
        for item in items
    ]
    headers = ["userid", "rating", "won", "lost", "drawn", "active", "addresses", "flags"]
    _print_list(args, items, format_table(headers, rows))
    return 0


def _player(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.db import service
    from pbm_emergo.db.models import LoginFailure, RatingChange

    player = service.find_player(session, args.userid)
    if player is None:
        raise AdminError(f"no player {args.userid!r}")
    boards = [_board_summary(b) for b in service.boards_of(session, player)]
    history = session.scalars(
        select(RatingChange).where(RatingChange.player_id == player.id).order_by(RatingChange.id)
    ).all()
    failure = session.get(LoginFailure, player.id)
    item: dict[str, Any] = {
        "userid": player.userid,
        "addresses": [a.address for a in player.addresses],
        "created_at": _time(player.created_at),
        "vacation_until": _time(player.vacation_until),
        "signed_off_at": _time(player.signed_off_at),
        "is_admin": player.is_admin,
        "rating": player.rating,
        "provisional": service.is_provisional(player),
        "rated_games": player.rated_games,
        "won": player.won,
        "lost": player.lost,
        "drawn": player.drawn,
        "boards": boards,
        "rating_history": [
            {
                "board": h.board_number,
                "before": h.rating_before,
                "after": h.rating_after,
                "at": _time(h.created_at),
            }
            for h in history
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
    provisional = " (provisional)" if item["provisional"] else ""
    print(f"Player {player.userid}")
    print(f"Addresses: {', '.join(item['addresses']) or '-'}")
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
    if boards:
        rows = [
            [
                b["board"],
                b["players"]["white"],
                b["players"]["black"],
                b["status"],
                b["move_count"],
                b["to_move"],
                _result_text(b),
            ]
            for b in boards
        ]
        headers = ["board", "white", "black", "status", "moves", "to move", "result"]
        print(format_table(headers, rows))
    else:
        print("No boards.")
    return 0


def _mail(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.db.models import InboundMessage, OutboundMessage

    items: list[dict[str, Any]] = []
    if args.queue in (None, "inbound"):
        stmt = select(InboundMessage).order_by(InboundMessage.id.desc()).limit(args.limit)
        if args.status:
            stmt = stmt.where(InboundMessage.status == args.status)
        for m in session.scalars(stmt):
            items.append(
                {
                    "id": f"in-{m.id}",
                    "queue": "inbound",
                    "status": m.status,
                    "attempts": m.attempts,
                    "time": _time(m.received_at),
                    "address": m.envelope_sender,
                    "subject": m.subject,
                    "message_id": m.message_id,
                    "board": m.board_number,
                    "last_error": m.last_error,
                    "claimed_by": m.claimed_by,
                    "size": len(m.raw),
                }
            )
    if args.queue in (None, "outbound"):
        stmt2 = select(OutboundMessage).order_by(OutboundMessage.id.desc()).limit(args.limit)
        if args.status:
            stmt2 = stmt2.where(OutboundMessage.status == args.status)
        for o in session.scalars(stmt2):
            items.append(
                {
                    "id": f"out-{o.id}",
                    "queue": "outbound",
                    "status": o.status,
                    "attempts": o.attempts,
                    "time": _time(o.created_at),
                    "address": o.recipient,
                    "subject": o.subject,
                    "message_id": o.message_id,
                    "board": o.board_number,
                    "last_error": o.last_error,
                    "claimed_by": o.claimed_by,
                    "size": len(o.raw),
                    "next_attempt_at": _time(o.next_attempt_at),
                    "sent_at": _time(o.sent_at),
                    "in_reply_to": f"in-{o.inbound_id}" if o.inbound_id else None,
                }
            )
    items.sort(key=lambda i: i["time"] or "")
    rows = [
        [
            i["id"],
            i["status"],
            i["attempts"],
            (i["time"] or "-").replace("T", " ")[:16],
            ("<>" if i["address"] == "" else i["address"]),
            i["subject"],
            _one_line(i["last_error"]),
        ]
        for i in items
    ]
    headers = ["id", "status", "tries", "time", "from/to", "subject", "last error"]
    _print_list(args, items, format_table(headers, rows))
    return 0


def _one_line(text: str | None) -> str | None:
    if not text:
        return None
    line = " ".join(text.split())
    return line if len(line) <= ERROR_WIDTH else line[: ERROR_WIDTH - 3] + "..."


def _requeue(session: Session, args: argparse.Namespace) -> int:
    from pbm_emergo.db import queues
    from pbm_emergo.db.models import InboundMessage, OutboundMessage
    from pbm_emergo.db.types import utcnow

    text = args.message.strip().lower()
    kind: str | None = None
    for prefix, name in (("in-", "inbound"), ("out-", "outbound")):
        if text.startswith(prefix):
            kind, text = name, text[len(prefix) :]
    if not text.isdigit():
        raise AdminError(f"bad message id {args.message!r}: use the id from `admin mail`")
    number = int(text)
    if kind is None:
        found = [
            name
            for name, model in (("inbound", InboundMessage), ("outbound", OutboundMessage))
            if session.get(model, number) is not None
        ]
        if len(found) != 1:
            raise AdminError(
                f"message {number}: "
                + (
                    "no such message"
                    if not found
                    else f"ambiguous: use in-{number} or out-{number}"
                )
            )
        kind = found[0]
    now = utcnow()
    if kind == "inbound":
        done = queues.requeue_inbound(session, number, now)
        label = f"in-{number}"
    else:
        done = queues.requeue_outbound(session, number, now)
        label = f"out-{number}"
    if not done:
        exists: InboundMessage | OutboundMessage | None = (
            session.get(InboundMessage, number)
            if kind == "inbound"
            else session.get(OutboundMessage, number)
        )
        if exists is None:
            raise AdminError(f"{label}: no such message")
        if kind == "inbound" and exists.status != "processing":
            raise AdminError(
                f"{label} is {exists.status}: only dead mail is requeued (running a processed "
                "mail again would repeat its commands)"
            )
        raise AdminError(f"{label} is being handled now")
    print(f"{label} requeued")
    return 0
