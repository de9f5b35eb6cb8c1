"""Leagues and tournaments: creating an event, entering and leaving it, its table, and the
steps that run it (:func:`advance_events`, called by the server's scheduler: each step a
runner's operation, :func:`event_step`; then :func:`tell_news`, which mails what the steps
made news once they are committed).

An event opens its first round at its start time, or as soon as it is full (or when the
operator starts it). Each round's boards open with the event's options and every player
gets the board mail; a round ends when its games have ended, and the next one opens; when
the last round ends, every player gets the final table. A player who withdraws resigns
their boards under way and loses the games of the rounds still to come; a loss on time
is a loss like any other. A league's season ends by opening the next one: the top two of
each division go up, the sixth and below go down (:mod:`pbm_emergo.game.tournaments`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from pbm_emergo.app.boards import board_mails
from pbm_emergo.app.messages import Reply
from pbm_emergo.app.play import resign_all
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.runner import Runner, Work
from pbm_emergo.app.support import CarriedOut
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import events, games, players
from pbm_emergo.db.reads.accounts import Account
from pbm_emergo.db.reads.events import (
    EntrantRead,
    EventRead,
    NewsRead,
    PairingRead,
    active_boards_in,
    entrants_of,
    entries_of,
    event_by_id,
    events_with_status,
    news_to_tell,
    pairings_of,
    read_event,
)
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.db.session import SessionFactory
from pbm_emergo.db.types import utcnow
from pbm_emergo.game.board import BOARD_FINISHED, WHITE
from pbm_emergo.game.board_changes import BoardCreated
from pbm_emergo.game.challenges import ChallengeTerms
from pbm_emergo.game.event_changes import (
    DivisionsSet,
    EntryAdded,
    EntryWithdrawn,
    EventCreated,
    EventStatusSet,
    NewsTold,
    NewsToTell,
    PairingDecided,
    PairingPlanned,
    RoundFinished,
    RoundOpened,
    SeasonOpened,
)
from pbm_emergo.game.event_terms import (
    DEFAULT_DIVISION,
    DEFAULT_SWISS_ROUNDS,
    PRIVATE_EVENTS_AT_A_TIME,
    EventTerms,
    event_name_fault,
    event_terms_fault,
    planned_size,
    private_terms,
)
from pbm_emergo.game.sentences import Said
from pbm_emergo.game.tournaments import (
    BLACK_WON,
    BYE,
    DRAWN,
    EVENT_CANCELLED,
    EVENT_FINISHED,
    EVENT_OPEN,
    EVENT_RUNNING,
    EVENT_UNDER_WAY,
    KNOCKOUT,
    LEAGUE,
    NEWS_BOARD,
    NEWS_CANCELLED,
    NEWS_FINISHED,
    ROBOTS_NONE,
    ROUND_ROBIN,
    SWISS,
    WHITE_WON,
    Game,
    Line,
    berger_rounds,
    decider,
    first_knockout_round,
    knockout_rounds,
    league_divisions,
    match_games,
    match_winner,
    next_knockout_round,
    next_season,
    points_text,
    standings,
)
from pbm_emergo.robot import ROBOTS
from pbm_emergo.rules.reasons import Reason
from pbm_emergo.views import event_text as words
from pbm_emergo.views import i18n
from pbm_emergo.views.board_mail import board_link
from pbm_emergo.views.reasons import said
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from pbm_emergo.config import Config
    from pbm_emergo.db.session import Session

log = logging.getLogger(__name__)

def check_name(name: str) -> str:
    """``name``, or a Refused when it cannot be an event's name."""
    fault = event_name_fault(name)
    if fault is not None:
        raise Refused(said(fault))
    return name


def check_terms(terms: EventTerms) -> EventTerms:
    """The terms, or a Refused naming the first that is wrong (see
    :func:`pbm_emergo.game.event_terms.event_terms_fault`)."""
    fault = event_terms_fault(terms)
    if fault is not None:
        raise Refused(said(fault))
    return terms


def create_event(
    ctx: UnitOfWork,
    name: str,
    terms: EventTerms,
    *,
    owner: Account | None = None,
    join_password_hash: str | None = None,
) -> Result:
    """A new open event ``name`` on ``terms`` (``owner``: a player's private event, joined
    with the password of ``join_password_hash``)."""
    check_name(name)
    check_terms(terms)
    if read_event(ctx.session, name) is not None:
        raise Refused(i18n._("There is already an event called %(name)s.", name=name))
    rounds, max_players = planned_size(terms)
    ctx.write(EventCreated(
        name, terms.event_format, ctx.now, rounds=rounds, max_players=max_players,
        starts_at=terms.starts_at, nag_days=terms.nag_days, forfeit_days=terms.forfeit_days,
        total_days=terms.total_days, robots=terms.robots, rated=terms.rated,
        owner_id=owner.id if owner else None, join_password_hash=join_password_hash,
        league=name if terms.event_format == LEAGUE else None,
        season=1 if terms.event_format == LEAGUE else None,
        timebank_hours=terms.timebank_hours, increment_hours=terms.increment_hours,
        weekends_off=terms.weekends_off,
    ))  # fmt: skip
    clock = words.clock_text(
        terms.nag_days, terms.forfeit_days, terms.total_days, terms.timebank_hours,
        terms.increment_hours, terms.weekends_off,
    )  # fmt: skip
    return Result(
        said=lambda: i18n._("created the event %(event)s", event=name),
        answer=f"The event {name} ({terms.event_format}) is open: players join it with "
        f"'emergo join {name} USERID PASSWORD'.\nThe clock of its games: {clock}\n",
        answer_subject=f"Emergo event {name}",
    )


def create_private_event(
    ctx: UnitOfWork,
    owner: Account,
    name: str,
    event_format: str,
    event_password: str,
    options: Sequence[str],
) -> Result:
    """``emergo event create``: ``owner``'s private event, joined with ``event_password``
    (kept as an argon2id hash only). A player has at most PRIVATE_EVENTS_AT_A_TIME open or
    running."""
    check_name(name)
    terms = private_terms(event_format, options, ctx.now)
    if isinstance(terms, Reason):
        raise Refused(said(terms))
    # Checked: the name and format are public words the answer may show.
    ctx.reveal(name, event_format)
    if events.open_events_of_owner(ctx.session, owner.id) >= PRIVATE_EVENTS_AT_A_TIME:
        raise Refused(
            i18n._(
                "%(userid)s has %(count)s private events open or under way already; create "
                "another when one of them has ended.",
                userid=owner.userid,
                count=PRIVATE_EVENTS_AT_A_TIME,
            )
        )
    if len(event_password) < 4:
        raise Refused(i18n._("The event's password needs at least 4 characters."))
    result = create_event(
        ctx, name, terms, owner=owner, join_password_hash=players.hash_password(event_password)
    )
    values = {"name": name, "format": terms.event_format, "count": terms.max_players}
    if terms.starts_at:
        result.answer = i18n._(
            "The private event %(name)s (%(format)s) is open. Players (you too) join it with "
            "'emergo join %(name)s USERID PASSWORD EVENTPASSWORD'; give them the event's "
            "password yourself. It starts at %(starts)s or when %(count)s players are in.",
            starts=_when(terms.starts_at),
            **values,
        )
    else:
        result.answer = i18n._(
            "The private event %(name)s (%(format)s) is open. Players (you too) join it with "
            "'emergo join %(name)s USERID PASSWORD EVENTPASSWORD'; give them the event's "
            "password yourself. It starts when %(count)s players are in.",
            **values,
        )
    result.answer += "\n"
    return result


def require_event(session: Session, name: str) -> EventRead:
    """The event called ``name`` (case-insensitively), read as values, or a Refused."""
    event = read_event(session, name)
    if event is None:
        raise _no_event(name)
    return event


def _no_event(name: str) -> Refused:
    return Refused(
        i18n._("There is no event called %(name)s; 'emergo events' lists them.", name=name[:40])
    )


# --- entering and leaving ---------------------------------------------------------------


def join(
    ctx: UnitOfWork, name: str, player: Account, event_password: str | None = None
) -> Result:
    """``player`` enters the open event ``name`` (a private one: with its password)."""
    event = require_event(ctx.session, name)
    # The event exists: its name is no secret and may be shown (masking hid it, a word
    # where a password might be).
    ctx.reveal(event.name, name)
    if event.status != EVENT_OPEN:
        raise Refused(
            i18n._(
                "The event %(name)s is %(status)s: it takes no more players.",
                name=event.name,
                status=words.status_text(event.status),
            )
        )
    if player.userid_key in ROBOTS:
        raise Refused(i18n._("The robots join events only to fill empty places."))
    entered = entries_of(ctx.session, event.id)
    if any(e.player_id == player.id for e in entered):
        raise Refused(
            i18n._(
                "%(userid)s is in the event %(name)s already.",
                userid=player.userid,
                name=event.name,
            )
        )
    if (
        event.max_players is not None
        and len(entered) >= event.max_players
        and (event.format != LEAGUE)
    ):
        raise Refused(
            i18n._(
                "The event %(name)s is full (%(count)s players).",
                name=event.name,
                count=event.max_players,
            )
        )
    if event.join_password_hash is not None and not (
        event_password and players.password_matches(event.join_password_hash, event_password)
    ):
        raise Refused(
            i18n._(
                "The event %(name)s is private: join it with its password, 'emergo join "
                "%(name)s USERID PASSWORD EVENTPASSWORD' (its creator has it).",
                name=event.name,
            )
        )
    limit = None if event.format == LEAGUE else event.max_players
    ctx.write(EntryAdded(event.id, player.id, ctx.now, limit))
    count = len(entered) + 1
    if event.starts_at is not None and limit:
        starts = i18n._(
            "It starts at %(starts)s, or when %(count)s players are in.",
            starts=_when(event.starts_at),
            count=limit,
        )
    elif event.starts_at is not None:
        starts = i18n._("It starts at %(starts)s.", starts=_when(event.starts_at))
    elif limit:
        starts = i18n._("It starts when %(count)s players are in.", count=limit)
    else:
        starts = i18n._("It starts when the operator starts it.")
    answer = i18n._(
        "%(userid)s is in the event %(name)s (%(format)s), player %(count)s. %(starts)s Your "
        "boards come by mail when a round opens; 'emergo event %(name)s' shows the table.",
        userid=player.userid,
        name=event.name,
        format=event.format,
        count=count,
        starts=starts,
    )
    clock = i18n._("The clock of its games: %(clock)s", clock=_clock_text(event))
    return Result(
        said=lambda: i18n._(
            "%(userid)s joined the event %(event)s", userid=player.userid, event=event.name
        ),
        answer=f"{answer}\n{clock}\n",
        answer_subject=f"Emergo event {event.name}: {player.userid} joined",
    )


def withdraw(ctx: UnitOfWork, name: str, player: Account) -> Result:
    """``player`` leaves the event: before the start the entry goes; after it, their boards
    under way are resigned and their games still to come are lost."""
    event = require_event(ctx.session, name)
    ctx.reveal(event.name, name)
    entry = next((e for e in entries_of(ctx.session, event.id) if e.player_id == player.id), None)
    if entry is None or entry.withdrawn_at is not None:
        raise Refused(
            i18n._(
                "%(userid)s is not playing in the event %(name)s.",
                userid=player.userid,
                name=event.name,
            )
        )
    if event.status not in EVENT_UNDER_WAY:
        raise Refused(
            i18n._(
                "The event %(name)s is %(status)s.",
                name=event.name,
                status=words.status_text(event.status),
            )
        )
    ctx.write(EntryWithdrawn(event.id, player.id, ctx.now))
    replies: list[Reply] = []
    if event.status == EVENT_RUNNING:
        replies = resign_all(
            ctx,
            player.id,
            active_boards_in(ctx.session, event.id, player.id),
            headline=Said.of("withdrew_resigned", userid=player.userid, event=event.name),
        )
    values = {"userid": player.userid, "name": event.name}
    if event.status == EVENT_RUNNING:
        text = i18n._(
            "%(userid)s has left the event %(name)s. Your boards under way are resigned and "
            "the games still to come count as losses.",
            **values,
        )
    else:
        text = i18n._("%(userid)s has left the event %(name)s.", **values)
    return Result(
        said=lambda: i18n._(
            "%(userid)s withdrew from the event %(event)s", userid=player.userid, event=event.name
        ),
        answer=text + "\n",
        answer_subject=f"Emergo event {event.name}: {player.userid} withdrew",
        replies=replies,
    )


# --- the table --------------------------------------------------------------------------


@dataclass
class EventView:
    """An event as its mail and page show it."""

    event: EventRead
    userids: dict[int, str]
    lines: list[dict[str, Any]]
    divisions: list[list[dict[str, Any]]]
    crosstable: list[dict[str, Any]]
    schedule: list[dict[str, Any]]
    next_games: list[dict[str, Any]]
    winner: str | None
    tiebreak: str
    clock: str
    total_rounds: int
    withdrawn: list[str] = field(default_factory=list)


def _games(pairings: Sequence[PairingRead]) -> list[Game]:
    return [Game(p.white_id, p.black_id, p.result) for p in pairings]


def event_view(session: Session, event: EventRead, config: Config | None = None) -> EventView:
    """The standings (points, then the tie-break), the crosstable, the schedule of every
    round and each player's next games."""
    entered = entrants_of(session, event.id)
    pairs = pairings_of(session, event.id)
    userids = {e.player_id: e.userid for e in entered}
    withdrawn = [e.userid for e in entered if e.withdrawn_at is not None]
    divisions: list[list[dict[str, Any]]] = []
    lines: list[dict[str, Any]] = []
    numbers = sorted({e.division for e in entered}) or [1]
    for division in numbers:
        seeded = [e.player_id for e in entered if e.division == division]
        played = [p for p in pairs if p.division == division]
        table = [
            _line(line, userids, event.format) for line in standings(
                seeded, _games(played), SWISS if event.format == SWISS else ROUND_ROBIN
            )
        ]  # fmt: skip
        divisions.append(table)
        lines.extend(table)
    crosstable = _crosstable(event, divisions, pairs, config)
    schedule = []
    for pairing in pairs:
        schedule.append({
            "round": pairing.round_number,
            "division": pairing.division,
            "game": pairing.game,
            "white": userids.get(pairing.white_id, "?"),
            "black": userids.get(pairing.black_id, "") if pairing.black_id else "",
            "board": pairing.board_number,
            "link": board_link(config, pairing.board_number)
            if config is not None and pairing.board_number else None,
            "result": _result_text(pairing.result),
        })  # fmt: skip
    next_games = [
        {
            "userid": userids.get(pid, "?"),
            "games": [
                words.next_game_text(
                    p.board_number, userids.get(_opponent(p, pid), "?"), p.white_id == pid
                )
                for p in pairs
                if p.result is None and p.board_number is not None
                and pid in (p.white_id, p.black_id)
            ],
        }
        for pid in userids
    ]  # fmt: skip
    winner = None
    if event.status == EVENT_FINISHED and lines:
        winner = _winner(event, divisions, pairs, userids)
    return EventView(
        event=event,
        userids=userids,
        lines=lines,
        divisions=divisions,
        crosstable=crosstable,
        schedule=schedule,
        next_games=[n for n in next_games if n["games"]],
        winner=winner,
        tiebreak="Buchholz" if event.format == SWISS else "Sonneborn-Berger",
        clock=_clock_text(event),
        total_rounds=_total_rounds(event, entered),
        withdrawn=withdrawn,
    )


def _opponent(pairing: PairingRead, player: int) -> int:
    if pairing.white_id == player:
        return pairing.black_id or 0
    return pairing.white_id


def _line(line: Line, userids: dict[int, str], event_format: str) -> dict[str, Any]:
    return {
        "place": line.place, "userid": userids.get(line.player, "?"), "player": line.player,
        "points": points_text(line.points), "tiebreak": points_text(line.tiebreak),
        "played": line.played, "won": line.won, "drawn": line.drawn, "lost": line.lost,
    }  # fmt: skip


def _result_text(result: str | None) -> str:
    return {WHITE_WON: "1-0", BLACK_WON: "0-1", DRAWN: "½-½", BYE: "bye", None: "playing"}[result]


def _crosstable(
    event: EventRead,
    divisions: list[list[dict[str, Any]]],
    pairs: Sequence[PairingRead],
    config: Config | None,
) -> list[dict[str, Any]]:
    """Each division's players in table order, with their results against each of the
    others (1, ½, 0 per game; ``*`` while a game is played), the boards they were on."""
    rows: list[dict[str, Any]] = []
    for table in divisions:
        order = [line["player"] for line in table]
        for line in table:
            me = line["player"]
            cells: list[dict[str, Any]] = []
            for other in order:
                if other == me:
                    cells.append({"text": "x", "links": []})
                    continue
                marks: list[str] = []
                links: list[dict[str, Any]] = []
                for p in pairs:
                    if {p.white_id, p.black_id} != {me, other}:
                        continue
                    marks.append(_score_mark(p, me))
                    if p.board_number is not None:
                        links.append({
                            "board": p.board_number, "mark": marks[-1],
                            "link": board_link(config, p.board_number) if config else None,
                        })  # fmt: skip
                cells.append({"text": "".join(marks) or ".", "links": links})
            rows.append({
                "place": line["place"], "userid": line["userid"], "cells": cells,
                "points": line["points"],
            })  # fmt: skip
    return rows


def _score_mark(pairing: PairingRead, player: int) -> str:
    if pairing.result is None:
        return "*"
    if pairing.result == DRAWN:
        return "½"
    won = (pairing.result == WHITE_WON) == (pairing.white_id == player)
    return "1" if won else "0"


def _winner(
    event: EventRead,
    divisions: list[list[dict[str, Any]]],
    pairs: Sequence[PairingRead],
    userids: dict[int, str],
) -> str | None:
    if event.format == KNOCKOUT:
        last = max((p.round_number for p in pairs), default=0)
        final = [p for p in pairs if p.round_number == last]
        champion = _match_result(final)
        return userids.get(champion) if champion is not None else None
    return divisions[0][0]["userid"] if divisions and divisions[0] else None


def _clock_text(event: EventRead) -> str:
    return words.clock_text(
        event.nag_days, event.forfeit_days, event.total_days, event.timebank_hours,
        event.increment_hours, event.weekends_off,
    )  # fmt: skip


def _total_rounds(event: EventRead, entered: Sequence[EntrantRead]) -> int:
    count = len(entered)
    if event.format == SWISS:
        return event.rounds or DEFAULT_SWISS_ROUNDS
    if event.format == KNOCKOUT:
        return knockout_rounds(count) if count > 1 else 0
    numbers = {e.division for e in entered}
    sizes = [sum(1 for e in entered if e.division == d) for d in numbers]
    largest = max(sizes, default=0)
    if largest < 2:
        return 0
    return len(berger_rounds(list(range(largest)), event.rounds or 1))


def _at(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "-"


def _when(moment: datetime) -> str:
    """A start time in a sentence, as the reader's locale writes it (English: as
    :func:`_at`)."""
    return i18n.moment(moment, "UTC")


def show_event(ctx: UnitOfWork, name: str) -> Result:
    """``emergo event NAME``: the table, the crosstable, the next games."""
    event = require_event(ctx.session, name)
    ctx.reveal(event.name, name)
    view = event_view(ctx.session, event, ctx.config)
    return Result(
        said=lambda: i18n._("sent the table of the event %(event)s", event=event.name),
        answer=event_text(view),
        answer_subject=f"Emergo event {event.name}",
    )


def event_text(view: EventView) -> str:
    event = view.event
    return render(
        "event.txt.j2",
        event_name=event.name, event_format=event.format, status=event.status,
        status_text=words.status_text(event.status),
        round=event.current_round, total_rounds=view.total_rounds,
        starts=_when(event.starts_at) if event.starts_at else None, rated=event.rated,
        clock=view.clock, tiebreak=view.tiebreak, divisions=view.divisions,
        crosstable=view.crosstable, next_games=view.next_games, winner=view.winner,
        withdrawn=view.withdrawn, season=event.season,
    )  # fmt: skip


def list_events(ctx: UnitOfWork) -> Result:
    """``emergo events``: the open and running events."""
    found = events_with_status(ctx.session, EVENT_UNDER_WAY)
    counts = events.entry_counts(ctx.session, [e.id for e in found])
    rows = [
        {
            "name": e.name, "format": e.format, "status": words.status_text(e.status),
            "players": counts.get(e.id, 0), "max": e.max_players or "-",
            "round": e.current_round, "starts": _at(e.starts_at),
        }
        for e in found
    ]  # fmt: skip
    return Result(
        said=lambda: i18n._("sent the list of events (%(count)s)", count=len(rows)),
        answer=render("events.txt.j2", rows=rows),
        answer_subject="Emergo events",
    )


# --- running the events -------------------------------------------------------------------


# The most steps one event takes in one look of the scheduler (a step: robots entered, the
# event started, a round opened, results taken ...): rounds decided without a board follow
# each other at once, and an event that keeps finding something to do still lets the
# scheduler go on.
MAX_STEPS = 50


def advance_events(runner: Runner, config: Config, now: datetime) -> int:
    """The scheduler's step for events: start the ones due, take the results of the games
    that ended, open the next rounds, finish the ones played out. Each event under way
    moves on step by step, each step an operation of ``runner`` (:func:`event_step`: read,
    decide, one short write whose changes re-check what was read; a step that conflicts
    starts over from a fresh read), until it has nothing more to do: each step reads what
    the one before stored (a round's boards, then its pairings). It makes no mail: what
    the players are to be told is stored with the changes that make it news
    (:class:`NewsToTell`), and :func:`tell_news` mails it. How many steps were stored."""
    with runner.reads() as session:
        # Read first: a look on a server without events takes no write lock.
        under_way = [(e.id, e.name) for e in events_with_status(session, EVENT_UNDER_WAY)]
    stored = 0
    for event_id, name in under_way:
        # One event that fails holds up no other; it is tried again next time.
        try:
            stored += _steps(runner, config, now, event_id)
        except Exception:  # noqa: BLE001
            log.exception("event %s: not advanced, tried again next time", name)
    return stored


def _steps(
    runner: Runner, config: Config, now: datetime, event_id: int, *, start: bool = False
) -> int:
    """The event's steps, one after the other, until none is left (or one conflicted
    ``ATTEMPTS`` times: the next look goes on); how many were stored."""
    step = partial(event_step, config=config, event_id=event_id, start=start)
    for done in range(MAX_STEPS):
        if not runner.perform(step, now=now).stored:
            return done
    return MAX_STEPS


def event_step(
    session: Session, now: datetime, *, config: Config, event_id: int, start: bool = False
) -> Work | None:
    """A runner's operation (:class:`~pbm_emergo.app.runner.Runner`): the next step of the
    event ``event_id`` as it stands, or None when it has nothing to do now. ``start``: an
    open event starts even before it is due (the operator's ``admin event start``)."""
    event = event_by_id(session, event_id)
    if event is None:
        return None
    ctx = UnitOfWork(session=session, config=config, now=now)
    if event.status == EVENT_OPEN:
        if start or _due_to_start(session, event, now):
            _start(ctx, event)
    elif event.status == EVENT_RUNNING:
        _go_on(ctx, event)
    if not ctx.writes:
        return None
    return Work(tuple(ctx.writes), (), f"event {event.name}: a step")


def tell_news(session: Session, now: datetime, *, config: Config) -> Work | None:
    """A runner's operation (:class:`~pbm_emergo.app.runner.Runner`): the mails of every
    event's news not told yet, made in a reading session, and the news marked told in the
    write transaction that queues them (each news once: :class:`NewsTold` re-checks)."""
    found = news_to_tell(session)
    if not found:
        return None
    ctx = UnitOfWork(session=session, config=config, now=now)
    replies: list[Reply] = []
    # A round's boards are news of one event: it is read once.
    events_read = {
        event_id: event_by_id(session, event_id) for event_id in {n.event_id for n in found}
    }
    for news in found:
        event = events_read[news.event_id]
        try:
            mails = [] if event is None else _news_mails(ctx, event, news)
        except Exception:  # noqa: BLE001
            # One news that cannot be told holds up no other; it is tried again next time.
            log.exception("event news %d (%s): not told, tried again next time", news.id,
                          news.kind)
            continue
        replies += mails
        ctx.write(NewsTold(news.id))
    return Work(tuple(ctx.writes), tuple(replies), f"told {len(ctx.writes)} event news")


def _news_mails(ctx: UnitOfWork, event: EventRead, news: NewsRead) -> list[Reply]:
    """The mails that tell ``news`` of ``event``, made from the event as it stands."""
    if news.kind == NEWS_BOARD:
        assert news.board_number is not None and news.round_number is not None
        read = read_board(ctx.session, news.board_number)
        if read is None:  # removed by the operator meanwhile
            return []
        state = read.snapshot.state
        return board_mails(
            ctx, state, new_board=True,
            headline=_round_headline(
                event, news.round_number, state.white.userid, state.black.userid
            ),
        )  # fmt: skip
    if news.kind == NEWS_CANCELLED:
        return _tell_cancelled(
            ctx, event,
            lambda: i18n._(
                "The event %(name)s is cancelled: fewer than two players joined.",
                name=event.name,
            ),
        )  # fmt: skip
    if news.kind == NEWS_FINISHED:
        return _final_table(ctx, event)
    return _season_opens(ctx, event)


def start_now(sessions: SessionFactory, config: Config, name: str) -> CarriedOut:
    """``pbm-emergo admin event start NAME``: start the open event now, step by step as the
    scheduler runs it (:func:`advance_events`: its first round opened), then its mails made
    and queued as the scheduler's (:func:`tell_news`)."""
    now = utcnow()
    runner = Runner(sessions, config, clock=lambda: now)
    with runner.reads() as session:
        event = require_event(session, name)
    if event.status != EVENT_OPEN:
        raise Refused(f"The event {event.name} is {event.status}: it cannot start.")
    _steps(runner, config, now, event.id, start=True)
    with runner.reads() as session:
        found = event_by_id(session, event.id)
    status = event.status if found is None else found.status
    told = runner.perform(partial(tell_news, config=config), now=now)
    replies = list(told.work.replies) if told.work is not None else []
    result = Result(summary=f"the event {event.name} is {status}", replies=replies)
    return CarriedOut(result, told.queued)


def _due_to_start(session: Session, event: EventRead, now: datetime) -> bool:
    if event.starts_at is not None and now >= event.starts_at:
        return True
    if event.max_players is not None and event.format != LEAGUE:
        return len(entries_of(session, event.id)) >= event.max_players
    return False


def _start(ctx: UnitOfWork, event: EventRead) -> None:
    """The step of an open event due to start: first robots take the empty places (with
    ``--robots fill``: a step of its own, so that the next one counts them); then an event
    that cannot be played (fewer than two players) is cancelled, and its players told;
    else it runs, its first round opened with it (a league's first season in divisions by
    rating, the round planned on them as decided)."""
    from pbm_emergo.app.event_robots import fill_with_robots

    if event.robots != ROBOTS_NONE and fill_with_robots(ctx, event):
        return
    entered = [e for e in entrants_of(ctx.session, event.id) if e.withdrawn_at is None]
    if len(entered) < 2:
        ctx.write(EventStatusSet(event.id, EVENT_OPEN, EVENT_CANCELLED, ctx.now))
        ctx.write(NewsToTell(event.id, NEWS_CANCELLED, ctx.now))
        return
    divisions = None
    if event.format == LEAGUE and event.season == 1 and all(e.division == 1 for e in entered):
        divisions = _assign_divisions(ctx, event, entered)
    ctx.write(EventStatusSet(event.id, EVENT_OPEN, EVENT_RUNNING, ctx.now))
    _open_round(ctx, event, 1, divisions)


def _assign_divisions(
    ctx: UnitOfWork, event: EventRead, entered: Sequence[EntrantRead]
) -> dict[int, int]:
    """A first season's divisions, by rating (a division is ``max_players`` strong): each
    player's."""
    ranked = sorted(entered, key=lambda e: (-e.rating, e.seed))
    size = event.max_players or DEFAULT_DIVISION
    divisions = league_divisions([e.player_id for e in ranked], size)
    division_of = {
        player: number for number, members in enumerate(divisions, 1) for player in members
    }
    ctx.write(DivisionsSet(event.id, tuple(division_of.items())))
    return division_of


def cancel_event(ctx: UnitOfWork, event: EventRead) -> list[Reply]:
    """The operator cancels an event: its boards under way go on as ordinary games."""
    if event.status not in EVENT_UNDER_WAY:
        raise Refused(
            i18n._(
                "The event %(name)s is %(status)s already.",
                name=event.name,
                status=words.status_text(event.status),
            )
        )
    ctx.write(EventStatusSet(event.id, event.status, EVENT_CANCELLED, ctx.now))
    return _tell_cancelled(
        ctx, event,
        lambda: i18n._(
            "The event %(name)s is cancelled by the operator. Boards under way go on as "
            "ordinary games.",
            name=event.name,
        ),
    )  # fmt: skip


def _tell_cancelled(ctx: UnitOfWork, event: EventRead, why: Callable[[], str]) -> list[Reply]:
    """Every player of ``event`` learns that it is cancelled, and ``why`` (in their
    language)."""
    return _tell_all(ctx, event, f"Emergo event {event.name} cancelled", lambda: why() + "\n")


def _tell_all(
    ctx: UnitOfWork, event: EventRead, subject: str, body: Callable[[], str]
) -> list[Reply]:
    """The same news to every player of the event, each in their language (the Subject in
    English for all; the body made once for each language)."""
    replies = []
    bodies: dict[str, str] = {}
    for entrant in entrants_of(ctx.session, event.id):
        address = entrant.address
        if address is not None and entrant.userid_key not in ROBOTS:
            with i18n.speaking(entrant.language):
                language = i18n.current()
                if language not in bodies:
                    bodies[language] = body()
            replies.append(Reply(to=address, subject=subject, body=bodies[language]))
    return replies


def _active_ids(
    ctx: UnitOfWork, event: EventRead
) -> tuple[list[int], set[int], dict[int, int]]:
    """The players in seed order, those who withdrew, and each one's division."""
    entered = entrants_of(ctx.session, event.id)
    return (
        [e.player_id for e in entered],
        {e.player_id for e in entered if e.withdrawn_at is not None},
        {e.player_id: e.division for e in entered},
    )


def _plan(
    ctx: UnitOfWork, event: EventRead, number: int, divisions: dict[int, int] | None = None
) -> list[PairingPlanned] | None:
    """The games of round ``number``, or None when the event is played out
    (``divisions``: each player's, as decided in this step and not stored yet)."""
    seeded, withdrawn, division_of = _active_ids(ctx, event)
    if divisions is not None:
        division_of = divisions
    pairs = pairings_of(ctx.session, event.id)
    if event.format in (ROUND_ROBIN, LEAGUE):
        planned: list[PairingPlanned] = []
        for division in sorted(set(division_of.values())):
            members = [p for p in seeded if division_of[p] == division]
            rounds = berger_rounds(members, event.rounds or 1)
            if number <= len(rounds):
                planned += [
                    PairingPlanned(g.white, g.black, None, division=division)
                    for g in rounds[number - 1]
                ]
        return planned or None
    if event.format == SWISS:
        if number > (event.rounds or DEFAULT_SWISS_ROUNDS):
            return None
        from pbm_emergo.app.swiss import swiss_pairings

        active = [p for p in seeded if p not in withdrawn]
        before = [
            [Game(p.white_id, p.black_id, p.result) for p in pairs if p.round_number == r]
            for r in range(1, number)
        ]
        return [
            PairingPlanned(p.white, p.black, None)
            for p in swiss_pairings(active, before, number, event.rounds or 1)
        ]
    # A knock-out: the first round by seed, then the winners of the last round's matches.
    if number == 1:
        firsts = first_knockout_round(seeded)
    else:
        winners = _round_winners(pairs, number - 1, seeded)
        if len(winners) < 2:
            return None
        firsts = next_knockout_round(winners)
    return [
        PairingPlanned(g.white, g.black, None, game=i + 1)
        for f in firsts
        for i, g in enumerate(match_games(f))
    ]


def _matches(pairs: Sequence[PairingRead], number: int) -> list[list[PairingRead]]:
    """A knock-out round's matches: its pairings grouped by the two players, in order."""
    found: dict[frozenset[int | None], list[PairingRead]] = {}
    for p in pairs:
        if p.round_number == number:
            found.setdefault(frozenset((p.white_id, p.black_id)), []).append(p)
    return list(found.values())


def _match_result(match: Sequence[PairingRead]) -> int | None:
    """Who goes through a knock-out match (the first game's white is the higher seed)."""
    first = match[0]
    if first.black_id is None:
        return first.white_id
    games_ = [Game(p.white_id, p.black_id, p.result) for p in match]
    return match_winner(first.white_id, first.black_id, games_)


def _round_winners(
    pairs: Sequence[PairingRead], number: int, seeded: Sequence[int]
) -> list[int]:
    winners = []
    for match in _matches(pairs, number):
        winner = _match_result(match)
        if winner is not None:
            winners.append(winner)
    return winners


def _open_round(
    ctx: UnitOfWork, event: EventRead, number: int, divisions: dict[int, int] | None = None
) -> None:
    """Open round ``number``: its boards, each the news of its first board mail. A game
    against a player who withdrew is won by the other without a board."""
    planned = _plan(ctx, event, number, divisions)
    if planned is None:
        _finish(ctx, event)
    else:
        _open_games(ctx, event, number, planned)


def _open_games(
    ctx: UnitOfWork, event: EventRead, number: int, planned: Sequence[PairingPlanned]
) -> None:
    """The games ``planned`` of round ``number``: a board each, numbered on from the last
    board number read (each board's write re-checks that its number is the next one), or
    for a bye or a game against a player who withdrew, the result without a board; each
    board the news of its first board mail. A round of no board is finished by the next
    step."""
    _, withdrawn, _ = _active_ids(ctx, event)
    stored: list[PairingPlanned] = []
    boards: list[int] = []
    last_number = games.last_board_number(ctx.session)
    for game in planned:
        if game.black_id is None:
            stored.append(PairingPlanned(game.white_id, None, None, BYE, game.division, game.game))
            continue
        if game.white_id in withdrawn or game.black_id in withdrawn:
            result = (
                DRAWN
                if {game.white_id, game.black_id} <= withdrawn
                else (BLACK_WON if game.white_id in withdrawn else WHITE_WON)
            )
            stored.append(PairingPlanned(
                game.white_id, game.black_id, None, result, game.division, game.game
            ))  # fmt: skip
            continue
        board = last_number + len(boards) + 1
        terms = ChallengeTerms(
            rated=event.rated, blocked_rule="loss", nag_days=event.nag_days,
            forfeit_days=event.forfeit_days, total_days=event.total_days,
            timebank_hours=event.timebank_hours, increment_hours=event.increment_hours,
            weekends_off=event.weekends_off,
        )
        ctx.write(BoardCreated(
            board, game.white_id, game.black_id, ctx.now, terms, event_id=event.id,
            event_round=number,
        ))  # fmt: skip
        boards.append(board)
        stored.append(PairingPlanned(
            game.white_id, game.black_id, board, None, game.division, game.game
        ))  # fmt: skip
    expected = number if event.current_round == number else number - 1
    ctx.write(RoundOpened(event.id, number, ctx.now, tuple(stored), expected))
    for board in boards:
        ctx.write(NewsToTell(event.id, NEWS_BOARD, ctx.now, board=board, round_number=number))


def _round_headline(event: EventRead, number: int, white: str, black: str) -> Callable[[], str]:
    """A round's new board headline, worded when each recipient's mail is made."""
    return lambda: words.round_headline(event.name, number, white, black, _clock_text(event))


def _go_on(ctx: UnitOfWork, event: EventRead) -> None:
    """The step of a running event: the results of its games that ended taken (a step of
    its own: the next reads them as stored); or, once every game of the round has its
    result, a knock-out's deciders opened, or the round finished with the next one
    opened, or the event finished."""
    pairs = pairings_of(ctx.session, event.id)
    for pairing in pairs:
        if pairing.result is None and pairing.board_status == BOARD_FINISHED:
            result = (
                DRAWN
                if pairing.board_winner is None
                else (WHITE_WON if pairing.board_winner == WHITE else BLACK_WON)
            )
            ctx.write(PairingDecided(pairing.id, result))
    if ctx.writes:
        return
    number = event.current_round
    this_round = [p for p in pairs if p.round_number == number]
    if any(p.result is None for p in this_round):
        return
    if event.format == KNOCKOUT:
        deciders = []
        for match in _matches(pairs, number):
            if len(match) == 2 and _match_result(match) is None:
                first = match[0]
                assert first.black_id is not None
                game = decider(first.white_id, first.black_id)
                deciders.append(PairingPlanned(game.white, game.black, None, game=3))
        if deciders:
            _open_games(ctx, event, number, deciders)
            return
    ctx.write(RoundFinished(event.id, number, ctx.now))
    _open_round(ctx, event, number + 1)


def _finish(ctx: UnitOfWork, event: EventRead) -> None:
    """The event is played out: its final table is news; a league opens its next season
    (from the tables as they stand: every result is stored)."""
    ctx.write(EventStatusSet(event.id, EVENT_RUNNING, EVENT_FINISHED, ctx.now))
    ctx.write(NewsToTell(event.id, NEWS_FINISHED, ctx.now))
    if event.format == LEAGUE:
        _next_season(ctx, event, event_view(ctx.session, event, ctx.config))


def _final_table(ctx: UnitOfWork, event: EventRead) -> list[Reply]:
    """Every player of the finished ``event`` gets its final table."""
    view = event_view(ctx.session, event, ctx.config)
    winner = view.winner or "nobody"

    def body() -> str:
        # The table in the reader's language: the view's words made again in it.
        table = event_view(ctx.session, event, ctx.config)
        if view.winner is None:
            ended = i18n._("The event %(name)s has ended: nobody wins.", name=event.name)
        else:
            ended = i18n._(
                "The event %(name)s has ended: %(winner)s wins.", name=event.name, winner=winner
            )
        return f"{ended}\n\n" + event_text(table)

    return _tell_all(ctx, event, f"Emergo event {event.name}: {winner} wins", body)


def _next_season(ctx: UnitOfWork, event: EventRead, view: EventView) -> None:
    """The league's next season, open at once, with this season's players moved up and
    down; it starts when the scheduler next looks (its start time is now). Its players
    are told (:func:`_season_opens`)."""
    _, withdrawn, _ = _active_ids(ctx, event)
    tables = [[line["player"] for line in table] for table in view.divisions]
    divisions = next_season(tables, leaving=withdrawn)
    season = (event.season or 1) + 1
    league = event.league or event.name
    name = f"{league}-{season}"
    created = EventCreated(
        name, LEAGUE, ctx.now, rounds=event.rounds, max_players=event.max_players,
        starts_at=ctx.now, nag_days=event.nag_days, forfeit_days=event.forfeit_days,
        total_days=event.total_days, robots=ROBOTS_NONE, rated=event.rated,
        league=league, season=season, timebank_hours=event.timebank_hours,
        increment_hours=event.increment_hours, weekends_off=event.weekends_off,
    )  # fmt: skip
    entries = tuple(
        (player, number) for number, members in enumerate(divisions, 1) for player in members
    )
    ctx.write(SeasonOpened(created, entries))


def _season_opens(ctx: UnitOfWork, event: EventRead) -> list[Reply]:
    """Every player of a league's new season ``event`` learns its divisions."""
    league = event.league or event.name
    entered = sorted(entrants_of(ctx.session, event.id), key=lambda e: (e.division, e.seed))

    def body() -> str:
        moves = [
            i18n._("%(userid)s: division %(division)s", userid=e.userid, division=e.division)
            for e in entered
        ]
        opens = i18n._(
            "Season %(season)s of the league %(league)s opens as the event %(name)s:",
            season=event.season,
            league=league,
            name=event.name,
        )
        boards = i18n._("Your boards come by mail as each round opens.")
        return f"{opens}\n\n" + "\n".join(moves) + f"\n\n{boards}\n"

    return _tell_all(ctx, event, f"Emergo league {league}: season {event.season}", body)
