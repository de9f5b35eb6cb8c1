"""The read-only web view: an ASGI application (Starlette) over the server's database.

Pages: ``/`` (how to play, active boards, recent results), ``/boards/N`` (the board drawn as
in the board mail, ``?move=n`` to step through the game; with the engine's evaluation graph
and notes once someone had the game analysed: :mod:`pbm_emergo.web.graph`),
``/players/USERID``, ``/standings``,
``/history``, ``/rules`` (``docs/rules.md``: :mod:`pbm_emergo.web.rules`); JSON for tools at
``/api/boards/N``; the operator's console at ``/admin`` when it is configured
(:mod:`pbm_emergo.web.console`). The lists (``/``, ``/standings``, ``/history``) come a page
at a time,
``?page=N``, so that no answer grows with the server. A path with a trailing slash is
redirected to the page without it, by a ``Location`` that is a path only: never built from the
request's ``Host`` header, which the client chooses.

Every page is a Jinja template in ``pbm_emergo/web/templates``; the board itself is the
mail's ``board/picture.html.j2`` from the reply templates folder, so that the web and the
mail draw the same picture. Every page carries the server's name and the front page its mail
address and the first mails to send (:class:`Site`, from the configuration).

The pages write nothing, and show nothing of a player's account (no address, no password
hash): the data come from :mod:`pbm_emergo.db.reads`, whose rows hold only public values. An
unknown board or player is a 404 page, a bad ``?move=`` a 400 page, and any other failure
a 500 page that says nothing about its cause (the traceback goes to the log only). The
console at ``/admin`` is the operator's, behind its own login, and changes things only
through the support cases of :mod:`pbm_emergo.app.support` (:mod:`pbm_emergo.web.console`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Match, Route

from pbm_emergo.config import Config
from pbm_emergo.db import reads as data
from pbm_emergo.db.reads.boards import MoveLine
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.db.session import Session, SessionFactory, read_sessions
from pbm_emergo.db.types import utcnow
from pbm_emergo.game.board import BoardState
from pbm_emergo.game.records import board_record, record_filename
from pbm_emergo.robot.analysis import BLUNDER, INACCURACY, MISTAKE
from pbm_emergo.rules import Game, Position
from pbm_emergo.views import board_text, i18n
from pbm_emergo.views.board_mail import (
    clock_lines,
    clock_title,
    deadline_texts,
    open_votes_said,
    options_text,
    vacation_lines,
)
from pbm_emergo.views.picture import board_picture
from pbm_emergo.views.templating import install_translations, template_dir
from pbm_emergo.web import words
from pbm_emergo.web.graph import evaluation_graph, value_text
from pbm_emergo.web.language import LanguageMiddleware
from pbm_emergo.web.rating_graph import rating_graph
from pbm_emergo.web.rules import player_rules_page, rules_page

log = logging.getLogger(__name__)

PAGE_TEMPLATES = Path(__file__).resolve().parent / "templates"
HISTORY_PAGE = 100  # finished games on one page of /history
ACTIVE_PAGE = 100  # active boards on one page of /
STANDINGS_PAGE = 100  # players on one page of /standings
RECENT_RESULTS = 10  # on the front page
MAX_NUMBER = 10**9  # board numbers and ?move= beyond this are not numbers we use

# No scripts, nothing from elsewhere: the pages need only their own inline styles.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


@cache
def page_environment(folder: Path | None = None, locale: str = i18n.DEFAULT) -> Environment:
    """The page templates, with the reply templates (the board picture) behind them; their
    ``{% trans %}`` blocks in ``locale``."""
    env = Environment(
        loader=ChoiceLoader(
            [FileSystemLoader(str(PAGE_TEMPLATES)), FileSystemLoader(str(folder or template_dir()))]
        ),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
    )
    install_translations(env, i18n.translations(locale), mark=False)
    env.filters["when"] = words.when
    env.filters["number"] = words.number
    env.filters["signed"] = words.signed
    env.filters["event_status"] = words.event_status
    env.filters["reason"] = words.reason
    env.filters["value_text"] = value_text
    env.filters["verdict"] = words.verdict
    env.filters["verdict_loss"] = words.verdict_loss
    env.globals["losses"] = {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER}
    return env


@dataclass(frozen=True)
class Site:
    """What every page says about the server: its name (the header) and the address to mail
    commands to (the front page's Play panel)."""

    address: str
    name: str

    @classmethod
    def of(cls, config: Config) -> Site:
        return cls(address=config.address, name=config.domain)


class BadRequest(HTTPException):
    def __init__(self, detail: str) -> None:
        super().__init__(400, detail)


class NotFound(HTTPException):
    def __init__(self, detail: str) -> None:
        super().__init__(404, detail)


def _render(site: Site, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    language = i18n.current()
    html = (
        page_environment(None, language)
        .get_template(name)
        .render(site=site, language=language, languages=i18n.NAMES, **context)
    )
    return HTMLResponse(html, status_code=status_code, headers=SECURITY_HEADERS)


def _number(text: str, wrong: str) -> int:
    """A whole number from a path or query (plain ASCII digits), else 400 saying ``wrong``."""
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise BadRequest(wrong)
    return int(text)


def _page_number(request: Request) -> int:
    """The ``?page=`` of a list (1 if none), else 400."""
    number = _number(
        request.query_params.get("page", "1"), i18n._("?page= must be a whole number, such as 12.")
    )
    if number < 1:
        raise BadRequest(i18n._("?page= counts from 1."))
    return number


@dataclass(frozen=True)
class Step:
    """The board as of move ``shown`` of ``total``: its position and how it came about."""

    shown: int
    total: int
    position: Position
    last_move: str | None


def _step(state: BoardState, query: str | None) -> Step:
    """The board as of the move ``?move=`` asks for (the last one if none): the position
    as stored, or the game replayed up to that move."""
    notations = [m.notation for m in state.moves]
    total = len(notations)
    shown = (
        total
        if query is None
        else _number(query, i18n._("?move= must be a whole number, such as 12."))
    )
    if shown > total:
        raise BadRequest(
            i18n.ngettext(
                "?move= must be between 0 and %(total)s: this game has %(total)s move so far.",
                "?move= must be between 0 and %(total)s: this game has %(total)s moves so far.",
                total,
                total=words.number(total),
            )
        )
    if shown == total:
        position = state.position
    else:
        game = Game.from_moves(
            notations[:shown], blocked="draw" if state.blocked_rule == "draw" else "loss"
        )
        position = game.position
    return Step(shown, total, position, notations[shown - 1] if shown else None)


class WebView:
    """The pages, reading through ``session_factory`` (a read-only session each request)."""

    def __init__(self, session_factory: SessionFactory, site: Site) -> None:
        self.reads = read_sessions(session_factory)
        self.site = site

    def _page(self, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        return _render(self.site, name, status_code, **context)

    def _read(self, work: Callable[[Session], Response]) -> Response:
        with self.reads() as session:
            return work(session)

    # --- pages -----------------------------------------------------------------------

    def index(self, request: Request) -> Response:
        page_number = _page_number(request)

        def page(session: Session) -> Response:
            # One more than a page: whether there is a next one, without counting them all.
            active = data.active_boards(
                session, limit=ACTIVE_PAGE + 1, offset=(page_number - 1) * ACTIVE_PAGE
            )
            if page_number > 1 and not active:
                raise NotFound(
                    i18n._("There is no page %(page)s of the boards being played.",
                           page=words.number(page_number))
                )  # fmt: skip
            return self._page(
                "index.html.j2",
                active=active[:ACTIVE_PAGE],
                results=data.finished_games(session, limit=RECENT_RESULTS),
                page=page_number,
                more=len(active) > ACTIVE_PAGE,
            )

        return self._read(page)

    def board(self, request: Request) -> Response:
        number = _number(
            request.path_params["number"],
            i18n._("The board number must be a whole number, such as 12."),
        )

        def page(session: Session) -> Response:
            found = read_board(session, number)
            if found is None:
                raise NotFound(i18n._("There is no board %(number)s.", number=number))
            state = found.snapshot.state
            analysis = data.board_analysis(session, number)
            step = _step(state, request.query_params.get("move"))
            userids = {state.white.id: state.white.userid, state.black.id: state.black.userid}
            moves = [
                MoveLine(m.number, userids[m.player_id], m.notation, None, m.played_at)
                for m in state.moves
            ]
            status = board_text.status_text(state, step.position, step.shown)
            now = utcnow()
            # The board as it is now (not as of an earlier move): its open draw offer or
            # undo request, who is on vacation and the players' clocks, as the board mail
            # says them.
            current = step.shown == step.total
            return self._page(
                "board.html.j2",
                number=number,
                white=state.white.userid,
                black=state.black.userid,
                white_rating=state.white.rating,
                black_rating=state.black.rating,
                options=board_text.options_text(state),
                status=status,
                deadlines=deadline_texts(state, now),
                votes=open_votes_said(state) if current and state.active else [],
                vacations=vacation_lines(state, now) if current else [],
                clocks=clock_lines(state, now) if current else [],
                clock_title=clock_title(state),
                result=None if state.active else board_text.result_text(state),
                ratings=(
                    board_text.rating_lines(state.rating, state.white.userid, state.black.userid)
                    if state.rating is not None
                    else []
                ),
                picture=board_picture(step.position, step.last_move),
                step=step,
                moves=moves,
                notes=analysis.by_number() if analysis is not None else {},
                graph=(
                    evaluation_graph(
                        analysis.notes, (state.white.userid, state.black.userid), step.shown
                    )  # fmt: skip
                    if analysis is not None
                    else None
                ),
            )

        return self._read(page)

    def board_record(self, request: Request) -> Response:
        """The board's game record file (docs/record.md), with the engine's notes when it
        was analysed."""
        number = _number(
            request.path_params["number"],
            i18n._("The board number must be a whole number, such as 12."),
        )

        def answer(session: Session) -> Response:
            found = read_board(session, number)
            if found is None:
                raise NotFound(i18n._("There is no board %(number)s.", number=number))
            state = found.snapshot.state
            analysis = data.board_analysis(session, number)
            text = board_record(
                state,
                site=self.site.address,
                options=options_text(state),
                notes=analysis.notes if analysis is not None else (),
            )
            disposition = f'attachment; filename="{record_filename(number)}"'
            return PlainTextResponse(
                text, headers={**SECURITY_HEADERS, "Content-Disposition": disposition}
            )

        return self._read(answer)

    def player(self, request: Request) -> Response:
        userid = str(request.path_params["userid"])

        def page(session: Session) -> Response:
            found = data.player(session, userid) if len(userid) <= 64 else None
            if found is None:
                raise NotFound(i18n._("There is no player %(userid)s.", userid=repr(userid[:64])))
            return self._page(
                "player.html.j2",
                player=found,
                boards=data.boards_of(session, found.userid),
                graph=rating_graph(data.rating_history(session, found.userid)),
                ladder=words.ladder_text(found.userid),
                ladder_explanation=words.ladder_explanation(),
            )

        return self._read(page)

    def standings(self, request: Request) -> Response:
        page_number = _page_number(request)

        def page(session: Session) -> Response:
            rows = data.standings(session, utcnow())
            start = (page_number - 1) * STANDINGS_PAGE
            shown = rows[start : start + STANDINGS_PAGE]
            if page_number > 1 and not shown:
                raise NotFound(
                    i18n._("There is no page %(page)s of the standings.",
                           page=words.number(page_number))
                )  # fmt: skip
            return self._page(
                "standings.html.j2",
                sections=[
                    (words.section_title(rows[0].section), rows)
                    for _title, rows in data.by_section(shown)
                ],
                page=page_number,
                more=start + STANDINGS_PAGE < len(rows),
                ladder=words.ladder_texts([row.userid for row in shown]),
                ladder_explanation=words.ladder_explanation(),
            )

        return self._read(page)

    def history(self, request: Request) -> Response:
        page_number = _page_number(request)

        def page(session: Session) -> Response:
            total = data.count_finished(session)
            rows = data.finished_games(
                session, limit=HISTORY_PAGE, offset=(page_number - 1) * HISTORY_PAGE
            )
            if page_number > 1 and not rows:
                raise NotFound(
                    i18n._("There is no page %(page)s of the history.",
                           page=words.number(page_number))
                )  # fmt: skip
            return self._page(
                "history.html.j2",
                rows=rows,
                page=page_number,
                more=page_number * HISTORY_PAGE < total,
            )

        return self._read(page)

    def rules(self, request: Request) -> Response:
        return self._page("rules.html.j2", rules=player_rules_page(), engine=False)

    def engine_rules(self, request: Request) -> Response:
        return self._page("rules.html.j2", rules=rules_page(), engine=True)

    # --- leagues and tournaments ---------------------------------------------------------

    def events(self, request: Request) -> Response:
        def page(session: Session) -> Response:
            from pbm_emergo.db import events
            from pbm_emergo.db.reads.events import events_with_status

            shown = events_with_status(session, ("open", "running", "finished"))
            counts = events.entry_counts(session, [e.id for e in shown])
            rows = [
                {
                    "name": e.name, "format": e.format, "status": e.status,
                    "players": counts.get(e.id, 0), "max": e.max_players,
                    "round": e.current_round, "starts": e.starts_at,
                }
                for e in reversed(shown)
            ]  # fmt: skip
            return self._page("events.html.j2", rows=rows)

        return self._read(page)

    def event(self, request: Request) -> Response:
        name = request.path_params["name"]

        def page(session: Session) -> Response:
            from pbm_emergo.app.events import event_view
            from pbm_emergo.db.reads.events import read_event

            event = read_event(session, name) if len(name) <= 32 else None
            if event is None:
                raise NotFound(i18n._("There is no such event."))
            view = event_view(session, event)
            rounds: dict[int, list[dict[str, Any]]] = {}
            for game in view.schedule:
                rounds.setdefault(game["round"], []).append(game)
            return self._page(
                "event.html.j2",
                view=view,
                event=event,
                rounds=sorted(rounds.items()),
                short="SB" if view.tiebreak == "Sonneborn-Berger" else "BH",
            )

        return self._read(page)

    def api_board(self, request: Request) -> Response:
        number = _number(
            request.path_params["number"],
            i18n._("The board number must be a whole number, such as 12."),
        )

        def answer(session: Session) -> Response:
            line = data.board_line(session, number)
            if line is None:
                raise NotFound(i18n._("There is no board %(number)s.", number=number))
            read = read_board(session, number)
            assert read is not None
            state = read.snapshot.state
            players = {
                "white": {"userid": line.white, "rating": state.white.rating},
                "black": {"userid": line.black, "rating": state.black.rating},
            }
            userids = {account.id: account.userid for account in read.accounts}
            outcome = None
            if not line.active:
                outcome = {
                    "winner": line.winner,
                    "side": state.winner,
                    "reason": line.reason,
                    "rating_changes": (
                        {"white": line.white_change, "black": line.black_change}
                        if line.white_change is not None
                        else None
                    ),
                }
            return JSONResponse(
                {
                    "number": line.number,
                    "status": line.status,
                    "rated": line.rated,
                    "blocked_rule": state.blocked_rule,
                    "players": players,
                    "to_move": line.to_move,
                    "ply": line.ply,
                    "position": state.position.to_text(),
                    "moves": [
                        {
                            "number": m.number,
                            "player": userids[m.player_id],
                            "notation": m.notation,
                            "played_at": m.played_at.isoformat(),
                        }
                        for m in state.moves
                    ],
                    # The open draw offer and undo request: the move count each was made at.
                    "votes": [
                        {"kind": v.kind, "by": userids[v.player_id], "ply": v.ply}
                        for v in sorted(state.votes, key=lambda v: v.kind)
                    ],
                    "outcome": outcome,
                    "created_at": line.created_at.isoformat(),
                    "finished_at": line.finished_at.isoformat() if line.finished_at else None,
                },
                headers=SECURITY_HEADERS,
            )

        return self._read(answer)


# --- errors ----------------------------------------------------------------------------------


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


async def http_error(request: Request, exc: Exception) -> Response:
    """400, 404, 405 ...: our page (or JSON under /api/), saying what was wrong."""
    assert isinstance(exc, HTTPException)
    status = exc.status_code
    title = _title(status)
    detail = exc.detail if status in (400, 404) else title
    if _wants_json(request):
        return JSONResponse({"error": detail}, status_code=status, headers=SECURITY_HEADERS)
    return _render(request.app.state.site, "error.html.j2", status_code=status, status=status,
                   title=title, detail=detail)  # fmt: skip


async def server_error(request: Request, exc: Exception) -> Response:
    """Anything else: logged with its traceback; the answer says nothing of it."""
    log.error("web: %s %s failed", request.method, request.url.path, exc_info=exc)
    detail = i18n._("Something went wrong on our side. Please try again later.")
    if _wants_json(request):
        return JSONResponse({"error": detail}, status_code=500, headers=SECURITY_HEADERS)
    return _render(request.app.state.site, "error.html.j2", status_code=500, status=500,
                   title=_title(500), detail=detail)  # fmt: skip


def _title(status: int) -> str:
    """The title of an error page, in the page's language."""
    titles = {
        400: i18n._("Bad request"),
        404: i18n._("Not found"),
        405: i18n._("Method not allowed"),
        500: i18n._("Server error"),
    }
    return titles.get(status, i18n._("Error"))


def _slash_redirect(routes: list[BaseRoute]) -> Callable[[Request], Response]:
    """The answer to a path with a trailing slash: a redirect to the same path without it
    when that is a page (``Location`` a path, the query kept), else 404. Starlette's own
    redirect would build an absolute URL from the ``Host`` header with ``http://``."""

    def redirect(request: Request) -> Response:
        target = "/" + request.url.path.strip("/")
        scope = {**request.scope, "path": target}
        if not any(route.matches(scope)[0] == Match.FULL for route in routes):
            raise NotFound(i18n._("There is no such page."))
        query = request.url.query
        return RedirectResponse(
            target + (f"?{query}" if query else ""), status_code=307, headers=SECURITY_HEADERS
        )

    return redirect


def create_app(session_factory: SessionFactory, config: Config | None = None) -> Starlette:
    """The web view over the database of ``session_factory``, for the server of ``config``
    (its address and name; the defaults without one). The rules page is rendered here, once."""
    site = Site.of(config or Config())
    view = WebView(session_factory, site)
    rules_page()  # a missing docs/rules.md stops the start, not the first visitor
    for language in i18n.LANGUAGES:
        with i18n.speaking(language):
            player_rules_page()
    routes: list[BaseRoute] = [
        Route("/", view.index),
        Route("/rules", view.rules),
        Route("/rules/engine", view.engine_rules),
        Route("/boards/{number}.record", view.board_record),
        Route("/boards/{number}", view.board),
        Route("/players/{userid}", view.player),
        Route("/standings", view.standings),
        Route("/history", view.history),
        Route("/events", view.events),
        Route("/events/{name}", view.event),
        Route("/api/boards/{number}", view.api_board),
    ]
    if config is not None and config.console_users_file is not None:
        from pbm_emergo.web.console import console_routes  # sqladmin only when it is on

        routes.extend(console_routes(session_factory, config, str(PAGE_TEMPLATES)))
    routes.append(Route("/{path:path}/", _slash_redirect(list(routes))))
    app = Starlette(
        debug=False,
        routes=routes,
        exception_handlers={HTTPException: http_error, Exception: server_error},
        middleware=[Middleware(LanguageMiddleware)],
    )
    app.state.site = site
    app.router.redirect_slashes = False  # _slash_redirect does it, without the Host header
    return app


__all__ = ["Site", "create_app", "page_environment"]
