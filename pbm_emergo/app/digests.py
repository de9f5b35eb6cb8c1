"""The daily digests (``notify digest``): the scheduler's part. Every run, each player whose
digest hour has come (of their time zone) since their last digest gets one mail listing
every board waiting for their move: its picture, the time left, and a reply with one
``emergo move`` line per board, which a reply with several move lines plays all
(a body of several command lines is a ``multiple`` mail). With no board waiting, no mail
that day. When a digest is due is the game's (:mod:`pbm_emergo.game.digest`).
"""

from __future__ import annotations

from dataclasses import replace

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.db import reads
from pbm_emergo.db.reads.digests import DigestPlayer, digest_players
from pbm_emergo.db.reads.snapshot import read_board
from pbm_emergo.game.board import BoardState
from pbm_emergo.game.clock import deadlines
from pbm_emergo.game.digest import WaitingBoard, digest_due, waiting_board
from pbm_emergo.game.setting_changes import DigestSent
from pbm_emergo.rules import render_board
from pbm_emergo.views import i18n
from pbm_emergo.views.board_mail import board_link, duration
from pbm_emergo.views.templating import render


def send_digests(ctx: UnitOfWork) -> list[Reply]:
    """The digests due now (their sending stored in the caller's transaction)."""
    replies: list[Reply] = []
    for player in digest_players(ctx.session):
        if not digest_due(player.digest_hour, player.timezone, player.last_digest_at, ctx.now):
            continue
        ctx.write(DigestSent(player.id, ctx.now, player.last_digest_at))
        replies += _digest(ctx, player)
    return replies


def _digest(ctx: UnitOfWork, player: DigestPlayer) -> list[Reply]:
    address = player.address
    if address is None:
        return []
    boards = []
    # The boards where it is the player's turn, each read as values.
    for line in reads.listed_boards(ctx.session, "next", player_id=player.id):
        read = read_board(ctx.session, line.number)
        if read is None:  # removed by hand meanwhile
            continue
        state = read.snapshot.state
        with i18n.speaking(player.language):  # the player's language, not the scheduler's
            waiting = _in_words(
                waiting_board(state, player.userid, ctx.now, duration), state, player, ctx
            )
        boards.append(
            {
                "board": waiting,
                "picture": render_board(state.position, state.white.userid, state.black.userid),
                "link": board_link(ctx.config, line.number),
            }
        )
    if not boards:
        return []
    count = len(boards)
    with i18n.speaking(player.language):
        body = render(
            "digest.txt.j2",
            userid=player.userid,
            boards=boards,
            now=i18n.moment(ctx.now, player.timezone),
        )
    subject = f"Emergo digest {player.userid}: {count} board{'s' if count != 1 else ''} waiting"
    return [Reply(to=address, subject=subject, body=body, solicited=True)]


def _in_words(
    waiting: WaitingBoard, state: BoardState, player: DigestPlayer, ctx: UnitOfWork
) -> WaitingBoard:
    """``waiting`` with its time left and deadlines in the current locale's words and dates
    (the game's values are English)."""
    due = deadlines(state, ctx.now)
    if due is None:  # on vacation: the clock stands
        return replace(
            waiting,
            time_left=i18n._("the clock stands"),
            deadlines=i18n._("%(userid)s is on vacation", userid=player.userid),
        )
    forfeit = i18n.moment(due.forfeit, due.timezone)
    if due.reminder is None:
        when = i18n._("lost on time from %(forfeit)s", forfeit=forfeit)
    else:
        when = i18n._(
            "a reminder at %(reminder)s, lost on time from %(forfeit)s",
            reminder=i18n.moment(due.reminder, due.timezone),
            forfeit=forfeit,
        )
    return replace(waiting, deadlines=when)
