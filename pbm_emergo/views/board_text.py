"""The sentences of a board mail in the reader's language.

The game core (:mod:`pbm_emergo.game`, :mod:`pbm_emergo.rules`) is pure and speaks English
only where it must (refusals, the records); what a board mail says about a board is worded
here, from the board's values (a :class:`~pbm_emergo.game.board.BoardState`, a
:class:`~pbm_emergo.rules.Position`), through the catalogs of :mod:`pbm_emergo.views.i18n`.
In English every sentence is, byte for byte, the one the game core writes (the English
message is the source text), so the English mail is the same either way.

Never translated: the sides (Ohs and Eks), userids, cell names, move notation and command
words.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pbm_emergo.game.board import BLACK, WHITE, BoardState
from pbm_emergo.game.clock import Deadlines
from pbm_emergo.game.ratings import GameRating
from pbm_emergo.game.sentences import ENGLISH, Said, result_reason
from pbm_emergo.rules import Column, Position, Termination, render_board
from pbm_emergo.rules.board import CELLS, ROWS
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said

SIDE_NAMES = {WHITE: "Ohs", BLACK: "Eks"}


def side_name(side: str) -> str:
    """``Ohs`` / ``Eks``: the sides keep their names in every language."""
    return SIDE_NAMES[side]


def _other(side: str) -> str:
    return BLACK if side == WHITE else WHITE


# --- how a game ended, whose turn it is ---------------------------------------------------


def result_text(state: BoardState) -> str:
    """How a finished game ended, in one sentence (the English is
    :func:`pbm_emergo.game.sentences.result_sentence`)."""
    return said(result_reason(state))


def status_text(
    state: BoardState, position: Position | None = None, upto: int | None = None
) -> str:
    """Where the game on ``state``'s board stands, in one sentence: how it ended, or whose
    turn it is; with ``upto`` (the board as of an earlier move, ``position`` the position
    then), whose turn it was after that move."""
    if position is None:
        position = state.position
    userid = state.seat(position.to_move).userid
    side = side_name(position.to_move)
    if upto is not None and upto < state.ply:
        return i18n._(
            "After move %(upto)s it was %(userid)s's turn (%(side)s).",
            upto=upto,
            userid=userid,
            side=side,
        )
    if not state.active:
        return result_text(state)
    return i18n._(
        "It is %(userid)s's turn (%(side)s): move %(number)s.",
        userid=userid,
        side=side,
        number=position.ply + 1,
    )


def as_of_text(upto: int, played: int) -> str:
    """The line of a board shown as of an earlier move."""
    return i18n.ngettext(
        "The board as of move %(upto)s; %(num)s move have been played.",
        "The board as of move %(upto)s; %(num)s moves have been played.",
        played,
        upto=upto,
    )


def decline_text(number: int) -> str:
    """How to say no to a new board (its first mail)."""
    return i18n._(
        "To decline this game, send 'emergo resign %(number)s YOURID PASSWORD' before your "
        "first move on it: the board is removed, unrated.",
        number=number,
    )


# --- the board's terms ----------------------------------------------------------------------


def options_text(state: BoardState) -> str:
    """The board's terms (in English also the game record file's:
    :func:`pbm_emergo.views.board_mail.options_text`)."""
    parts = [i18n._("rated") if state.rated else i18n._("unrated")]
    parts.append(
        i18n._("a blocked player draws")
        if state.blocked_rule == "draw"
        else i18n._("a blocked player loses")
    )
    parts.append(
        i18n._(
            "reminder after %(nag)s days, forfeit after %(forfeit)s days",
            nag=state.nag_days,
            forfeit=state.forfeit_days,
        )
    )
    if state.total_days is not None:
        parts.append(
            i18n.ngettext(
                "%(num)s day of thinking time each",
                "%(num)s days of thinking time each",
                state.total_days,
            )
        )
    terms = clock_terms_text(state.timebank_hours, state.increment_hours, state.weekends_off)
    if terms is not None:
        parts.append(terms)
    return "; ".join(parts)


def clock_terms_text(
    timebank_hours: int | None, increment_hours: int | None, weekends_off: bool
) -> str | None:
    """The time bank and the weekend pause in words (None: neither)."""
    parts = []
    if timebank_hours is not None:
        parts.append(
            i18n._(
                "a time bank of %(bank)s hours each, %(increment)s hours added a move (up to "
                "the bank's size)",
                bank=timebank_hours,
                increment=increment_hours or 0,
            )
        )
    if weekends_off:
        parts.append(
            i18n._("the clocks stop at weekends (Saturday and Sunday in each player's time zone)")
        )
    return "; ".join(parts) or None


def rating_lines(rating: GameRating, white: str, black: str) -> list[str]:
    """ "alice 1600 -> 1616 (+16)" for each player, the numbers as the reader writes them."""
    lines = []
    for name, before, change in (
        (white, rating.white_before, rating.white_change),
        (black, rating.black_before, rating.black_change),
    ):
        sign = "+" if change >= 0 else "-"
        lines.append(
            f"{name} {i18n.number(before)} -> {i18n.number(before + change)} "
            f"({sign}{i18n.number(abs(change))})"
        )
    return lines


# --- times ----------------------------------------------------------------------------------


def duration_text(delta: timedelta) -> str:
    """``2 d 3 h``, ``5 h 12 min``, ``less than a minute``."""
    minutes = int(delta.total_seconds() // 60)
    if minutes < 1:
        return i18n._("less than a minute")
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = []
    if days:
        parts.append(i18n._("%(days)s d", days=days))
    if hours:
        parts.append(i18n._("%(hours)s h", hours=hours))
    if minutes and not days:
        parts.append(i18n._("%(minutes)s min", minutes=minutes))
    return " ".join(parts)


def spent_text(delta: timedelta) -> str:
    """What is used or left of a clock: ``none`` or a duration."""
    return i18n._("none") if delta <= timedelta() else duration_text(delta)


def bank_line(userid: str, left: timedelta) -> str:
    return i18n._("%(userid)s %(left)s left in the time bank", userid=userid, left=spent_text(left))


def thinking_line(userid: str, used: timedelta, left: timedelta) -> str:
    return i18n._(
        "%(userid)s %(used)s used, %(left)s left",
        userid=userid,
        used=spent_text(used),
        left=spent_text(left),
    )


def clock_title_text(state: BoardState) -> str:
    """What the clock lines are: the thinking time, or the time bank, of each player."""
    if state.timebank_hours is not None:
        return i18n._(
            "Time bank (%(bank)s hours each, %(increment)s hours added a move)",
            bank=state.timebank_hours,
            increment=state.increment_hours or 0,
        )
    return i18n.ngettext(
        "Thinking time (%(num)s day each)",
        "Thinking time (%(num)s days each)",
        state.total_days or 0,
    )


def vacation_text(userid: str, until: datetime) -> str:
    return i18n._(
        "%(userid)s is on vacation until %(until)s: no reminders and no loss on time until "
        "then; their clock stops.",
        userid=userid,
        until=i18n.moment(until, "UTC"),
    )


def deadline_text(due: Deadlines) -> str:
    """When the reminder and the loss on time come, in the time zone of the player to move."""
    forfeit = i18n.moment(due.forfeit, due.timezone)
    if due.reminder is None:
        return i18n._(
            "If %(userid)s does not move, the game is lost on time from %(forfeit)s.",
            userid=due.userid,
            forfeit=forfeit,
        )
    return i18n._(
        "If %(userid)s does not move: a reminder at %(reminder)s, and the game is lost on "
        "time from %(forfeit)s.",
        userid=due.userid,
        reminder=i18n.moment(due.reminder, due.timezone),
        forfeit=forfeit,
    )


# --- votes ----------------------------------------------------------------------------------


def vote_text(asker: str, other: str, number: int, kind: str, first: int, last: int) -> str:
    """An open draw offer or undo request, and how to answer it."""
    values = {"asker": asker, "other": other, "number": number, "first": first, "last": last}
    if kind == "draw":
        return i18n._(
            "%(asker)s offers a draw; %(other)s may answer with 'emergo move %(number)s "
            "%(other)s PASSWORD accept' (or reject).",
            **values,
        )
    if first == last:
        return i18n._(
            "%(asker)s asks to take back move %(first)s; %(other)s may answer with 'emergo "
            "move %(number)s %(other)s PASSWORD accept' (or reject).",
            **values,
        )
    return i18n._(
        "%(asker)s asks to take back moves %(first)s to %(last)s; %(other)s may answer with "
        "'emergo move %(number)s %(other)s PASSWORD accept' (or reject).",
        **values,
    )


# --- the diagram's hands and key; the position in words -------------------------------------


def hands_lines(position: Position, white: str | None, black: str | None) -> list[str]:
    """``  Ohs (alice) inhand: 7``: the men in hand under the diagram."""
    lines = []
    for side, player in ((WHITE, white), (BLACK, black)):
        name = side_name(side)
        who = f"{name} ({player})" if player and player != name else name
        lines.append(
            "  " + i18n._("%(who)s inhand: %(count)s", who=who, count=position.in_hand(side))
        )
    return lines


def key_lines() -> list[str]:
    """What the diagram's codes mean (:data:`pbm_emergo.rules.render.KEY` in English)."""
    text = i18n._(
        "Key: . empty cell, o one Ohs man, x one Eks man; x5: a column of\n"
        "5 men with an Eks man on top (tall columns are spelled out above)."
    )
    return [f"  {line}" for line in text.split("\n")]


def piece_text(column: Column) -> str:
    """One piece: ``Ohs man``, ``Ohs column of 3, 1 Eks prisoner`` (the English is
    :func:`pbm_emergo.rules.words.piece_words`)."""
    side, enemy = side_name(column.owner), side_name(_other(column.owner))
    if not column.prisoners:
        if column.own == 1:
            return i18n._("%(side)s man", side=side)
        return i18n._("%(side)s column of %(own)s", side=side, own=column.own)
    if column.own == 1:
        return i18n.ngettext(
            "%(side)s man, %(num)s %(enemy)s prisoner",
            "%(side)s man, %(num)s %(enemy)s prisoners",
            column.prisoners,
            side=side,
            enemy=enemy,
        )
    return i18n.ngettext(
        "%(side)s column of %(own)s, %(num)s %(enemy)s prisoner",
        "%(side)s column of %(own)s, %(num)s %(enemy)s prisoners",
        column.prisoners,
        side=side,
        enemy=enemy,
        own=column.own,
    )


def cell_text(name: str, column: Column | None) -> str:
    """A cell in words, in the current locale, as the list board and the HTML picture say
    it: ``e4: Ohs column of 3, 1 Eks prisoner`` / ``e4: empty``."""
    if column is None:
        return i18n._("%(cell)s: empty", cell=name)
    return f"{name}: {piece_text(column)}"


def position_text(position: Position, last_move: str | None = None) -> str:
    """The position in words, row by row (the English is
    :func:`pbm_emergo.rules.position_words`, which tests read back against the engine)."""
    columns = position.columns()
    lines: list[str] = []
    for row in ROWS:
        cells = [cell for cell in CELLS if cell[0] == row and cell in columns]
        if not cells:
            lines.append(i18n._("Row %(row)s: empty", row=row))
            continue
        lines.append(i18n._("Row %(row)s:", row=row))
        lines.extend(f"  {cell}: {piece_text(columns[cell])}" for cell in cells)
    lines.append(
        i18n._(
            "In hand: Ohs %(white)s, Eks %(black)s",
            white=position.in_hand(WHITE),
            black=position.in_hand(BLACK),
        )
    )
    if last_move:
        lines.append(
            i18n._(
                "Last move: %(move)s, by %(side)s",
                move=last_move,
                side=side_name(_other(position.to_move)),
            )
        )
    count = len(position.legal_moves())
    lines.append(
        i18n.ngettext(
            "%(side)s to move, %(num)s legal move",
            "%(side)s to move, %(num)s legal moves",
            count,
            side=side_name(position.to_move),
        )
    )
    return "\n".join(lines) + "\n"


__all__ = [
    "as_of_text",
    "bank_line",
    "cell_text",
    "clock_title_text",
    "deadline_text",
    "diagram_text",
    "drawn_text",
    "in_progress_text",
    "preview_status_text",
    "reason_text",
    "to_move_text",
    "unrated_text",
    "won_text",
    "decline_text",
    "duration_text",
    "hands_lines",
    "headline_text",
    "key_lines",
    "options_text",
    "piece_text",
    "position_text",
    "rating_lines",
    "result_text",
    "side_name",
    "spent_text",
    "status_text",
    "thinking_line",
    "vacation_text",
    "vote_text",
]


def diagram_text(
    position: Position, white: str | None, black: str | None, *, turned: bool = False
) -> str:
    """The diamond (:func:`pbm_emergo.rules.render_board`), its men in hand and its key in
    the reader's language."""
    drawn = render_board(position, white, black, key=False, hands=False, turned=turned)
    return drawn + "\n".join([*hands_lines(position, white, black), "", *key_lines()]) + "\n"


# --- the tables and answers about boards ------------------------------------------------------


def reason_text(reason: str) -> str:
    """How a game ended, in a word or two (the English is the stored word:
    :class:`~pbm_emergo.rules.Termination`)."""
    words: dict[str, str] = {
        Termination.ELIMINATED: i18n._("eliminated"),
        Termination.BLOCKED: i18n._("blocked"),
        Termination.NO_LEGAL_ENTRY: i18n._("no legal entry"),
        Termination.REPETITION: i18n._("threefold repetition"),
        Termination.RESIGNED: i18n._("resigned"),
        Termination.DRAW_AGREED: i18n._("draw agreed"),
        Termination.FORFEIT: i18n._("forfeit"),
        Termination.ADJUDICATED: i18n._("adjudicated"),
        Termination.VOIDED: i18n._("void"),
    }
    return words.get(reason, reason)


def to_move_text(userid: str) -> str:
    """A games table's status of a game under way: ``alice to move``."""
    return i18n._("%(userid)s to move", userid=userid)


def won_text(winner: str, reason: str | None) -> str:
    """``alice won (resigned)``; without a reason ``alice won``."""
    if reason:
        return i18n._("%(winner)s won (%(reason)s)", winner=winner, reason=reason_text(reason))
    return i18n._("%(winner)s won", winner=winner)


def drawn_text(reason: str | None) -> str:
    """``draw (draw agreed)``; without a reason ``draw``."""
    if reason:
        return i18n._("draw (%(reason)s)", reason=reason_text(reason))
    return i18n._("draw")


def unrated_text() -> str:
    return i18n._("unrated")


def in_progress_text(userid: str, side: str, number: int) -> str:
    """A record's state of a game under way."""
    return i18n._(
        "In progress: %(userid)s (%(side)s) to play move %(number)s.",
        userid=userid,
        side=side,
        number=number,
    )


def preview_status_text(
    to_move: str, side: str, number: int, winner: str | None, reason: str | None, over: bool
) -> str:
    """What a preview's moves would lead to."""
    if not over:
        return i18n._(
            "Then it would be %(userid)s's turn (%(side)s): move %(number)s.",
            userid=to_move,
            side=side,
            number=number,
        )
    if winner is None:
        return i18n._(
            "Then the game would be a draw (%(reason)s).", reason=reason_text(reason or "")
        )
    return i18n._(
        "Then %(winner)s would win (%(reason)s).", winner=winner, reason=reason_text(reason or "")
    )


# --- the headline of a board mail -------------------------------------------------------------


def _said_word(kind: str, values: dict[str, str | int]) -> str:
    """One sentence of :data:`pbm_emergo.game.sentences.ENGLISH` in the reader's language."""
    if kind == "signed_off_resigned":
        return i18n._("%(userid)s signed off and resigned this game.", **values)
    if kind == "closed_account_resigned":
        return i18n._("%(userid)s closed their account and resigned this game.", **values)
    if kind == "withdrew_resigned":
        return i18n._("%(userid)s withdrew from the event %(event)s and resigns.", **values)
    if kind == "played":
        return i18n._("%(userid)s played %(move)s (move %(number)s).", **values)
    if kind == "queued_played":
        return i18n._(
            "%(userid)s's queued move %(move)s was played (move %(number)s, Auto).", **values
        )
    if kind == "forced_played":
        return i18n._(
            "%(userid)s's only legal move %(move)s was played (move %(number)s, Forced).",
            **values,
        )
    if kind == "offers_draw":
        return i18n._("%(userid)s offers a draw.", **values)
    if kind == "asks_undo_one":
        return i18n._("%(userid)s asks to take back move %(first)s.", **values)
    if kind == "asks_undo_many":
        return i18n._("%(userid)s asks to take back moves %(first)s to %(last)s.", **values)
    if kind == "rejected_draw":
        return i18n._("%(userid)s rejected %(other)s's draw offer.", **values)
    if kind == "rejected_undo":
        return i18n._("%(userid)s rejected %(other)s's request to take back a move.", **values)
    if kind == "accepted_draw":
        return i18n._("%(userid)s accepted %(other)s's draw offer.", **values)
    if kind == "undo_accepted_one":
        return i18n._(
            "%(userid)s accepted: move %(first)s taken back. It is %(other)s's turn again.",
            **values,
        )
    if kind == "undo_accepted_many":
        return i18n._(
            "%(userid)s accepted: moves %(first)s to %(last)s taken back. It is %(other)s's "
            "turn again.",
            **values,
        )
    return ENGLISH[kind] % values


def headline_text(headline: str | None) -> str | None:
    """A board mail's headline in the reader's language where the game said it as a value
    (:class:`~pbm_emergo.game.sentences.Said`); other headlines as they are."""
    if isinstance(headline, Said):
        return headline.words(_said_word)
    return headline
