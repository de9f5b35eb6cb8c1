"""The robot players at the server: robot1, robot2 and robot3 play their turns off the mail path.

The accounts are made by a migration (``migrations/versions/*_robot_accounts.py``); their
password hash is no hash at all, so no password ever signs them in. Anyone challenges them
like a person (``emergo challenge alice robot2``, or ``robot2 alice`` to let the robot open).

A :class:`RobotRunner` looks at the database for work: an active board where a robot is to
move, or where a robot's opponent has offered a draw or asked to take a move back. It reads
what it needs, thinks with no transaction open and no lock held (:func:`decide`, the
:mod:`pbm_emergo.robot` search), then stores its move, resignation or answer in one short
write transaction through the same command code as a person's mail (so its board mails look
like anyone's), after re-checking that the board has not moved on. Nothing is kept in
memory: a robot turn pending at a restart is simply found again.

``pbm-emergo serve`` runs the runner in a process of its own (:class:`RobotPlayer`), so a
robot thinking never holds up the listener or the inbox workers.

Settings (environment): ``PBM_EMERGO_ROBOT_SECONDS`` is the time budget of a robot's move
(default 10 s; robot1 and robot2 stop much earlier at their node limits);
``PBM_EMERGO_ROBOTS=off`` leaves robot turns alone (another server plays them).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db import games
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import BOARD_ACTIVE, Board, Player, Vote
from pbm_emergo.db.session import read_sessions, write_turn
from pbm_emergo.db.types import utcnow
from pbm_emergo.game.messages import Reply
from pbm_emergo.game.play import Turn, answer, play_move, resign
from pbm_emergo.game.results import Refused, Result
from pbm_emergo.game.unit import UnitOfWork
from pbm_emergo.robot import ROBOTS, Decision, resigns, think
from pbm_emergo.rules import Position

if TYPE_CHECKING:
    from pbm_emergo.config import Config

log = logging.getLogger(__name__)

SECONDS_ENV = "PBM_EMERGO_ROBOT_SECONDS"
ENABLED_ENV = "PBM_EMERGO_ROBOTS"
DEFAULT_SECONDS = 10.0
#: A robot accepts a draw offer when it stands worse than this (hundredths of a man).
DRAW_BELOW = -50
#: It grants a take-back when it still stands at least this well after it.
UNDO_FROM = -50

Think = Callable[..., Decision]


def robot_seconds() -> float:
    """A robot's time budget a move (``PBM_EMERGO_ROBOT_SECONDS``, default 10)."""
    text = os.environ.get(SECONDS_ENV, "")
    try:
        seconds = float(text) if text else DEFAULT_SECONDS
    except ValueError:
        log.warning("%s=%r is not a number of seconds; using %g", SECONDS_ENV, text,
                    DEFAULT_SECONDS)
        return DEFAULT_SECONDS
    return seconds if seconds > 0 else DEFAULT_SECONDS


def robots_enabled() -> bool:
    return os.environ.get(ENABLED_ENV, "on").strip().lower() not in ("off", "0", "no", "false")


# --- what there is to do ------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """A robot's work on one board, as read: a move to make, or an offer to answer."""

    number: int
    robot_id: int
    robot: str  # its userid
    level: int
    ply: int  # the board's move count when read: re-checked when the answer is stored
    kind: str  # "move", or the kind of the opponent's open vote: "draw" or "undo"
    position: str  # Position.to_text()
    history: tuple[str, ...]  # the repetition keys (Game.repetition_history)
    blocked: str
    robot_side: int  # 0 White, 1 Black
    after_undo: str | None = None  # for "undo": the position the take-back returns to


@dataclass(frozen=True)
class Action:
    """What the robot does: ``move`` (with ``notation``), ``resign``, ``accept``, ``reject``."""

    kind: str
    notation: str = ""
    score: int = 0


def robot_players(session: Session) -> dict[int, tuple[str, int]]:
    """Player id -> (userid, level) of the robot accounts still active."""
    rows = session.execute(
        select(Player.id, Player.userid, Player.userid_key).where(
            Player.userid_key.in_(list(ROBOTS)), Player.signed_off_at.is_(None)
        )
    ).all()
    return {row.id: (row.userid, ROBOTS[row.userid_key]) for row in rows}


def pending_tasks(session: Session) -> list[Task]:
    """Every board where a robot has something to do, by board number."""
    robots = robot_players(session)
    if not robots:
        return []
    ids = list(robots)
    boards = session.scalars(
        select(Board)
        .where(
            Board.status == BOARD_ACTIVE,
            or_(Board.white_player_id.in_(ids), Board.black_player_id.in_(ids)),
        )
        .order_by(Board.number)
    ).all()
    if not boards:
        return []
    votes: dict[int, list[Vote]] = {}
    for vote in session.scalars(
        select(Vote).where(Vote.board_number.in_([b.number for b in boards]))
    ):
        votes.setdefault(vote.board_number, []).append(vote)
    tasks = []
    for board in boards:
        task = _task(session, board, robots, votes.get(board.number, []))
        if task is not None:
            tasks.append(task)
    return tasks


def _task(
    session: Session, board: Board, robots: dict[int, tuple[str, int]], votes: list[Vote]
) -> Task | None:
    seats = (board.white_player_id, board.black_player_id)
    to_move = None if board.to_move is None else (0 if board.to_move == "white" else 1)
    # A vote of a robot's opponent waits for the robot's answer.
    for vote in votes:
        other = seats[1] if vote.player_id == seats[0] else seats[0]
        if other in robots and vote.player_id not in robots:
            after = None
            if vote.kind == "undo":
                first = games.undo_first_move(session, board.number, vote.player_id, vote.ply)
                if first is None or vote.ply != board.ply:
                    continue  # void: the command refuses it when answered; nothing to do
                after = games.load_game(session, board, upto=first - 1).position.to_text()
            return _make_task(board, other, robots, vote.kind, after)
    if to_move is not None and seats[to_move] in robots:
        return _make_task(board, seats[to_move], robots, "move", None)
    return None


def _make_task(
    board: Board, robot_id: int, robots: dict[int, tuple[str, int]], kind: str,
    after_undo: str | None,
) -> Task:
    userid, level = robots[robot_id]
    history = tuple(board.repetition.split(games.REPETITION_SEPARATOR)) if board.repetition else ()
    return Task(
        number=board.number, robot_id=robot_id, robot=userid, level=level, ply=board.ply,
        kind=kind, position=board.position, history=history, blocked=board.blocked_rule,
        robot_side=0 if board.white_player_id == robot_id else 1, after_undo=after_undo,
    )


# --- thinking (no database) -----------------------------------------------------------


def _key_hash(key: str) -> int:
    """The Zobrist hash of a repetition key (a position text without the ply)."""
    side, white, black, cells = key.split()
    return Position.from_text(f"{side} {white} {black} 0 {cells}").zobrist()


def decide(task: Task, seconds: float, think_with: Think | None = None) -> Action:
    """The robot's answer to ``task``: pure computation, seeded by the board and move number
    (the same task gets the same answer). ``think_with`` stands in for
    :func:`pbm_emergo.robot.think` (tests)."""
    if think_with is None:
        think_with = think
    position = Position.from_text(task.position)
    seed = task.number * 1000 + task.ply
    if task.kind == "move":
        history = [_key_hash(key) for key in task.history[:-1]]
        decision = think_with(
            position, task.level, seconds, seed, history=history, blocked=task.blocked
        )
        if resigns(decision, position):
            return Action("resign", score=decision.score)
        return Action("move", str(decision.move), decision.score)
    judged = position if task.kind == "draw" else Position.from_text(task.after_undo or "")
    score = _score_for_robot(judged, task, seconds, think_with)
    if task.kind == "draw":
        return Action("accept" if score < DRAW_BELOW else "reject", score=score)
    return Action("accept" if score >= UNDO_FROM else "reject", score=score)


def _score_for_robot(position: Position, task: Task, seconds: float, think_with: Think) -> int:
    if not position.legal_moves():
        return 0
    decision = think_with(
        position, task.level, seconds, task.number, blocked=task.blocked
    )
    return decision.score if position.side_index == task.robot_side else -decision.score


# --- storing what the robot did ---------------------------------------------------------


@write_turn
def store(
    factory: sessionmaker[Session],
    config: Config,
    queue: Callable[[Session, Reply], int],
    task: Task,
    action: Action,
    now: datetime,
) -> bool:
    """Store ``action`` through the command layer and queue its board mails, in one write
    transaction (at the process's own priority: :func:`write_turn`); False (and nothing
    stored) when the board moved on meanwhile."""
    try:
        with factory.begin() as session:
            board = games.get_board(session, task.number)
            if board is None or board.status != BOARD_ACTIVE or board.ply != task.ply:
                return False
            robot = board.white_player if task.robot_side == 0 else board.black_player
            if robot.id != task.robot_id:
                return False
            ctx = UnitOfWork(session=session, config=config, now=now, apply_at_once=True)
            turn = Turn(ctx, board, robot)
            result: Result
            if action.kind == "move":
                if board.to_move != ("white" if task.robot_side == 0 else "black"):
                    return False
                result = play_move(turn, action.notation)
            elif action.kind == "resign":
                result = resign(turn)
            else:
                open_kinds = {v.kind for v in turn.state.votes if v.player_id != robot.id}
                if task.kind not in open_kinds:
                    return False
                result = answer(turn, accept=action.kind == "accept")
            ctx.apply_pending()
            for reply in result.replies:
                queue(session, reply)
    except Conflict:
        return False
    log.info("%s on board %d: %s %s", task.robot, task.number, action.kind, action.notation)
    return True


class RobotRunner:
    """Finds robot work in the database, thinks, and stores the answers."""

    def __init__(
        self,
        factory: sessionmaker[Session],
        config: Config,
        *,
        clock: Callable[[], datetime] = utcnow,
        seconds: float | None = None,
        think_with: Think | None = None,
        poll_seconds: float = 1.0,
    ) -> None:
        from pbm_emergo.mail.worker import InboxWorker

        self.factory = factory
        self.reads = read_sessions(factory)
        self.config = config
        self.clock = clock
        self.seconds = robot_seconds() if seconds is None else seconds
        self.think_with = think_with
        self.poll_seconds = poll_seconds
        self.queue = InboxWorker(factory, config, clock=clock).queue_scheduled
        # Tasks whose answer the command layer refused: not tried again (it would refuse
        # again) until the board changes.
        self.refused: set[tuple[int, int, str]] = set()

    def run_once(self, stopping: Any = None) -> int:
        """Do every robot task found now; returns how many answers were stored."""
        with self.reads() as session:
            tasks = pending_tasks(session)
        done = 0
        for task in tasks:
            if stopping is not None and stopping.is_set():
                break
            key = (task.number, task.ply, task.kind)
            if key in self.refused:
                continue
            started = time.perf_counter()
            action = decide(task, self.seconds, self.think_with)
            if stopping is not None and stopping.is_set():
                break  # stopping: the task is found again after the restart
            try:
                stored = store(self.factory, self.config, self.queue, task, action, self.clock())
            except Refused as err:
                log.error("%s on board %d: %s refused: %s", task.robot, task.number,
                          action.kind, err.reason)
                self.refused.add(key)
                continue
            log.debug("board %d: %s thought %.2f s", task.number, task.robot,
                      time.perf_counter() - started)
            done += stored
        return done

    def run(self, stopping: Any) -> None:
        """Work until ``stopping`` (anything with ``is_set``/``wait``) is set."""
        while not stopping.is_set():
            try:
                done = self.run_once(stopping)
            except Exception:  # noqa: BLE001 - the database may be briefly unavailable
                log.exception("robot runner error")
                done = 0
            if not done:
                stopping.wait(self.poll_seconds)


# --- in the server ----------------------------------------------------------------------


class RobotPlayer:
    """The robot runner of ``pbm-emergo serve``: a process of its own (``processes``), or a
    thread (tests). Does nothing when ``PBM_EMERGO_ROBOTS=off``."""

    def __init__(
        self,
        config: Config,
        factory: sessionmaker[Session],
        *,
        poll_seconds: float,
        clock: Callable[[], datetime] = utcnow,
        processes: bool = False,
    ) -> None:
        self.config = config
        self.factory = factory
        self.poll_seconds = poll_seconds
        self.clock = clock
        self.processes = processes
        self.enabled = robots_enabled()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.context = multiprocessing.get_context("spawn")
        self.flag: Any = None
        self.process: Any = None

    def start(self) -> None:
        if not self.enabled:
            return
        if self.processes:
            self.flag = self.context.RawValue("b", 0)
            self._spawn()
            return
        runner = RobotRunner(self.factory, self.config, clock=self.clock,
                             poll_seconds=self.poll_seconds)
        self.thread = threading.Thread(
            target=runner.run, args=(self.stopping,), name="robots", daemon=True
        )
        self.thread.start()

    def _spawn(self) -> None:
        self.process = self.context.Process(
            target=run_robot_process,
            name="robots",
            args=(self.config, self.flag, self.poll_seconds, logging.getLogger().level,
                  os.getpid()),
            daemon=True,
        )
        self.process.start()

    def check(self) -> None:
        """Start the robot process again if it died."""
        if self.process is not None and not self.process.is_alive() and not self.stopping.is_set():
            log.error("the robot process exited with %s; starting it again",
                      self.process.exitcode)
            self._spawn()

    def stop(self, timeout: float = 60.0) -> None:
        """Stop; a robot in mid-thought drops its task (it is found again after a restart)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout)
        if self.process is not None:
            self.flag.value = 1
            self.process.join(min(timeout, 2.0))
            if self.process.is_alive():
                self.process.terminate()  # nothing is lost: the move was not stored
                self.process.join(timeout)


class _Flag:
    """The stop flag of the robot process: the server's, or the main process gone."""

    def __init__(self, flag: Any, parent: int) -> None:
        self.flag = flag
        self.parent = parent
        self.event = threading.Event()

    def is_set(self) -> bool:
        return bool(self.flag.value) or os.getppid() != self.parent or self.event.is_set()

    def wait(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while not self.is_set() and time.monotonic() < deadline:
            self.event.wait(min(0.2, max(0.0, deadline - time.monotonic())))
        return self.is_set()


def run_robot_process(
    config: Config, flag: Any, poll_seconds: float, log_level: int, parent: int
) -> None:
    """The body of the robot process (see :class:`RobotPlayer`)."""
    import signal

    from pbm_emergo.db.session import get_sessionmaker
    from pbm_emergo.ops.server import lower_priority  # here: the server imports this module

    # The server's log format (pbm_emergo.ops.server.LOG_FORMAT, which imports this module).
    logging.basicConfig(
        level=log_level,
        format="%(asctime)s %(levelname)s %(processName)s %(threadName)s %(name)s: %(message)s",
    )
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when to stop
    lower_priority(config.worker_nice)  # as the workers (see Config.worker_nice)
    stop = _Flag(flag, parent)
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.event.set())
    RobotRunner(get_sessionmaker(config), config, poll_seconds=poll_seconds).run(stop)
