"""Games by mail for the operations tests: players sign up, challenge, and play legal moves
(from the rules engine) with the `#n` guard, through the real listener; the database says
what became of every mail."""

from __future__ import annotations

import random
import smtplib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from email import policy

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import Board, InboundMessage, MoveRecord, OutboundMessage, Player
from pbm_emergo.rules import Game
from tests.support.mail import SERVER_ADDRESS, command_mail, wait_for
from tests.support.signup import codes_in_outbox
from tests.support.waits import scaled

PASSWORD = "Ops-secret-1"


def address(userid: str) -> str:
    return f"{userid}@players.test"


def deliver(port: int, subject: str, userid: str, message_id: str,
            timeout: float = 120.0) -> int:
    """Submit one mail as an MTA does: 4xx answers and connection errors are tried again
    (the same Message-ID) until 250; returns how many attempts were refused."""
    msg = command_mail(subject, sender=address(userid), message_id=message_id)
    raw = msg.as_bytes(policy=policy.SMTP)
    refused = 0
    deadline = time.monotonic() + scaled(timeout)
    while True:
        try:
            with smtplib.SMTP("127.0.0.1", port, local_hostname="client.test",
                              timeout=30) as smtp:
                smtp.sendmail(address(userid), [SERVER_ADDRESS], raw)
            return refused
        except smtplib.SMTPResponseException as exc:
            if exc.smtp_code >= 500:
                raise
        except smtplib.SMTPRecipientsRefused as exc:
            if next(iter(exc.recipients.values()))[0] >= 500:
                raise
        except (OSError, smtplib.SMTPException):
            pass
        refused += 1
        if time.monotonic() > deadline:
            raise AssertionError(f"{message_id} was never accepted")
        time.sleep(0.2)


def caused_by(sessions: sessionmaker[Session]) -> dict[str, str]:
    """The Message-ID of each mail the server sent -> that of the mail that caused it (its
    outbox row's): only the answer to a command's sender names it in In-Reply-To."""
    with sessions() as session:
        return {
            str(sent): str(cause)
            for sent, cause in session.execute(
                select(OutboundMessage.message_id, InboundMessage.message_id)
                .join(InboundMessage, OutboundMessage.inbound_id == InboundMessage.id)
            )
        }


def unfinished(sessions: sessionmaker[Session]) -> int:
    with sessions() as session:
        return session.scalar(
            select(func.count()).select_from(InboundMessage)
            .where(InboundMessage.status.in_(("pending", "processing")))
        ) or 0


def wait_processed(sessions: sessionmaker[Session], timeout: float = 120.0) -> None:
    wait_for(lambda: unfinished(sessions) == 0, timeout=timeout, interval=0.2)


@dataclass
class Match:
    """One game: its players, its planned legal moves, and its board once challenged."""

    white: str
    black: str
    moves: list[str]
    board: int = 0
    sent: int = field(default=0)

    def player(self, number: int) -> str:
        return self.white if number % 2 == 1 else self.black


def plan(count: int, moves: int, seed: int, prefix: str = "p") -> list[Match]:
    """``count`` games of ``moves`` legal moves each (stopping before a game would end)."""
    rng = random.Random(seed)
    matches = []
    for i in range(count):
        game = Game()
        played: list[str] = []
        while len(played) < moves:
            legal = game.position.legal_moves()
            if not legal:
                break
            move = game.play(rng.choice(legal))
            if game.outcome() is not None:
                break
            played.append(str(move))
        matches.append(Match(f"{prefix}{i}w", f"{prefix}{i}b", played))
    return matches


def set_up(port: int, sessions: sessionmaker[Session], matches: Sequence[Match],
           send: Callable[[int, str, str, str], object] = deliver) -> None:
    """Sign every player up, challenge, and note each game's board number."""
    for m in matches:
        for userid in (m.white, m.black):
            send(port, f"signup {userid} {PASSWORD}", userid, f"<signup-{userid}@ops.test>")
    wait_processed(sessions)
    # Each signup was answered with its address's code (not proven by an MTA): confirm it.
    codes = codes_in_outbox(sessions)
    for m in matches:
        for userid in (m.white, m.black):
            code = codes[address(userid)]
            send(port, f"confirm {code}", userid, f"<confirm-{userid}@ops.test>")
    wait_processed(sessions)
    for m in matches:
        send(port, f"emergo challenge {m.white} {m.black}", m.white, f"<ch-{m.white}@ops.test>")
    wait_processed(sessions)
    with sessions() as session:
        boards = {
            (white, black): number
            for number, white, black in session.execute(
                select(Board.number, Board.white_player_id, Board.black_player_id)
            )
        }
        ids = {u: i for u, i in session.execute(select(Player.userid, Player.id))}
    for m in matches:
        m.board = boards[(ids[m.white], ids[m.black])]


def move_mail(m: Match, number: int) -> tuple[str, str, str]:
    """(subject, userid, Message-ID) of move ``number`` (from 1) of match ``m``."""
    userid = m.player(number)
    subject = f"emergo move {m.board} {userid} {PASSWORD} {m.moves[number - 1]}#{number}"
    return subject, userid, f"<move-{m.board}-{number}@ops.test>"


def applied_moves(sessions: sessionmaker[Session]) -> dict[int, list[tuple[int, str]]]:
    """Board number -> its stored moves (number, notation) in order."""
    found: dict[int, list[tuple[int, str]]] = {}
    with sessions() as session:
        for board, number, notation in session.execute(
            select(MoveRecord.board_number, MoveRecord.number, MoveRecord.notation)
            .order_by(MoveRecord.board_number, MoveRecord.number)
        ):
            found.setdefault(board, []).append((number, notation))
    return found


def board_plies(sessions: sessionmaker[Session]) -> dict[int, int]:
    with sessions() as session:
        return {n: p for n, p in session.execute(select(Board.number, Board.ply))}
