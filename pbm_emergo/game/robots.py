"""The robot players at the server: robot1, robot2 and robot3 play their turns off the mail path.

The accounts are made by a migration (``migrations/versions/*_robot_accounts.py``); their
password hash is no hash at all, so no password ever signs them in. Anyone challenges them
like a person (``emergo challenge alice robot2``, or ``robot2 alice`` to let the robot open).

A :class:`RobotRunner` looks at the database for work: an active board where a robot is to
move, or where a robot's opponent has offered a draw or asked to take a move back. It reads
what it needs, thinks with no transaction open and no lock held (:func:`decide`, the
:mod:`pbm_emergo.robot` search), then stores its move, resignation or answer in one short
write transaction through the same game operations as a person's mail (so its board mails look
like anyone's), after re-checking that the board has not moved on. Nothing is kept in
memory: a robot turn pending at a restart is simply found again.

``pbm-emergo serve`` runs the runner in a process of its own
(:class:`pbm_emergo.ops.robot_process.RobotPlayer`), so a robot thinking never holds up the
listener or the inbox workers.

Settings (environment): ``PBM_EMERGO_ROBOT_SECONDS`` is the time budget of a robot's move
(default 10 s; robot1 and robot2 stop much earlier at their node limits);
``PBM_EMERGO_ROBOTS=off`` leaves robot turns alone (another server plays them).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbm_emergo.db import games, players
from pbm_emergo.db.errors import Conflict
from pbm_emergo.db.models import BOARD_ACTIVE, Board, Vote
from pbm_emergo.db.session import Session, SessionFactory, read_sessions, write_turn
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
    found = players.active_ids_by_key(session, ROBOTS)
    return {player_id: (userid, ROBOTS[key]) for key, (player_id, userid) in found.items()}


def pending_tasks(session: Session) -> list[Task]:
    """Every board where a robot has something to do, by board number."""
    robots = robot_players(session)
    if not robots:
        return []
    boards = games.active_boards_of_players(session, robots)
    if not boards:
        return []
    votes = games.votes_on(session, [b.number for b in boards])
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
                    continue  # void: refused when answered (game.play.answer); nothing to do
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
    factory: SessionFactory,
    config: Config,
    queue: Callable[[Session, Reply], int],
    task: Task,
    action: Action,
    now: datetime,
) -> bool:
    """Store ``action`` through the game operations and queue its board mails, in one write
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
    """Finds robot work in the database, thinks, and stores the answers; ``queue`` puts each
    board mail in the outbox (:mod:`pbm_emergo.ops.robot_process` runs it in the server)."""

    def __init__(
        self,
        factory: SessionFactory,
        config: Config,
        queue: Callable[[Session, Reply], int],
        *,
        clock: Callable[[], datetime] = utcnow,
        seconds: float | None = None,
        think_with: Think | None = None,
        poll_seconds: float = 1.0,
    ) -> None:
        self.factory = factory
        self.reads = read_sessions(factory)
        self.config = config
        self.clock = clock
        self.seconds = robot_seconds() if seconds is None else seconds
        self.think_with = think_with
        self.poll_seconds = poll_seconds
        # Puts a board mail in the outbox (the mail layer's, given by the server).
        self.queue = queue
        # Tasks whose answer the game refused: not tried again (it would refuse
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
