"""emergo challenge and emergo move (moves, resign, draw, undo, #n) through `process`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from pbm_emergo.db.models import Board, Player
from pbm_emergo.rules import Game
from pbm_emergo.views.board_mail import score_sheet
from tests.support.mailer import Mailer
from tests.support.moves import RATED_OPENING
from tests.support.search import blocked_game, capture_position, elimination_game, repetition_game
from tests.support.text import flat

from .support import ADDRESS, PASSWORD, board_row, error, move, notations, play_all

# --- challenge ------------------------------------------------------------------------


def test_challenge_opens_a_board_and_mails_both_players(players: Mailer) -> None:
    replies = players.send("emergo challenge alice bob", "Good luck!\n-- \nAlice")
    assert [(r.to, r.subject, r.board) for r in replies] == [
        ("alice@example.org", "New Emergo Board 101 alice **", 101),
        ("bob@example.org", "New Emergo Board 101 alice **", 101),
    ]
    body = replies[0].body
    assert body.startswith("Emergo Board 101: alice (Ohs, 1600) against bob (Eks, 1600)\n")
    assert "It is alice's turn (Ohs): move 1." in body
    assert "alice writes:\n  Good luck!\n" in body and "-- " not in body
    assert "  Ohs (alice) inhand: 12\n  Eks (bob) inhand: 12\n" in body
    assert "To decline this game, send 'emergo resign 101 YOURID PASSWORD'" in body
    assert "removed, unrated" in replies[1].html  # type: ignore[operator]
    board = board_row(players)
    assert (board.rated, board.blocked_rule, board.nag_days, board.forfeit_days) == (
        True, "loss", 7, 28,
    )  # fmt: skip
    again = players.send("emergo challenge bob alice", sender="bob@example.org")
    assert again[0].subject == "New Emergo Board 102 bob"
    # Only the first mail of a board says how to decline it.
    moved = players.send("emergo move 101 alice alicepw e4")
    assert all("To decline" not in r.body for r in moved)


def test_an_unknown_opponent_is_echoed_and_similar_names_are_offered(
    players: Mailer,
) -> None:
    reply = players.one("emergo challenge alice robot9")
    assert flat(reply.body).startswith(
        "There is no player 'robot9'. Players with similar names: robot1, robot2, robot3."
    )
    assert "  emergo challenge alice robot9\n" in reply.body


def test_in_a_multiple_mail_an_unknown_opponent_is_echoed_unless_it_is_the_password(
    players: Mailer,
) -> None:
    # A multiple mail runs in its write transaction: the words were checked before it.
    report = players.one(
        "multiple", "emergo challenge alice robot9\nemergo challenge alice alicepw\n"
    )
    body = flat(report.body)
    assert "There is no player 'robot9'." in body
    assert "alicepw" not in body


def test_challenge_options_are_stored(players: Mailer) -> None:
    players.send("emergo challenge alice bob -unrated -blocked=draw --nagtime=3 --forfeittime=10")
    board = board_row(players)
    assert (board.rated, board.blocked_rule, board.nag_days, board.forfeit_days) == (
        False, "draw", 3, 10,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("command", "sender", "reason"),
    [
        ("emergo challenge alice bob", "eve@example.org", "Only alice or bob can start"),
        # A challenge takes no password: a userid that does not exist is shown (the typo).
        ("emergo challenge alice carol", "alice@example.org", "There is no player 'carol'."),
        # Words the server does not know (not an existing userid, option, ...) may be
        # passwords typed in the wrong place: an error shows them masked.
        ("emergo challenge alice ALICE", "alice@example.org", "two different players"),
        ("emergo challenge alice bob -fast", "alice@example.org", "Unknown option '********'"),
        ("emergo challenge alice bob --nagtime=0", "alice@example.org", "from 1 to 365"),
        ("emergo challenge alice", "alice@example.org", "needs these arguments"),
    ],
)
def test_challenge_errors(players: Mailer, command: str, sender: str, reason: str) -> None:
    reply = error(players.send(command, sender=sender), sender)
    assert reply.subject == "Emergo error"
    assert reason in reply.body.splitlines()[0]
    assert board_row_count(players) == 0


def board_row_count(m: Mailer) -> int:
    with m.factory() as session:
        return len(list(session.scalars(select(Board))))


# --- moves ----------------------------------------------------------------------------


def test_a_move_mails_the_board_to_both_players(game: Mailer) -> None:
    replies = move(game, "alice", "E4#1", body="Here we go.")
    assert [(r.to, r.subject) for r in replies] == [
        ("alice@example.org", "Emergo Board 101 bob **"),
        ("bob@example.org", "Emergo Board 101 bob **"),
    ]
    body = replies[1].body
    assert "alice played e4 (move 1)." in body
    assert "It is bob's turn (Eks): move 2." in body
    assert "Moves:\n  1. e4\n" in body
    assert " E - .   .   .   o   .   .   .   .   .   " in body
    assert "alice writes:\n  Here we go." in body
    assert "Time taken: alice 1 min, bob less than a minute." in body
    assert notations(game) == ["e4"]



def test_a_move_replays_no_game(game: Mailer, monkeypatch: pytest.MonkeyPatch) -> None:
    # The board row keeps the position and the repetition keys: a move resumes the game from
    # them; replaying the move list is work that grows with the length of every game.
    play_all(game, ["e4", "e6", "d4"])
    replays: list[int] = []
    original = Game.from_moves.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Game], moves: list[str], **kwargs: object) -> Game:
        replays.append(len(moves))
        return original(cls, moves, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(Game, "from_moves", classmethod(counting))
    replies = move(game, "bob", "d6#4")
    assert [r.subject for r in replies] == ["Emergo Board 101 alice"] * 2
    assert replays == []
    assert notations(game) == ["e4", "e6", "d4", "d6"]

def test_move_list_is_a_score_sheet_of_the_whole_game(game: Mailer) -> None:
    replies = play_all(game, ["e4", "e6", "c5"])
    assert "Moves:\n  1. e4 2. e6   3. c5\n" in replies[0].body


def test_score_sheet_keeps_turns_together_within_the_width() -> None:
    labels = [f"m{n}" for n in range(1, 41)]
    lines = score_sheet(labels, width=30)
    assert all(len(line) <= 30 for line in lines)
    assert lines[0] == "  1. m1 2. m2   3. m3 4. m4"
    assert [w for line in lines for w in line.split() if not w.endswith(".")] == labels
    assert all(line.split()[0].rstrip(".").isdigit() for line in lines)
    assert all(int(line.split()[0].rstrip(".")) % 2 == 1 for line in lines)


@pytest.mark.parametrize(
    ("command", "sender", "subject", "first_line"),
    [
        ("emergo move 101 alice wrongpw e4", "alice", "Emergo Board 101 Error",
         "Wrong password for alice."),
        ("emergo move 101 bob bobpw e4", "bob", "Emergo Board 101 Error",
         "It is not your turn on board 101: it is alice's."),
        ("emergo move 999 alice alicepw e4", "alice", "Emergo error", "There is no board 999."),
        ("emergo move abc alice alicepw e4", "alice", "Emergo error",
         "'abc' is not a board number (boards are numbered from 101)."),
        ("emergo move 101 alice alicepw e4#2", "alice", "Emergo Board 101 Error",
         "Board 101 is at move 1, not move 2: nothing was done."),
        ("emergo move 101 alice alicepw e5", "alice", "Emergo Board 101 Error",
         "e5 is not a legal move on board 101 now."),
        ("emergo move 101 alice alicepw e4e5e", "alice", "Emergo Board 101 Error",
         "'********' is not a move: write an entry like e4, a step like e4-e5, or a capture "
         "like e4xc4xc6."),
        ("emergo move 101 alice alicepw", "alice", "Emergo error",
         "The command emergo move needs these arguments: "
         "emergo move board userid password MOVE[#n]."),
        ("emergo mvoe 101 alice alicepw e4", "alice", "Emergo error",
         "There is no command 'emergo mvoe'. Did you mean 'emergo move'?"),
    ],
)  # fmt: skip
def test_move_errors_go_to_the_sender_only(
    game: Mailer, command: str, sender: str, subject: str, first_line: str
) -> None:
    reply = error(game.send(command, sender=ADDRESS[sender]), ADDRESS[sender])
    assert reply.subject == subject
    assert flat(reply.body.split("\n\n")[0]) == first_line
    assert PASSWORD[sender] not in flat(reply.body)
    assert "wrongpw" not in flat(reply.body)
    assert notations(game) == []


def test_a_move_out_of_turn_is_answered_with_how_to_queue_it(game: Mailer) -> None:
    # #2 is bob's next move: the reply is about the turn, not about a stale number.
    reply = error(game.send("emergo move 101 bob bobpw D5#2", sender=ADDRESS["bob"]),
                  ADDRESS["bob"])
    body = flat(reply.body)
    assert body.startswith("It is not your turn on board 101: it is alice's. ")
    assert "\n  emergo queue 101 bob PASSWORD d5\n" in reply.body
    assert (
        "To have d5 played for you as soon as alice has moved (if it is legal then), mail "
        "the Subject emergo queue 101 bob PASSWORD d5 "
    ) in body
    assert "'help queue' tells more" in body and "bobpw" not in body
    assert notations(game) == []


def test_illegal_move_lists_the_legal_moves(game: Mailer) -> None:
    reply = error(move(game, "alice", "e5"), "alice@example.org")
    assert "Why: White may not enter on e5 on the first move of the game." in flat(reply.body)
    assert "The legal moves (40):\n  a5  b4  b5" in reply.body
    assert "Your command:\n  emergo move 101 alice ******** e5\n" in reply.body


def test_illegal_move_when_a_capture_is_compulsory_gives_its_size(game: Mailer) -> None:
    moves, size = capture_position()
    play_all(game, moves)
    userid = "alice" if len(moves) % 2 == 0 else "bob"
    position = Game.from_moves(moves).position
    entry = next(c for c in ("a5", "e1", "e9", "i5") if position.column(c) is None)
    reply = error(move(game, userid, entry), ADDRESS[userid])
    assert "Why: Capture is compulsory" in flat(reply.body)
    man = "man" if size == 1 else "men"
    words = " ".join(reply.body.split())
    assert f"only a maximum capture is allowed: it takes {size} {man}." in words


def test_not_your_game(game: Mailer) -> None:
    game.signup("carol", "carolpw", "carol@example.org")
    reply = game.one("emergo move 101 carol carolpw e4", sender="carol@example.org")
    assert flat(reply.body).startswith("carol does not play on board 101: it is alice against bob.")


def test_stale_guard_names_the_move_due(game: Mailer) -> None:
    play_all(game, ["e4", "e6"])
    reply = error(move(game, "alice", "c5#2"), "alice@example.org")
    assert flat(reply.body).startswith("Board 101 is at move 3, not move 2: nothing was done.")
    assert "send your move again, with #3 if you add a number." in " ".join(reply.body.split())
    assert all(len(line) <= 72 for line in reply.body.split("Your command:")[1].splitlines()[2:7])
    assert notations(game) == ["e4", "e6"]
    move(game, "alice", "c5#3")
    assert notations(game) == ["e4", "e6", "c5"]


def test_resign_ends_a_rated_game_with_rating_changes(game: Mailer) -> None:
    play_all(game, RATED_OPENING)
    replies = game.send("emergo resign 101 bob bobpw", "Well played.", sender="bob@example.org")
    # " **": the board mail carries a comment.
    assert [(r.to, r.subject) for r in replies] == [
        ("alice@example.org", "Emergo Board 101 Game over **"),
        ("bob@example.org", "Emergo Board 101 Game over **"),
    ]
    body = replies[0].body
    assert "bob resigned.\nalice (Ohs) wins: bob resigned.\n" in body
    assert "Rating changes: alice 1600 -> 1762 (+162), bob 1600 -> 1438 (-162)." in body
    assert "bob writes:\n  Well played." in body
    board = board_row(game)
    assert (board.status, board.winner, board.outcome_reason) == ("finished", "white", "resigned")
    finished = error(move(game, "alice", "c5"), "alice@example.org")
    assert flat(finished.body).startswith("The game on board 101 is over: alice (Ohs) wins")



def test_a_finished_board_keeps_its_own_rating_changes(game: Mailer) -> None:
    # The rating lines of board 101 must not move when a later game changes the ratings
    # (a week later: only the first rated game of a pair in a week moves ratings).
    play_all(game, RATED_OPENING)
    game.send("emergo resign 101 bob bobpw", sender="bob@example.org")
    game.now += timedelta(days=7)
    game.send("emergo challenge alice bob")
    play_all(game, RATED_OPENING, board=102)
    game.send("emergo resign 102 bob bobpw", sender="bob@example.org")
    [shown] = game.send("emergo show 101")
    assert "Rating changes: alice 1600 -> 1762 (+162), bob 1600 -> 1438 (-162)." in flat(
        shown.body
    )

def test_resign_as_a_move_word_in_an_unrated_game(players: Mailer) -> None:
    players.send("emergo challenge alice bob -unrated")
    play_all(players, ["e4"])  # alice has moved, so her resignation does not decline
    replies = move(players, "alice", "resign")
    assert "bob (Eks) wins: alice resigned." in flat(replies[0].body)
    assert "Rating changes" not in flat(replies[0].body)
    with players.factory() as session:
        ratings = sorted(
            p.rating
            for p in session.scalars(select(Player).where(Player.userid.in_(["alice", "bob"])))
        )
    assert ratings == [1600, 1600]


def test_draw_by_agreement(game: Mailer) -> None:
    play_all(game, RATED_OPENING)  # four moves each: the draw is rated
    replies = move(game, "alice", "propose")
    assert [r.subject for r in replies] == ["Emergo Board 101 alice"] * 2
    assert (
        "alice offers a draw; bob may answer with 'emergo move 101 bob PASSWORD accept' "
        "(or reject)." in flat(replies[0].body)
    )
    again = error(move(game, "alice", "propose"), "alice@example.org")
    assert flat(again.body).startswith("You have already offered a draw on board 101")
    replies = move(game, "bob", "accept")
    assert [r.subject for r in replies] == ["Emergo Board 101 Game over"] * 2
    assert "The game is a draw: both players agreed." in flat(replies[0].body)
    assert "Rating changes: alice 1600 -> 1600 (+0), bob 1600 -> 1600 (+0)." in flat(
        replies[0].body
    )
    assert board_row(game).outcome_reason == "draw agreed"


def test_draw_offer_rejected_or_lapsing_with_a_move(game: Mailer) -> None:
    move(game, "alice", "propose")
    replies = move(game, "bob", "reject")
    assert "bob rejected alice's draw offer." in flat(replies[0].body)
    assert "offers a draw" not in flat(replies[0].body)
    nothing = error(move(game, "bob", "accept"), "bob@example.org")
    assert flat(nothing.body).startswith("alice has neither offered a draw nor asked")
    move(game, "bob", "propose")
    replies = move(game, "alice", "e4")  # playing on declines the offer
    assert "offers a draw" not in flat(replies[0].body)
    error(move(game, "alice", "accept"), "alice@example.org")
    assert board_row(game).status == "active"


def test_undo_accepted_takes_back_the_last_move(game: Mailer) -> None:
    play_all(game, ["e4", "e6"])
    replies = move(game, "bob", "undo")
    assert "bob asks to take back move 2; alice may answer with" in flat(replies[0].body)
    replies = move(game, "alice", "accept")
    assert [r.subject for r in replies] == ["Emergo Board 101 bob"] * 2
    assert "alice accepted: move 2 taken back. It is bob's turn again." in flat(replies[0].body)
    assert notations(game) == ["e4"]
    board = board_row(game)
    assert (board.ply, board.to_move) == (1, "black")
    assert board.position == Game.from_moves(["e4"]).position.to_text()
    move(game, "bob", "c5#2")
    assert notations(game) == ["e4", "c5"]


def test_undo_on_your_opponents_turn_takes_back_both_moves(game: Mailer) -> None:
    play_all(game, ["e4", "e6"])
    move(game, "alice", "undo")
    replies = move(game, "bob", "accept")
    assert "moves 1 to 2 taken back. It is alice's turn again." in flat(replies[0].body)
    assert notations(game) == []


def test_undo_rejected_changes_nothing(game: Mailer) -> None:
    play_all(game, ["e4", "e6"])
    move(game, "bob", "undo")
    replies = move(game, "alice", "reject")
    assert "alice rejected bob's request to take back a move." in flat(replies[0].body)
    assert notations(game) == ["e4", "e6"]
    empty = error(move(game, "bob", "accept"), "bob@example.org")
    assert "nothing to accept" in flat(empty.body.split("\n\n")[0])


def test_undo_without_a_move_of_yours(game: Mailer) -> None:
    reply = error(move(game, "alice", "undo"), "alice@example.org")
    assert flat(reply.body).startswith("You have no move to take back on board 101.")


def test_elimination_ends_the_game(game: Mailer) -> None:
    moves = elimination_game()
    replies = play_all(game, moves)
    outcome = Game.from_moves(moves).outcome()
    assert outcome is not None
    winner = "alice" if outcome.winner == "white" else "bob"
    loser = "bob" if winner == "alice" else "alice"
    assert [r.subject for r in replies] == ["Emergo Board 101 Game over"] * 2
    assert f"wins: {loser} has no men left." in flat(replies[0].body)
    assert f"{winner} 1600 -> 1762 (+162)" in flat(replies[0].body)
    assert f" {len(moves)}. {moves[-1]}\n" in replies[0].body  # the whole list at game end
    board = board_row(game)
    assert (board.winner, board.outcome_reason) == (outcome.winner, "eliminated")


@pytest.mark.parametrize("rule", ["loss", "draw"])
def test_blocked_player(players: Mailer, rule: str) -> None:
    option = " -blocked=draw" if rule == "draw" else ""
    players.send(f"emergo challenge alice bob{option}")
    moves = blocked_game()
    replies = play_all(players, moves)
    outcome = Game.from_moves(moves, blocked=rule).outcome()  # type: ignore[arg-type]
    assert outcome is not None and outcome.termination == "blocked"
    stuck = "alice" if Game.from_moves(moves).position.to_move == "white" else "bob"
    if rule == "loss":
        assert f"wins: {stuck} is blocked and cannot move." in flat(replies[0].body)
    else:
        assert (
            f"The game is a draw: {stuck} is blocked and cannot move (a draw under "
            "-blocked=draw)." in flat(replies[0].body)
        )
    board = board_row(players)
    assert (board.winner, board.outcome_reason) == (outcome.winner, "blocked")


def test_threefold_repetition_is_a_draw(game: Mailer) -> None:
    replies = play_all(game, repetition_game())
    assert "The game is a draw: the same position came up for the third time." in (replies[0].body)
    assert board_row(game).outcome_reason == "threefold repetition"


def test_multiple_plays_several_commands(game: Mailer) -> None:
    body = "emergo move 101 alice alicepw e4#1\nemergo move 101 alice alicepw c5\nemergo show 101\n"
    replies = game.send("multiple", body)
    report = replies[0]
    assert report.subject == "Emergo multiple: 2 done, 1 failed"
    assert "  > emergo move 101 alice ******** e4#1\n  played e4 on board 101\n" in report.body
    assert (
        "  > emergo move 101 alice ******** c5\n"
        "  Error: It is not your turn on board 101: it is bob's.\n" in report.body
    )
    assert "alicepw" not in flat(report.body)
    assert [(r.to, r.subject) for r in replies[1:]] == [
        ("alice@example.org", "Emergo Board 101 bob"),
        ("bob@example.org", "Emergo Board 101 bob"),
    ]


def test_a_board_mail_lists_every_move_of_a_long_game(game: Mailer) -> None:
    position = Game().position
    moves: list[str] = []
    for _ in range(14):
        move = str(position.legal_moves()[0])
        moves.append(move)
        position = position.play(move)
    replies = play_all(game, moves)
    body = replies[0].body
    assert "Moves:\n  1. " in body and "the last" not in body
    listed = body.split("Moves:\n")[1].split("\n\n")[0]
    assert [w for w in listed.split() if not w.endswith(".")] == moves
