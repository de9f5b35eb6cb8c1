"""The cost of one move mail on each side of the queue, in one process, without SMTP.

The listener's side (:meth:`InboxHandler.store`: parse, describe, insert) and the worker's
side (:meth:`InboxWorker.run_once`: claim, authenticate, play, render, build the replies,
one write transaction) are timed apart, in wall and CPU milliseconds per mail, over games
played move by move (every move a mail with the ``#n`` guard, as ``bench/pipeline.py``
sends them). It is the figure to compare before and after a change to either side; the
end-to-end figures are ``bench/pipeline.py``'s.

Usage:
    .venv/bin/python bench/mail_path.py                 # 20 games of 30 moves
    .venv/bin/python bench/mail_path.py --profile worker  # pyinstrument of the worker side
    .venv/bin/python bench/mail_path.py --profile listener
    .venv/bin/python bench/mail_path.py --database-url postgresql+psycopg://...  # an empty database
    .venv/bin/python bench/mail_path.py --skip-worker  # store the move mails, run none

``--skip-worker`` leaves the move mails stored and unanswered: ``bench/instructions.py`` takes
such a run from a whole one to count what the worker's part costs.

To measure another copy of the server, put it first on PYTHONPATH and run from outside the
checkout (for example ``cd /tmp && PYTHONPATH=/path/to/copy python /path/to/mail_path.py``).
"""

from __future__ import annotations

import argparse
import random
import re
import tempfile
import time
from collections.abc import Callable
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db.models import Board, OutboundMessage, Player
from pbm_emergo.db.session import get_sessionmaker, upgrade_to_head
from pbm_emergo.mail.inbound import InboxHandler
from pbm_emergo.mail.worker import InboxWorker
from pbm_emergo.rules import Game

# The userids of game g's players are white<g> and black<g> (letters that read as no other
# word: "a11" would read as the reserved "all").
SIDES = ("white", "black")

# The code in the answer to a signup from an address the server has no proof of.
CONFIRM_CODE = re.compile(r"confirm ([0-9A-Z]{4}(?:-[0-9A-Z]{4}){3})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", choices=("listener", "worker"))
    parser.add_argument("--skip-worker", action="store_true",
                        help="store the move mails, but do not run them")
    parser.add_argument(
        "--database-url", default=None,
        help="an empty database to use (PostgreSQL), migrated here; default SQLite",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        run(Path(folder), args.games, args.moves, args.seed, args.profile, args.database_url,
            skip_worker=args.skip_worker)


def run(
    folder: Path, games: int, moves: int, seed: int, profile: str | None,
    database_url: str | None = None, *, skip_worker: bool = False,
) -> None:
    config = Config(data_dir=folder, address="pbmserv@emergo.test", database_url=database_url)
    upgrade_to_head(config)
    factory = get_sessionmaker(config)
    handler = InboxHandler(factory, config)
    worker = InboxWorker(factory, config)
    count = 0

    def mail(sender: str, subject: str) -> bytes:
        nonlocal count
        count += 1
        return command_mail(config.address, sender, subject, count)

    def store(raw: bytes, sender: str) -> None:
        handler.store(raw, sender, [config.address])

    def drain() -> int:
        done = 0
        while worker.run_once() is not None:
            done += 1
        return done

    for g in range(games):
        for side in SIDES:
            store(mail(f"{side}{g}@bench.test", f"signup {side}{g} pw-{side}{g}-x"),
                  f"{side}{g}@bench.test")
    drain()
    # Each signup was answered with the code of its address (nothing proves a bench
    # address): confirm it.
    for sender, code in codes_in_outbox(factory).items():
        store(mail(sender, f"confirm {code}"), sender)
    for g in range(games):
        store(mail(f"white{g}@bench.test", f"emergo challenge white{g} black{g}"),
              f"white{g}@bench.test")
    drain()
    # The board of each game, as the challenges were answered: a refused signup or
    # challenge would shift the numbers and turn moves into refusals, so none may be.
    boards = boards_by_white(factory)
    missing = [g for g in range(games) if f"white{g}" not in boards]
    if missing:
        raise SystemExit(f"no board for the games {missing}: a signup or challenge was refused")

    rng = random.Random(seed)
    rounds: list[list[tuple[bytes, str]]] = [[] for _ in range(moves)]
    for g in range(games):
        game = Game()
        for n in range(moves):
            if game.outcome():
                break
            move = rng.choice(game.position.legal_moves())
            game.play(move)
            side = SIDES[n % 2]
            sender = f"{side}{g}@bench.test"
            subject = f"emergo move {boards[f'white{g}']} {side}{g} pw-{side}{g}-x {move}#{n + 1}"
            rounds[n].append((mail(sender, subject), sender))
    # Round by round over the games, as players answer each other.
    mails = [item for round_ in rounds for item in round_]

    def store_all() -> None:
        for raw, sender in mails:
            store(raw, sender)

    listener = timed(store_all, profile == "listener")
    n = len(mails)
    print(f"{n} move mails over {games} games")
    print(f"listener (parse, describe, insert): {listener[0] / n * 1000:.2f} ms wall, "
          f"{listener[1] / n * 1000:.2f} ms CPU a mail")
    if skip_worker:
        return
    work = timed(drain, profile == "worker")
    print(f"worker (claim ... replies queued):  {work[0] / n * 1000:.2f} ms wall, "
          f"{work[1] / n * 1000:.2f} ms CPU a mail")


def command_mail(
    address: str, sender: str, subject: str, number: int, body: str = "Good luck!\n"
) -> bytes:
    """A command mail from ``sender`` to the server at ``address`` (the ``number``-th of
    the run: its Message-ID), as a player's client sends it."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = address
    message["Subject"] = subject
    message["Message-ID"] = f"<m{number}@bench.test>"
    message.set_content(body)
    return message.as_bytes(policy=policy.SMTP)


def boards_by_white(factory: sessionmaker[Session]) -> dict[str, int]:
    """The number of each board, by the userid of its first player."""
    with factory() as session:
        rows = session.execute(
            select(Player.userid, Board.number).join(Board, Board.white_player_id == Player.id)
        ).all()
    return {userid: number for userid, number in rows}


def codes_in_outbox(factory: sessionmaker[Session]) -> dict[str, str]:
    """The code mailed to each address so far, read from the outbox."""
    with factory() as session:
        rows = session.execute(
            select(OutboundMessage.recipient, OutboundMessage.raw)
            .where(OutboundMessage.subject.like("Emergo: confirm your address for %"))
        ).all()
    codes: dict[str, str] = {}
    for recipient, raw in rows:
        part = BytesParser(policy=policy.default).parsebytes(raw).get_body(("plain",))
        found = CONFIRM_CODE.search(part.get_content() if part is not None else "")
        if found:
            codes[recipient] = found[1]
    return codes


def timed(step: Callable[[], object], profile: bool) -> tuple[float, float]:
    profiler = None
    if profile:
        from pyinstrument import Profiler

        profiler = Profiler()
        profiler.start()
    wall, cpu = time.perf_counter(), time.process_time()
    step()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if profiler is not None:
        profiler.stop()
        print(profiler.output_text(unicode=False, color=False))
    return wall, cpu


if __name__ == "__main__":
    main()
