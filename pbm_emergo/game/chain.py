"""The moves the server plays for players: queued moves and forced moves.

After a move, the player to move may have a queued move on the board (``emergo queue``), or
autoplay on (``emergo autoplay``) and exactly one legal move. Then the server plays that move
for them at once, marked ``(Auto)`` or ``(Forced)``, and looks again at the next player, until
neither applies or the game is over. The whole chain is stored together with the move that
started it (every move re-checked by the move count), and one board mail lists every move
made.

A queued move that is not legal when its turn comes is not played: the queue is cleared and
its player gets an error mail with the board (autoplay may still play their only move). A
conditional queue (``opponentmove=mymove`` items) plays the answer to the opponent's actual
move, if it named it; any other move clears it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbm_emergo.game.board import (
    AUTOPLAYED_FORCED,
    AUTOPLAYED_QUEUED,
    BoardSnapshot,
    BoardState,
    PlayedMove,
    QueueItem,
    Seat,
)
from pbm_emergo.game.changes import Change, MoveStored, QueueTaken, VotesDropped
from pbm_emergo.game.decision import Decision, finish
from pbm_emergo.game.events import BoardChanged, Event, QueuedMoveFailed
from pbm_emergo.game.reasons import refusal
from pbm_emergo.game.sentences import Said, result_reason
from pbm_emergo.rules import Game, Move, MoveError, Position
from pbm_emergo.rules.reasons import Reason

# A chain ends by itself (queues are used up; forced moves end in a repetition draw at the
# latest); this bounds it all the same.
MAX_CHAIN = 200


@dataclass(frozen=True)
class ChainMove:
    """A move of the chain: its number, who made it, how (None: their own command), and
    the board after it."""

    number: int
    player: Seat
    move: Move
    position: Position
    repetition: tuple[str, ...]
    ended: bool
    autoplayed: str | None = None
    comment: str | None = None

    def sentence(self) -> Said:
        kind = "played"
        if self.autoplayed == AUTOPLAYED_QUEUED:
            kind = "queued_played"
        elif self.autoplayed == AUTOPLAYED_FORCED:
            kind = "forced_played"
        return Said.of(kind, userid=self.player.userid, move=str(self.move), number=self.number)


@dataclass(frozen=True)
class QueueFailure:
    """A queued move that could not be played when its turn came."""

    player: Seat
    notation: str
    why: Reason | str


class Chain:
    """The moves played on one board by one request: the player's own (if any), then the
    queued and forced ones that follow (see the module docstring). ``game`` is the board's
    game as read, played on."""

    def __init__(
        self, snapshot: BoardSnapshot, game: Game, now: datetime,
        autoplay_on: frozenset[int] = frozenset(),
    ) -> None:
        self.snapshot = snapshot
        self.state = snapshot.state
        self.game = game
        self.now = now
        # Players whose autoplay counts as on although the snapshot says off (the request
        # switching it on stores that beside the chain).
        self.autoplay_on = autoplay_on
        self.start_ply = game.position.ply
        self.queue: list[QueueItem] = list(snapshot.queue) if snapshot.queued else []
        self.loaded_ids = tuple(item.id for item in self.queue)
        self.moves: list[ChainMove] = []
        self.failures: list[QueueFailure] = []

    def play(
        self, player: Seat, move: Move, autoplayed: str | None = None,
        comment: str | None = None,
    ) -> None:
        """Play ``move`` (legal now) for ``player``."""
        number = self.game.position.ply + 1
        self.game.play(move)
        self.moves.append(
            ChainMove(
                number, player, move, self.game.position,
                tuple(self.game.repetition_history()), self.game.outcome() is not None,
                autoplayed, comment,
            )
        )

    def resolve(self) -> None:
        """Play the queued and forced moves that are due, one after the other."""
        while self.game.outcome() is None and len(self.moves) < MAX_CHAIN:
            player = self.state.seat(self.game.position.to_move)
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

    def _queued_move(self, player: Seat) -> Move | None:
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
                    refusal("queued_as", given=item.number, expected=number),
                )
            )
            return None
        try:
            return self.game.position.parse_move(item.notation)
        except MoveError as err:
            self.failures.append(QueueFailure(player, item.notation, err.reason or str(err)))
            return None

    def changes(self) -> tuple[list[Change], BoardState]:
        """What storing the chain writes, and the board's state after it (the game
        finished if it ended)."""
        number, start, state = self.state.number, self.start_ply, self.state
        # Votes read: each move drops them. None read: the first move's UPDATE re-checks
        # that there are none (a vote stored meanwhile makes the request start over), and
        # nothing is deleted.
        read_votes = bool(state.votes)
        changes: list[Change] = []
        for index, made in enumerate(self.moves):
            changes.append(
                MoveStored(
                    board=number, expected_ply=start + index, position=made.position,
                    repetition=made.repetition,
                    to_move=None if made.ended else made.position.to_move,
                    player_id=made.player.id, notation=str(made.move), comment=made.comment,
                    played_at=self.now, autoplayed=made.autoplayed,
                    expected_queued=self.snapshot.queued if index == 0 else None,
                    expected_no_votes=not read_votes and index == 0,
                )
            )
            if read_votes:
                # A move answers "no" to the opponent's draw offer, and any undo request
                # is void.
                changes.append(VotesDropped(number, keep_draw_of=made.player.id))
        if self.loaded_ids:
            changes.append(QueueTaken(number, self.loaded_ids))
        votes = state.votes
        for made in self.moves:
            votes = tuple(v for v in votes if v.kind == "draw" and v.player_id == made.player.id)
        outcome = self.game.outcome()
        state = state.replace(
            ply=start + len(self.moves),
            position=self.game.position,
            to_move=None if outcome else self.game.position.to_move,
            moves=(
                *state.moves,
                *(
                    PlayedMove(m.number, m.player.id, str(m.move), self.now, m.autoplayed)
                    for m in self.moves
                ),
            ),
            votes=votes,
        )
        if outcome is not None:
            ended = finish(state, outcome.winner, outcome.termination, self.now)
            changes.extend(ended.changes)
            state = ended.state_after
        return changes, state

    def headline(self) -> Said:
        return Said.joined((m.sentence() for m in self.moves), "\n")

    def summary(self, state: BoardState) -> Reason:
        parts = []
        for made in self.moves:
            if made.autoplayed is None:
                parts.append(
                    refusal("summary_played", move=str(made.move), board=self.state.number)
                )
            else:
                code = "summary_auto" if made.autoplayed == AUTOPLAYED_QUEUED else "summary_forced"
                parts.append(refusal(code, userid=made.player.userid, move=str(made.move)))
        said = parts[0]
        for part in parts[1:]:
            said = refusal("summary_then", first=said, then=part)
        if not state.active:
            said = refusal("summary_ended", moves=said, result=result_reason(state))
        return said

    def decision(self, *, comment: str | None = None, commenter: str | None = None) -> Decision:
        """The chain as a decision: its changes, the board mail listing every move of it,
        and an error mail to each player whose queued move could not be played."""
        changes, state = self.changes()
        events: list[Event] = [
            BoardChanged(state, self.headline(), comment=comment, commenter=commenter)
        ]
        events += [
            QueuedMoveFailed(
                state, f.player, f.notation, str(f.why),
                f.why if isinstance(f.why, Reason) else None,
            )
            for f in self.failures
        ]
        return Decision(tuple(changes), tuple(events), self.summary(state), state)


def follow(
    snapshot: BoardSnapshot, now: datetime, autoplay_on: frozenset[int] = frozenset()
) -> Decision | None:
    """The queued and forced moves due on the board now (``autoplay_on``: players whose
    autoplay is being switched on); None when there are none."""
    chain = Chain(snapshot, snapshot.game(), now, autoplay_on=autoplay_on)
    chain.resolve()
    if not chain.moves:
        return None
    return chain.decision()
