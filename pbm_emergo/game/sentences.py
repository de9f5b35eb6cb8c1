"""The sentences the decisions, the board mails and the web view share: how a game ended,
whose turn it is, which moves an undo takes back, the move list of a refusal."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from pbm_emergo.game.board import BLACK, WHITE, BoardState, other_side
from pbm_emergo.game.reasons import refusal
from pbm_emergo.rules import Move, Termination
from pbm_emergo.rules.reasons import Reason

SIDE_NAMES = {WHITE: "Ohs", BLACK: "Eks"}

# The sentences a board mail's headline is made of, in English: ``views.board_text`` words
# each kind in the reader's language.
ENGLISH: dict[str, str] = {
    "played": "%(userid)s played %(move)s (move %(number)s).",
    "queued_played": "%(userid)s's queued move %(move)s was played (move %(number)s, Auto).",
    "forced_played": (
        "%(userid)s's only legal move %(move)s was played (move %(number)s, Forced)."
    ),
    "offers_draw": "%(userid)s offers a draw.",
    "asks_undo_one": "%(userid)s asks to take back move %(first)s.",
    "asks_undo_many": "%(userid)s asks to take back moves %(first)s to %(last)s.",
    "rejected_draw": "%(userid)s rejected %(other)s's draw offer.",
    "rejected_undo": "%(userid)s rejected %(other)s's request to take back a move.",
    "accepted_draw": "%(userid)s accepted %(other)s's draw offer.",
    "undo_accepted_one": (
        "%(userid)s accepted: move %(first)s taken back. It is %(other)s's turn again."
    ),
    "undo_accepted_many": (
        "%(userid)s accepted: moves %(first)s to %(last)s taken back. It is %(other)s's turn again."
    ),
    # the headline of the boards a player leaves resigned
    "signed_off_resigned": "%(userid)s signed off and resigned this game.",
    "closed_account_resigned": "%(userid)s closed their account and resigned this game.",
    "withdrew_resigned": "%(userid)s withdrew from the event %(event)s and resigns.",
}


class Said(str):
    """A sentence for players as a value: the string is its English; ``kind`` (a key of
    :data:`ENGLISH`) and ``values`` say how it was said, or ``parts`` joined by ``joiner``,
    so that the views can word it in the reader's language (:meth:`words`)."""

    kind: str
    values: tuple[tuple[str, str | int], ...]
    parts: tuple[Said, ...]
    joiner: str

    def __new__(
        cls,
        kind: str,
        values: tuple[tuple[str, str | int], ...] = (),
        parts: tuple[Said, ...] = (),
        joiner: str = " ",
    ) -> Said:
        text = ENGLISH[kind] % dict(values) if kind else joiner.join(parts)
        made = super().__new__(cls, text)
        made.kind, made.values, made.parts, made.joiner = kind, values, parts, joiner
        return made

    def __reduce__(self) -> tuple[type[Said], tuple[object, ...]]:
        # Copied and pickled as what it was made of (str's own way would pass the text).
        return (Said, (self.kind, self.values, self.parts, self.joiner))

    @classmethod
    def of(cls, kind: str, **values: str | int) -> Said:
        return cls(kind, tuple(sorted(values.items())))

    @classmethod
    def joined(cls, parts: Iterable[Said], joiner: str = " ") -> Said:
        return cls("", (), tuple(parts), joiner)

    def words(self, word: Callable[[str, dict[str, str | int]], str]) -> str:
        """The sentence with each kind worded by ``word`` (kind, values)."""
        if not self.kind:
            return self.joiner.join(part.words(word) for part in self.parts)
        return word(self.kind, dict(self.values))


def undo_said(kind: str, first: int, last: int, **values: str | int) -> Said:
    """An undo's sentence (``kind`` without ``_one``/``_many``): of one move or of several."""
    if first == last:
        return Said.of(f"{kind}_one", first=first, **values)
    return Said.of(f"{kind}_many", first=first, last=last, **values)


MOVE_GUARD = re.compile(r"(.*?)#([0-9]{1,6})")


def split_guard(text: str) -> tuple[str, int | None]:
    """``"e4xc4#17"`` -> ("e4xc4", 17); no guard -> (text, None)."""
    match = MOVE_GUARD.fullmatch(text)
    if not match:
        return text, None
    return match[1], int(match[2])


def result_sentence(state: BoardState) -> str:
    """How a finished game ended, in one sentence."""
    return str(result_reason(state))


def result_reason(state: BoardState) -> Reason:
    """How a finished game ended, as a value the shell says in the reader's language."""
    reason = state.outcome_reason or ""
    if state.winner is not None:
        values: dict[str, str | int | Reason] = {
            "winner": state.seat(state.winner).userid,
            "side": SIDE_NAMES[state.winner],
            "loser": state.seat(other_side(state.winner)).userid,
        }
        codes: dict[str, str] = {
            Termination.ELIMINATED: "won_eliminated",
            Termination.BLOCKED: "won_blocked",
            Termination.NO_LEGAL_ENTRY: "won_no_entry",
            Termination.RESIGNED: "won_resigned",
            Termination.FORFEIT: "won_forfeit",
            Termination.ADJUDICATED: "won_adjudicated",
        }
        won = codes.get(reason)
        if won is None:
            return refusal("won_other", reason=reason, **values)
        return refusal(won, **values)
    if reason == Termination.VOIDED:
        return refusal("voided")
    stuck = state.seat(state.position.to_move).userid
    drawn: dict[str, Reason] = {
        Termination.REPETITION: refusal("drawn_repetition"),
        Termination.DRAW_AGREED: refusal("drawn_agreed"),
        Termination.BLOCKED: refusal("drawn_blocked", userid=stuck),
        Termination.NO_LEGAL_ENTRY: refusal("drawn_no_entry", userid=stuck),
        Termination.ADJUDICATED: refusal("drawn_adjudicated"),
    }
    return drawn.get(reason) or refusal("drawn_other", reason=reason)


def side_label(side: str) -> str:
    """``"Ohs"``: a side as the status sentence names it (the letters o and x are only
    the diagram's key)."""
    return SIDE_NAMES[side]


def undo_first_move(state: BoardState, player_id: int, ply: int) -> int | None:
    """The first move an undo by the player takes back: their last move (and all after it)."""
    for move in reversed(state.moves):
        if move.player_id == player_id and move.number <= ply:
            return move.number
    return None


def span(first: int, last: int) -> str:
    return f"move {first}" if first == last else f"moves {first} to {last}"


def moves_in_lines(moves: list[Move], per_line: int = 8) -> list[str]:
    texts = [str(m) for m in moves]
    return ["  ".join(texts[i : i + per_line]) for i in range(0, len(texts), per_line)]
