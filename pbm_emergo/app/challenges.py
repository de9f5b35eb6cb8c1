"""Challenges: opening a board between two players, and what a player lets challenges do.

A player accepts every challenge (the default), refuses every one, or refuses them once
they have N active boards; a refused challenge gets an error to the challenger, the
challenged player is not told. A player may also say they seek N more games: each
challenge of them takes one off.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbm_emergo.app.accounts import check_reachable, is_registered, require_player
from pbm_emergo.app.boards import BoardState, board_mails, load_state, seat_of
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.robots import check_robot_games
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import blocks, challenges, games, ratings
from pbm_emergo.db.models import (
    BOARD_ACTIVE,
    DEFAULT_FORFEIT_DAYS,
    DEFAULT_NAG_DAYS,
    Board,
    Player,
)
from pbm_emergo.db.reads import active_board_counts
from pbm_emergo.game import reasons as game_reasons
from pbm_emergo.game.board_changes import BoardCreated, ChallengePolicySet, SeekingSet, SeekTaken
from pbm_emergo.game.clock import (
    MAX_TIME_BANK_HOURS,
    MIN_FORFEIT_DAYS,
    MIN_NAG_DAYS,
    hours_of,
    time_bank_fault,
)
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.numbers import MAX_LIMIT as MAX_LIMIT
from pbm_emergo.game.numbers import MAX_SEEK as MAX_SEEK
from pbm_emergo.game.rematch import rematch_terms
from pbm_emergo.rules import Position
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render

OPTION = re.compile(r"--?([a-z]+)(?:=(\S+))?", re.IGNORECASE)
MAX_DAYS = 365


@dataclass
class ChallengeOptions:
    rated: bool = True
    blocked_rule: str = "loss"
    nag_days: int = DEFAULT_NAG_DAYS
    forfeit_days: int = DEFAULT_FORFEIT_DAYS
    total_days: int | None = None
    timebank_hours: int | None = None
    increment_hours: int | None = None
    weekends_off: bool = False


def parse_options(words: Sequence[str]) -> ChallengeOptions:
    """The options of a challenge; a Refused names the first one that is wrong. The clock
    options have floors (:mod:`pbm_emergo.game.clock`): a challenge starts its game at once,
    without the challenged player's consent, so its terms must leave them time to hear of
    it before they can lose on time. Options below a floor are refused, not raised to it,
    so that no game starts on terms the challenger did not write."""
    options = ChallengeOptions()
    for word in words:
        match = OPTION.fullmatch(word)
        name = match[1].lower() if match else ""
        value = match[2].lower() if match and match[2] else None
        if name in ("unrated", "rated") and value is None:
            options.rated = name == "rated"
        elif name == "blocked" and value in ("draw", "loss"):
            options.blocked_rule = value
        elif name == "weekends" and value is None:
            options.weekends_off = True
        elif name in ("timebank", "increment") and value is not None:
            hours = _hours(word, value)
            if name == "timebank":
                options.timebank_hours = hours
            else:
                options.increment_hours = hours
        elif name in ("nagtime", "forfeittime", "totaltime") and value is not None:
            days = _days(word, name, value)
            if name == "nagtime":
                options.nag_days = days
            elif name == "totaltime":
                options.total_days = days
            else:
                options.forfeit_days = days
        else:
            raise Refused(
                i18n._(
                    "Unknown option '%(word)s': the options are -unrated, -blocked=draw, "
                    "--nagtime=DAYS, --forfeittime=DAYS, --totaltime=DAYS, -timebank=240h, "
                    "-increment=36h and -weekends.",
                    word=word[:40],
                )
            )
    if options.nag_days >= options.forfeit_days:
        raise Refused(
            i18n._(
                "The reminder time (--nagtime=%(nag)s) must be shorter than the forfeit time "
                "(--forfeittime=%(forfeit)s), so that the reminder comes before the game can "
                "be lost on time; no board was started.",
                nag=options.nag_days, forfeit=options.forfeit_days,
            )
        )
    check_time_bank(options.timebank_hours, options.increment_hours)
    return options


def check_time_bank(timebank_hours: int | None, increment_hours: int | None) -> None:
    """Refused unless a time bank's terms hold (:func:`~pbm_emergo.game.clock.time_bank_fault`)."""
    fault = time_bank_fault(timebank_hours, increment_hours)
    if fault is not None:
        raise Refused(said(game_reasons.refusal(f"{fault.code}_no_board", **dict(fault.values))))


def _hours(word: str, value: str) -> int:
    """The hours of ``-timebank=`` or ``-increment=``: ``240h``, ``10d`` or ``10`` (days)."""
    hours = hours_of(value)
    if hours is None or hours > MAX_TIME_BANK_HOURS:
        raise Refused(
            i18n._(
                "The option %(word)s needs a time in hours (240h) or days (10d), at most "
                "%(most)s days; no board was started.",
                word=word[:40], most=MAX_DAYS,
            )
        )
    return hours


def _days(word: str, name: str, value: str) -> int:
    """The number of days of a clock option, within its floor and MAX_DAYS."""
    floor = MIN_NAG_DAYS if name == "nagtime" else MIN_FORFEIT_DAYS
    if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= MAX_DAYS:
        raise Refused(
            i18n._(
                "The option %(word)s needs a number of days from %(floor)s to %(most)s.",
                word=word[:40], floor=floor, most=MAX_DAYS,
            )
        )
    days = int(value)
    if days < floor:
        raise Refused(
            i18n._(
                "The option %(word)s is too short: the total thinking time of a game is at "
                "least %(floor)s days, so that nobody loses a game on time before a reminder "
                "can reach them; no board was started.",
                word=word[:40], floor=floor,
            )
            if name == "totaltime"
            else i18n._(
                "The option %(word)s is too short: the forfeit time of a game is at least "
                "%(floor)s days, so that nobody loses a game on time before a reminder can "
                "reach them; no board was started.",
                word=word[:40], floor=floor,
            )
        )
    return days


def challenge(
    ctx: UnitOfWork,
    white_userid: str,
    black_userid: str,
    options: ChallengeOptions | Sequence[str] = (),
    *,
    challenger: Player | None = None,
    headline: str | Callable[[], str] | None = None,
) -> Result:
    """Open a new board: ``white_userid`` plays Ohs and moves first. The sender must be a
    registered address of one of the two (the challenger), unless ``challenger`` is given:
    one of the two who logged in with their password (a rematch). ``options``: parsed, or
    the option words (checked after the players, as a mail's errors come in that order).
    ``headline``: what the new board's mail says first (else that a new game starts)."""
    white = require_player(ctx, white_userid)
    black = require_player(ctx, black_userid)
    if white.id == black.id:
        raise Refused(i18n._("A game needs two different players."))
    if not isinstance(options, ChallengeOptions):
        options = parse_options(options)
    if challenger is not None:
        if challenger.id not in (white.id, black.id):
            raise Refused(
                i18n._(
                    "Only %(white)s or %(black)s can start this game.",
                    white=white.userid, black=black.userid,
                )
            )
    elif not ctx.sender_trusted:
        # A challenge is authorised by the sender's address alone.
        raise Refused(
            i18n._(
                "Your mail failed the DMARC check of its sender's domain, so its From "
                "address may be forged and cannot start a game; send the challenge from "
                "your registered address through your own mail provider."
            )
        )
    if challenger is not None:
        pass
    elif is_registered(white, ctx.sender):
        challenger = white
    elif is_registered(black, ctx.sender):
        challenger = black
    else:
        raise Refused(
            i18n._(
                "Only %(white)s or %(black)s can start this game: send the challenge from "
                "one of their registered addresses.",
                white=white.userid, black=black.userid,
            )
        )
    # The challenged player may refuse challenges (the challenger is told); a challenge
    # answers one of the games they seek.
    challenged = black if challenger.id == white.id else white
    check_challenge(ctx, challenged, challenger=challenger)
    check_robot_games(ctx, white, black)
    note_challenge(ctx, challenged)
    # The board takes the next number; the write re-checks that nobody took it first
    # (run inside the write transaction, nobody can).
    number = games.last_board_number(ctx.session, lock=ctx.locks) + 1
    now = ctx.now
    ctx.write(BoardCreated(
        number, white.id, black.id, now, rated=options.rated,
        blocked_rule=options.blocked_rule, nag_days=options.nag_days,
        forfeit_days=options.forfeit_days, total_days=options.total_days,
        timebank_hours=options.timebank_hours, increment_hours=options.increment_hours,
        weekends_off=options.weekends_off,
    ))  # fmt: skip
    start = Position()
    state = BoardState(
        number=number, white=seat_of(white), black=seat_of(black), rated=options.rated,
        blocked_rule=options.blocked_rule, nag_days=options.nag_days,
        forfeit_days=options.forfeit_days, created_at=now, status=BOARD_ACTIVE,
        ply=start.ply, to_move=start.to_move, winner=None, outcome_reason=None,
        position=start, moves=(), votes=(), rating=None, total_days=options.total_days,
        timebank_hours=options.timebank_hours, increment_hours=options.increment_hours,
        weekends_off=options.weekends_off,
    )
    replies = board_mails(
        ctx,
        state,
        comment=ctx.comment,
        commenter=challenger.userid,
        new_board=True,
        headline=headline or (
            lambda: i18n._(
                "A new game: %(white)s plays Ohs (o) and moves first, %(black)s plays Eks (x).",
                white=white.userid, black=black.userid,
            )
        ),
    )
    return Result(
        summary=f"started board {number}",
        summary_said=i18n._("started board %(board)s", board=number),
        replies=replies,
    )


def check_challenge(
    ctx: UnitOfWork, challenged: Player, *, challenger: Player | None = None
) -> None:
    """Raise the challenger's error if ``challenged`` refuses this challenge. A block of
    ``challenger`` is refused in the words of a refusal of every challenge, so that the
    challenger cannot tell it from one."""
    check_reachable(challenged)
    if challenged.refuses_challenges or (
        challenger is not None and blocks.blocks(ctx.session, challenged.id, challenger.id)
    ):
        raise Refused(
            i18n._(
                "%(userid)s does not accept challenges at the moment, so no board was started.",
                userid=challenged.userid,
            )
        )
    limit = challenged.board_limit
    if limit is not None and challenges.active_boards(ctx.session, challenged.id) >= limit:
        raise Refused(
            i18n.ngettext(
                "%(userid)s plays as many games as they want at the moment (%(num)s active "
                "board), so no board was started; try again when one of them has ended.",
                "%(userid)s plays as many games as they want at the moment (%(num)s active "
                "boards), so no board was started; try again when one of them has ended.",
                limit,
                userid=challenged.userid,
            )
        )


def note_challenge(ctx: UnitOfWork, challenged: Player) -> None:
    """A challenge of ``challenged`` answers one of the games they seek, if any."""
    if challenged.seeking > 0:
        ctx.write(SeekTaken(challenged.id))


# --- what a player lets challenges do ---------------------------------------------------


def policy_text(userid: str, refuses: bool, limit: int | None, active: int) -> str:
    if refuses:
        return i18n._("%(userid)s refuses every challenge.", userid=userid)
    if limit is None:
        return i18n._("%(userid)s accepts every challenge.", userid=userid)
    return i18n.ngettext(
        "%(userid)s accepts challenges while they have fewer than %(num)s active board "
        "(now %(active)s).",
        "%(userid)s accepts challenges while they have fewer than %(num)s active boards "
        "(now %(active)s).",
        limit,
        userid=userid,
        active=active,
    )


# From the player as read: (refuses every challenge, the limit of active boards).
Policy = Callable[[Player], tuple[bool, int | None]]


def accept_challenges(ctx: UnitOfWork, player: Player) -> Result:
    """Every challenge of the player starts a board again (no refusal, no limit)."""
    return _set_policy(ctx, player, lambda player: (False, None))


def reject_challenges(ctx: UnitOfWork, player: Player) -> Result:
    """Every challenge of the player is refused (a limit set stays for later)."""
    return _set_policy(ctx, player, lambda player: (True, player.board_limit))


def limit_challenges(ctx: UnitOfWork, player: Player, limit: int | None) -> Result:
    """Challenges are refused while the player has ``limit`` active boards or more;
    None removes the limit (an ``emergo reject`` stays), a number ends a refusal."""
    if limit is None:
        return _set_policy(ctx, player, lambda player: (player.refuses_challenges, None))
    return _set_policy(ctx, player, lambda player: (False, limit))


def _set_policy(ctx: UnitOfWork, player: Player, policy: Policy) -> Result:
    refuses, limit = policy(player)
    ctx.write(ChallengePolicySet(player.id, refuses, limit))
    active = challenges.active_boards(ctx.session, player.id)
    with i18n.speaking(None):  # the operator's log
        summary = policy_text(player.userid, refuses, limit, active).rstrip(".")
    text = policy_text(player.userid, refuses, limit, active)
    return Result(
        summary=summary,
        summary_said=text.rstrip("."),
        answer=text
        + "\n\n"
        + i18n._("A refused challenge gets an error mail to the challenger; you are not told.")
        + "\n",
        answer_subject=f"Emergo challenges: {player.userid}",
    )


# --- games sought ---------------------------------------------------------------------


def seek(ctx: UnitOfWork, player: Player, count: int) -> Result:
    """The player seeks ``count`` more games (0: none)."""
    ctx.write(SeekingSet(player.id, count))
    if count:
        wanted = f"{count} more game{'s' if count != 1 else ''}"
        text = i18n.ngettext(
            "%(userid)s is seeking %(num)s more game. Others see it in 'emergo seeks' and "
            "'emergo standings'; each challenge of you takes one off.",
            "%(userid)s is seeking %(num)s more games. Others see it in 'emergo seeks' and "
            "'emergo standings'; each challenge of you takes one off.",
            count,
            userid=player.userid,
        )
        summary = f"{player.userid} seeks {wanted}"
        summary_said = i18n.ngettext(
            "%(userid)s seeks %(num)s more game",
            "%(userid)s seeks %(num)s more games",
            count,
            userid=player.userid,
        )
    else:
        text = i18n._("%(userid)s is no longer seeking games.", userid=player.userid)
        summary = f"{player.userid} is no longer seeking games"
        summary_said = text.rstrip(".")
    return Result(
        summary=summary,
        summary_said=summary_said,
        answer=text + "\n",
        answer_subject=f"Emergo seek: {player.userid}",
    )


def seekers(ctx: UnitOfWork) -> Result:
    """The players seeking games, with their ratings and active boards."""
    found = challenges.seekers(ctx.session)
    active = active_board_counts(ctx.session, [p.id for p in found])
    rows = [
        {
            "userid": p.userid,
            "seeking": p.seeking,
            "rating": ratings.rating_text(p.rating, ratings.is_provisional(p)),
            "active": active.get(p.id, 0),
        }
        for p in found
    ]
    return Result(
        summary=f"sent the list of players seeking games ({len(rows)})",
        summary_said=i18n._("sent the list of players seeking games (%(count)s)", count=len(rows)),
        answer=render(
            "seeks.txt.j2", rows=rows, provisional_deviation=ratings.PROVISIONAL_DEVIATION
        ),
        answer_subject="Emergo seeks",
    )


def rematch(ctx: UnitOfWork, board: Board, player: Player) -> Result:
    """``emergo rematch``: a challenge of the other player of ``board``'s finished game by
    ``player`` (logged in), colours swapped, the same options
    (:func:`pbm_emergo.game.rematch.rematch_terms`)."""
    try:
        terms = rematch_terms(load_state(ctx.session, board), player.id)
    except Refusal as refusal:
        raise Refused(said(refusal.reason_value or refusal.reason), board=board.number) from None
    options = ChallengeOptions(
        rated=terms.rated, blocked_rule=terms.blocked_rule, nag_days=terms.nag_days,
        forfeit_days=terms.forfeit_days, total_days=terms.total_days,
        timebank_hours=terms.timebank_hours, increment_hours=terms.increment_hours,
        weekends_off=terms.weekends_off,
    )
    result = challenge(
        ctx, terms.white, terms.black, options, challenger=player,
        headline=lambda: i18n._(
            "A rematch of board %(board)s, %(asked)s asked: %(white)s plays Ohs (o) and "
            "moves first, %(black)s plays Eks (x). %(challenged)s accepts by moving, or "
            "declines by resigning before their first move.",
            board=terms.of_board, asked=player.userid, white=terms.white, black=terms.black,
            challenged=terms.challenged,
        ),
    )
    result.summary = f"{result.summary} (a rematch of board {terms.of_board})"
    if result.summary_said is not None:
        result.summary_said = i18n._(
            "%(summary)s (a rematch of board %(board)s)",
            summary=result.summary_said,
            board=terms.of_board,
        )
    return result
