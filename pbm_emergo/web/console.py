"""The operator's web console at ``/admin``: sqladmin's views over the database, behind a
login, with the support cases of ``pbm-emergo admin`` as forms.

It is on only when ``console_users_file`` names the file of operators
(:mod:`pbm_emergo.web.operators`). An operator logs in with name and password; wrong
passwords count as the players' do (:mod:`pbm_emergo.game.lockout`: five from one client
address in an hour lock that address out for an hour, twenty from all together lock the
name; the counts are kept in the web process's memory). The session is a signed cookie
(its key made at each start, so a restart logs everyone out), ``SameSite=Strict``, and
``Secure`` when the web URL is https; it lasts :data:`SESSION_SECONDS`.

What it shows: boards (with their moves and the board picture), players (searched by userid
or address; never a password hash), both mail queues and their dead letters (the
``subject`` as stored on receipt, with passwords masked as ``admin mail`` shows them; never
a raw message). Nothing is edited through the generic views: every change is a support case
of :mod:`pbm_emergo.app.support`, run by :func:`pbm_emergo.app.support.carry_out` exactly as
the command line runs it, or a requeue through the same database code as ``admin
requeue``; each is logged with the operator's name.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from markupsafe import Markup
from sqladmin import Admin, BaseView, ModelView, action, expose
from sqladmin.authentication import AuthenticationBackend
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

from pbm_emergo.app import support
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.config import Config
from pbm_emergo.db import console as queries
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import Board, InboundMessage, OutboundMessage, Player
from pbm_emergo.db.session import SessionFactory
from pbm_emergo.db.types import utcnow
from pbm_emergo.game.account_changes import LoginFailureRecorded
from pbm_emergo.game.lockout import OTHER_SENDERS, FailureCount, count_wrong_password
from pbm_emergo.rules import Position
from pbm_emergo.telemetry.logs import event
from pbm_emergo.views import i18n
from pbm_emergo.views.picture import board_picture
from pbm_emergo.views.templating import render_html
from pbm_emergo.web.operators import hasher, password_matches, read_operators

log = logging.getLogger(__name__)

BASE_URL = "/admin"
SESSION_SECONDS = 8 * 3600  # a login lasts a working day
SESSION_COOKIE = "pbm_emergo_console"
# The name the counts of wrong passwords for names that are no operator's go under (one
# bucket, so that made-up names cannot fill the memory).
UNKNOWN_OPERATOR = ""
SUPPORT_TEMPLATE = "console_support.html"
# The support cases the console offers, in the order of its page.
CASES = ("reset-password", "unlock", "resign", "adjudicate", "void", "requeue")
# On every answer of the console: never in a frame of another site, never kept in a cache
# (its pages show players' addresses).
CONSOLE_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


# --- the lock-out -------------------------------------------------------------------------


@dataclass
class OperatorLockout:
    """The wrong passwords of the console's logins, counted as the players' are: per name,
    by client address and for all addresses together (:data:`OTHER_SENDERS`)."""

    counts: dict[str, dict[str, FailureCount]] = field(default_factory=dict)

    def locked_until(self, name: str, address: str, now: datetime) -> datetime | None:
        found = self.counts.get(name, {})
        ends = [
            count.locked_until
            for key in (address, OTHER_SENDERS)
            if (count := found.get(key)) is not None
            and count.locked_until is not None
            and count.locked_until > now
        ]
        return max(ends) if ends else None

    def failed(self, name: str, address: str, now: datetime) -> int:
        """Count one wrong password; the wrong passwords left before a lock."""
        found = self.counts.setdefault(name, {})
        counted = count_wrong_password(0, (address, OTHER_SENDERS), found, now)
        for change in counted.changes:
            if isinstance(change, LoginFailureRecorded):
                found[change.sender_key] = FailureCount(
                    change.count, change.window_start, change.locked_until
                )
            else:  # the old counts that lock nothing are forgotten
                for key, count in list(found.items()):
                    if count.window_start < change.before and (
                        count.locked_until is None or count.locked_until <= now
                    ):
                        del found[key]
        return counted.attempts_left

    def succeeded(self, name: str, address: str) -> None:
        self.counts.get(name, {}).pop(address, None)


# --- the login ----------------------------------------------------------------------------


class ConsoleHeaders(BaseHTTPMiddleware):
    """:data:`CONSOLE_HEADERS` on every answer."""

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        response = await call_next(request)
        response.headers.update(CONSOLE_HEADERS)
        return response


class OperatorLogin(AuthenticationBackend):
    """sqladmin's login, against the operators' file and the lock-out."""

    def __init__(
        self, config: Config, clock: Callable[[], datetime], lockout: OperatorLockout
    ) -> None:
        super().__init__(secret_key=secrets.token_urlsafe(32))
        assert config.console_users_file is not None
        self.config = config
        self.users_file = config.console_users_file
        self.clock = clock
        self.lockout = lockout
        # Checked for a name that is no operator's, so that its answer takes as long.
        self.no_operator_hash = hasher(config).hash(secrets.token_urlsafe(16))
        self.admin: Admin | None = None
        https = (config.web_url or "").lower().startswith("https://")
        self.middlewares = [
            Middleware(
                SessionMiddleware,
                secret_key=secrets.token_urlsafe(32),
                session_cookie=SESSION_COOKIE,
                max_age=SESSION_SECONDS,
                same_site="strict",
                https_only=https,
            )
        ]

    async def _refused(self, request: Request, message: str) -> Response:
        assert self.admin is not None
        response: Response = await self.admin.templates.TemplateResponse(
            request, "sqladmin/login.html", {"error": message}, status_code=429
        )
        return response

    async def login(self, request: Request) -> Response | bool:
        form = await request.form()
        name = str(form.get("username", "")).strip()
        password = str(form.get("password", ""))
        address = request.client.host if request.client is not None else "unknown"
        now = self.clock()
        operators = read_operators(self.users_file)
        bucket = name if name in operators else UNKNOWN_OPERATOR
        until = self.lockout.locked_until(bucket, address, now)
        if until is not None:
            event(log, logging.WARNING, "console-login", operator=name, address=address,
                  result="locked")  # fmt: skip
            return await self._refused(
                request, f"Too many wrong passwords: try again after {_at(until)}."
            )
        stored = operators.get(name, self.no_operator_hash)
        right = await run_in_threadpool(password_matches, self.config, stored, password)
        if not right or name not in operators:
            left = self.lockout.failed(bucket, address, now)
            event(log, logging.WARNING, "console-login", operator=name, address=address,
                  result="wrong password", left=left)  # fmt: skip
            if left == 0:
                until = self.lockout.locked_until(bucket, address, now)
                assert until is not None
                return await self._refused(
                    request, f"Too many wrong passwords: try again after {_at(until)}."
                )
            return False
        self.lockout.succeeded(bucket, address)
        request.session.clear()
        request.session.update(
            {"operator": name, "since": time.time(), "csrf": secrets.token_urlsafe(24)}
        )
        event(log, logging.INFO, "console-login", operator=name, address=address, result="in")
        return True

    async def logout(self, request: Request) -> Response | bool:
        request.session.clear()
        return False  # to the login page

    async def authenticate(self, request: Request) -> Response | bool:
        name = request.session.get("operator")
        since = request.session.get("since")
        if not isinstance(name, str) or not isinstance(since, float | int):
            return False
        if time.time() - since > SESSION_SECONDS:
            request.session.clear()
            return False
        # An operator taken out of the file is out at once.
        return name in read_operators(self.users_file)

    async def get_user_id(self, request: Request) -> Any:
        return request.session.get("operator")


def operator_of(request: Request) -> str:
    name = request.session.get("operator")
    assert isinstance(name, str)
    return name


# --- the views ----------------------------------------------------------------------------


def _support_link(request: Request, **query: str) -> RedirectResponse:
    url = request.url_for("admin:view-support").include_query_params(**query)
    return RedirectResponse(str(url), status_code=302)


def _board_picture(board: Board, attribute: Any) -> Markup:
    """The board as the web page and the HTML board mail draw it (in English: the console is
    the operators')."""
    last = max(board.moves, key=lambda m: m.number).notation if board.moves else None
    with i18n.speaking(i18n.DEFAULT):
        return render_html(
            "board/picture.html.j2",
            picture=board_picture(Position.from_text(board.position), last),
            white=board.white_player.userid,
            black=board.black_player.userid,
        )


def _moves(board: Board, attribute: Any) -> list[Markup]:
    """One line a move (sqladmin shows a list relation's values one by one)."""
    names = {board.white_player_id: board.white_player.userid,
             board.black_player_id: board.black_player.userid}  # fmt: skip
    return [
        Markup("{}. {} <small>({}, {})</small>").format(
            move.number, move.notation, names.get(move.player_id, "?"), _at(move.played_at)
        )
        for move in sorted(board.moves, key=lambda m: m.number)
    ]


def _userid(attribute: str) -> Callable[[Any, Any], str]:
    return lambda model, _: str(getattr(model, attribute).userid)


class ReadOnlyView(ModelView):
    """Shown, never edited here: changes are the support cases'."""

    can_create = False
    can_edit = False
    can_delete = False
    can_export = False
    page_size = 50


class BoardView(ReadOnlyView, model=Board):
    name = "Board"
    name_plural = "Boards"
    icon = "fa-solid fa-chess-board"
    column_list = [Board.number, Board.white_player, Board.black_player, Board.status,
                   Board.ply, Board.winner, Board.outcome_reason, Board.last_move_at]  # fmt: skip
    column_details_list = [Board.number, Board.white_player, Board.black_player,
                           Board.status, Board.rated, Board.ply, Board.to_move, Board.winner,
                           Board.outcome_reason, Board.created_at, Board.last_move_at,
                           Board.finished_at, Board.position, Board.moves]  # fmt: skip
    column_sortable_list = [Board.number, Board.status, Board.last_move_at]
    column_default_sort = [(Board.number, True)]
    column_searchable_list = [Board.number]
    column_labels = {Board.position: "Board", Board.white_player: "White",
                     Board.black_player: "Black"}  # fmt: skip
    column_formatters = {Board.white_player: _userid("white_player"),
                         Board.black_player: _userid("black_player")}  # fmt: skip
    column_formatters_detail = {
        Board.white_player: _userid("white_player"),
        Board.black_player: _userid("black_player"),
        Board.position: _board_picture,
        Board.moves: _moves,
    }

    @action("resign-or-adjudicate", label="Resign, adjudicate or void", add_in_list=False)
    async def resign_or_adjudicate(self, request: Request) -> Response:
        return _support_link(request, board=request.query_params.get("pks", ""))


class PlayerView(ReadOnlyView, model=Player):
    name = "Player"
    name_plural = "Players"
    icon = "fa-solid fa-user"
    column_list = [Player.userid, Player.rating, Player.rated_games, Player.won, Player.lost,
                   Player.drawn, Player.created_at, Player.signed_off_at]  # fmt: skip
    # Never the password hash.
    column_details_list = [Player.id, Player.userid, Player.addresses, Player.rating,
                           Player.rated_games, Player.won, Player.lost, Player.drawn,
                           Player.created_at, Player.signed_off_at, Player.vacation_until,
                           Player.autoplay, Player.seeking, Player.refuses_challenges,
                           Player.board_limit]  # fmt: skip
    column_searchable_list = [Player.userid]
    column_sortable_list = [Player.userid, Player.rating, Player.created_at]
    column_formatters_detail = {
        Player.addresses: lambda model, _: [a.address for a in model.addresses]
    }

    def search_placeholder(self) -> str:
        return "userid or address"

    def search_query(self, stmt: Any, term: str) -> Any:
        return queries.players_matching(stmt, term)

    @action("support", label="Password or lock-out", add_in_list=False)
    async def support(self, request: Request) -> Response:
        pk = request.query_params.get("pks", "").split(",")[0]
        # sqladmin's lookup of one row by its key (named for its delete page).
        player = await self.get_object_for_delete(pk) if pk.isdigit() else None
        return _support_link(request, userid=player.userid if player is not None else "")


_MAIL_IN = [InboundMessage.id, InboundMessage.status, InboundMessage.received_at,
            InboundMessage.envelope_sender, InboundMessage.subject,
            InboundMessage.board_number, InboundMessage.attempts,
            InboundMessage.last_error]  # fmt: skip
_MAIL_OUT = [OutboundMessage.id, OutboundMessage.status, OutboundMessage.created_at,
             OutboundMessage.recipient, OutboundMessage.subject,
             OutboundMessage.board_number, OutboundMessage.attempts,
             OutboundMessage.next_attempt_at, OutboundMessage.sent_at,
             OutboundMessage.last_error]  # fmt: skip


class InboundView(ReadOnlyView, model=InboundMessage):
    """The inbound queue: the subject as stored on receipt (passwords masked), never the
    raw mail."""

    name = "Inbound mail"
    name_plural = "Inbound mail"
    icon = "fa-solid fa-inbox"
    column_list = _MAIL_IN
    column_details_list = [*_MAIL_IN, InboundMessage.message_id, InboundMessage.sender,
                           InboundMessage.not_answered, InboundMessage.processed_at,
                           InboundMessage.claimed_by]  # fmt: skip
    column_labels = {InboundMessage.id: "Id"}
    column_formatters = {InboundMessage.id: lambda model, _: f"in-{model.id}"}
    column_formatters_detail = column_formatters
    column_default_sort = [(InboundMessage.id, True)]
    column_sortable_list = [InboundMessage.id, InboundMessage.status]

    @action("requeue", label="Requeue", add_in_list=False)
    async def requeue(self, request: Request) -> Response:
        return _support_link(request, message=f"in-{request.query_params.get('pks', '')}")


class OutboundView(ReadOnlyView, model=OutboundMessage):
    """The outbound queue: never the raw mail (a new password is in one)."""

    name = "Outbound mail"
    name_plural = "Outbound mail"
    icon = "fa-solid fa-paper-plane"
    column_list = _MAIL_OUT
    column_details_list = [*_MAIL_OUT, OutboundMessage.message_id,
                           OutboundMessage.inbound_id, OutboundMessage.claimed_by]  # fmt: skip
    column_formatters = {OutboundMessage.id: lambda model, _: f"out-{model.id}"}
    column_formatters_detail = column_formatters
    column_default_sort = [(OutboundMessage.id, True)]
    column_sortable_list = [OutboundMessage.id, OutboundMessage.status]

    @action("requeue", label="Requeue", add_in_list=False)
    async def requeue(self, request: Request) -> Response:
        return _support_link(request, message=f"out-{request.query_params.get('pks', '')}")


class DeadInboundView(InboundView):
    name = "Dead letter (in)"
    name_plural = "Dead letters (in)"
    icon = "fa-solid fa-skull"
    identity = "dead-inbound"

    def list_query(self, request: Request) -> Any:
        return queries.dead_inbound()

    def count_query(self, request: Request) -> Any:
        return queries.count_of(queries.dead_inbound())


class DeadOutboundView(OutboundView):
    name = "Dead letter (out)"
    name_plural = "Dead letters (out)"
    icon = "fa-solid fa-skull"
    identity = "dead-outbound"

    def list_query(self, request: Request) -> Any:
        return queries.dead_outbound()

    def count_query(self, request: Request) -> Any:
        return queries.count_of(queries.dead_outbound())


# --- the support cases --------------------------------------------------------------------


@dataclass(frozen=True)
class Console:
    """What the support page works with."""

    sessions: SessionFactory
    config: Config
    clock: Callable[[], datetime]


def _case(form: dict[str, str]) -> tuple[str, Callable[[UnitOfWork], Result]]:
    """The support case a form asks for: its target (for the log) and the case itself."""
    kind, reason = form.get("case", ""), form.get("reason", "")
    userid = form.get("userid", "").strip()
    try:
        board = int(form.get("board", ""))
    except ValueError:
        board = 0
    if kind == "reset-password":
        address = form.get("address", "").strip() or None
        return userid, lambda ctx: support.reset_password(ctx, userid, reason, address=address)
    if kind == "unlock":
        return userid, lambda ctx: support.unlock(ctx, userid, reason)
    if kind in ("resign", "adjudicate", "void") and board < 1:
        raise Refused("Give the board's number.")
    if kind == "resign":
        return f"{board} {userid}", lambda ctx: support.resign_board(ctx, board, userid, reason)
    if kind == "adjudicate":
        result = form.get("result", "").strip()
        # The form's "unrated" box, as the command line's --unrated.
        rated = not form.get("unrated")
        return f"{board} {result}{'' if rated else ' unrated'}", lambda ctx: support.adjudicate(
            ctx, board, result, reason, rated=rated
        )
    if kind == "void":
        return str(board), lambda ctx: support.void_board(ctx, board, reason)
    raise Refused(f"There is no support case {kind!r}.")


class SupportView(BaseView):
    """One page of forms, one for each support case (:data:`CASES`); a model view's
    action opens it with its fields filled in."""

    name = "Support"
    icon = "fa-solid fa-life-ring"
    console: ClassVar[Console]

    @expose("/support", methods=["GET", "POST"])
    async def support(self, request: Request) -> Response:
        context: dict[str, Any] = {
            "title": "Support",
            "subtitle": "",
            "cases": CASES,
            "csrf": request.session.get("csrf", ""),
            "operator": operator_of(request),
            "filled": dict(request.query_params),
            "done": None,
            "refused": None,
        }
        status = 200
        if request.method == "POST":
            form = {key: str(value) for key, value in (await request.form()).items()}
            context["filled"] = form
            try:
                context["done"] = await run_in_threadpool(self._carry_out, request, form)
            except Refused as refused:
                context["refused"] = refused.reason
                status = 400
        response: Response = await self.templates.TemplateResponse(
            request, SUPPORT_TEMPLATE, context, status_code=status
        )
        return response

    def _carry_out(self, request: Request, form: dict[str, str]) -> str:
        if not secrets.compare_digest(form.get("csrf", ""), request.session.get("csrf", "")):
            raise Refused("The form is out of date: open the page again.")
        operator, kind = operator_of(request), form.get("case", "")
        if kind == "requeue":
            with self.console.sessions.begin() as session:
                try:
                    label = queries.requeue_message(
                        session, form.get("message", ""), self.console.clock()
                    )
                except queries.RequeueRefused as refused:
                    raise Refused(str(refused)) from None
            event(log, logging.INFO, "console", operator=operator, action="requeue",
                  target=label, result=f"{label} requeued")  # fmt: skip
            return f"{label} requeued"
        target, case = _case(form)
        try:
            done = support.carry_out(
                self.console.sessions, self.console.config, case, self.console.clock()
            )
        except Conflict as conflict:
            raise Refused(f"{conflict}; nothing was changed, try again") from None
        event(log, logging.INFO, "console", operator=operator, action=kind, target=target,
              reason=" ".join(form.get("reason", "").split()), result=done.result.summary,
              mails=len(done.result.replies))  # fmt: skip
        return done.summary


# --- mounting -----------------------------------------------------------------------------


def console_routes(
    sessions: SessionFactory,
    config: Config,
    templates_dir: str,
    clock: Callable[[], datetime] = utcnow,
) -> list[BaseRoute]:
    """The console's routes, to go in the web app's before its catch-all ones: the sqladmin
    application at :data:`BASE_URL`, and ``/admin`` itself to it. The operators' file is
    read now, so that a broken one stops the start."""
    assert config.console_users_file is not None
    read_operators(config.console_users_file)
    login = OperatorLogin(config, clock, OperatorLockout())
    holder = Starlette()  # sqladmin mounts itself on an app: its route is taken from there
    admin = Admin(
        holder, session_maker=sessions, base_url=BASE_URL, title="pbm-emergo console",
        authentication_backend=login, templates_dir=templates_dir,
        middlewares=[Middleware(ConsoleHeaders)],
    )  # fmt: skip
    login.admin = admin
    state = Console(sessions, config, clock)
    support_view = type("BoundSupportView", (SupportView,), {"console": state})
    for view in (BoardView, PlayerView, InboundView, OutboundView, DeadInboundView,
                 DeadOutboundView):  # fmt: skip
        admin.add_view(view)
    admin.add_view(support_view)

    async def to_console(request: Request) -> Response:
        return RedirectResponse(f"{BASE_URL}/", status_code=307)

    from starlette.routing import Route

    return [Route(BASE_URL, to_console), *holder.routes]


__all__ = ["BASE_URL", "OperatorLockout", "console_routes"]
