"""Playing on a board, decided on values: a move (and the chain of queued and forced moves
it leads to), resigning (declining, before one's first move), a draw offered or answered, a
move taken back, a robot's action, and resigning every board of a player who leaves.

:func:`decide_move` is what ``emergo move`` asks for; the shell reads the snapshot, calls
it, renders the events and stores the changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pbm_emergo.game.board import BoardSnapshot, BoardState, OpenVote, Seat, other_side
from pbm_emergo.game.chain import Chain
from pbm_emergo.game.changes import (
    BoardDeclined,
    MovesTakenBack,
    VoteOpened,
    VoteRemoved,
    VotesDropped,
)
from pbm_emergo.game.decision import Decision, Refusal, finish
from pbm_emergo.game.events import BoardChanged, GameDeclined
from pbm_emergo.game.ratings import RatingModel, Standing
from pbm_emergo.game.reasons import refusal
from pbm_emergo.game.sentences import (
    Said,
    moves_in_lines,
    result_reason,
    split_guard,
    undo_first_move,
    undo_said,
)
from pbm_emergo.rules import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Termination,
)
from pbm_emergo.rules.reasons import Reason

KEYWORDS = ("resign", "propose", "accept", "reject", "undo")


@dataclass(frozen=True)
class Play:
    """A player's play on a board, once the shell logged them in (``emergo move``, a
    robot's answer): ``player_id`` (``userid``) plays ``text`` on board ``board``, a move or
    one of :data:`KEYWORDS`; ``guard``: the move number it was written for (``#n``);
    ``comment``: for the players."""

    board: int
    player_id: int
    userid: str
    text: str
    guard: int | None = None
    comment: str = ""

    @classmethod
    def parse(
        cls, board: int, player_id: int, userid: str, move: str, comment: str = ""
    ) -> Play:
        """The request of ``move`` as written (``MOVE[#n]`` or a keyword)."""
        text, guard = split_guard(move)
        return cls(board, player_id, userid, text, guard, comment)

    @property
    def keyword(self) -> str | None:
        word = self.text.lower()
        return word if word in KEYWORDS else None


@dataclass(frozen=True)
class _Turn:
    """One player's request on one board, as the steps below share it."""

    snapshot: BoardSnapshot
    seat: Seat
    comment: str
    now: datetime

    @property
    def state(self) -> BoardState:
        return self.snapshot.state

    @property
    def number(self) -> int:
        return self.snapshot.number

    @property
    def other(self) -> Seat:
        return self.state.opponent(self.seat.id)

    def told(
        self, decision: Decision, headline: str, summary: Reason
    ) -> Decision:
        """``decision`` with the board mail after it (this player's comment, ``headline``)."""
        event = BoardChanged(
            decision.state_after, headline, comment=self.comment or None,
            commenter=self.seat.userid,
        )
        return Decision(decision.changes, (event,), summary, decision.state_after)


def decide_move(snapshot: BoardSnapshot, request: Play, now: datetime) -> Decision:
    """Everything ``emergo move`` decides once the board was read and the player logged in;
    raises :class:`Refusal`."""
    state = snapshot.state
    number = state.number
    side = state.side_of(request.player_id)
    if side is None:
        raise Refusal(
            refusal(
                "not_on_board", userid=request.userid, board=number,
                white=state.white.userid, black=state.black.userid,
            ),
            with_board=False,
        )
    if not state.active:
        raise Refusal(refusal("game_is_over", number=number, result=result_reason(state)))
    guard = request.guard
    # A move numbered for after the opponent's (#4 while move 3 is theirs) is refused as
    # not this player's turn, not as a stale number: the number was right for their next
    # move, and the turn's reply says how to have it played when it comes.
    early = guard == state.ply + 2 and state.to_move != side and request.keyword is None
    if guard is not None and guard != state.ply + 1 and not early:
        raise Refusal(
            refusal("stale_guard", board=number, expected=state.ply + 1, given=guard),
            template="error/stale_move.txt.j2",
            given=guard,
            expected=state.ply + 1,
        )
    turn = _Turn(snapshot, state.seat(side), request.comment, now)
    keyword = request.keyword
    if keyword == "resign":
        return _resign(turn)
    if keyword == "propose":
        return _propose(turn)
    if keyword == "undo":
        return _request_undo(turn)
    if keyword in ("accept", "reject"):
        return _answer(turn, accept=keyword == "accept")
    return _play_move(turn, request.text)


def decide_robot_action(
    snapshot: BoardSnapshot, robot_id: int, kind: str, notation: str, now: datetime
) -> Decision:
    """A robot's action on its board (checked by the caller to be due): ``kind`` "move"
    (``notation``), "resign", "accept" or "reject"; raises :class:`Refusal`."""
    side = snapshot.state.side_of(robot_id)
    assert side is not None
    turn = _Turn(snapshot, snapshot.state.seat(side), "", now)
    if kind == "move":
        return _saying_the_move_answered(snapshot.state, robot_id, _play_move(turn, notation))
    if kind == "resign":
        return _resign(turn)
    return _answer(turn, accept=kind == "accept")


def _after(said: Said, headline: str) -> str:
    """``said``, then the headline (each worded in the reader's language where both are
    :class:`Said`)."""
    return Said.joined((said, headline)) if isinstance(headline, Said) else f"{said} {headline}"


def _saying_the_move_answered(state: BoardState, robot_id: int, decision: Decision) -> Decision:
    """A robot's move whose board mail also says the opponent's move it answers: that mail
    takes the place of the opponent's own board mail when it comes soon enough (one mail a
    turn against a robot: app.outbox), so it tells both moves."""
    if not state.moves or state.moves[-1].player_id == robot_id:
        return decision
    last = state.moves[-1]
    said = Said.of(
        "played", userid=state.opponent(robot_id).userid, move=last.label, number=last.number
    )
    events = tuple(
        dataclasses.replace(event, headline=_after(said, event.headline))
        if isinstance(event, BoardChanged) and event.headline else event
        for event in decision.events
    )
    return dataclasses.replace(decision, events=events)


def _play_move(turn: _Turn, text: str) -> Decision:
    state, number = turn.state, turn.number
    game = turn.snapshot.game()
    position = game.position
    if state.side_of(turn.seat.id) != position.to_move:
        to_move = state.seat(position.to_move).userid
        raise Refusal(
            refusal("not_your_turn", board=number, userid=to_move),
            template="error/not_your_turn.txt.j2",
            # A move as written can be queued to be played when the turn comes.
            queue=_queueable(text), userid=turn.seat.userid, opponent=to_move, number=number,
        )
    try:
        move = position.parse_move(text)
    except InvalidMoveError as err:
        raise Refusal(err.reason or str(err), template="error/malformed_move.txt.j2") from None
    except AmbiguousMoveError as err:
        raise Refusal(
            refusal("ambiguous_move", move=text, board=number),
            template="error/ambiguous_move.txt.j2",
            candidates=err.candidates,
        ) from None
    except IllegalMoveError as err:
        legal = position.legal_moves()
        raise Refusal(
            refusal("illegal_move", move=text, board=number),
            template="error/illegal_move.txt.j2",
            why=err.reason or str(err),
            capture_size=position.capture_size(),
            legal_lines=moves_in_lines(legal),
            legal_count=len(legal),
        ) from None
    # The move, then the queued and forced moves it leads to, stored together; one board
    # mail lists them all.
    chain = Chain(turn.snapshot, game, turn.now)
    chain.play(turn.seat, move, comment=turn.comment or None)
    chain.resolve()
    return chain.decision(comment=turn.comment or None, commenter=turn.seat.userid)


def _queueable(text: str) -> str | None:
    """``text`` in notation if it is written as a move (whether it is legal is known only
    when it is played), else None."""
    try:
        return str(Move.from_text(text))
    except InvalidMoveError:
        return None


def has_moved(state: BoardState, player_id: int) -> bool:
    """Whether the player has made a move on the board (one that still stands)."""
    return any(move.player_id == player_id for move in state.moves)


def _resign(turn: _Turn) -> Decision:
    if not has_moved(turn.state, turn.seat.id) and not turn.state.in_event:
        # Resigning before one's first move declines the game (an event's game is lost).
        return decline(turn.state, turn.seat.id, turn.comment)
    winner = other_side(turn.state.side_of(turn.seat.id) or "")
    ended = finish(turn.state, winner, Termination.RESIGNED, turn.now)
    return turn.told(
        ended, f"{turn.seat.userid} resigned.", refusal("summary_resigned", board=turn.number)
    )


def decline(state: BoardState, player_id: int, comment: str = "") -> Decision:
    """``player_id`` declines the new game on ``state``'s board: the board is removed (not
    rated, not counted, not in the history; its number is not handed out again) and both
    players are told."""
    decliner = state.seat(state.side_of(player_id) or "white")
    return Decision(
        (BoardDeclined(state.number, state.ply),),
        (GameDeclined(state, decliner, comment or None),),
        refusal("summary_declined", board=state.number),
        state,
    )


def resign_all(
    snapshots: Sequence[BoardSnapshot], player_id: int, headline: str, now: datetime,
    rate: RatingModel,
) -> list[Decision]:
    """Resign each board of ``snapshots`` for ``player_id`` (signing off, an operator's
    deletion): the final board mail of each says ``headline``. Each resignation moves the
    ratings the next one starts from (by ``rate``, the shell's rating model)."""
    decisions: list[Decision] = []
    standing: dict[int, Standing] = {}
    rated_pairs: set[frozenset[int]] = set()
    for snapshot in snapshots:
        state = snapshot.state
        pair = frozenset((state.white.id, state.black.id))
        if pair in rated_pairs:  # a game of this pair moved ratings just now
            state = state.replace(pair_rated_at=now)
        winner = other_side(state.side_of(player_id) or "")
        rating = None
        if state.rates_at(now):
            rated_pairs.add(pair)
            white, black = (
                standing.get(seat.id, seat.standing) for seat in (state.white, state.black)
            )
            rating = rate(white, black, winner)
            standing[state.white.id] = white.after(rating, white=True)
            standing[state.black.id] = black.after(rating, white=False)
        ended = finish(state, winner, Termination.RESIGNED, now, rating)
        event = BoardChanged(ended.state_after, headline)
        decisions.append(Decision(ended.changes, (event,), "", ended.state_after))
    return decisions


def _propose(turn: _Turn) -> Decision:
    existing = _vote(turn.state, "draw")
    if existing is not None and existing.player_id != turn.seat.id:
        # Both players want a draw: that is an agreement.
        return _answer(turn, accept=True)
    _refuse_second_vote(turn)
    return _open_vote(
        turn, "draw",
        headline=Said.of("offers_draw", userid=turn.seat.userid),
        summary=refusal("summary_offered_draw", board=turn.number),
    )


def _vote(state: BoardState, kind: str) -> OpenVote | None:
    return next((v for v in state.votes if v.kind == kind), None)


def _refuse_second_vote(turn: _Turn) -> None:
    """A player has at most one open vote on a board: refuse another until it is answered."""
    mine = next((v for v in turn.state.votes if v.player_id == turn.seat.id), None)
    if mine is not None:
        raise Refusal(
            refusal(
                "draw_offered" if mine.kind == "draw" else "undo_asked",
                board=turn.number, userid=turn.other.userid,
            ),
            with_board=False,
        )


def _open_vote(turn: _Turn, kind: str, *, headline: str, summary: Reason) -> Decision:
    """Record a draw offer or an undo request and tell both players."""
    state = turn.state
    change = VoteOpened(turn.number, kind, turn.seat.id, state.ply, turn.now)
    after = state.replace(votes=(*state.votes, OpenVote(kind, turn.seat.id, state.ply)))
    return turn.told(Decision((change,), (), "", after), headline, summary)


def _request_undo(turn: _Turn) -> Decision:
    state = turn.state
    first = undo_first_move(state, turn.seat.id, state.ply)
    if first is None:
        raise Refusal(refusal("nothing_to_undo", board=turn.number))
    _refuse_second_vote(turn)
    if _vote(state, "undo") is not None:
        raise Refusal(
            refusal("undo_pending", userid=turn.other.userid, board=turn.number),
            with_board=False,
        )
    return _open_vote(
        turn, "undo",
        headline=undo_said("asks_undo", first, state.ply, userid=turn.seat.userid),
        summary=(
            refusal("summary_asked_undo_one", first=first) if first == state.ply
            else refusal("summary_asked_undo_many", first=first, last=state.ply)
        ),
    )


def _answer(turn: _Turn, *, accept: bool) -> Decision:
    state, number = turn.state, turn.number
    other = turn.other
    vote = next((v for v in state.votes if v.player_id == other.id), None)
    if vote is None:
        raise Refusal(
            refusal(
                "nothing_to_accept" if accept else "nothing_to_reject",
                userid=other.userid, board=number,
            ),
            with_board=False,
        )
    me = turn.seat.userid
    removed = VoteRemoved(number, vote.kind, other.id)
    if not accept:
        after = state.replace(votes=tuple(v for v in state.votes if v != vote))
        return turn.told(
            Decision((removed,), (), "", after),
            Said.of(
                "rejected_draw" if vote.kind == "draw" else "rejected_undo",
                userid=me, other=other.userid,
            ),
            refusal(
                "summary_rejected_draw" if vote.kind == "draw" else "summary_rejected_undo",
                board=number,
            ),
        )
    if vote.kind == "draw":
        ended = finish(state, None, Termination.DRAW_AGREED, turn.now)
        return turn.told(
            ended, Said.of("accepted_draw", userid=me, other=other.userid),
            refusal("summary_agreed_draw", board=number),
        )
    first = undo_first_move(state, other.id, vote.ply)
    if first is None or vote.ply != state.ply:  # the board moved on: the request is void
        raise Refusal(
            refusal("undo_void", board=number),
            with_board=False,
            changes=(removed,),
        )
    game = turn.snapshot.replayed(first - 1)
    taken = MovesTakenBack(
        number, state.ply, game.position, tuple(game.repetition_history())
    )
    after = state.replace(
        ply=game.position.ply,
        position=game.position,
        to_move=game.position.to_move,
        moves=tuple(m for m in state.moves if m.number < first),
        votes=(),
    )
    headline = undo_said("undo_accepted", first, vote.ply, userid=me, other=other.userid)
    return turn.told(
        Decision((taken, VotesDropped(number)), (), "", after), headline,
        (
            refusal("summary_took_back_one", first=first, board=number) if first == vote.ply
            else refusal("summary_took_back_many", first=first, last=vote.ply, board=number)
        ),
    )
