"""Moves in advance: emergo queue (plain and conditional), emergo autoplay, and
chains of queued and forced moves, through `handle` on a real database.

The positions come from the rules engine: after h5 d7 d8 h6, Ohs (alice) has one legal move,
d8xd6, and after it Eks (bob) has one, h6xh4.
"""

from __future__ import annotations

from sqlalchemy import select

from pbm_emergo.app.messages import Reply
from pbm_emergo.db.models import Board, MoveRecord, Player, QueuedMove
from tests.support.mailer import Mailer

from .support import ADDRESS, PASSWORD, move, notations, play_all


def queue(m: Mailer, userid: str, items: str, board: int = 101) -> list[Reply]:
    return m.send(
        f"emergo queue {board} {userid} {PASSWORD[userid]} {items}", sender=ADDRESS[userid]
    )


def autoplay(m: Mailer, userid: str, setting: str) -> list[Reply]:
    return m.send(f"emergo autoplay {userid} {PASSWORD[userid]} {setting}",
                  sender=ADDRESS[userid])


def marks(m: Mailer, number: int = 101) -> list[tuple[str, str | None]]:
    with m.factory() as session:
        return [
            (r.notation, r.autoplayed)
            for r in session.scalars(
                select(MoveRecord)
                .where(MoveRecord.board_number == number)
                .order_by(MoveRecord.number)
            )
        ]


def queued_rows(m: Mailer) -> list[tuple[str, str, str | None]]:
    with m.factory() as session:
        rows = session.execute(
            select(Player.userid, QueuedMove.notation, QueuedMove.if_move)
            .join(Player, Player.id == QueuedMove.player_id)
            .order_by(QueuedMove.id)
        ).all()
        flag = session.scalars(select(Board.queued).where(Board.number == 101)).one()
    assert flag == bool(rows)
    return [tuple(r) for r in rows]  # type: ignore[misc]


def only(replies: list[Reply], to: str) -> Reply:
    [reply] = [r for r in replies if r.to == to]
    return reply


# --- queue ---------------------------------------------------------------------------


def test_a_queued_move_is_played_when_the_turn_comes(game: Mailer) -> None:
    play_all(game, ["h5", "d7"])
    [answer] = queue(game, "bob", "h6")
    assert answer.to == ADDRESS["bob"] and answer.subject == "Emergo Board 101 queue"
    assert "bob, your queue on Emergo Board 101 is stored" in answer.body
    assert "Your queued move (only you see this): h6 as move 4" in answer.body
    assert queued_rows(game) == [("bob", "h6", None)]
    replies = move(game, "alice", "d8")
    # One board mail to each player, listing both moves; the queue is used up.
    assert sorted((r.to, r.subject) for r in replies) == [
        (ADDRESS["alice"], "Emergo Board 101 alice"),
        (ADDRESS["bob"], "Emergo Board 101 alice"),
    ]
    body = replies[0].body
    assert "alice played d8 (move 3).\nbob's queued move h6 was played (move 4, Auto).\n" in body
    assert " 4. h6 (Auto)" in body
    assert "only you see" not in body
    assert marks(game) == [("h5", None), ("d7", None), ("d8", None), ("h6", "queued")]
    assert queued_rows(game) == []


def test_a_queued_move_that_became_illegal_is_not_played(game: Mailer) -> None:
    play_all(game, ["h5", "d7"])
    queue(game, "bob", "d8")
    replies = move(game, "alice", "d8")
    assert sorted((r.to, r.subject) for r in replies) == [
        (ADDRESS["alice"], "Emergo Board 101 bob"),
        (ADDRESS["bob"], "Emergo Board 101 Error"),
        (ADDRESS["bob"], "Emergo Board 101 bob"),
    ]
    error = next(r for r in replies if r.subject.endswith("Error"))
    assert error.body.startswith(
        "bob, your queued move d8 on Emergo Board 101 could not be played.\nWhy: "
    )
    assert "your queue on this board is now empty" in error.body
    assert "It is your turn: mail the Subject\n  emergo move 101 bob PASSWORD MOVE" in error.body
    assert "It is bob's turn (Eks): move 4." in error.body  # with the board
    assert notations(game) == ["h5", "d7", "d8"]
    assert queued_rows(game) == []


def test_a_later_queue_replaces_the_earlier_and_clear_removes_it(game: Mailer) -> None:
    play_all(game, ["h5", "d7"])
    queue(game, "bob", "e6")
    queue(game, "bob", "h6#4")
    assert queued_rows(game) == [("bob", "h6", None)]
    [cleared] = queue(game, "bob", "clear")
    assert "your queue on Emergo Board 101 is cleared" in cleared.body
    assert queued_rows(game) == []
    [again] = queue(game, "bob", "clear")
    assert "you had nothing queued on Emergo Board 101" in again.body
    replies = move(game, "alice", "d8")
    assert notations(game) == ["h5", "d7", "d8"]
    assert {r.subject for r in replies} == {"Emergo Board 101 bob"}


def test_a_conditional_queue_answers_the_named_move(game: Mailer) -> None:
    play_all(game, ["h5", "d7"])
    [answer] = queue(game, "bob", "D8=h6 e4=e6")
    assert (
        "Your conditional queue (only you see this): if alice plays d8, h6; if alice plays "
        "e4, e6." in " ".join(answer.body.split())
    )
    assert queued_rows(game) == [("bob", "h6", "d8"), ("bob", "e6", "e4")]
    replies = move(game, "alice", "e4")
    assert "bob's queued move e6 was played (move 4, Auto)." in replies[0].body
    assert notations(game) == ["h5", "d7", "e4", "e6"]
    assert queued_rows(game) == []


def test_a_conditional_queue_is_cleared_by_any_other_move(game: Mailer) -> None:
    play_all(game, ["h5", "d7"])
    queue(game, "bob", "d8=h6 e4=e6")
    replies = move(game, "alice", "c4")
    assert {(r.subject) for r in replies} == {"Emergo Board 101 bob"}  # no error mail
    assert notations(game) == ["h5", "d7", "c4"]
    assert queued_rows(game) == []


def test_the_queue_shows_to_its_owner_only(game: Mailer) -> None:
    play_all(game, ["h5", "d7"])
    queue(game, "bob", "d8=h6")
    [mine] = game.send("emergo show 101", sender=ADDRESS["bob"])
    assert "Your conditional queue (only you see this): if alice plays d8, h6." in " ".join(
        mine.body.split()
    )
    [theirs] = game.send("emergo show 101", sender=ADDRESS["alice"])
    assert "queue" not in theirs.body
    [stranger] = game.send("emergo show 101", sender="carol@example.org")
    assert "queue" not in stranger.body
    # Not in the board mails either (both players get the same mail).
    replies = move(game, "alice", "propose")
    assert all("queue" not in r.body for r in replies)


def test_queue_errors(game: Mailer) -> None:
    def error(items: str, userid: str = "bob", board: int = 101) -> str:
        [reply] = queue(game, userid, items, board)
        assert reply.to == ADDRESS[userid]
        assert "error" in reply.subject.lower(), reply.body
        return reply.body

    play_all(game, ["h5", "d7"])
    assert error("e6", userid="alice").startswith("It is your turn on board 101")
    assert error("zz9").startswith("'zz9' is not a move")
    assert error("e6#3").startswith(
        "Board 101 is at move 3, so your queued move would be move 4, not move 3"
    )
    assert error("d8=h6 e6").startswith("A conditional queue has only items")
    assert error("e6 e7").startswith("Queue one move")
    assert error("h5=e6").startswith("The opponent's move h5 would not be legal")
    assert error("d8=d8").startswith("Your answer d8 to d8 would not be legal")
    assert error("d8=h6 d8=e6").startswith("The queue names the opponent's move d8 twice")
    assert error("e6", board=999).startswith("There is no board 999.")
    [wrong] = game.send("emergo queue 101 bob nope e6", sender=ADDRESS["bob"])
    assert wrong.body.startswith("Wrong password for bob.")
    assert "nope" not in wrong.body
    game.signup("carol", "carolpw", "carol@example.org")
    [stranger] = game.send("emergo queue 101 carol carolpw e6", sender="carol@example.org")
    assert stranger.body.startswith("carol does not play on board 101")
    [usage] = game.send("emergo queue 101 bob", sender=ADDRESS["bob"])
    assert usage.body.startswith("The command emergo queue needs these arguments")
    assert queued_rows(game) == []
    move(game, "alice", "resign")
    assert error("e6").startswith("The game on board 101 is over")


def test_an_undo_clears_the_queue(game: Mailer) -> None:
    play_all(game, ["h5", "d7"])
    move(game, "bob", "undo")
    queue(game, "bob", "e6")
    move(game, "alice", "accept")
    assert notations(game) == ["h5"]
    assert queued_rows(game) == []


# --- autoplay ------------------------------------------------------------------------


def test_autoplay_plays_the_only_legal_move(game: Mailer) -> None:
    [on] = autoplay(game, "alice", "on")
    assert on.subject == "Emergo autoplay on for alice"
    assert "Autoplay is on for alice" in on.body
    with game.factory() as session:
        assert session.scalars(select(Player.autoplay).where(Player.userid == "alice")).one()
    play_all(game, ["h5", "d7", "d8"])
    replies = move(game, "bob", "h6")
    body = replies[0].body
    assert (
        "bob played h6 (move 4).\nalice's only legal move d8xd6 was played (move 5, Forced)."
    ) in body
    assert " 5. d8xd6 (Forced)" in body
    assert {r.subject for r in replies} == {"Emergo Board 101 bob"}
    assert marks(game)[-2:] == [("h6", None), ("d8xd6", "forced")]
    [off] = autoplay(game, "alice", "off")
    assert "Autoplay is off for alice" in off.body


def test_chains_of_queued_and_forced_moves_resolve_in_one_go(game: Mailer) -> None:
    autoplay(game, "bob", "on")
    play_all(game, ["h5", "d7", "d8"])
    queue(game, "alice", "d8xd6")
    replies = move(game, "bob", "h6")
    assert len(replies) == 2
    body = replies[0].body
    assert (
        "bob played h6 (move 4).\n"
        "alice's queued move d8xd6 was played (move 5, Auto).\n"
        "bob's only legal move h6xh4 was played (move 6, Forced).\n"
    ) in body
    assert marks(game)[3:] == [("h6", None), ("d8xd6", "queued"), ("h6xh4", "forced")]
    assert board_ply(game) == 6


def test_switching_autoplay_on_plays_the_forced_moves_due(game: Mailer) -> None:
    play_all(game, ["h5", "d7", "d8", "h6"])
    replies = autoplay(game, "alice", "on")
    answer = only([r for r in replies if "autoplay" in r.subject], ADDRESS["alice"])
    assert "Forced moves were played for you now on board 101" in answer.body
    mails = [r for r in replies if r.subject == "Emergo Board 101 bob"]
    assert sorted(r.to for r in mails) == [ADDRESS["alice"], ADDRESS["bob"]]
    assert "alice's only legal move d8xd6 was played (move 5, Forced)." in mails[0].body
    assert marks(game)[-1] == ("d8xd6", "forced")


def test_autoplay_errors(game: Mailer) -> None:
    [bad] = autoplay(game, "alice", "maybe")
    assert bad.subject == "Emergo error"
    assert bad.body.startswith("Write on or off after the password")
    [wrong] = game.send("emergo autoplay alice nope on", sender=ADDRESS["alice"])
    assert wrong.body.startswith("Wrong password for alice.")
    [unknown] = game.send("emergo autoplay zed zedpw on", sender=ADDRESS["alice"])
    assert unknown.body.startswith("There is no player 'zed'.")
    with game.factory() as session:
        assert not session.scalars(select(Player.autoplay).where(Player.userid == "alice")).one()


def board_ply(m: Mailer) -> int:
    with m.factory() as session:
        return session.scalars(select(Board.ply).where(Board.number == 101)).one()


def test_help_names_queue_autoplay_and_vacation(mailer: Mailer) -> None:
    summary = mailer.one("help").body
    for usage in (
        "emergo queue board userid password MOVE[#n] | OPP=MINE ... | clear",
        "emergo autoplay userid password on|off",
        "vacation userid password DAYS|off",
    ):
        assert usage in summary
    queue_help = mailer.one("help queue")
    assert queue_help.subject == "Emergo help: emergo queue"
    assert "e4xe6=d5 c3=g7" in queue_help.body
    assert "(Forced)" in mailer.one("help autoplay").body
    assert "30 days a calendar year" in mailer.one("help vacation").body
