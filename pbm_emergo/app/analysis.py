"""The engine's analysis of finished games (``emergo analyse``): asked for by mail, made off
the mail path, stored, and mailed as a coach's notes.

A player of a finished board asks (:func:`request`); the request is answered at once,
either with the analysis itself when the board has one stored (free: no daily quota), or
with when to expect it. The request waits in ``analysis_requests`` until the robots'
runner (:class:`AnalysisRunner`, in the robots' process: never in an inbox worker) takes
it: the requests are taken in turn by player, the player served least recently first,
and a board is analysed one move at a time between robot answers (each move's search at
most ``Config.analysis_seconds_per_move``, the whole game at most
``Config.analysis_seconds_per_game``), so a long game holds no robot up for long. The
analysis is stored with the request and mailed to every player waiting for it.

A player may ask for ``Config.analyses_per_day`` analyses in 24 hours (docs/security.md).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.outbox import Outbox
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.runner import Operation, Runner, Work
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import analyses
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import BoardRead, read_board
from pbm_emergo.db.session import Session, SessionFactory
from pbm_emergo.db.types import utcnow
from pbm_emergo.game import analysis as game_analysis
from pbm_emergo.game.analysis import (
    DAY,
    AlreadyQueued,
    AnalysisAsk,
    AnalysisLimits,
    analysis_refusal,
    decide_analysis_request,
)
from pbm_emergo.game.board_changes import AnalysisFinished
from pbm_emergo.robot.analysis import MoveVerdict, Report, moves_analysed
from pbm_emergo.robot.search import WIN
from pbm_emergo.rules import MoveError, position_words, render_board
from pbm_emergo.rules.reasons import Reason
from pbm_emergo.views import board_text, i18n
from pbm_emergo.views.fit import fit
from pbm_emergo.views.picture import board_picture
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render, render_html

if TYPE_CHECKING:
    from pbm_emergo.config import Config

log = logging.getLogger(__name__)

SIDE_NAMES = ("Ohs", "Eks")


def subject(number: int) -> str:
    return f"Emergo analysis {number}"


def queued_subject(number: int) -> str:
    """The Subject of the answer that an analysis is queued: not the analysis's own, so
    that the analysis, when it comes, is told apart from the acknowledgement."""
    return f"Emergo analysis {number} queued"


def limits_of(config: Config) -> AnalysisLimits:
    """The operator's settings of analyses."""
    return AnalysisLimits(
        per_day=config.analyses_per_day,
        seconds_per_move=config.analysis_seconds_per_move,
        seconds_per_game=config.analysis_seconds_per_game,
    )


def seconds_per_move(config: Config, moves: int) -> float:
    """The search time of one position of a game of ``moves`` moves (see
    :func:`pbm_emergo.game.analysis.seconds_per_move`)."""
    return game_analysis.seconds_per_move(limits_of(config), moves)


# --- asking -------------------------------------------------------------------------------


def request(ctx: UnitOfWork, read: BoardRead, player: Account) -> Result:
    """The answer to ``player``'s request for the analysis of the board ``read`` (see the
    module docstring); :class:`Refused` for an active board, someone else's, or a player
    over the daily limit (decided in :mod:`pbm_emergo.game.analysis`)."""
    state = read.snapshot.state
    number = state.number
    white, black = read.accounts
    ask = AnalysisAsk(
        board=number, active=state.active, white_id=white.id, black_id=black.id,
        white=white.userid, black=black.userid, ply=state.ply, player_id=player.id,
        userid=player.userid,
    )
    refused = analysis_refusal(ask)
    if refused is not None:
        raise Refused(said(refused), board=number)
    stored = analyses.stored_report(ctx.session, number)
    if stored is not None:
        side = state.side_of(player.id)
        assert side is not None  # a player of the board (analysis_refusal)
        reply = compose(
            read, Report.from_data(stored), ctx.sender, state.seat(side).board_style
        )
        return Result(
            said=lambda: i18n._("sent the stored analysis of board %(board)s", board=number),
            answer=reply.body,
            answer_subject=reply.subject,
            answer_board=number,
            answer_html=reply.html,
        )
    waiting = [(q.board_number, q.player_id) for q in analyses.queued(ctx.session)]
    used = analyses.requests_since(ctx.session, player.id, ctx.now - DAY)
    decided = decide_analysis_request(
        ask, waiting, used, limits_of(ctx.config), ctx.now, ctx.sender
    )
    if isinstance(decided, Reason):
        raise Refused(said(decided), board=number)
    if isinstance(decided, AlreadyQueued):
        return Result(
            said=lambda: i18n._("the analysis of board %(board)s is already queued", board=number),
            answer=_lines(
                i18n._("Your analysis of board %(number)s is already queued.", number=number),
                _comes(decided.minutes, number),
                i18n._("Nothing more was counted against your analyses of the day."),
            ),
            answer_subject=queued_subject(number),
            answer_board=number,
        )
    ctx.write(decided.change)
    return Result(
        said=lambda: i18n._("queued the analysis of board %(board)s", board=number),
        answer=_lines(
            i18n._("Your analysis of board %(number)s is queued.", number=number),
            i18n.ngettext(
                "Expect it within about %(num)s minute, in a mail with the Subject "
                "'%(subject)s'.",
                "Expect it within about %(num)s minutes, in a mail with the Subject "
                "'%(subject)s'.",
                decided.minutes, subject=subject(number),
            ),
            i18n.ngettext(
                "It is analysis %(used)s of the %(num)s you may ask for in 24 hours.",
                "It is analysis %(used)s of the %(num)s you may ask for in 24 hours.",
                decided.limit, used=decided.number,
            ),
        ),
        answer_subject=queued_subject(number),
        answer_board=number,
    )


def _comes(minutes: int, number: int) -> str:
    """When an analysis already asked for comes, and with which Subject."""
    return i18n.ngettext(
        "It comes within about %(num)s minute, in a mail with the Subject '%(subject)s'.",
        "It comes within about %(num)s minutes, in a mail with the Subject '%(subject)s'.",
        minutes, subject=subject(number),
    )


def _lines(*lines: str) -> str:
    """An answer of a few lines, each wrapped at 72 columns."""
    return "".join(fit(line) + "\n" for line in lines)


# --- the mail -----------------------------------------------------------------------------


def compose(read: BoardRead, report: Report, to: str, style: str = "diagram") -> Reply:
    """The analysis mail for ``to`` of the board ``read``: text (72 columns) and HTML.
    Every value is from Ohs's side, as on the web graph. ``style``: ``list`` (the player's
    ``board list``) says the turning point's position in words and each move as a
    sentence, for a screen reader."""
    state = read.snapshot.state
    white, black = read.userids
    names = (white, black)
    notes = [_note(v, names) for v in report.verdicts if v.label]
    turning = report.turning_point
    diagram, picture = None, None
    if turning is not None:
        game = read.snapshot.replayed(turning.number)
        diagram = (
            position_words(game.position, turning.played)
            if style == "list"
            else render_board(game.position, white, black)
        )
        picture = board_picture(game.position, turning.played)
    summaries = [
        {
            "userid": names[side],
            "side": SIDE_NAMES[side],
            "summary": report.summary(side),
            "average": i18n.decimal(report.summary(side).average_loss / 100),
        }
        for side in (0, 1)
    ]
    context = {
        "number": state.number,
        "white": white,
        "black": black,
        "result": board_text.result_text(state),
        "rows": [_row(v, names) for v in report.verdicts],
        "notes": notes,
        "turning": _note(turning, names) if turning is not None else None,
        "diagram": diagram,
        "summaries": summaries,
        "nodes": i18n.count(report.nodes),
        "seconds": i18n.decimal(report.seconds, 0),
        "listing": style == "list",
        "lang": i18n.current(),
    }
    return Reply(
        to=to,
        subject=subject(state.number),
        body=render("analysis.txt.j2", **context),
        board=state.number,
        html=render_html("analysis.html.j2", picture=picture, **context),
        solicited=True,
    )


def ohs_men(score: int, side: int) -> str:
    """A value of the mover's (``side``: 0 Ohs, 1 Eks) in men from Ohs's side, as the web
    graph shows it: ``+1.35`` is Ohs a man and a third ahead, ``Eks wins by force``."""
    ohs = score if side == 0 else -score
    if ohs >= WIN // 2:
        return i18n._("Ohs wins by force")
    if ohs <= -WIN // 2:
        return i18n._("Eks wins by force")
    return i18n.decimal(ohs / 100, signed=True)


def _row(verdict: MoveVerdict, names: tuple[str, str]) -> dict[str, object]:
    return {
        "number": verdict.number,
        "userid": names[verdict.side],
        "played": verdict.played,
        "score": ohs_men(verdict.score, verdict.side),
        "label": verdict.label,
        "mark": {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}.get(verdict.label, ""),
    }


def _note(verdict: MoveVerdict, names: tuple[str, str]) -> dict[str, object]:
    return {
        "number": verdict.number,
        "userid": names[verdict.side],
        "played": verdict.played,
        "label": verdict.label or "slip",
        "score": ohs_men(verdict.score, verdict.side),
        "best": verdict.best,
        "best_score": ohs_men(verdict.best_score, verdict.side),
        "loss": i18n.decimal(verdict.loss / 100),
        "line": " ".join(verdict.line),
    }


# --- making it (the robots' process) ------------------------------------------------------


@dataclass
class _Job:
    """A board being analysed, one move a step."""

    number: int
    player_id: int
    verdicts: Iterator[MoveVerdict]
    started: float
    done: list[MoveVerdict] = field(default_factory=list)
    nodes: list[int] = field(default_factory=lambda: [0])


class AnalysisRunner(Runner):
    """Makes the analyses waiting, one move a :meth:`step`, in turn by player; the robots'
    runner calls :meth:`step` between its answers. A finished analysis is stored and mailed
    as a :class:`~pbm_emergo.app.runner.Runner` does (:func:`answered`). Nothing is kept but
    the board in progress: after a restart it is started again."""

    def __init__(
        self,
        factory: SessionFactory,
        config: Config,
        *,
        outbox: Outbox | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        super().__init__(factory, config, outbox=outbox, clock=clock)
        self.job: _Job | None = None
        # Player id -> when an analysis of theirs was last taken up (a count).
        self.last_served: dict[int, int] = {}
        self.taken = 0

    def step(self) -> int:
        """Analyse one move of the board in progress (or start the next board, or store
        a finished one); 0 when there was nothing to do."""
        if self.job is None:
            self.job = self._next_job()
            if self.job is None:
                return 0
        job = self.job
        try:
            job.done.append(next(job.verdicts))
            return 1
        except StopIteration:
            pass
        except MoveError as err:  # a stored game the rules refuse: nothing to analyse
            log.error("board %d cannot be analysed: %s", job.number, err)
        self.job = None
        report = Report(tuple(job.done), job.nodes[0], time.perf_counter() - job.started)
        ran = self.perform(answered(job.number, report))
        sent = len(ran.work.replies) if ran.work is not None else 0
        log.info("analysis of board %d: %d moves, %d nodes, %.1f s, %d mails", job.number,
                 len(report.verdicts), report.nodes, report.seconds, sent)
        return 1

    def _next_job(self) -> _Job | None:
        with self.reads() as session:
            waiting = analyses.queued(session)
            if not waiting:
                return None
            first = min(
                waiting,
                key=lambda q: (self.last_served.get(q.player_id, -1), q.requested_at, q.id),
            )
            read = read_board(session, first.board_number)
            if read is None:
                return None
            moves = [move.notation for move in read.snapshot.state.moves]
            blocked = read.snapshot.state.blocked_rule
        self.taken += 1
        self.last_served[first.player_id] = self.taken
        nodes = [0]
        verdicts = moves_analysed(
            moves,
            seconds_per_move=seconds_per_move(self.config, len(moves)),
            blocked=blocked,
            seed=first.board_number,
            spent=nodes,
        )
        return _Job(first.board_number, first.player_id, verdicts, time.perf_counter(), nodes=nodes)



def answered(number: int, report: Report) -> Operation:
    """The runner's operation that answers the requests waiting for board ``number``'s
    analysis: stored with the first of them, the others marked answered (each re-checked to
    be still waiting), and a mail for each, rendered before the write transaction."""

    def operation(session: Session, now: datetime) -> Work | None:
        read = read_board(session, number)
        waiting = analyses.queued(session, number)
        if read is None or not waiting:
            return None
        data = report.to_data()
        return Work(
            tuple(
                AnalysisFinished(waiter.id, data if index == 0 else None, now)
                for index, waiter in enumerate(waiting)
            ),
            tuple(_composed_for(read, report, waiter) for waiter in waiting),
        )

    return operation


def _composed_for(read: BoardRead, report: Report, waiter: analyses.Queued) -> Reply:
    """The analysis mail for the player who asked ``waiter`` (a player of the board
    ``read``), in their language."""
    state = read.snapshot.state
    asker = state.white if waiter.player_id == state.white.id else state.black
    with i18n.speaking(asker.language):
        return compose(read, report, waiter.address, asker.board_style)


__all__ = [
    "DAY", "AnalysisRunner", "answered", "compose", "ohs_men", "queued_subject", "request",
    "seconds_per_move", "subject",
]
