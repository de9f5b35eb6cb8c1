"""Board mails in each player's language: after ``language USERID PASSWORD de`` a player's
board mails (text and HTML) say the status, the clock and the last move in German, the
diagram's key and hands too, while command words, userids, cell names and moves stay as
they are; the other player's mail stays English. Through the real listener, SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.post import ALICE, BOB, Post, challenge, text


def html_of(mail: object) -> str:
    body = mail.get_body(("html",))  # type: ignore[attr-defined]
    assert body is not None
    return str(body.get_content())


def test_a_german_player_gets_a_german_board_mail_after_a_move(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language bob bob-pw1 de", BOB)
    board = challenge(post, "--totaltime=10")
    [new] = [m for m in post.received_by(BOB) if "New Emergo Board" in str(m["Subject"])]
    assert "Eine neue Partie: alice spielt Ohs (o) und zieht zuerst, bob spielt Eks (x)." in (
        " ".join(text(new).split())
    )
    mails = {str(m["To"]): m for m in post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)}
    german, english = text(mails[BOB]), text(mails[ALICE])
    flat = " ".join(german.split())

    assert german.startswith(f"Emergo-Brett {board}: alice (Ohs, ")
    assert "Optionen: gewertet; " in german
    assert "alice spielte e4 (Zug 1).\n" in german  # the headline
    assert "bob ist am Zug (Eks): Zug 2.\n" in german  # the status
    assert "Zieht bob nicht: eine Erinnerung am " in flat  # the deadlines
    assert "ist die Partie durch Zeitüberschreitung verloren." in flat
    assert "Letzter Zug: " in german and "(Zug 1, e4)." in flat  # the last move
    assert "Bedenkzeit (10 Tage für jeden): alice " in flat  # the clock
    assert " E - " in german and "  Ohs (alice) in der Hand: 11\n" in german
    assert "  Legende: . leeres Feld, o ein Ohs-Stein, x ein Eks-Stein;" in german
    assert all(len(line) <= 72 for line in german.splitlines())
    assert str(mails[BOB]["Subject"]) == f"Emergo Board {board} bob"  # Subjects stay English

    html = html_of(mails[BOB])
    assert '<html lang="de">' in html
    assert f">Emergo-Brett {board}</h2>" in html
    assert "bob ist am Zug (Eks): Zug 2." in html
    assert 'aria-label="e4: Ohs-Stein; hierhin ging der letzte Zug"' in html

    # alice chose nothing: her mail is as it always was.
    assert english.startswith(f"Emergo Board {board}: alice (Ohs, ")
    assert "alice played e4 (move 1).\n" in english
    assert "It is bob's turn (Eks): move 2.\n" in english
    assert "If bob does not move: a reminder at " in " ".join(english.split())
    assert "  Key: . empty cell, o one Ohs man, x one Eks man;" in english
    assert '<html lang="en">' in html_of(mails[ALICE])
    assert 'aria-label="e4: Ohs man; the last move went here"' in html_of(mails[ALICE])

    # His other answers about the board too; the Subjects and command words stay.
    moves = text(post.one(f"emergo moves {board}", BOB))
    assert moves.startswith(f"Brett {board}, Zug 2: bob (Eks) am Zug.\n")
    assert "bob hat 12 Steine in der Hand und muss einsetzen.\n" in moves
    record = post.one(f"emergo record {board}", BOB)
    assert str(record["Subject"]) == f"Emergo Board {board} record"
    assert text(record).startswith(f"Emergo-Brett {board}\nOhs (o): alice\n")
    assert "Läuft: bob (Eks) spielt Zug 2.\n" in text(record)

    assert "Es gibt kein Brett 999." in text(post.one("emergo moves 999", BOB))
    assert "There is no board 999." in text(post.one("emergo moves 999", ALICE))

    # bob answers, in words as he asked; alice offers a draw: bob reads it in German.
    post.one("board bob bob-pw1 list", BOB)
    mails = {str(m["To"]): m for m in post.send(f"emergo move {board} bob bob-pw1 e6", BOB)}
    german = text(mails[BOB])
    assert "alice ist am Zug (Ohs): Zug 3.\n" in german
    assert "Reihe a: leer\n" in german and "  e4: Ohs-Stein\n  e6: Eks-Stein\n" in german
    assert "Letzter Zug: e6, von Eks\n" in german
    assert "Ohs am Zug, " in german and " legale Züge\n" in german
    assert "It is alice's turn (Ohs): move 3.\n" in text(mails[ALICE])
    mails = {
        str(m["To"]): m for m in post.send(f"emergo move {board} alice alice-pw1 propose", ALICE)
    }
    assert (
        f"alice bietet Remis an; bob kann mit 'emergo move {board} bob PASSWORD accept' "
        "antworten (oder reject)."
    ) in " ".join(text(mails[BOB]).split())
    assert "alice bietet Remis an.\n" in text(mails[BOB])


def test_a_dutch_player_gets_the_end_of_the_game_in_dutch(
    make_post: Callable[..., Post],
) -> None:
    post = make_post()
    post.one("language alice alice-pw1 nl", ALICE)
    board = challenge(post)
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    post.send(f"emergo move {board} bob bob-pw1 e6", BOB)
    post.send(f"emergo move {board} alice alice-pw1 e2", ALICE)
    mails = {str(m["To"]): m for m in post.send(f"emergo move {board} bob bob-pw1 resign", BOB)}
    dutch = text(mails[ALICE])
    assert "alice (Ohs) wint: bob heeft opgegeven.\n" in dutch
    assert "Gebruikte tijd: alice " in dutch and "Laatste zet: " in dutch
    assert "alice (Ohs) wins: bob resigned.\n" in text(mails[BOB])
