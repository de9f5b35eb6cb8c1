"""emergo show, games, moves, record and preview through `process`."""

from __future__ import annotations

from pbm_emergo.rules import Game, render_board
from tests.support.mailer import Mailer

from .support import board_row, error, notations, play_all


def test_show_board_sends_all_moves_to_the_sender_only(game: Mailer) -> None:
    play_all(game, ["e4", "e6", "c5"])
    reply = game.one("emergo show 101", sender="carol@example.org")
    assert (reply.to, reply.subject, reply.board) == (
        "carol@example.org", "Emergo Board 101 bob", 101,
    )  # fmt: skip
    assert "Moves:\n  1. e4 2. e6   3. c5\n" in reply.body
    expected = render_board(Game.from_moves(["e4", "e6", "c5"]).position, "alice", "bob")
    assert expected in reply.body


def test_show_board_as_of_move_n(game: Mailer) -> None:
    play_all(game, ["e4", "e6", "c5"])
    reply = game.one("emergo show 101#1")
    assert "The board as of move 1; 3 moves have been played." in reply.body
    assert "After move 1 it was bob's turn (Eks)." in reply.body
    assert render_board(Game.from_moves(["e4"]).position, "alice", "bob") in reply.body
    assert "2. e6" not in reply.body.split("Moves:")[1].split("\n\n")[0]
    zero = game.one("emergo show 101#0")
    assert render_board(Game().position, "alice", "bob") in zero.body
    beyond = game.one("emergo show 101#9")
    assert beyond.subject == "Emergo Board 101 Error"
    assert beyond.body.startswith("Board 101 has 3 moves so far, so there is no move 9")


def test_show_players_boards_with_filters(players: Mailer) -> None:
    players.send("emergo challenge alice bob")
    players.send("emergo challenge bob alice", sender="bob@example.org")
    players.send("emergo challenge alice bob")
    play_all(players, ["e4", "e6"], board=103)  # so that resigning does not decline
    players.send("emergo resign 103 bob bobpw", sender="bob@example.org")
    active = players.one("emergo show alice")
    assert active.subject == "Emergo boards 101, 102"
    assert "Emergo Board 101:" in active.body and "Emergo Board 102:" in active.body
    mine = players.one("emergo show ALICE next")
    assert mine.subject == "Emergo Board 101 alice"
    done = players.one("emergo show alice inactive")
    assert done.subject == "Emergo Board 103 Game over"
    assert players.one("emergo show alice all").subject == "Emergo boards 101, 102, 103"
    none = players.one("emergo show bob inactive next")
    assert none.subject == "Emergo error"



def test_show_two_players_sends_their_common_board_once(game: Mailer) -> None:
    [reply] = game.send("emergo show alice bob")
    assert reply.subject == "Emergo Board 101 alice"
    assert reply.body.count("Emergo Board 101:") == 1

def test_show_unknown(game: Mailer) -> None:
    assert game.one("emergo show 555").body.startswith("There is no board 555.")
    # nobody1 is no userid, so it may be a password typed in the wrong place: masked.
    assert game.one("emergo show nobody1").body.startswith("There is no player by that name.")


def test_games_table(players: Mailer) -> None:
    players.signup("carol", "carolpw", "carol@example.org")
    players.send("emergo challenge alice bob")
    players.send("emergo challenge carol bob", sender="carol@example.org")
    players.send("emergo move 102 carol carolpw e4", sender="carol@example.org")
    players.send("emergo resign 102 carol carolpw", sender="carol@example.org")
    table = players.one("emergo games").body
    assert "Board  Move  Ohs               Eks               Status\n" in table
    assert "101    1     alice             bob               alice to move\n" in table
    assert "102" not in table
    everything = players.one("emergo games carol all").body
    assert everything.startswith("All boards of carol:\n")
    assert "102    1     carol             bob               bob won (resigned)\n" in everything
    assert "101" not in everything
    waiting = players.one("emergo games carol next").body
    assert waiting.startswith("The boards where it is the turn of carol:\n")
    assert "None." in waiting
    assert players.one("emergo show carol next").body.startswith(
        "There is no board where it is the turn of carol."
    )
    assert players.one("emergo games all").body.startswith("All boards on this server:\n")


def test_moves_lists_the_legal_moves(game: Mailer) -> None:
    play_all(game, ["e4"])
    reply = game.one("emergo moves 101")
    assert reply.subject == "Emergo Board 101 moves"
    assert reply.body.startswith("Board 101, move 2: bob (Eks) to move.\n")
    legal = [str(m) for m in Game.from_moves(["e4"]).position.legal_moves()]
    assert f"bob has 12 men in hand and must enter.\n{len(legal)} legal moves:\n" in reply.body
    assert reply.body.split("legal moves:\n")[1].split() == legal


def test_record_is_the_whole_game(game: Mailer) -> None:
    play_all(game, ["e4", "e6", "c5"])
    game.send("emergo resign 101 bob bobpw", sender="bob@example.org")
    reply = game.one("emergo record 101")
    assert reply.body.startswith("Emergo Board 101\nOhs (o): alice\nEks (x): bob\n")
    assert (
        "\n    1. e4                     2. e6\n    3. c5\n\nalice (Ohs) wins: bob resigned.\n"
        in (reply.body)
    )


def test_preview_changes_nothing(game: Mailer) -> None:
    play_all(game, ["e4", "e6"])
    before = board_row(game)
    reply = game.one("emergo preview 101 c5 c3", sender="bob@example.org")
    assert reply.subject == "Emergo Board 101 preview"
    assert "Moves tried: 3. c5  4. c3\n" in reply.body
    assert "Then it would be alice's turn (Ohs): move 5." in reply.body
    position = Game.from_moves(["e4", "e6", "c5", "c3"]).position
    assert render_board(position, "alice", "bob") in reply.body
    after = board_row(game)
    assert (after.ply, after.position, after.to_move) == (before.ply, before.position, "white")
    assert notations(game) == ["e4", "e6"]


def test_preview_from_an_earlier_move_and_an_illegal_preview(game: Mailer) -> None:
    play_all(game, ["e4", "e6"])
    reply = game.one("emergo preview 101#1 c5")
    assert "Starting after move 1 (the game itself is at 2 moves)." in reply.body
    assert "Moves tried: 2. c5\n" in reply.body
    bad = error(game.send("emergo preview 101 c5 c5"), "alice@example.org")
    assert bad.body.startswith("Preview of board 101: c5 cannot be move 4.")
    assert "Why: Cell c5 is occupied" in bad.body
    assert notations(game) == ["e4", "e6"]
