"""Challenges: opening a board between two players, and what a player lets challenges do.

A player accepts every challenge (the default), refuses every one, or refuses them once
they have N active boards; a refused challenge gets an error to the challenger, the
challenged player is not told. A player may also say they seek N more games: each
challenge of them takes one off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pbm_emergo.app.accounts import check_reachable, require_player
from pbm_emergo.app.boards import board_mails
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.robots import check_robot_games
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import blocks, challenges, games, ratings
from pbm_emergo.db.reads import active_board_counts
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.snapshot import PlayerRead
from pbm_emergo.game.board import BOARD_ACTIVE, BoardState
from pbm_emergo.game.board_changes import BoardCreated, ChallengePolicySet, SeekingSet, SeekTaken
from pbm_emergo.game.challenges import (
    ChallengeTerms,
    Contender,
    challenge_refusal,
    challenge_terms,
    challenger_of,
)
from pbm_emergo.game.decision import Refusal
from pbm_emergo.game.numbers import MAX_LIMIT as MAX_LIMIT
from pbm_emergo.game.numbers import MAX_SEEK as MAX_SEEK
from pbm_emergo.game.reasons import refusal
from pbm_emergo.game.rematch import rematch_terms
from pbm_emergo.rules import Position
from pbm_emergo.rules.reasons import Reason
from pbm_emergo.views import i18n
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render


def challenge(
    ctx: UnitOfWork,
    white_userid: str,
    black_userid: str,
    options: ChallengeTerms | Sequence[str] = (),
    *,
    challenger: Account | None = None,
    headline: str | Callable[[], str] | None = None,
) -> Result:
    """Open a new board: ``white_userid`` plays Ohs and moves first. The sender must be a
    registered address of one of the two (the challenger), unless ``challenger`` is given:
    one of the two who logged in with their password (a rematch). ``options``: the terms,
    or the option words (checked after the players, as a mail's errors come in that
    order). ``headline``: what the new board's mail says first (else that a new game
    starts). The decisions: :mod:`pbm_emergo.game.challenges`."""
    white_read = require_player(ctx, white_userid)
    black_read = require_player(ctx, black_userid)
    white, black = white_read.account, black_read.account
    contenders = {p.account.id: p for p in (white_read, black_read)}
    if white.id == black.id:
        raise Refused(said(refusal("challenge_same_player")))
    terms = options if isinstance(options, ChallengeTerms) else challenge_terms(options)
    if isinstance(terms, Reason):
        raise Refused(said(terms))
    chosen = challenger_of(
        _contender(white), _contender(black), sender=ctx.sender,
        sender_trusted=ctx.sender_trusted,
        logged_in=None if challenger is None else challenger.id,
    )
    if isinstance(chosen, Reason):
        raise Refused(said(chosen))
    starter = contenders[chosen.id].account
    # The challenged player may refuse challenges (the challenger is told); a challenge
    # answers one of the games they seek.
    challenged = black_read if starter.id == white.id else white_read
    check_challenge(ctx, challenged, challenger=starter)
    check_robot_games(ctx, white, black)
    note_challenge(ctx, challenged)
    # The board takes the next number, and the write re-checks that nobody took it first;
    # or the number set aside for it after it lost one that way.
    number, reserved = ctx.board_number, True
    if number is None:
        number, reserved = games.last_board_number(ctx.session) + 1, False
    ctx.board_number = None
    now = ctx.now
    ctx.write(BoardCreated(number, white.id, black.id, now, terms, reserved=reserved))
    start = Position()
    state = BoardState(
        number=number, white=white_read.seat, black=black_read.seat, rated=terms.rated,
        blocked_rule=terms.blocked_rule, nag_days=terms.nag_days,
        forfeit_days=terms.forfeit_days, created_at=now, status=BOARD_ACTIVE,
        ply=start.ply, to_move=start.to_move, winner=None, outcome_reason=None,
        position=start, moves=(), votes=(), rating=None, total_days=terms.total_days,
        timebank_hours=terms.timebank_hours, increment_hours=terms.increment_hours,
        weekends_off=terms.weekends_off,
    )
    replies = board_mails(
        ctx,
        state,
        comment=ctx.comment,
        commenter=starter.userid,
        new_board=True,
        headline=headline or (
            lambda: i18n._(
                "A new game: %(white)s plays Ohs (o) and moves first, %(black)s plays Eks (x).",
                white=white.userid, black=black.userid,
            )
        ),
    )
    return Result(
        said=lambda: i18n._("started board %(board)s", board=number),
        replies=replies,
    )


def _contender(player: Account) -> Contender:
    return Contender(player.id, player.userid, player.address_keys)


def check_challenge(
    ctx: UnitOfWork, challenged: PlayerRead, *, challenger: Account | None = None
) -> None:
    """Raise the challenger's error if ``challenged`` refuses this challenge
    (:func:`~pbm_emergo.game.challenges.challenge_refusal`)."""
    account = challenged.account
    check_reachable(account)
    limit = challenged.board_limit
    refused = challenge_refusal(
        account.userid,
        refuses=challenged.refuses_challenges,
        blocks_challenger=challenger is not None
        and not challenged.refuses_challenges
        and blocks.blocks(ctx.session, account.id, challenger.id),
        limit=limit,
        active=0 if limit is None else challenges.active_boards(ctx.session, account.id),
    )
    if refused is not None:
        raise Refused(said(refused))


def note_challenge(ctx: UnitOfWork, challenged: PlayerRead) -> None:
    """A challenge of ``challenged`` answers one of the games they seek, if any."""
    if challenged.seeking > 0:
        ctx.write(SeekTaken(challenged.account.id))


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
Policy = Callable[[PlayerRead], tuple[bool, int | None]]


def accept_challenges(ctx: UnitOfWork, player: PlayerRead) -> Result:
    """Every challenge of the player starts a board again (no refusal, no limit)."""
    return _set_policy(ctx, player, lambda player: (False, None))


def reject_challenges(ctx: UnitOfWork, player: PlayerRead) -> Result:
    """Every challenge of the player is refused (a limit set stays for later)."""
    return _set_policy(ctx, player, lambda player: (True, player.board_limit))


def limit_challenges(ctx: UnitOfWork, player: PlayerRead, limit: int | None) -> Result:
    """Challenges are refused while the player has ``limit`` active boards or more;
    None removes the limit (an ``emergo reject`` stays), a number ends a refusal."""
    if limit is None:
        return _set_policy(ctx, player, lambda player: (player.refuses_challenges, None))
    return _set_policy(ctx, player, lambda player: (False, limit))


def _set_policy(ctx: UnitOfWork, player: PlayerRead, policy: Policy) -> Result:
    refuses, limit = policy(player)
    ctx.write(ChallengePolicySet(player.id, refuses, limit))
    active = challenges.active_boards(ctx.session, player.id)
    text = policy_text(player.userid, refuses, limit, active)
    return Result(
        said=lambda: policy_text(player.userid, refuses, limit, active).rstrip("."),
        answer=text
        + "\n\n"
        + i18n._("A refused challenge gets an error mail to the challenger; you are not told.")
        + "\n",
        answer_subject=f"Emergo challenges: {player.userid}",
    )


# --- games sought ---------------------------------------------------------------------


def seek(ctx: UnitOfWork, player: Account, count: int) -> Result:
    """The player seeks ``count`` more games (0: none)."""
    ctx.write(SeekingSet(player.id, count))
    if count:
        text = i18n.ngettext(
            "%(userid)s is seeking %(num)s more game. Others see it in 'emergo seeks' and "
            "'emergo standings'; each challenge of you takes one off.",
            "%(userid)s is seeking %(num)s more games. Others see it in 'emergo seeks' and "
            "'emergo standings'; each challenge of you takes one off.",
            count,
            userid=player.userid,
        )
    else:
        text = i18n._("%(userid)s is no longer seeking games.", userid=player.userid)

    def summary() -> str:
        if count:
            return i18n.ngettext(
                "%(userid)s seeks %(num)s more game",
                "%(userid)s seeks %(num)s more games",
                count,
                userid=player.userid,
            )
        return i18n._("%(userid)s is no longer seeking games.", userid=player.userid).rstrip(".")

    return Result(
        said=summary,
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
        said=lambda: i18n._("sent the list of players seeking games (%(count)s)", count=len(rows)),
        answer=render(
            "seeks.txt.j2", rows=rows, provisional_deviation=ratings.PROVISIONAL_DEVIATION
        ),
        answer_subject="Emergo seeks",
    )


def rematch(ctx: UnitOfWork, state: BoardState, player: Account) -> Result:
    """``emergo rematch``: a challenge of the other player of the finished game ``state``
    by ``player`` (logged in), colours swapped, the same options
    (:func:`pbm_emergo.game.rematch.rematch_terms`)."""
    try:
        terms = rematch_terms(state, player.id)
    except Refusal as refusal:
        raise Refused(said(refusal.reason_value or refusal.reason), board=state.number) from None
    result = challenge(
        ctx, terms.white, terms.black, terms.terms, challenger=player,
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
