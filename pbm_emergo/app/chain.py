"""The moves the server plays for players: queued moves and forced moves.

After a move, the player to move may have a queued move on the board (``emergo queue``), or
autoplay on (``emergo autoplay``) and exactly one legal move. Then the server plays that move
for them at once, marked ``(Auto)`` or ``(Forced)``, and looks again at the next player, until
neither applies or the game is over. The whole chain is stored by one write together with the
move that started it (every move re-checked by the move count), and one board mail lists
every move made.

A queued move that is not legal when its turn comes is not played: the queue is cleared and
its player gets an error mail with the board (autoplay may still play their only move). A
conditional queue (``opponentmove=mymove`` items) plays the answer to the opponent's actual
move, if it named it; any other move clears it.

When nothing is queued (``boards.queued`` false, read with the board) and the player to move
has autoplay off (read with the board's players), this costs no query.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pbm_emergo.app.boards import (
    BoardState,
    PlayedMove,
    board_mails,
    board_view,
    finish_game,
    primary_address,
    result_sentence,
)
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.results import Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import autoplay, games
from pbm_emergo.db.autoplay import QueueItem
from pbm_emergo.db.models import AUTOPLAYED_FORCED, AUTOPLAYED_QUEUED, Board, Player
from pbm_emergo.rules import Game, Move, MoveError
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from pbm_emergo.db.session import Session

# A chain ends by itself (queues are used up; forced moves end in a repetition draw at the
# latest); this bounds it all the same.
MAX_CHAIN = 200


@dataclass(frozen=True)
class ChainMove:
    """A move of the chain: its number, who made it, how (None: their own command)."""

    number: int
    player: Player
    move: Move
    autoplayed: str | None = None
    comment: str | None = None

    def sentence(self) -> str:
        userid = self.player.userid
        if self.autoplayed == AUTOPLAYED_QUEUED:
            return f"{userid}'s queued move {self.move} was played (move {self.number}, Auto)."
        if self.autoplayed == AUTOPLAYED_FORCED:
            return (
                f"{userid}'s only legal move {self.move} was played (move {self.number}, "
                "Forced)."
            )
        return f"{userid} played {self.move} (move {self.number})."


@dataclass(frozen=True)
class QueueFailure:
    """A queued move that could not be played when its turn came."""

    player: Player
    notation: str
    why: str


@dataclass
class Chain:
    """The moves played on one board by one command: the player's own (if any), then the
    queued and forced ones that follow (see the module docstring)."""

    ctx: UnitOfWork
    board: Board
    state: BoardState
    game: Game
    # Players whose autoplay counts as on although the row read says off (the command
    # switching it on stores that with the chain).
    autoplay_on: frozenset[int] = frozenset()
    moves: list[ChainMove] = field(default_factory=list)
    failures: list[QueueFailure] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.start_ply = self.game.position.ply
        self.read_queued = self.board.queued
        self.queue: list[QueueItem] = (
            autoplay.queue_of(self.ctx.session, self.board.number) if self.board.queued else []
        )
        self.loaded_ids = [item.id for item in self.queue]
        # The game as it stood after each move but the last (the last one is ``game``).
        self.snapshots: list[Game] = []

    def play(
        self, player: Player, move: Move, autoplayed: str | None = None,
        comment: str | None = None,
    ) -> None:
        """Play ``move`` (legal now) for ``player``."""
        if self.moves:
            self.snapshots.append(copy.deepcopy(self.game))
        number = self.game.position.ply + 1
        self.game.play(move)
        self.moves.append(ChainMove(number, player, move, autoplayed, comment))

    def resolve(self) -> None:
        """Play the queued and forced moves that are due, one after the other."""
        while self.game.outcome() is None and len(self.moves) < MAX_CHAIN:
            player = self.board.player_of(self.game.position.to_move)
            queued = self._queued_move(player)
            if queued is not None:
                self.play(player, queued, AUTOPLAYED_QUEUED)
                continue
            if player.autoplay or player.id in self.autoplay_on:
                legal = self.game.position.legal_moves()
                if len(legal) == 1:
                    self.play(player, legal[0], AUTOPLAYED_FORCED)
                    continue
            break

    def _queued_move(self, player: Player) -> Move | None:
        """The player's queued move if it is due and legal now; their queue is used up."""
        items = [item for item in self.queue if item.player_id == player.id]
        if not items:
            return None
        self.queue = [item for item in self.queue if item.player_id != player.id]
        number = self.game.position.ply + 1
        last = self.moves[-1] if self.moves else None
        conditional = [item for item in items if item.if_move is not None]
        if conditional:
            # Played only in answer to the named move the opponent just made.
            if last is None or last.player.id == player.id:
                return None
            chosen = next((i for i in conditional if i.if_move == str(last.move)), None)
            if chosen is None:
                return None
            item = chosen
        else:
            item = items[0]
        if item.number and item.number != number:
            self.failures.append(
                QueueFailure(
                    player, item.notation,
                    f"it was queued as move {item.number}, but the next move is move {number}.",
                )
            )
            return None
        try:
            return self.game.position.parse_move(item.notation)
        except MoveError as err:
            self.failures.append(QueueFailure(player, item.notation, str(err)))
            return None

    @property
    def changed(self) -> bool:
        """Whether the chain stores anything (moves, or queued moves used up)."""
        return bool(self.moves) or bool(self.loaded_ids)

    def store(self) -> BoardState:
        """Hand the chain's writes to the context; the board's state after them (the game
        finished if it ended)."""
        number, now, start = self.board.number, self.ctx.now, self.start_ply
        moves, snapshots, game = list(self.moves), list(self.snapshots), self.game
        read_queued, taken = self.read_queued, list(self.loaded_ids)
        # Votes read: each move drops them. None read: the first move's UPDATE re-checks
        # that there are none (a vote stored meanwhile makes the mail start over), and
        # nothing is deleted.
        read_votes = bool(self.state.votes)

        def write(session: Session) -> None:
            for index, made in enumerate(moves):
                after = snapshots[index] if index < len(snapshots) else game
                games.store_move(
                    session, number, start + index, after, made.player.id, str(made.move),
                    made.comment, now, autoplayed=made.autoplayed,
                    expected_queued=read_queued if index == 0 else None,
                    expected_no_votes=not read_votes and index == 0,
                )
                if read_votes:
                    # A move answers "no" to the opponent's draw offer, and any undo
                    # request is void.
                    games.drop_votes(session, number, keep_draw_of=made.player.id)
            autoplay.take_queue(session, number, taken)

        self.ctx.write(write)
        state = self.state
        votes = state.votes
        for made in moves:
            votes = tuple(v for v in votes if v.kind == "draw" and v.player_id == made.player.id)
        outcome = game.outcome()
        state = state.replace(
            ply=start + len(moves),
            position=game.position,
            to_move=None if outcome else game.position.to_move,
            moves=(
                *state.moves,
                *(
                    PlayedMove(m.number, m.player.id, str(m.move), now, m.autoplayed)
                    for m in moves
                ),
            ),
            votes=votes,
        )
        if outcome is not None:
            state = finish_game(self.ctx, self.board, state, outcome.winner, outcome.termination)
        return state

    def headline(self) -> str:
        return "\n".join(m.sentence() for m in self.moves)

    def summary(self, state: BoardState) -> str:
        parts = []
        for made in self.moves:
            if made.autoplayed is None:
                parts.append(f"played {made.move} on board {self.board.number}")
            else:
                mark = "Auto" if made.autoplayed == AUTOPLAYED_QUEUED else "Forced"
                parts.append(f"{made.player.userid}'s {made.move} ({mark})")
        text = "; then ".join(parts)
        if not state.active:
            text += f"; {result_sentence(state)}"
        return text

    def mails(
        self, state: BoardState, *, comment: str | None = None, commenter: str | None = None,
        headline: str | None = None,
    ) -> list[Reply]:
        """The board mail after the chain (listing every move of it), and an error mail to
        each player whose queued move could not be played."""
        replies = board_mails(
            self.ctx, state, comment=comment, commenter=commenter,
            headline=headline if headline is not None else self.headline(),
        )
        for failure in self.failures:
            address = primary_address(failure.player)
            if address is None:
                continue
            view = board_view(state, now=self.ctx.now)
            body = render(
                "error/queued_move.txt.j2",
                userid=failure.player.userid,
                number=state.number,
                notation=failure.notation,
                why=failure.why,
                your_turn=state.active
                and state.to_move is not None
                and state.seat(state.to_move).id == failure.player.id,
                board_text=view.text,
            )
            replies.append(
                Reply(
                    to=address, subject=f"Emergo Board {state.number} Error", body=body,
                    board=state.number, solicited=True,
                )
            )
        return replies


def play_and_follow(
    ctx: UnitOfWork, board: Board, state: BoardState, game: Game, player: Player, move: Move,
) -> tuple[Chain, BoardState]:
    """Play ``player``'s ``move`` (legal on ``game``, the board's game as read) and the
    queued and forced moves after it; the writes are handed to ``ctx``."""
    chain = Chain(ctx, board, state, game)
    chain.play(player, move, comment=ctx.comment or None)
    chain.resolve()
    return chain, chain.store()


def follow(
    ctx: UnitOfWork, board: Board, state: BoardState, game: Game,
    autoplay_on: frozenset[int] = frozenset(),
) -> Result | None:
    """The queued and forced moves due on ``board`` now (``autoplay_on``: players whose
    autoplay is being switched on), stored and mailed; None when there are none."""
    chain = Chain(ctx, board, state, game, autoplay_on=autoplay_on)
    chain.resolve()
    if not chain.moves:
        return None
    after = chain.store()
    return Result(summary=chain.summary(after), replies=chain.mails(after))
