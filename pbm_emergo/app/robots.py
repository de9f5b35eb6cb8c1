"""The robot players at the server: robot1, robot2 and robot3 play their turns off the mail path.

The accounts are made by a migration (``migrations/versions/*_robot_accounts.py``); their
password hash is no hash at all, so no password ever signs them in. Anyone challenges them
like a person (``emergo challenge alice robot2``, or ``robot2 alice`` to let the robot open).

A :class:`RobotRunner` looks at the database for work: an active board where a robot is to
move, or where a robot's opponent has offered a draw or asked to take a move back. It reads
what it needs, thinks with no transaction open and no lock held (:func:`decide`, the
:mod:`pbm_emergo.robot` search), then stores its move, resignation or answer in one short
write transaction through the same game operations as a person's mail (so its board mails look
like anyone's), after re-checking that the board has not moved on. Nothing of the games is
kept in memory (only whose turn it is among the players, which a restart resets): a robot
turn pending at a restart is simply found again.

``pbm-emergo serve`` runs the runner in a process of its own
(:class:`pbm_emergo.ops.robot_process.RobotPlayer`), so a robot thinking never holds up the
listener or the inbox workers.

The robots think about one board at a time, so their time is shared among the people who
play them: a player has at most ``Config.robot_games_per_player`` active games against the
robots (:func:`check_robot_games`, called when a challenge opens a board), and the runner
takes the waiting boards in turn by player, not by board (:meth:`RobotRunner.in_turn`):
a player's many boards make another player wait for one robot answer per other player
waiting, not one per board (how soon a board that came to wait is seen:
:meth:`RobotRunner.look_again`).

Settings (environment): ``PBM_EMERGO_ROBOT_SECONDS`` is the time budget of a robot's move
(default 10 s; robot1 and robot2 stop much earlier at their node limits);
``PBM_EMERGO_ROBOTS=off`` leaves robot turns alone (another server plays them);
``PBM_EMERGO_ROBOT_GAMES_PER_PLAYER`` (a Config setting, default 10) caps the games.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbm_emergo.app.analysis import AnalysisRunner
from pbm_emergo.app.outbox import BuiltReply, LimitNotices, Outbox
from pbm_emergo.app.play import robot_action
from pbm_emergo.app.results import Refused
from pbm_emergo.app.runner import Operation, Runner, Work
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import games, players
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.robots import TaskBoard, moves_played, robot_boards, task_board
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.db.session import Session, SessionFactory
from pbm_emergo.db.types import utcnow
from pbm_emergo.game.board import BOARD_ACTIVE, OpenVote, PlayedMove
from pbm_emergo.game.board_changes import RobotGamesUnderLimit
from pbm_emergo.robot import ROBOTS, Decision, resigns, think
from pbm_emergo.rules import BlockedRule, Game, Position
from pbm_emergo.views import i18n

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
#: The runner looks the waiting boards over again once this many times as long as the last
#: look took has passed (RobotRunner.look_again).
LOOKS_APART = 10

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


# --- how many games against the robots ---------------------------------------------------


def check_robot_games(ctx: UnitOfWork, white: Account, black: Account) -> None:
    """Refuse a new board between a person and a robot (``white`` and ``black``: the two
    players' accounts, of which only the ids and userids are read) when the person already
    has ``Config.robot_games_per_player`` active games against the robots. The count is
    checked again in the write transaction (a Conflict starts the mail over), so that two
    mails at once cannot both take the last place."""
    robots = robot_players(ctx.session)
    people = [player for player in (white, black) if player.id not in robots]
    if len(people) != 1:
        return  # two people (a robot never challenges: it has no address)
    person = people[0]
    limit = max(0, ctx.config.robot_games_per_player)
    active = games.active_boards_against(ctx.session, person.id, robots)
    if len(active) >= limit:
        raise Refused(_too_many_robot_games(person.userid, active, limit))
    ctx.write(RobotGamesUnderLimit(person.id, tuple(robots), limit))


def _too_many_robot_games(userid: str, active: Sequence[int], limit: int) -> str:
    if limit == 0:
        return i18n._(
            "Games against the robots are not open on this server at the moment, so no "
            "board was started."
        )
    return i18n.ngettext(
        "%(userid)s has %(num)s active game against the robots (board %(boards)s), and "
        "%(limit)s is the most one player may have at a time, so no board was started. The "
        "robots think about one board at a time and share their time among everyone who "
        "plays them; finish or resign one of those games, then challenge again.",
        "%(userid)s has %(num)s active games against the robots (boards %(boards)s), and "
        "%(limit)s is the most one player may have at a time, so no board was started. The "
        "robots think about one board at a time and share their time among everyone who "
        "plays them; finish or resign one of those games, then challenge again.",
        len(active), userid=userid, boards=", ".join(str(n) for n in active), limit=limit,
    )


# --- the boards waiting for a robot -------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    """A board waiting for a robot, as looked over between answers (no position)."""

    number: int
    ply: int
    opponent_id: int  # the person the robot plays there
    waiting_since: datetime  # the board's last move, else its start


def waiting_boards(session: Session, robots: dict[int, tuple[str, int]]) -> list[Waiting]:
    """The boards where a robot is to move, or where its opponent's draw offer or take-back
    request waits for its answer, by number (a take-back request may turn out void when
    the board's task is read: :func:`task_on`)."""
    waiting = []
    for board in robot_boards(session, robots):
        seats = (board.white_player_id, board.black_player_id)
        opponent = seats[1] if seats[0] in robots else seats[0]
        to_move = None if board.to_move is None else (0 if board.to_move == "white" else 1)
        robot_to_move = to_move is not None and seats[to_move] in robots
        if robot_to_move or (opponent not in robots and opponent in board.voters):
            waiting.append(Waiting(board.number, board.ply, opponent, board.idle_since))
    return waiting


def task_on(session: Session, number: int, robots: dict[int, tuple[str, int]]) -> Task | None:
    """The robot's task on board ``number``, read in full (:func:`task_board`: the board
    and its open votes; for a take-back request, its moves too); None if there is none
    now."""
    board = task_board(session, number)
    if board is None or board.status != BOARD_ACTIVE:
        return None
    return _task(session, board, robots)


def _task(session: Session, board: TaskBoard, robots: dict[int, tuple[str, int]]) -> Task | None:
    seats = (board.white_player_id, board.black_player_id)
    to_move = None if board.to_move is None else (0 if board.to_move == "white" else 1)
    # A vote of a robot's opponent waits for the robot's answer.
    for vote in board.votes:
        other = seats[1] if vote.player_id == seats[0] else seats[0]
        if other in robots and vote.player_id not in robots:
            after = None
            if vote.kind == "undo":
                if vote.ply == board.ply:
                    after = _after_undo(board, vote, moves_played(session, board.number))
                if after is None:
                    continue  # void: refused when answered (game.play.answer); nothing to do
            return _make_task(board, other, robots, vote.kind, after)
    if to_move is not None and seats[to_move] in robots:
        return _make_task(board, seats[to_move], robots, "move", None)
    return None


def _after_undo(board: TaskBoard, vote: OpenVote, moves: Sequence[PlayedMove]) -> str | None:
    """The position (``Position.to_text()``) the take-back request ``vote`` returns the
    board to: the game replayed up to before the asker's last move (up to the vote's move
    count); None when the asker has no such move."""
    first = next(
        (m.number for m in reversed(moves) if m.player_id == vote.player_id
         and m.number <= vote.ply),
        None,
    )
    if first is None:
        return None
    notations = [m.notation for m in moves][: max(first - 1, 0)]
    blocked: BlockedRule = "draw" if board.blocked_rule == "draw" else "loss"
    return Game.from_moves(notations, blocked=blocked).position.to_text()


def _make_task(
    board: TaskBoard, robot_id: int, robots: dict[int, tuple[str, int]], kind: str,
    after_undo: str | None,
) -> Task:
    userid, level = robots[robot_id]
    return Task(
        number=board.number, robot_id=robot_id, robot=userid, level=level, ply=board.ply,
        kind=kind, position=board.position, history=board.repetition,
        blocked=board.blocked_rule,
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


def answering(config: Config, task: Task, action: Action) -> Operation:
    """The runner's operation that stores ``action`` (:class:`~pbm_emergo.app.runner.Runner`):
    the board read again and checked to be where ``task`` found it, the robot's action
    decided by the same game operations as a person's mail (so its board mails look like
    anyone's) and its board mails rendered, all in a reading session; None when the board
    moved on meanwhile. The changes re-check the move count, so a move that comes after
    this read conflicts in the write."""

    def operation(session: Session, now: datetime) -> Work | None:
        read = read_board(session, task.number)
        if read is None:
            return None
        state = read.snapshot.state
        if state.status != BOARD_ACTIVE or state.ply != task.ply:
            return None
        side = "white" if task.robot_side == 0 else "black"
        robot_id = state.seat(side).id
        if robot_id != task.robot_id:
            return None
        if action.kind == "move" and state.to_move != side:
            return None
        if action.kind not in ("move", "resign"):
            open_kinds = {v.kind for v in state.votes if v.player_id != robot_id}
            if task.kind not in open_kinds:
                return None
        ctx = UnitOfWork(session=session, config=config, now=now)
        result = robot_action(ctx, read.snapshot, robot_id, action.kind, action.notation)
        return Work(tuple(ctx.writes), tuple(result.replies), result.summary)

    return operation


class RobotRunner(Runner):
    """Finds robot work in the database, thinks, and stores the answers as a
    :class:`~pbm_emergo.app.runner.Runner` (:func:`answering`), their board mails queued
    through ``outbox`` (:mod:`pbm_emergo.ops.robot_process` runs it in the server).

    The boards waiting are taken one at a time in turn by player (:meth:`in_turn`), and
    looked over again between answers (:meth:`look_again`)."""

    def __init__(
        self,
        factory: SessionFactory,
        config: Config,
        *,
        outbox: Outbox | None = None,
        clock: Callable[[], datetime] = utcnow,
        seconds: float | None = None,
        think_with: Think | None = None,
        poll_seconds: float = 1.0,
    ) -> None:
        super().__init__(factory, config, outbox=outbox, clock=clock)
        self.seconds = robot_seconds() if seconds is None else seconds
        self.think_with = think_with
        self.poll_seconds = poll_seconds
        # Tasks whose answer the game refused: not tried again (it would refuse
        # again) until the board changes.
        self.refused: set[tuple[int, int, str]] = set()
        # Player id -> when the robots last answered them (a count of answers): the player
        # served least recently goes first. Kept in memory only: after a restart everyone
        # starts level, which is fair too.
        self.last_served: dict[int, int] = {}
        self.answers = 0
        # The robot accounts, when the waiting boards were last looked over and how long
        # that took (see look_again).
        self.robots: dict[int, tuple[str, int]] = {}
        self.looked_at = 0.0
        self.look_seconds = 0.0
        # The analyses of finished games, one move between two robot answers.
        self.analyses = AnalysisRunner(factory, config, outbox=self.outbox, clock=clock)

    def enqueue(
        self, session: Session, built: Sequence[BuiltReply], now: datetime,
        limit_notices: LimitNotices,
    ) -> int:
        """A robot's board mail takes the place of the board mail held for its answer
        (:meth:`Outbox.enqueue`): the opponent gets one mail for their move and the
        robot's."""
        return self.outbox.enqueue(
            session, built, now, takes_over_held=True, limit_notices=limit_notices
        )

    def in_turn(self, waiting: Sequence[Waiting]) -> list[Waiting]:
        """The boards waiting, in the order the robots take them: of the player the robots
        answered least recently (one not answered yet first), the board that has waited
        longest. So each player waiting gets a robot's answer in turn, however many boards
        each of them has waiting."""
        return sorted(
            waiting,
            key=lambda board: (
                self.last_served.get(board.opponent_id, -1), board.waiting_since, board.number
            ),
        )

    def look(self, tried: set[tuple[int, int]]) -> list[Waiting]:
        """The boards waiting now, less those in ``tried`` (number, move count)."""
        started = time.monotonic()
        with self.reads() as session:
            self.robots = robot_players(session)
            waiting = waiting_boards(session, self.robots)
        self.looked_at = time.monotonic()
        self.look_seconds = self.looked_at - started
        return [board for board in waiting if (board.number, board.ply) not in tried]

    def look_again(self) -> bool:
        """Whether to look the waiting boards over again before the next answer: once
        ``LOOKS_APART`` times as long as the last look took has passed, and at the latest
        after ``poll_seconds``. So looking takes about a tenth of the runner's time at
        most, and with few boards (a look of a millisecond) it comes before nearly every
        answer."""
        since = time.monotonic() - self.looked_at
        return since >= min(self.poll_seconds, LOOKS_APART * self.look_seconds)

    def next_task(
        self, waiting: list[Waiting], tried: set[tuple[int, int]]
    ) -> tuple[Task, int] | None:
        """The task to do next and the person it answers (see :meth:`in_turn`), read in
        full now; the boards it takes or passes over leave ``waiting``. A board found to
        have no task after all (a void take-back request, an answer the game refused) is
        added to ``tried``."""
        with self.reads() as session:
            for board in self.in_turn(waiting):
                waiting.remove(board)
                task = task_on(session, board.number, self.robots)
                if task is not None and (task.number, task.ply, task.kind) not in self.refused:
                    return task, board.opponent_id
                tried.add((board.number, board.ply))
        return None

    def run_once(self, stopping: Any = None) -> int:
        """Do the robot tasks waiting, one at a time in turn by player (:meth:`in_turn`),
        until none is left; returns how many answers were stored. The waiting boards are
        looked over again between answers (:meth:`look_again`), so that one that came to
        wait meanwhile takes its place in the turn."""
        done = 0
        # A board whose answer was not stored in this round (a conflict: it waits
        # unchanged) or that had no task after all waits for the next round.
        tried: set[tuple[int, int]] = set()
        waiting = self.look(tried)
        while waiting and (stopping is None or not stopping.is_set()):
            found = self.next_task(waiting, tried)
            if found is None:
                waiting = self.look(tried)
                continue
            task, person = found
            self.answers += 1
            self.last_served[person] = self.answers
            key = (task.number, task.ply, task.kind)
            started = time.perf_counter()
            action = decide(task, self.seconds, self.think_with)
            if stopping is not None and stopping.is_set():
                break  # stopping: the task is found again after the restart
            try:
                stored = self.perform(answering(self.config, task, action)).stored
            except Refused as err:
                log.error("%s on board %d: %s refused: %s", task.robot, task.number,
                          action.kind, err.reason)
                self.refused.add(key)
                stored = False
            else:
                log.debug("board %d: %s thought %.2f s", task.number, task.robot,
                          time.perf_counter() - started)
                if stored:
                    log.info("%s on board %d: %s %s", task.robot, task.number, action.kind,
                             action.notation)
            done += stored
            if not stored:
                tried.add((task.number, task.ply))
            self.analyses.step()
            if not waiting or self.look_again():
                waiting = self.look(tried)
        return done + self.analyses.step()

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
