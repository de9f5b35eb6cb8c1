"""Why the rules refuse a move, as a value: a :class:`Reason` is a code and the values it
names (cells, moves, counts, a side), so that the shell can say it in the player's language;
``str()`` of it is the English sentence.

The English text of each code is in :data:`TEXTS`, with ``%(name)s`` placeholders; a code
that counts men has a singular and a plural text, chosen by its ``num`` value as gettext
chooses them. A value may be a Reason itself (the failing jump inside a route's reason).
Reasons are built only on the error path, so they cost the search nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TEXTS", "Reason", "reason"]

# The English sentence of each reason: one text, or (singular, plural) chosen by ``num``.
TEXTS: dict[str, str | tuple[str, str]] = {
    "game_over": "%(side)s has no legal move: the game is over.",
    "capture_compulsory": (
        "Capture is compulsory: you must capture, taking %(num)s man (for example %(example)s).",
        "Capture is compulsory: you must capture, taking %(num)s men (for example %(example)s).",
    ),
    "no_piece": "There is no piece on %(cell)s.",
    "not_yours": "The piece on %(cell)s is not yours.",
    "no_route_to": (
        "No maximum capture route jumps from %(start)s to %(end)s: you must take %(num)s man. "
        "Legal captures: %(legal)s.",
        "No maximum capture route jumps from %(start)s to %(end)s: you must take %(num)s men. "
        "Legal captures: %(legal)s.",
    ),
    "not_a_route_must_take": (
        "%(move)s is not a capture route: %(why)s You must take %(num)s man; "
        "legal captures: %(legal)s.",
        "%(move)s is not a capture route: %(why)s You must take %(num)s men; "
        "legal captures: %(legal)s.",
    ),
    "short_capture_one": (
        "%(move)s takes 1 man, but maximum capture is compulsory and you must take %(num)s man: "
        "continue the route, e.g. %(example)s.",
        "%(move)s takes 1 man, but maximum capture is compulsory and you must take %(num)s men: "
        "continue the route, e.g. %(example)s.",
    ),
    "short_capture": (
        "%(move)s takes %(taken)s men, but maximum capture is compulsory and you must take "
        "%(num)s man: continue the route, e.g. %(example)s.",
        "%(move)s takes %(taken)s men, but maximum capture is compulsory and you must take "
        "%(num)s men: continue the route, e.g. %(example)s.",
    ),
    "not_maximum": (
        "%(move)s is not a maximum capture: you must take %(num)s man. Legal captures: %(legal)s.",
        "%(move)s is not a maximum capture: you must take %(num)s men. Legal captures: %(legal)s.",
    ),
    "no_piece_no_capture": "There is no piece on %(cell)s, and there is no capture here.",
    "not_yours_no_capture": "The piece on %(cell)s is not yours, and there is no capture here.",
    "not_a_route": "%(move)s is not a capture route: %(why)s",
    "no_capture_here": "There is no capture here: %(move)s is not a legal route.",
    "nothing_in_hand": "You have no men in hand to enter: move a piece on the board instead.",
    "enter_occupied": "Cell %(cell)s is occupied: men are entered on vacant cells only.",
    "first_move_centre": "White may not enter on e5 on the first move of the game.",
    "feeding": (
        "A man entered on %(cell)s could be captured at once by %(them)s's piece on "
        "%(attacker)s, and %(them)s is not attacking you now: that is feeding, which is not "
        "allowed. Enter on a cell where it is safe (every rim cell is)."
    ),
    "men_in_hand": (
        "You still have %(num)s man in hand: you must enter a man; pieces on the board may "
        "not move until all your men are entered.",
        "You still have %(num)s men in hand: you must enter a man; pieces on the board may "
        "not move until all your men are entered.",
    ),
    "step_occupied": "Cell %(cell)s is occupied: a piece steps only to a vacant neighbouring cell.",
    "not_a_jump": (
        "%(start)s to %(end)s is not a jump: a capture jumps an adjacent enemy piece and lands "
        "on the vacant cell just beyond it."
    ),
    "jump_back": (
        "%(start)sx%(end)s turns straight back along the jump before it, which a capture may "
        "not do."
    ),
    "jump_own": (
        "%(start)sx%(end)s would jump %(over)s, which holds your own piece at that point: a "
        "capture jumps an enemy piece."
    ),
    "jump_nothing": (
        "%(start)sx%(end)s would jump %(over)s, which holds no piece at that point: a capture "
        "jumps an enemy piece."
    ),
    "land_occupied": "%(start)sx%(end)s would land on %(end)s, which is occupied.",
    "ambiguous": "%(move)s matches %(num)s capture routes; write the whole route: %(routes)s.",
    "not_a_move": (
        "%(text)s is not a move: write an entry like e4, a step like e4-e5, or a capture like "
        "e4xc4xc6."
    ),
    "not_a_cell": "%(cell)s is not a cell of the Emergo board.",
}


@dataclass(frozen=True, slots=True)
class Reason:
    """One reason: its ``code`` and its ``values`` as (name, value) pairs; ``str()`` is the
    English sentence: ``english``, or the code's text in :data:`TEXTS` (the layers above the
    rules give their own reasons' text)."""

    code: str
    values: tuple[tuple[str, str | int | Reason], ...] = ()
    english: str | tuple[str, str] | None = field(default=None, compare=False)

    def text(self) -> str:
        """The English text of the code (singular or plural by ``num``), unfilled."""
        text = TEXTS[self.code] if self.english is None else self.english
        if isinstance(text, tuple):
            return text[0] if dict(self.values).get("num") == 1 else text[1]
        return text

    def __str__(self) -> str:
        return self.text() % dict(self.values)


def reason(code: str, **values: str | int | Reason) -> Reason:
    """The reason ``code`` naming ``values``."""
    return Reason(code, tuple(values.items()))
