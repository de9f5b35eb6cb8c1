"""End-to-end mail pipeline benchmark: the real `pbm-emergo serve` against a bare
SMTP listener, driven by the same client with real games played by mail.

Starts, each in its own process: a bare aiosmtpd listener that only answers 250, a sink
(aiosmtpd) that receives the server's replies (offering PIPELINING, as Postfix does, unless
--sink-one-by-one; on uvloop, reading the four headers it reports as plain strings, unless
--sink-loop asyncio and --sink-headers default: it stands for a relay on another machine, so
the less of the machine it takes, the more the server gets), and the server as the README
runs it
(`python -m pbm_emergo serve`, SQLite in a fresh temporary data dir, default settings and
production password hashing; only --data-dir, --port and --outbound smtp://127.0.0.1:SINK are
set, plus any --server-arg). Then, with --clients concurrent smtplib clients (threads, one SMTP
session per mail):

1. signups (one player per address), each confirmed with the code its answer carries (the
   server has no proof that a bench address is the sender's), and challenges, waiting for
   the replies between phases;
2. a burst: every move of --games games of up to --moves moves (legal, seeded, from the
   rules engine), one mail per move with the `#n` guard, each game's moves sent in order by
   one client, as fast as the clients go; the same burst goes to the bare listener. This is
   done --rounds times (default 3), on fresh games each time, alternating: the bare
   listener's burst (with the server's processes stopped, SIGSTOP, so that it is alone on
   the machine as before the server started), then ours, waited for until both board mails
   of every move arrived. This machine's speed drifts from minute to minute; rounds next to
   each other compare like with like, and the median of the rounds' ratios is the figure;
3. a steady phase on fresh games: moves offered on a fixed schedule at --steady-rate per
   second for --steady-seconds (open loop), a game's next move only once the first board
   mail of its previous move arrived.

Prints: for each round, the accept rate (250s per second over the move burst) of the bare
listener and of the server and their ratio, and moves per second end to end; then their
medians over the rounds; moves per second end to end (until both board mails of every
move reached the sink), the steady-phase latency from opening the SMTP session to the first
board mail of the move (p50, p90, p99, max), error mails, 4xx answers, lost mails, and the
server's peak memory (VmHWM of the server process and its children); the CPU time per move of
each part during the burst; and where each inbox worker's time went, per move mail, from the
sections its log lines carry (claim, read, cache, argon2, rules, render, write, idle).

--credentials: ``warm`` (the default) lets the server remember verified passwords, as when
players move again within seconds; ``cold`` checks every password against its argon2id hash,
as when each player moves hours apart (the load real players make); ``both`` runs warm, then
cold, and prints the two side by side.

    .venv/bin/python bench/pipeline.py [--games 40] [--moves 30] [--clients 8] [--rounds 3]
        [--steady-rate 20] [--steady-seconds 20] [--server-arg=--workers=2] [--json]
        [--credentials warm|cold|both] [--sinks 1] [--profile /tmp/pipeline-profile.txt]

Exit status 0: a clean run; 2: the figures are printed but some mail was an error, went
missing or was never accepted; 1: the run could not finish (the reason is printed). To measure
another copy of the server, put it first on PYTHONPATH (the server runs in a temporary
directory, so the current directory does not shadow it); the `server:` line says which one ran.
"""

from __future__ import annotations

import argparse
import contextlib
import email.header
import email.policy
import email.utils
import json
import math
import multiprocessing
import multiprocessing.synchronize
import os
import platform
import queue
import random
import re
import shlex
import shutil
import signal
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from email.parser import BytesParser
from pathlib import Path
from types import FrameType
from typing import Any

SERVER_ADDRESS = "pbmserv@localhost"  # the server's default address
PLAYER_DOMAIN = "players.bench.test"
PASSWORD = "bench-secret"
CLIENT_HOSTNAME = "client.bench.test"  # so smtplib does not look up our own name each time
SMTP_TIMEOUT = 30.0
RETRY_SECONDS = 120.0  # how long one mail is retried after 4xx answers or connection errors
BOARD_SUBJECT = re.compile(r"Emergo Board (\d+)\b")
# The code in the answer to a signup from an address the server has no proof of.
CONFIRM_CODE = re.compile(r"confirm ([0-9A-Z]{4}(?:-[0-9A-Z]{4}){3})")
ABORT = threading.Event()  # set on error or interrupt: the client threads stop sending

Mail = dict[str, Any]  # what the sink reports: t, rcpt, to, subject, irt, mid, body


def is_board_mail(mail: Mail) -> bool:
    """A board mail ("Emergo Board 101 bob", "... Game over"), not an error."""
    return bool(BOARD_SUBJECT.search(mail["subject"])) and "error" not in mail["subject"].lower()


class BenchError(Exception):
    """The run cannot go on (the server did not start, replies did not come in time...)."""


# --------------------------------------------------------------------------------------
# Helper processes: the bare listener and the sink (their own interpreters, their own GIL)


def _quiet_aiosmtpd() -> None:
    import logging

    logging.getLogger("mail.log").setLevel(logging.ERROR)


def _serve_forever(controller: Any, ready: multiprocessing.synchronize.Event) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the bench's: it stops us
    controller.start()
    ready.set()
    try:
        while True:
            time.sleep(3600)
    finally:
        controller.stop()


def bare_listener_main(
    port: int, event_loop: str, ready: multiprocessing.synchronize.Event
) -> None:
    """An SMTP listener that answers 250 to everything and keeps nothing, on asyncio's event
    loop (aiosmtpd as it comes) or on uvloop's (as our listener runs by default)."""
    import asyncio

    from aiosmtpd.controller import Controller

    _quiet_aiosmtpd()

    class Accept:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            return "250 OK"

    loop: asyncio.AbstractEventLoop
    if event_loop == "uvloop":
        import uvloop

        loop = uvloop.new_event_loop()
    else:
        loop = asyncio.new_event_loop()
    controller = Controller(
        Accept(), hostname="127.0.0.1", port=port, server_hostname="bare.bench.test", loop=loop
    )
    _serve_forever(controller, ready)


@dataclass(frozen=True)
class SinkOptions:
    """How the sink works. The sink stands for a relay on another machine, so what it costs
    is the bench's, not the server's: by default it runs on uvloop and reads the four headers
    it reports as plain strings (``compat32``), about a third of a board mail's cost on
    asyncio with the ``default`` policy's header objects (both still to be chosen, to compare
    with figures taken that way)."""

    pipelining: bool = True  # PIPELINING offered in the EHLO answer
    loop: str = "uvloop"  # or "asyncio"
    headers: str = "compat32"  # or "default": email.policy.default's header objects


def sink_main(
    port: int, events: multiprocessing.Queue[Mail], options: SinkOptions,
    ready: multiprocessing.synchronize.Event,
) -> None:
    """The relay the server delivers to: answers 250 and reports every mail to the bench."""
    _quiet_aiosmtpd()
    _serve_forever(_sink_controller(port, events, options), ready)


def switchable_sink_main(
    port: int,
    events: multiprocessing.Queue[Mail],
    options: SinkOptions,
    down: multiprocessing.synchronize.Event,
    ready: multiprocessing.synchronize.Event,
) -> None:
    """The sink, closed (nothing listens on its port) while ``down`` is set (--relay-down)."""
    _quiet_aiosmtpd()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    controller = _sink_controller(port, events, options)
    controller.start()
    ready.set()
    running = True
    while True:
        time.sleep(0.05)
        if down.is_set() and running:
            controller.stop()
            running = False
        elif not down.is_set() and not running:
            controller = _sink_controller(port, events, options)
            controller.start()
            running = True


def _unfolded(value: Any) -> str:
    """A header as ``compat32`` reads it, unfolded and its encoded words (RFC 2047) decoded."""
    text = str(value).replace("\r\n", "").replace("\n", "")
    if "=?" in text:
        return str(email.header.make_header(email.header.decode_header(text)))
    return text


def _sink_controller(
    port: int, events: multiprocessing.Queue[Mail], options: SinkOptions
) -> Any:
    import asyncio

    from aiosmtpd.controller import Controller

    plain = options.headers == "compat32"
    headers_only = BytesParser(policy=email.policy.compat32 if plain else email.policy.default)
    header = _unfolded if plain else str
    loop: asyncio.AbstractEventLoop | None = None
    if options.loop == "uvloop":
        try:
            import uvloop
        except ImportError:  # as the server's listener does without it
            print("the sink: uvloop is not installed, asyncio's event loop instead",
                  file=sys.stderr)
        else:
            loop = uvloop.new_event_loop()
    if loop is None:
        loop = asyncio.new_event_loop()

    class Sink:
        async def handle_EHLO(  # noqa: N802 - aiosmtpd's hook name
            self, server: Any, session: Any, envelope: Any, hostname: str,
            responses: list[str],
        ) -> list[str]:
            # PIPELINING offered as Postfix offers it (aiosmtpd reads pipelined commands
            # in turn, but does not say so itself).
            session.host_name = hostname
            if options.pipelining:
                return [responses[0], "250-PIPELINING", *responses[1:]]
            return responses

        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            arrived = time.time()
            raw: bytes = envelope.original_content or envelope.content
            # The header block alone: the parser would read the whole body in as well.
            end = raw.find(b"\r\n\r\n")
            msg = headers_only.parsebytes(raw if end < 0 else raw[:end + 2], headersonly=True)
            subject = header(msg.get("Subject", ""))
            body = None
            if "error" in subject.lower() or "confirm your address" in subject:
                full = BytesParser(policy=email.policy.default).parsebytes(raw)
                part = full.get_body(preferencelist=("plain",))
                body = part.get_content() if part is not None else raw.decode("utf-8", "replace")
            events.put(
                {
                    "t": arrived,
                    "rcpt": list(envelope.rcpt_tos),
                    "to": header(msg.get("To", "")),
                    "subject": subject,
                    "irt": header(msg.get("In-Reply-To", "")).strip(),
                    "mid": header(msg.get("Message-ID", "")).strip(),
                    "body": body,
                }
            )
            return "250 OK"

    class SharedPortController(Controller):
        """Several sink processes accept on one port (SO_REUSEPORT, as --sinks asks): one
        aiosmtpd process takes a few hundred mails a second, the server may send more."""

        def _create_server(self) -> Any:
            return self.loop.create_server(
                self._factory_invoker, host=self.hostname, port=self.port,
                ssl=self.ssl_context, reuse_port=True,
            )

        def _trigger_server(self) -> None:
            # aiosmtpd checks its factory with a test connection, which the kernel may give
            # to another sink on the port: check it directly.
            self._factory_invoker()

    return SharedPortController(
        Sink(), hostname="127.0.0.1", port=port, server_hostname="sink.bench.test", loop=loop
    )


# --------------------------------------------------------------------------------------
# The bench's view of the sink


@dataclass
class Expectation:
    """Replies awaited: ``per`` mails in reply to each of ``ids``."""

    need: dict[str, int]
    remaining: int
    counts: Callable[[Mail], bool]  # which replies count
    last: float = 0.0  # time.time() of the mail that completed the last id


class SinkLog:
    """Every mail the sink received, filed by In-Reply-To; one condition for all waiting.

    A board mail that answers nobody (the opponent's copy after a move, the board mail of
    the one challenged) is filed under the mail that caused it, as the bench announced it
    (:meth:`await_copies`): the next one awaited for that board and recipient."""

    def __init__(self, events: multiprocessing.Queue[Mail]) -> None:
        self.events = events
        self.cond = threading.Condition()
        self.mails: list[Mail] = []
        self.by_irt: dict[str, list[Mail]] = {}
        self.expectations: list[Expectation] = []
        self.first_hooks: dict[str, Callable[[Mail], None]] = {}
        self.copies: dict[tuple[int | None, str], deque[str]] = {}
        self.last_arrival = 0.0  # time.monotonic()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._collect, name="sink-collector", daemon=True)
        self.thread.start()

    def _collect(self) -> None:
        while not self.stop.is_set():
            try:
                mail = self.events.get(timeout=0.2)
            except queue.Empty:
                continue
            with self.cond:
                self.last_arrival = time.monotonic()
                if not mail["irt"] and is_board_mail(mail):
                    mail["irt"] = self._cause_of_copy(mail)
                self.mails.append(mail)
                replies = self.by_irt.setdefault(mail["irt"], [])
                replies.append(mail)
                for exp in self.expectations:
                    left = exp.need.get(mail["irt"])
                    if left and exp.counts(mail):
                        exp.need[mail["irt"]] = left - 1
                        if left == 1:
                            exp.remaining -= 1
                            exp.last = mail["t"]
                hook = self.first_hooks.pop(mail["irt"], None)
                if hook is not None:
                    hook(mail)
                self.cond.notify_all()

    def await_copies(self, mails: Iterable[Outgoing]) -> None:
        """Announce the board mails ``mails`` will cause beside their replies (call before
        sending them, in the order each board's mails are sent)."""
        with self.cond:
            for mail in mails:
                if mail.copy_to is not None:
                    recipient, board = mail.copy_to
                    self.copies.setdefault((board, recipient.lower()), deque()).append(
                        mail.message_id
                    )

    def _cause_of_copy(self, mail: Mail) -> str:
        found = BOARD_SUBJECT.search(mail["subject"])
        board = None if mail["subject"].startswith("New ") or not found else int(found[1])
        for recipient in mail["rcpt"]:
            waiting = self.copies.get((board, recipient.lower()))
            if waiting:
                return waiting.popleft()
        return ""

    def expect(
        self, ids: Iterable[str], per: int, counts: Callable[[Mail], bool] = lambda m: True
    ) -> Expectation:
        """Start counting; replies that already arrived count too."""
        with self.cond:
            need = {
                i: max(0, per - sum(map(counts, self.by_irt.get(i, ())))) for i in ids
            }
            exp = Expectation(need, sum(1 for left in need.values() if left), counts)
            self.expectations.append(exp)
        return exp

    def drop(self, exp: Expectation, ids: Iterable[str]) -> None:
        """Stop waiting for replies to ``ids`` (mails the server never accepted)."""
        with self.cond:
            for i in ids:
                if exp.need.get(i):
                    exp.need[i] = 0
                    exp.remaining -= 1

    def wait(self, exp: Expectation, timeout: float, idle: float) -> bool:
        """Wait until every awaited reply arrived; give up after ``timeout`` s, or once no
        mail at all reached the sink for ``idle`` s (the server has nothing left to send)."""
        started = time.monotonic()
        deadline = started + timeout
        with self.cond:
            try:
                while exp.remaining:
                    now = time.monotonic()
                    if now >= deadline or now - max(self.last_arrival, started) >= idle:
                        return False
                    self.cond.wait(min(1.0, deadline - now))
                return True
            finally:
                self.expectations.remove(exp)

    def replies(self, irt: str) -> list[Mail]:
        with self.cond:
            return list(self.by_irt.get(irt, ()))

    def quiet(self, seconds: float, timeout: float) -> None:
        """Wait until no mail arrived for ``seconds`` (at most ``timeout``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.cond:
                count = len(self.mails)
            time.sleep(seconds)
            with self.cond:
                if len(self.mails) == count:
                    return

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


# --------------------------------------------------------------------------------------
# The client


@dataclass
class Outgoing:
    sender: str
    subject: str
    message_id: str  # with angle brackets
    # Who gets a copy of the board mail it causes, which is no reply to it (no In-Reply-To:
    # the opponent of a move, the one challenged), and the board (None: a new board).
    copy_to: tuple[str, int | None] | None = None

    def raw(self) -> bytes:
        return (
            f"From: {self.sender}\r\nTo: {SERVER_ADDRESS}\r\nSubject: {self.subject}\r\n"
            f"Message-ID: {self.message_id}\r\nDate: {email.utils.formatdate()}\r\n"
            "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
            "Sent by bench/pipeline.py.\r\n"
        ).encode("ascii")


@dataclass
class SendStats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    accepted: int = 0
    codes_4xx: Counter[int] = field(default_factory=Counter)
    codes_5xx: Counter[int] = field(default_factory=Counter)
    connection_errors: Counter[str] = field(default_factory=Counter)
    failed: list[str] = field(default_factory=list)  # Message-IDs never accepted
    retried: list[str] = field(default_factory=list)  # accepted after a 4xx or error
    session_seconds: list[float] = field(default_factory=list)
    first_open: float = math.inf  # time.time()
    last_accept: float = 0.0  # time.time()
    accept_times: list[float] = field(default_factory=list)  # time.time() of each 250

    def merge_into(self, other: SendStats) -> None:
        with self.lock:
            other.accepted += self.accepted
            other.codes_4xx.update(self.codes_4xx)
            other.codes_5xx.update(self.codes_5xx)
            other.connection_errors.update(self.connection_errors)
            other.failed.extend(self.failed)
            other.retried.extend(self.retried)
            other.session_seconds.extend(self.session_seconds)
            other.accept_times.extend(self.accept_times)


def send(port: int, mail: Outgoing, stats: SendStats) -> float | None:
    """One SMTP session per mail; 4xx and connection errors are retried for up to
    RETRY_SECONDS (an MTA would keep trying), each counted. Returns the time.time() at which
    the accepted session was opened, or None (5xx, or still refused at the deadline)."""
    raw = mail.raw()
    deadline = time.monotonic() + RETRY_SECONDS
    attempt = 0
    while not ABORT.is_set() and time.monotonic() < deadline:
        attempt += 1
        opened = time.time()
        with stats.lock:
            stats.first_open = min(stats.first_open, opened)
        code = 0
        try:
            with smtplib.SMTP(
                "127.0.0.1", port, local_hostname=CLIENT_HOSTNAME, timeout=SMTP_TIMEOUT
            ) as smtp:
                smtp.sendmail(mail.sender, [SERVER_ADDRESS], raw)
        except smtplib.SMTPRecipientsRefused as exc:
            code = next(iter(exc.recipients.values()))[0]
        except smtplib.SMTPResponseException as exc:
            code = exc.smtp_code
        except (smtplib.SMTPException, OSError) as exc:
            with stats.lock:
                stats.connection_errors[type(exc).__name__] += 1
            time.sleep(min(0.1 * 2 ** (attempt - 1), 2.0))
            continue
        done = time.time()
        with stats.lock:
            if code == 0:
                stats.accepted += 1
                stats.session_seconds.append(done - opened)
                stats.last_accept = max(stats.last_accept, done)
                stats.accept_times.append(done)
                if attempt > 1:
                    stats.retried.append(mail.message_id)
                return opened
            if not 400 <= code < 500:
                stats.codes_5xx[code] += 1
                stats.failed.append(mail.message_id)
                return None
            stats.codes_4xx[code] += 1
        time.sleep(min(0.1 * 2 ** (attempt - 1), 2.0))
    with stats.lock:
        stats.failed.append(mail.message_id)
    return None


@contextlib.contextmanager
def client_pool(clients: int, name: str) -> Iterator[ThreadPoolExecutor]:
    """A pool of client threads; on an exception (Ctrl-C) the queued sends are dropped and
    the threads stop after the mail in hand instead of sending everything first."""
    pool = ThreadPoolExecutor(clients, thread_name_prefix=name)
    try:
        yield pool
    except BaseException:
        ABORT.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def send_all(port: int, mails: Sequence[Outgoing], clients: int, stats: SendStats) -> None:
    """Send independent mails from ``clients`` threads, in any order."""
    with client_pool(clients, "client") as pool:
        list(pool.map(lambda m: send(port, m, stats), mails))


def send_games(
    port: int, per_game: Sequence[Sequence[Outgoing]], clients: int, stats: SendStats
) -> None:
    """Send every game's mails in order; game i belongs to client i % clients, which
    interleaves its games move by move."""

    def client(index: int) -> None:
        games = list(per_game[index::clients])
        longest = max((len(g) for g in games), default=0)
        for k in range(longest):
            for game in games:
                if k < len(game) and not ABORT.is_set():
                    send(port, game[k], stats)

    with client_pool(clients, "client") as pool:
        for future in [pool.submit(client, i) for i in range(min(clients, len(per_game)))]:
            future.result()


# --------------------------------------------------------------------------------------
# Games, players and their mails


@dataclass
class BenchGame:
    tag: str  # b0, b1, ... (burst) or s0, s1, ... (steady)
    moves: list[str]
    board: int = 0  # the server's board number, once the challenge board mail arrived

    @property
    def white(self) -> str:
        return f"{self.tag}o"

    @property
    def black(self) -> str:
        return f"{self.tag}x"

    def player(self, number: int) -> str:
        """The userid who plays move ``number`` (1-based); White moves first."""
        return self.white if number % 2 == 1 else self.black


def address(userid: str) -> str:
    return f"{userid}@{PLAYER_DOMAIN}"


def generate_games(
    tag: str, count: int, moves: int, rng: random.Random, blocked: str = "loss"
) -> list[BenchGame]:
    """Legal random games from the rules engine, each stopped at ``moves`` moves or just
    before the move that would end it."""
    from pbm_emergo.rules import Game

    games = []
    for i in range(count):
        game = Game()
        played: list[str] = []
        while len(played) < moves:
            legal = game.position.legal_moves()
            if not legal:
                break
            move = game.play(rng.choice(legal))
            if game.outcome() is not None:
                break  # this move would end the game: the sequence stops before it
            played.append(str(move))
        games.append(BenchGame(f"{tag}{i}", played))
    return games


class Mailer:
    """Builds the mails, each with a unique Message-ID that names what it is."""

    def __init__(self) -> None:
        self.run = uuid.uuid4().hex[:10]
        self.counter = 0

    def mail(
        self, sender_userid: str, subject: str, what: str,
        copy_to: tuple[str, int | None] | None = None,
    ) -> Outgoing:
        self.counter += 1
        message_id = f"<{what}.{self.counter}.{self.run}@{PLAYER_DOMAIN}>"
        return Outgoing(address(sender_userid), subject, message_id, copy_to)

    def signups(self, games: Sequence[BenchGame]) -> list[Outgoing]:
        return [
            self.mail(userid, f"signup {userid} {PASSWORD}", f"signup-{userid}")
            for game in games
            for userid in (game.white, game.black)
        ]

    def confirms(self, codes: dict[str, str]) -> list[Outgoing]:
        """``confirm CODE`` for each player (userid -> the code of their address)."""
        return [self.mail(userid, f"confirm {code}", f"confirm-{userid}")
                for userid, code in codes.items()]  # fmt: skip

    def challenges(self, games: Sequence[BenchGame]) -> list[Outgoing]:
        return [
            self.mail(
                game.white, f"emergo challenge {game.white} {game.black}", f"challenge-{game.tag}",
                copy_to=(address(game.black), None),
            )
            for game in games
        ]

    def move(self, game: BenchGame, number: int, board: int) -> Outgoing:
        userid = game.player(number)
        notation = game.moves[number - 1]
        subject = f"emergo move {board} {userid} {PASSWORD} {notation}#{number}"
        opponent = game.black if userid == game.white else game.white
        return self.mail(userid, subject, f"move-{game.tag}-{number}", (address(opponent), board))


# --------------------------------------------------------------------------------------
# Processes: start, measure, stop


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_listening(port: int, timeout: float, alive: Callable[[], bool]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise BenchError(f"the process for port {port} exited before it listened")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise BenchError(f"nothing listened on port {port} within {timeout:.0f} s")


def process_stats() -> Iterator[tuple[int, str]]:
    """Each process of this machine and its ``/proc/PID/stat`` line."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            yield int(entry.name), (entry / "stat").read_text()
        except OSError:
            continue


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for child, stat in process_stats():
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(child)
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, ()))
    return found


def peak_memory_kib(pid: int, roles: dict[int, str]) -> dict[str, tuple[int, int]]:
    """(VmHWM, Pss now) in KiB of ``pid`` and each descendant, keyed "PID what" (its role
    where :func:`serve_roles` names it, else its command line). VmHWM counts the pages a
    process shares with others (the helpers forked from one fork server share their
    imports) in each of them; Pss splits them among their sharers, so its sum is the
    memory in use."""
    peaks = {}
    for proc in descendants(pid):
        try:
            status = Path(f"/proc/{proc}/status").read_text()
            rollup = Path(f"/proc/{proc}/smaps_rollup").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if "VmHWM" not in fields:
            continue
        pss = sum(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:"))
        try:
            args = Path(f"/proc/{proc}/cmdline").read_bytes().split(b"\0")
        except OSError:
            args = []
        command = b" ".join(args[1:]).decode(errors="replace")
        if "multiprocessing.forkserver" in command:
            command = "fork server"
        what = roles.get(proc) or command[:60] or fields["Name"].strip()
        peaks[f"{proc} {what}"] = (int(fields["VmHWM"].split()[0]), pss)
    return peaks


class Processes:
    """Everything the bench started, stopped in reverse order on exit, whatever happens."""

    def __init__(self) -> None:
        self.helpers: list[multiprocessing.process.BaseProcess] = []
        self.server: subprocess.Popen[bytes] | None = None
        self.profiler: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []  # `pbm-emergo worker` (--worker-processes)

    def stop_profiler(self) -> None:
        if self.profiler is not None and self.profiler.poll() is None:
            self.profiler.send_signal(signal.SIGINT)
            try:
                self.profiler.wait(60)
            except subprocess.TimeoutExpired:
                self.profiler.kill()
                self.profiler.wait(10)
        self.profiler = None

    def stop_server(self) -> int | None:
        self.stop_profiler()
        workers, self.workers = self.workers, []
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(60)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(10)
        server, self.server = self.server, None
        if server is None:
            return None
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                return server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
                return None
        return server.returncode

    def stop_helper(self, proc: multiprocessing.process.BaseProcess) -> None:
        if proc.is_alive():
            proc.terminate()
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join(5)
        with contextlib.suppress(ValueError):
            self.helpers.remove(proc)

    def stop_all(self) -> None:
        self.stop_server()
        for proc in list(self.helpers):
            self.stop_helper(proc)


def start_helper(
    procs: Processes,
    ctx: multiprocessing.context.SpawnContext,
    target: Callable[..., None],
    name: str,
    *args: Any,
    port: int | None = None,
) -> tuple[multiprocessing.process.BaseProcess, int]:
    """Start ``target`` in a process of its own, on ``port`` (default: a free one)."""
    port = port or free_port()
    ready = ctx.Event()
    proc = ctx.Process(target=target, args=(port, *args, ready), name=name, daemon=True)
    proc.start()
    procs.helpers.append(proc)
    if not ready.wait(60):
        raise BenchError(f"the {name} did not start")
    wait_listening(port, 30, proc.is_alive)
    return proc, port


# --------------------------------------------------------------------------------------
# Figures


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile; nan when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def rate(count: float, seconds: float) -> float:
    return count / seconds if seconds > 0 else math.nan


def machine() -> dict[str, Any]:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg_at_start": os.getloadavg(),
    }


def server_revision(package_dir: Path) -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(package_dir), "describe", "--always", "--dirty"],
            capture_output=True, text=True, timeout=10, check=False,
        )
    except OSError:
        return "unknown"
    return out.stdout.strip() or "not a git checkout"


def burst_summary(stats: SendStats) -> dict[str, Any]:
    seconds = stats.last_accept - stats.first_open
    return {
        "mails": stats.accepted,
        "seconds": seconds,
        "accept_rate": rate(stats.accepted, seconds),
        "session_ms_p50": percentile(stats.session_seconds, 50) * 1000,
        "session_ms_p99": percentile(stats.session_seconds, 99) * 1000,
        "4xx": dict(stats.codes_4xx),
        "5xx": dict(stats.codes_5xx),
        "connection_errors": dict(stats.connection_errors),
        "not_accepted": len(stats.failed),
    }


# --------------------------------------------------------------------------------------
# The phases


def run_bare_setup(
    port: int, mailer: Mailer, games: Sequence[BenchGame], clients: int
) -> dict[str, Any]:
    """The bare listener gets the signups and challenges too (their accept rate)."""
    setup = SendStats()
    started = time.time()
    send_all(port, mailer.signups(games), clients, setup)
    # As many confirms as the server gets (the bare listener mails no codes).
    userids = [u for game in games for u in (game.white, game.black)]
    send_all(port, mailer.confirms(dict.fromkeys(userids, "0000-0000-0000-0000")), clients,
             setup)  # fmt: skip
    send_all(port, mailer.challenges(games), clients, setup)
    setup_seconds = time.time() - started
    return {"setup_seconds": setup_seconds,
            "setup_accept_rate": rate(setup.accepted, setup_seconds),
            "setup_not_accepted": len(setup.failed)}


def run_bare(
    port: int, mailer: Mailer, burst: Sequence[BenchGame], clients: int
) -> tuple[dict[str, Any], SendStats]:
    """A move burst to the bare listener, the same mails as ours gets (board numbers aside)."""
    per_game = [
        [mailer.move(g, n, 101 + i) for n in range(1, len(g.moves) + 1)]
        for i, g in enumerate(burst)
    ]
    stats = SendStats()
    send_games(port, per_game, clients, stats)
    return burst_summary(stats), stats


def signups_of(signups: Sequence[Outgoing], game: BenchGame) -> list[Outgoing]:
    """The signup mails of ``game``'s two players, white's first."""
    by_sender = {m.sender: m for m in signups}
    return [by_sender[address(game.white)], by_sender[address(game.black)]]


def setup_games(
    port: int,
    sink: SinkLog,
    mailer: Mailer,
    games: Sequence[BenchGame],
    clients: int,
    wait: Callable[[Expectation], bool],
    stats: SendStats,
) -> tuple[dict[str, Any], list[BenchGame]]:
    """Signups, then challenges, each phase waiting for its replies at the sink. Returns the
    games that have a board; the others are listed in the summary with the reason."""
    dropped: dict[str, str] = {}
    signups = mailer.signups(games)
    exp = sink.expect([m.message_id for m in signups], 1)
    started = time.time()
    send_all(port, signups, clients, stats)
    sink.drop(exp, stats.failed)
    wait(exp)
    # Each answer is the code of the player's address: confirm it.
    codes: dict[str, str] = {}
    for game in games:
        for userid, mail in zip((game.white, game.black), signups_of(signups, game), strict=True):
            found = [CONFIRM_CODE.search(r["body"] or "") for r in sink.replies(mail.message_id)]
            codes.update((userid, m[1]) for m in found if m)
    confirms = mailer.confirms(codes)
    exp = sink.expect([m.message_id for m in confirms], 1)
    send_all(port, confirms, clients, stats)
    sink.drop(exp, stats.failed)
    wait(exp)
    signup_seconds = time.time() - started
    answered = {m.sender for m in confirms if sink.replies(m.message_id)}
    ready = []
    for game in games:
        missing = [u for u in (game.white, game.black) if address(u) not in answered]
        if missing:
            dropped[game.tag] = f"no welcome after the signup of {', '.join(missing)}"
        else:
            ready.append(game)

    challenges = mailer.challenges(ready)
    sink.await_copies(challenges)
    exp = sink.expect([m.message_id for m in challenges], 2, is_board_mail)
    started = time.time()
    send_all(port, challenges, clients, stats)
    sink.drop(exp, stats.failed)
    wait(exp)
    challenge_seconds = time.time() - started
    playing = []
    for game, mail in zip(ready, challenges, strict=True):
        subjects = [r["subject"] for r in sink.replies(mail.message_id) if is_board_mail(r)]
        numbers = {int(m[1]) for s in subjects if (m := BOARD_SUBJECT.search(s))}
        if len(subjects) == 2 and len(numbers) == 1:
            game.board = numbers.pop()
            playing.append(game)
        else:
            dropped[game.tag] = f"the challenge got the board mails {subjects}"
    summary = {
        "signups": len(signups),
        "signup_seconds": signup_seconds,
        "challenges": len(challenges),
        "challenge_seconds": challenge_seconds,
        "dropped_games": dropped,
    }
    return summary, playing


def run_burst(
    port: int,
    sink: SinkLog,
    mailer: Mailer,
    games: Sequence[BenchGame],
    clients: int,
    wait: Callable[[Expectation], bool],
    stats: SendStats | None = None,
) -> tuple[dict[str, Any], SendStats]:
    per_game = [[mailer.move(g, n, g.board) for n in range(1, len(g.moves) + 1)] for g in games]
    ids = [m.message_id for game in per_game for m in game]
    sink.await_copies(m for game in per_game for m in game)
    exp = sink.expect(ids, 2, is_board_mail)
    stats = stats if stats is not None else SendStats()
    send_games(port, per_game, clients, stats)
    summary = burst_summary(stats)
    sink.drop(exp, stats.failed)
    done = wait(exp)
    seconds = (exp.last if done else time.time()) - stats.first_open
    summary.update(
        moves=len(ids),
        end_to_end_seconds=seconds,
        moves_per_second=rate(len(ids) - exp.remaining, seconds),
        moves_without_both_board_mails=exp.remaining,
    )
    return summary, stats


@contextlib.contextmanager
def stopped(server: subprocess.Popen[bytes]) -> Iterator[None]:
    """The server's processes (its process group) stopped (SIGSTOP) for the duration, so
    that the bare listener has the machine to itself, as before the server started."""
    os.killpg(server.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(server.pid, signal.SIGCONT)


def print_round(entry: dict[str, Any], bare_loop: str) -> None:
    ours = entry["ours"]
    line = f"round {entry['round']}: "
    if "bare" in entry:
        bare = entry["bare"]
        line += (f"bare listener ({bare_loop}) {bare['mails']} mails in {bare['seconds']:.2f} s, "
                 f"accept rate {bare['accept_rate']:.0f} mails/s (session p50 "
                 f"{bare['session_ms_p50']:.1f} ms, p99 {bare['session_ms_p99']:.1f} ms); ")
    line += (f"ours {ours['mails']} mails in {ours['seconds']:.2f} s, accept rate "
             f"{ours['accept_rate']:.0f} mails/s (session p50 {ours['session_ms_p50']:.1f} ms, "
             f"p99 {ours['session_ms_p99']:.1f} ms)")
    if "bare" in entry:
        line += f"; ours/bare {ours['accept_rate'] / entry['bare']['accept_rate']:.2f}"
    line += (f"; end to end {ours['moves_per_second']:.1f} moves/s (both board mails of "
             f"{ours['moves'] - ours['moves_without_both_board_mails']} of {ours['moves']} "
             f"moves after {ours['end_to_end_seconds']:.1f} s)")
    print(line)


@dataclass
class SteadyMove:
    game: BenchGame
    number: int
    mail: Outgoing
    scheduled: float  # time.time() of its tick
    opened: float | None = None  # time.time() the accepted SMTP session was opened


def run_steady(
    port: int,
    sink: SinkLog,
    mailer: Mailer,
    games: Sequence[BenchGame],
    clients: int,
    offered_rate: float,
    seconds: float,
    timeout: float,
    wait: Callable[[Expectation], bool],
) -> tuple[dict[str, Any], SendStats]:
    """Open loop: a tick every 1/rate s; each tick sends the next move of the game that has
    been ready longest (its previous move's first board mail arrived)."""
    ticks = round(offered_rate * seconds)
    ready: deque[BenchGame] = deque(g for g in games if g.moves)
    next_number = {g.tag: 1 for g in games}
    sent: list[SteadyMove] = []
    stats = SendStats()
    late_ticks = 0
    max_lag = 0.0

    def became_ready(game: BenchGame) -> Callable[[Mail], None]:
        def hook(_: Mail) -> None:  # called by the collector with sink.cond held
            if next_number[game.tag] <= len(game.moves):
                ready.append(game)

        return hook

    def send_one(move: SteadyMove) -> None:
        move.opened = send(port, move.mail, stats)

    futures: list[Future[None]] = []
    start = time.monotonic() + 0.1
    start_wall = time.time() + (start - time.monotonic())
    with client_pool(clients, "steady-client") as pool:
        for i in range(ticks):
            due = start + i / offered_rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            with sink.cond:
                if not ready:
                    late_ticks += 1
                    if not sink.cond.wait_for(lambda: bool(ready), timeout):
                        break
                game = ready.popleft()
                number = next_number[game.tag]
                next_number[game.tag] = number + 1
                mail = mailer.move(game, number, game.board)
                sink.await_copies([mail])
                sink.first_hooks[mail.message_id] = became_ready(game)
            max_lag = max(max_lag, time.monotonic() - due)
            move = SteadyMove(game, number, mail, start_wall + i / offered_rate)
            sent.append(move)
            futures.append(pool.submit(send_one, move))
        # From the first tick to one interval after the last send.
        offered_seconds = time.monotonic() - start + 1 / offered_rate
        for future in futures:
            future.result()
    exp = sink.expect([m.mail.message_id for m in sent], 2, is_board_mail)
    sink.drop(exp, stats.failed)
    wait(exp)
    latencies, from_schedule = [], []
    no_board_mail = 0
    for m in sent:
        replies = [r for r in sink.replies(m.mail.message_id) if is_board_mail(r)]
        if not replies or m.opened is None:
            no_board_mail += 1
            continue
        first = min(r["t"] for r in replies)
        latencies.append(first - m.opened)
        from_schedule.append(first - m.scheduled)
    summary: dict[str, Any] = {
        "games": len(games),
        "offered_rate": offered_rate,
        "ticks": ticks,
        "moves_sent": len(sent),
        "offered_seconds": offered_seconds,
        "achieved_send_rate": rate(len(sent), offered_seconds),
        "late_ticks": late_ticks,
        "max_schedule_lag_ms": max_lag * 1000,
        "moves_without_board_mail": no_board_mail,
        "moves_without_both_board_mails": exp.remaining,
    }
    for name, values in (("latency_ms", latencies), ("from_schedule_ms", from_schedule)):
        for p in (50, 90, 99):
            summary[f"{name}_p{p}"] = percentile(values, p) * 1000
        summary[f"{name}_max"] = max(values, default=math.nan) * 1000
    return summary, stats


# --------------------------------------------------------------------------------------
# Scale-out and survival: PostgreSQL, `pbm-emergo worker` processes, a worker
# SIGKILLed, the relay down, PostgreSQL restarted; per-second rates, memory, exactness


def extended(args: argparse.Namespace) -> bool:
    """Whether any of the scale-out/survival options is in use (the default run is the one
    the README's Performance figures come from, unchanged)."""
    return bool(
        args.database_url or args.worker_processes or args.kill_worker_at is not None
        or args.relay_down_at is not None or args.pg_restart_at is not None
        or args.timeline or args.memory_at
    )


class BenchDatabase:
    """A fresh PostgreSQL database for one run, on the server of ``--database-url``
    (CREATE DATABASE, so nothing of the run mixes with other data); dropped at the end."""

    def __init__(self, server_url: str) -> None:
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url
        from sqlalchemy.pool import NullPool

        self.server_url = make_url(server_url)
        if self.server_url.get_backend_name() != "postgresql":
            raise BenchError("--database-url must be a PostgreSQL URL (postgresql+psycopg://)")
        self.name = f"pbm_bench_{uuid.uuid4().hex[:10]}"
        # No pool: a connection kept from the start would not survive --pg-restart-at.
        self.admin = create_engine(self.server_url, isolation_level="AUTOCOMMIT",
                                   poolclass=NullPool)
        self.url = self.server_url.set(database=self.name).render_as_string(hide_password=False)

    def create(self) -> None:
        from sqlalchemy import text

        with self.admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {self.name}"))

    def drop(self) -> None:
        from sqlalchemy import text

        try:
            with self.admin.connect() as conn:
                conn.execute(text(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)"))
        finally:
            self.admin.dispose()


def database_url_for(args: argparse.Namespace, data_dir: Path, bench_db: BenchDatabase | None
                     ) -> str:
    if bench_db is not None:
        return bench_db.url
    return f"sqlite:///{(data_dir / 'pbm-emergo.sqlite3').resolve()}"


def start_workers(
    procs: Processes, args: argparse.Namespace, data_dir: Path, database_url: str,
    sink_port: int, tmp: Path, env: dict[str, str],
) -> None:
    """``--worker-processes`` invocations of `pbm-emergo worker` (logs: worker-N.log)."""
    for n in range(args.worker_processes):
        procs.workers.append(start_worker(n, args, data_dir, database_url, sink_port, tmp, env))


def start_worker(
    n: int, args: argparse.Namespace, data_dir: Path, database_url: str, sink_port: int,
    tmp: Path, env: dict[str, str],
) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "pbm_emergo", "worker", "--data-dir", str(data_dir),
        "--database-url", database_url, "--outbound", f"smtp://127.0.0.1:{sink_port}",
        "--workers", str(args.worker_inbox), *args.worker_arg,
    ]
    if n == 0:
        print(f"worker command ({args.worker_processes}x): {shlex.join(command)}")
    with (tmp / f"worker-{n + 1}.log").open("ab") as log:
        return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                cwd=tmp, start_new_session=True)


def server_pids(procs: Processes) -> list[int]:
    """The server's processes: `serve` and every `pbm-emergo worker`, with their children."""
    roots = [p.pid for p in [procs.server, *procs.workers] if p is not None and p.poll() is None]
    return [pid for root in roots for pid in descendants(root)]


def memory_kib(pids: Iterable[int]) -> tuple[int, int]:
    """(summed VmRSS, summed VmHWM) in KiB of ``pids``."""
    rss = hwm = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                rss += int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm += int(line.split()[1])
    return rss, hwm


@dataclass
class Event:
    at: float  # time.time()
    what: str


class Chaos:
    """What happens to the server during the move burst, at times after its start:
    --kill-worker-at (SIGKILL an inbox worker process holding a mail, which its parent
    starts again), --relay-down-at/--relay-down-seconds (the sink closed), --pg-restart-at
    (`PG_CTL restart`); and memory samples at --memory-at accepted mails."""

    def __init__(
        self, args: argparse.Namespace, procs: Processes, database_url: str,
        sink_down: multiprocessing.synchronize.Event | None, stats: SendStats,
        sink: SinkLog,
    ) -> None:
        self.sink = sink
        self.args = args
        self.procs = procs
        self.database_url = database_url
        self.sink_down = sink_down
        self.stats = stats
        self.events: list[Event] = []
        self.memory: list[dict[str, Any]] = []
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []

    def note(self, what: str) -> None:
        self.events.append(Event(time.time(), what))
        print(f"  [{time.strftime('%H:%M:%S')}] {what}", flush=True)

    def start(self) -> None:
        started = time.monotonic()
        plan: list[tuple[float, Callable[[], None]]] = []
        if self.args.kill_worker_at is not None:
            plan.append((self.args.kill_worker_at, self.kill_worker))
        if self.args.relay_down_at is not None:
            plan.append((self.args.relay_down_at, self.relay_down))
        if self.args.pg_restart_at is not None:
            plan.append((self.args.pg_restart_at, self.pg_restart))
        for at, action in plan:
            self.threads.append(threading.Thread(
                target=self._at, args=(started + at, action), daemon=True))
        if self.args.memory_at:
            self.threads.append(threading.Thread(target=self._watch_memory, daemon=True))
        for thread in self.threads:
            thread.start()

    def _at(self, when: float, action: Callable[[], None]) -> None:
        if self.stop.wait(max(0.0, when - time.monotonic())):
            return
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - reported, the run goes on
            self.note(f"failed: {action.__name__}: {exc}")

    def kill_worker(self) -> None:
        """SIGKILL the inbox worker process that holds a mail (its pid is in the claim)."""
        from sqlalchemy import create_engine, text

        engine = create_engine(self.database_url)
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline and not self.stop.is_set():
                with engine.connect() as conn:
                    claim = conn.execute(text(
                        "SELECT claimed_by FROM inbound_messages WHERE status = 'processing' "
                        "LIMIT 1")).scalar()
                if claim:
                    pid = int(claim.split(":")[1])
                    if pid in server_pids(self.procs):
                        os.kill(pid, signal.SIGKILL)
                        self.note(f"SIGKILL inbox worker pid {pid} (claim {claim})")
                        return
                time.sleep(0.01)
        finally:
            engine.dispose()
        self.note("no inbox worker held a mail to kill")

    def relay_down(self) -> None:
        assert self.sink_down is not None
        self.sink_down.set()
        self.note(f"relay down for {self.args.relay_down_seconds:g} s")
        if not self.stop.wait(self.args.relay_down_seconds):
            self.sink_down.clear()
            self.note("relay up")
        else:
            self.sink_down.clear()

    def pg_restart(self) -> None:
        command = [*shlex.split(self.args.pg_ctl), "restart", "-m", "fast", "-w"]
        self.note(f"PostgreSQL restart: {shlex.join(command)}")
        # No pipes: the restarted server would hold them open (pg_ctl restart has no -l).
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=120, check=False)
        self.note(f"PostgreSQL restarted (pg_ctl exit {done.returncode})")

    def _watch_memory(self) -> None:
        """Memory when the moves completed (both board mails at the sink) reach each mark:
        the mails have then gone all the way through the server."""
        marks = sorted(self.args.memory_at)
        seen = completed = 0
        while marks and not self.stop.wait(0.2):
            with self.sink.cond:
                fresh = self.sink.mails[seen:]
                seen = len(self.sink.mails)
            completed += sum(1 for m in fresh if is_board_mail(m))
            while marks and completed // 2 >= marks[0]:
                pids = server_pids(self.procs)
                rss, hwm = memory_kib(pids)
                with self.stats.lock:
                    accepted = self.stats.accepted
                self.memory.append({"mails": marks.pop(0), "accepted": accepted,
                                    "processes": len(pids), "rss_kib": rss, "hwm_kib": hwm})
                self.note(f"{completed // 2} moves done ({accepted} accepted): server RSS "
                          f"{rss / 1024:.0f} MiB, peak (VmHWM) {hwm / 1024:.0f} MiB summed "
                          f"over {len(pids)} processes")

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(150)
        if self.sink_down is not None:
            self.sink_down.clear()


def timeline(start: float, stats: SendStats, mails: Sequence[Mail], events: Sequence[Event],
             ) -> list[dict[str, Any]]:
    """Per second from ``start``: mails accepted, board mails at the sink (two per move),
    and what happened."""
    accepted = Counter(int(t - start) for t in stats.accept_times if t >= start)
    boards = Counter(int(m["t"] - start) for m in mails if m["t"] >= start and is_board_mail(m))
    notes: dict[int, list[str]] = {}
    for e in events:
        notes.setdefault(int(e.at - start), []).append(e.what)
    last = max([*accepted, *boards, *notes, 0])
    return [
        {"second": s, "accepted": accepted.get(s, 0), "board_mails": boards.get(s, 0),
         "events": notes.get(s, [])}
        for s in range(last + 1)
    ]


def print_timeline(rows: Sequence[dict[str, Any]]) -> None:
    print("per second (from the start of the move burst): mails accepted, moves completed "
          "(board mails at the sink / 2)")
    for row in rows:
        moves = row["board_mails"] / 2
        bar = "#" * int(round(moves / 2))
        events = ("  <- " + "; ".join(row["events"])) if row["events"] else ""
        print(f"  {row['second']:4d}s  in {row['accepted']:4d}  moves {moves:6.1f} {bar}{events}")


MAIL_LINE = re.compile(r" (?P<process>\S+) \S+ pbm_emergo\.mail\.worker: mail (?P<fields>.*)$")
FIELD = re.compile(r"(\w+)=(\"(?:[^\"\\]|\\.)*\"|\S+)")
# pbm_emergo.telemetry.sections.SECTIONS, written out: the bench also measures copies of the
# server made before that module existed.
SECTION_ORDER = ("claim", "read", "cache", "argon2", "rules", "render", "write")


def worker_sections(tmp: Path) -> dict[str, dict[str, float]]:
    """Where each inbox worker's time went, from the ``mail`` lines of the server's logs
    (moves only): mean ms a mail per section, the rest of its time (``other``), the time
    between its mails (``idle``), and the mails counted. Keyed "LOG PROCESS"."""
    sums: dict[str, defaultdict[str, float]] = {}
    for log in sorted([tmp / "server.log", *tmp.glob("worker-*.log")]):
        if not log.exists():
            continue
        for line in log.read_text(errors="replace").splitlines():
            found = MAIL_LINE.search(line)
            if found is None:
                continue
            fields = dict(FIELD.findall(found["fields"]))
            if "move" not in fields.get("command", "") or fields.get("result") != "done":
                continue
            key = f"{log.stem} {found['process']}"
            total = sums.setdefault(key, defaultdict(float))
            total["mails"] += 1
            claim = float(fields.get("claim_ms", 0))
            busy = claim + float(fields.get("ms", 0))
            total["busy"] += busy
            counted = 0.0
            for name in SECTION_ORDER:
                ms = float(fields.get(f"{name}_ms", 0))
                total[name] += ms
                counted += ms
            total["other"] += max(0.0, busy - counted)
            if "idle_ms" in fields:
                total["idle"] += float(fields["idle_ms"])
                total["idle_mails"] += 1
    return {
        key: {
            **{name: total[name] / total["mails"]
               for name in (*SECTION_ORDER, "other", "busy")},
            "idle": total["idle"] / total["idle_mails"] if total["idle_mails"] else 0.0,
            "mails": int(total["mails"]),
        }
        for key, total in sums.items()
    }


def print_worker_sections(worker_time: dict[str, dict[str, float]]) -> None:
    if not worker_time:
        return
    names = (*SECTION_ORDER, "other", "busy", "idle")
    print("where each inbox worker's time went, mean ms per move mail (the whole run; idle: "
          "from its previous mail to this one's claim):")
    print(f"  {'worker':22s} {'mails':>6s} " + " ".join(f"{n:>7s}" for n in names))
    for key, row in sorted(worker_time.items()):
        print(f"  {key:22s} {int(row['mails']):6d} "
              + " ".join(f"{row[n]:7.2f}" for n in names))


def cpu_seconds(procs: Processes) -> dict[tuple[str, int], float]:
    """CPU seconds (user + system) used so far by each process of each part, keyed (part,
    pid): `serve` and its processes, the `pbm-emergo worker` commands and theirs, PostgreSQL
    (every postgres process here), the bench's sink and bare listener, and the bench itself
    (its SMTP clients). Compare two with :func:`cpu_used`."""
    found: dict[tuple[str, int], float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    owner: dict[int, str] = {}
    if procs.server is not None and procs.server.poll() is None:
        owner.update(dict.fromkeys(descendants(procs.server.pid), "serve"))
    for worker in procs.workers:
        if worker.poll() is None:
            owner.update(dict.fromkeys(descendants(worker.pid), "worker commands"))
    owner.update({p.pid: "bench sink+bare" for p in procs.helpers if p.pid is not None})
    for pid, stat in process_stats():
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        part = owner.get(pid)
        if part is None and comm.startswith("postgres"):
            part = "postgresql"
        if part is not None:
            found[(part, pid)] = (int(fields[11]) + int(fields[12])) / tick
    own = os.times()
    found[("bench clients", os.getpid())] = own.user + own.system
    return found


def serve_roles(server_pid: int | None, log_path: Path) -> dict[int, str]:
    """What each process of `serve` is, by pid: the server's log names its helper processes
    at startup ("processes: worker-1 (pid 4242), ...") and each one started again; the main
    process holds the first listener and the scheduler. Empty for a server that does not say
    (older code)."""
    if server_pid is None or not log_path.exists():
        return {}
    roles = {server_pid: "main"}
    for line in log_path.read_text(errors="replace").splitlines():
        if ".serve: processes: " in line or "started again: " in line:
            for name, pid in re.findall(r"(\S+) \(pid (\d+)\)", line):
                roles[int(pid)] = name
    return roles if len(roles) > 1 else {}


def cpu_by_process(before: dict[tuple[str, int], float], after: dict[tuple[str, int], float],
                   roles: dict[int, str]) -> dict[str, float]:
    """CPU seconds of each process of `serve` between two :func:`cpu_seconds`, by role (the
    processes `serve_roles` does not name are summed as "other")."""
    used: defaultdict[str, float] = defaultdict(float)
    for (part, pid), seconds in after.items():
        if part == "serve":
            used[roles.get(pid, "other")] += seconds - before.get((part, pid), 0.0)
    return dict(used)


def cpu_used(before: dict[tuple[str, int], float], after: dict[tuple[str, int], float],
             ) -> dict[str, float]:
    """CPU seconds each part used between two :func:`cpu_seconds` (a process that ended
    meanwhile is not counted: its last seconds are not known)."""
    used: defaultdict[str, float] = defaultdict(float)
    for (part, pid), seconds in after.items():
        used[part] += seconds - before.get((part, pid), 0.0)
    return dict(used)


def exactness(database_url: str, games: Sequence[BenchGame], mails: Sequence[Mail],
              ) -> dict[str, Any]:
    """What the database and the sink say about the burst: every move applied once and in
    order, every inbound mail done, every reply sent, no reply twice, no move without its
    two board mails."""
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            moves = {
                int(board): (int(count), int(distinct), int(top))
                for board, count, distinct, top in conn.execute(text(
                    "SELECT board_number, count(*), count(DISTINCT number), max(number) "
                    "FROM moves GROUP BY board_number"))
            }
            inbound: dict[str, int] = dict(conn.execute(text(
                "SELECT status, count(*) FROM inbound_messages GROUP BY status")).all())
            outbound: dict[str, int] = dict(conn.execute(text(
                "SELECT status, count(*) FROM outbound_messages GROUP BY status")).all())
            retried = conn.execute(text(
                "SELECT count(*) FROM inbound_messages WHERE attempts > 1")).scalar()
    finally:
        engine.dispose()
    wrong_boards = [
        g.board for g in games
        if moves.get(g.board, (0, 0, 0)) != (len(g.moves), len(g.moves), len(g.moves))
    ]
    per_reply = Counter((m["irt"], tuple(m["rcpt"]), m["subject"]) for m in mails)
    twice = sum(1 for count in per_reply.values() if count > 1)
    # The burst's moves are <move-bN-n.RUN@...> (Mailer.move): two board mails each.
    boards_per_move = Counter(
        m["irt"] for m in mails if is_board_mail(m) and m["irt"].startswith("<move-b")
    )
    sent = sum(len(g.moves) for g in games)
    return {
        "boards_checked": len(games),
        "boards_with_wrong_moves": wrong_boards,
        "moves_applied": sum(moves.get(g.board, (0, 0, 0))[0] for g in games),
        "moves_sent": sum(len(g.moves) for g in games),
        "inbound": {str(k): int(v) for k, v in inbound.items()},
        "outbound": {str(k): int(v) for k, v in outbound.items()},
        "inbound_tried_more_than_once": int(retried or 0),
        "replies_received_twice": twice,
        "moves_without_two_board_mails": sent - sum(1 for n in boards_per_move.values()
                                                     if n == 2),
    }


# --------------------------------------------------------------------------------------
# main


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=40, help="games in the move burst")
    parser.add_argument("--moves", type=int, default=30, help="moves per game (at most ~40)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent SMTP clients")
    parser.add_argument("--steady-rate", type=float, default=20.0, help="moves offered per s")
    parser.add_argument("--steady-seconds", type=float, default=20.0)
    parser.add_argument(
        "--steady-games", type=int, default=0,
        help="fresh games for the steady phase (0: enough for rate x seconds, plus 2 s of "
        "moves in flight)",
    )
    parser.add_argument(
        "--server-arg", action="append", default=[],
        help="passed to `pbm-emergo serve` (repeatable; write --server-arg=--workers=2)",
    )
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument(
        "--timeout", type=float, default=600.0,
        help="seconds to wait at most for the replies of one phase",
    )
    parser.add_argument(
        "--idle-timeout", type=float, default=60.0,
        help="stop waiting for replies once no mail reached the sink for this long",
    )
    parser.add_argument("--rounds", type=int, default=3,
                        help="move bursts, each to the bare listener then to ours, on fresh "
                             "games (the ratio is the median of the rounds'); runs with a "
                             "scale-out or survival option use one")
    parser.add_argument("--skip-bare", action="store_true", help="do not run the bare listener")
    parser.add_argument("--bare-loop", choices=("asyncio", "uvloop"), default="asyncio",
                        help="the bare listener's event loop: asyncio's (aiosmtpd as it comes) "
                             "or uvloop's (the one our listener runs on by default)")
    parser.add_argument("--sink-loop", choices=("uvloop", "asyncio"), default="uvloop",
                        help="the sink's event loop (the sink stands for a relay elsewhere: "
                             "its CPU is the bench's)")
    parser.add_argument("--sink-headers", choices=("compat32", "default"), default="compat32",
                        help="how the sink reads the headers it reports: as plain strings "
                             "(compat32) or as the default policy's header objects")
    parser.add_argument(
        "--profile", metavar="PATH",
        help="record the server with `py-spy record --subprocesses --threads --format raw`",
    )
    parser.add_argument("--keep", action="store_true", help="keep the data dir and server log")
    parser.add_argument("--json", action="store_true", help="also print a JSON summary")
    scale = parser.add_argument_group(
        "scale-out and survival (any of these adds the exactness checks)")
    scale.add_argument(
        "--database-url", metavar="URL",
        help="run on PostgreSQL: a fresh database is created on this server (the role may "
        "create databases) for the run and dropped after it",
    )
    scale.add_argument(
        "--worker-processes", type=int, default=0, metavar="N",
        help="run `serve --no-workers` (the listener) plus N `pbm-emergo worker` processes",
    )
    scale.add_argument("--worker-inbox", type=int, default=1, metavar="N",
                       help="inbox worker processes of each `pbm-emergo worker`")
    scale.add_argument("--worker-arg", action="append", default=[],
                       help="passed to each `pbm-emergo worker` (repeatable)")
    scale.add_argument("--no-steady", action="store_true", help="skip the steady phase")
    scale.add_argument("--sink-one-by-one", action="store_true",
                       help="the sink does not offer PIPELINING (by default it does, as "
                       "Postfix does, and the server sends MAIL, RCPT and DATA in one write)")
    scale.add_argument("--sinks", type=int, default=1, metavar="K",
                       help="sink processes accepting the server's mail on one port (one "
                       "takes a few hundred mails a second)")
    parser.add_argument(
        "--credentials", choices=("warm", "cold", "both"), default="warm",
        help="warm: the server remembers verified passwords (its default); cold: every "
        "password is checked against its argon2id hash, as when each player moves hours "
        "apart (PBM_EMERGO_CREDENTIAL_CACHE_SECONDS=0); both: a warm run, then a cold one, "
        "and their figures side by side",
    )
    scale.add_argument("--timeline", action="store_true",
                       help="print mails accepted and moves completed per second of the burst")
    scale.add_argument("--kill-worker-at", type=float, metavar="S",
                       help="S seconds into the burst, SIGKILL an inbox worker process that "
                       "holds a mail (its parent starts it again)")
    scale.add_argument("--relay-down-at", type=float, metavar="S",
                       help="S seconds into the burst, close the relay (the sink)")
    scale.add_argument("--relay-down-seconds", type=float, default=30.0)
    scale.add_argument("--pg-restart-at", type=float, metavar="S",
                       help="S seconds into the burst, run `PG_CTL restart -m fast -w`")
    scale.add_argument("--pg-ctl", default="", metavar="COMMAND",
                       help="how to call pg_ctl for the database, e.g. 'runuser -u postgres -- "
                       "/usr/lib/postgresql/15/bin/pg_ctl -D /tmp/pg/data'")
    scale.add_argument("--memory-at", type=lambda v: [int(x) for x in v.split(",")],
                       default=[], metavar="N,N,...",
                       help="print the server's memory when this many of the burst's moves "
                       "are done (both board mails at the sink), e.g. 1000,5000,10000")
    args = parser.parse_args(argv)
    if args.pg_restart_at is not None and not args.pg_ctl:
        parser.error("--pg-restart-at needs --pg-ctl")
    if args.moves > 45:
        parser.error("--moves above 45 runs into the server's 100 replies per address per hour")
    if args.worker_processes and not args.database_url:
        print("note: --worker-processes on SQLite (several processes, one database file)",
              file=sys.stderr)
    if min(args.games, args.moves, args.clients, args.rounds) < 1 or args.steady_rate <= 0:
        parser.error("--games, --moves, --clients, --rounds and --steady-rate must be positive")
    if extended(args):
        args.rounds = 1  # the timeline, chaos and exactness checks follow one burst
    return args


LOG_START = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def log_records(text: str) -> list[list[str]]:
    """The server log as records: a timestamped line and its continuation lines."""
    records: list[list[str]] = []
    for line in text.splitlines():
        if LOG_START.match(line) or not records:
            records.append([line])
        else:
            records[-1].append(line)
    return records


def without_nan(value: Any) -> Any:
    """``value`` with every NaN float as None, for strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: without_nan(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [without_nan(v) for v in value]
    return value


def fmt(value: float, digits: int = 1) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def print_steady(args: argparse.Namespace, s: dict[str, Any]) -> None:
    print(f"steady: offered {s['offered_rate']:g} moves/s for {args.steady_seconds:g} s over "
          f"{s['games']} games: {s['moves_sent']} moves sent at "
          f"{s['achieved_send_rate']:.1f}/s; ticks with no game ready {s['late_ticks']}, "
          f"max schedule lag {s['max_schedule_lag_ms']:.0f} ms")
    print(f"steady latency, SMTP session open -> first board mail at the sink (ms): "
          f"p50 {fmt(s['latency_ms_p50'])}, p90 {fmt(s['latency_ms_p90'])}, "
          f"p99 {fmt(s['latency_ms_p99'])}, max {fmt(s['latency_ms_max'])} "
          f"(target p99 < 250)")
    print(f"  from the scheduled tick (ms): p50 {fmt(s['from_schedule_ms_p50'])}, "
          f"p90 {fmt(s['from_schedule_ms_p90'])}, p99 {fmt(s['from_schedule_ms_p99'])}, "
          f"max {fmt(s['from_schedule_ms_max'])}; moves without a board mail "
          f"{s['moves_without_board_mail']}, without both "
          f"{s['moves_without_both_board_mails']}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)

    def on_term(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    if args.credentials != "both":
        return run(args)[0]
    # Both loads, one after the other, on fresh servers: the figures side by side.
    codes, speeds = [], {}
    for credentials in ("warm", "cold"):
        print(f"\n==== credentials {credentials}")
        code, result = run(argparse.Namespace(**{**vars(args), "credentials": credentials}))
        codes.append(code)
        speeds[credentials] = result.get("ours", {}).get("moves_per_second_median", math.nan)
    print(f"\nmoves/s end to end: warm {fmt(speeds['warm'])}, cold {fmt(speeds['cold'])} "
          f"(cold/warm {fmt(speeds['cold'] / speeds['warm'], 2)})")
    return max(codes)


def run(args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    """One run of the bench (see the module docstring): its exit status and figures."""
    ABORT.clear()  # set at the end of a run before
    import pbm_emergo

    package_dir = Path(pbm_emergo.__file__).resolve().parent
    info = machine()
    print(f"command: {shlex.join([sys.executable, *sys.argv])}")
    load = " ".join(f"{x:.2f}" for x in info["loadavg_at_start"])
    print(f"machine: {info['nproc']} CPUs ({info['cpu']}), Python {info['python']}, "
          f"{info['platform']}; load average {load} (other work here skews every figure)")
    print(f"server: {package_dir} ({server_revision(package_dir)})")
    options = {k: v for k, v in vars(args).items() if k not in ("json",)}
    print(f"options: {options}")

    rng = random.Random(args.seed)
    burst = generate_games("b", args.games * args.rounds, args.moves, rng)
    steady_needed = math.ceil(args.steady_rate * args.steady_seconds / args.moves)
    steady_count = args.steady_games or steady_needed + math.ceil(2 * args.steady_rate)
    if args.no_steady:
        steady_count = 0
    steady = generate_games("s", steady_count, args.moves, rng)
    print(f"games: {args.rounds} round(s) of {args.games} burst games, "
          f"{sum(len(g.moves) for g in burst)} moves in all; "
          f"{len(steady)} steady games, {sum(len(g.moves) for g in steady)} moves available")

    procs = Processes()
    spawn = multiprocessing.get_context("spawn")
    tmp = Path(tempfile.mkdtemp(prefix="pbm-emergo-pipeline-"))
    log_path = tmp / "server.log"
    result: dict[str, Any] = {"command": sys.argv, "machine": info, "options": options}
    sink: SinkLog | None = None
    exit_code = 0
    bench_db: BenchDatabase | None = None
    chaos: Chaos | None = None
    try:
        # The bare listener: alone on the machine while it is measured (before the server
        # starts, then with the server's processes stopped during its bursts).
        bare_proc = bare_port = None
        if not args.skip_bare:
            bare_proc, bare_port = start_helper(procs, spawn, bare_listener_main, "bare listener",
                                                args.bare_loop)
            result["bare_setup"] = bare_setup = run_bare_setup(bare_port, Mailer(), burst,
                                                               args.clients)
            print(f"bare listener ({args.bare_loop}): signups+challenges "
                  f"{bare_setup['setup_accept_rate']:.0f} mails/s")

        events: multiprocessing.Queue[Mail] = spawn.Queue()
        sink_options = SinkOptions(
            pipelining=not args.sink_one_by_one, loop=args.sink_loop, headers=args.sink_headers
        )
        sink_down = spawn.Event() if args.relay_down_at is not None else None
        if sink_down is not None:
            _, sink_port = start_helper(procs, spawn, switchable_sink_main, "sink", events,
                                        sink_options, sink_down)
        else:
            _, sink_port = start_helper(procs, spawn, sink_main, "sink", events, sink_options)
            for _ in range(args.sinks - 1):
                start_helper(procs, spawn, sink_main, "sink", events, sink_options,
                             port=sink_port)
        sink = SinkLog(events)

        data_dir = tmp / "data"
        port = free_port()
        command = [
            sys.executable, "-m", "pbm_emergo", "serve", "--data-dir", str(data_dir),
            "--port", str(port), "--outbound", f"smtp://127.0.0.1:{sink_port}",
            *args.server_arg,
        ]
        if args.database_url:
            bench_db = BenchDatabase(args.database_url)
            bench_db.create()
            print(f"database: {bench_db.name} (new) on {bench_db.server_url!r}")
            command[6:6] = ["--database-url", bench_db.url, "--migrate"]
        if args.worker_processes:
            command.append("--no-workers")
        database_url = database_url_for(args, data_dir, bench_db)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
        if args.credentials == "cold":
            env["PBM_EMERGO_CREDENTIAL_CACHE_SECONDS"] = "0"
        print(f"credentials: {args.credentials}")
        print(f"server command: {shlex.join(command)}")
        with log_path.open("wb") as log:
            procs.server = subprocess.Popen(
                command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
                start_new_session=True,
            )
        server = procs.server
        wait_listening(port, 120, lambda: server.poll() is None)
        if args.worker_processes:
            start_workers(procs, args, data_dir, database_url, sink_port, tmp, env)
        print(f"server pid {server.pid}, listening on 127.0.0.1:{port}, sink on {sink_port}")
        if args.profile:
            py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
            spy_command = [
                py_spy, "record", "--subprocesses", "--threads", "--format", "raw",
                "-o", args.profile, "-p", str(server.pid),
            ]
            print(f"profiler: {shlex.join(spy_command)}")
            with (tmp / "py-spy.log").open("wb") as spy_log:
                procs.profiler = subprocess.Popen(
                    spy_command, stdout=spy_log, stderr=subprocess.STDOUT
                )

        mailer = Mailer()
        setup_stats = SendStats()
        live_sink = sink

        def wait(exp: Expectation) -> bool:
            return live_sink.wait(exp, args.timeout, args.idle_timeout)

        setup, playing = setup_games(
            port, sink, mailer, [*burst, *steady], args.clients, wait, setup_stats
        )
        result["setup"] = setup
        print(f"setup: {setup['signups']} signups answered in {setup['signup_seconds']:.1f} s "
              f"({rate(setup['signups'], setup['signup_seconds']):.1f}/s), "
              f"{setup['challenges']} challenges in {setup['challenge_seconds']:.1f} s "
              f"({rate(setup['challenges'], setup['challenge_seconds']):.1f}/s)")
        for tag, reason in setup["dropped_games"].items():
            print(f"  game {tag} left out: {reason}")
        burst = [g for g in playing if g.tag.startswith("b")]
        steady = [g for g in playing if g.tag.startswith("s")]
        rounds = [[g for g in burst if int(g.tag[1:]) // args.games == r]
                  for r in range(args.rounds)]
        if not all(rounds) or (not steady and not args.no_steady):
            raise BenchError("no game left to play after the signups and challenges")

        burst_stats = SendStats()
        if extended(args):
            chaos = Chaos(args, procs, database_url, sink_down, burst_stats, sink)
            burst_started = time.time()
            chaos.start()
        result["rounds"] = played = []
        bare_mailer = Mailer()
        cpu_before = cpu_seconds(procs)
        for number, games in enumerate(rounds, 1):
            entry: dict[str, Any] = {"round": number}
            if bare_port is not None:
                with stopped(server):
                    entry["bare"], _ = run_bare(bare_port, bare_mailer, games, args.clients)
            round_stats = burst_stats if chaos is not None else SendStats()
            entry["ours"], _ = run_burst(port, sink, mailer, games, args.clients, wait,
                                         round_stats)
            if round_stats is not burst_stats:
                round_stats.merge_into(burst_stats)
            played.append(entry)
            print_round(entry, args.bare_loop)
        cpu_after = cpu_seconds(procs)
        burst_cpu = cpu_used(cpu_before, cpu_after)
        roles = serve_roles(procs.server.pid if procs.server is not None else None, log_path)
        serve_cpu = cpu_by_process(cpu_before, cpu_after, roles) if roles else {}
        if bare_proc is not None:
            procs.stop_helper(bare_proc)
        ours = {
            "moves": sum(e["ours"]["moves"] for e in played),
            "moves_without_both_board_mails": sum(
                e["ours"]["moves_without_both_board_mails"] for e in played),
            "accept_rate_median": statistics.median(e["ours"]["accept_rate"] for e in played),
            "moves_per_second_median": statistics.median(
                e["ours"]["moves_per_second"] for e in played),
        }
        result["ours"] = ours
        rates = ", ".join(f"{e['ours']['accept_rate']:.0f}" for e in played)
        print(f"ours: accept rate median {ours['accept_rate_median']:.0f} mails/s over "
              f"{len(played)} round(s) ({rates})")
        if bare_port is not None:
            ratios = [e["ours"]["accept_rate"] / e["bare"]["accept_rate"] for e in played]
            result["accept_ratio"] = ratio = statistics.median(ratios)
            print(f"accept rate ours/bare: {ratio:.2f}, the median of {len(played)} round(s) "
                  f"({', '.join(f'{r:.2f}' for r in ratios)}) (target >= 0.5)")
        speeds = ", ".join(f"{e['ours']['moves_per_second']:.1f}" for e in played)
        result["cpu_ms_per_move"] = per_move = {
            part: 1000 * seconds / max(1, ours["moves"]) for part, seconds in burst_cpu.items()}
        print("CPU time per move during the move burst (ms; the bare listener's bursts "
              "included where it ran): " + ", ".join(
                  f"{part} {ms:.1f}" for part, ms in sorted(per_move.items())) +
              f"; all {sum(per_move.values()):.1f}")
        if serve_cpu:
            result["serve_cpu_ms_per_move"] = serve_per_move = {
                role: 1000 * seconds / max(1, ours["moves"]) for role, seconds in serve_cpu.items()}
            print("  serve by process (ms a move; main: the first listener and the scheduler): "
                  + ", ".join(f"{role} {ms:.2f}" for role, ms in sorted(serve_per_move.items())))
        print(f"end to end: {ours['moves']} moves, both board mails of every move at the sink: "
              f"median {ours['moves_per_second_median']:.1f} moves/s over {len(played)} "
              f"round(s) ({speeds}) (target >= 100, aim 200); moves missing board mails: "
              f"{ours['moves_without_both_board_mails']}")

        if chaos is not None:
            chaos.close()
            with sink.cond:
                burst_mails = list(sink.mails)
            result["timeline"] = rows = timeline(burst_started, burst_stats, burst_mails,
                                                 chaos.events)
            if args.timeline:
                print_timeline(rows)
            # The workers alone: once every mail was accepted, the listener is idle.
            after = [m["t"] for m in burst_mails if is_board_mail(m)
                     and m["irt"].startswith("<move-b") and m["t"] > burst_stats.last_accept]
            if after:
                drain = max(after) - burst_stats.last_accept
                result["after_last_accept"] = {"moves": len(after) / 2, "seconds": drain,
                                               "moves_per_second": rate(len(after) / 2, drain)}
                print(f"after the last mail was accepted (the listener idle): "
                      f"{len(after) / 2:.0f} moves in {drain:.1f} s: "
                      f"{rate(len(after) / 2, drain):.1f} moves/s")
            result["memory"] = chaos.memory
            for mark in chaos.memory:
                print(f"memory after {mark['mails']} moves done: RSS {mark['rss_kib'] / 1024:.0f} "
                      f"MiB, peak (VmHWM) {mark['hwm_kib'] / 1024:.0f} MiB, summed over "
                      f"{mark['processes']} processes")
        if args.no_steady:
            steady_summary = {"moves_without_both_board_mails": 0, "skipped": True}
            steady_stats = SendStats()
        else:
            steady_summary, steady_stats = run_steady(
                port, sink, mailer, steady, args.clients, args.steady_rate,
                args.steady_seconds, args.timeout, wait,
            )
        result["steady"] = s = steady_summary
        if not args.no_steady:
            print_steady(args, s)

        sink.quiet(2.0, 30.0)
        memory = peak_memory_kib(server.pid, serve_roles(server.pid, log_path))
        for worker in procs.workers:
            memory.update(peak_memory_kib(worker.pid, {}))
        peaks = {what: hwm for what, (hwm, _) in memory.items()}
        in_use = sum(pss for _, pss in memory.values())
        result["server_peak_kib"] = {"total": sum(peaks.values()), "processes": peaks}
        result["server_pss_kib"] = in_use
        print(f"server peak memory (VmHWM), summed over {len(peaks)} process(es): "
              f"{sum(peaks.values()) / 1024:.0f} MiB; in use at the end (Pss summed: shared "
              f"pages once) {in_use / 1024:.0f} MiB")
        for what, (hwm, pss) in memory.items():
            print(f"  {hwm / 1024:6.0f} MiB  (Pss {pss / 1024:4.0f})  pid {what}")

        all_stats = SendStats()
        for st in (setup_stats, burst_stats, steady_stats):
            st.merge_into(all_stats)
        with sink.cond:
            mails = list(sink.mails)
        known = set(sink.by_irt)  # every In-Reply-To seen
        errors = [m for m in mails if "error" in m["subject"].lower()]
        unexpected = [
            m for m in mails
            if m not in errors and not BOARD_SUBJECT.search(m["subject"])
            and not m["subject"].startswith(("Emergo: welcome", "Emergo: confirm your address"))
        ]
        result["errors"] = {
            "error_mails": len(errors),
            "other_unexpected_mails": len(unexpected),
            "sink_mails": len(mails),
            "4xx": dict(all_stats.codes_4xx),
            "5xx": dict(all_stats.codes_5xx),
            "connection_errors": dict(all_stats.connection_errors),
            "not_accepted": len(all_stats.failed),
            "accepted_after_retry": len(all_stats.retried),
            "in_reply_to_seen": len(known),
        }
        print(f"mails at the sink: {len(mails)}; error mails: {len(errors)}; other unexpected "
              f"mails: {len(unexpected)}")
        for m in errors + unexpected:
            print(f"  to {m['to']} subject {m['subject']!r} in reply to {m['irt']}")
            for line in (m["body"] or "").splitlines()[:6]:
                print(f"    | {line}")
        print(f"4xx from our listener: {sum(all_stats.codes_4xx.values())} "
              f"{dict(all_stats.codes_4xx)}; 5xx: {dict(all_stats.codes_5xx)}; connection "
              f"errors: {dict(all_stats.connection_errors)}; never accepted: "
              f"{len(all_stats.failed)}; accepted only after a retry: {len(all_stats.retried)}")
        for message_id in all_stats.failed[:10]:
            print(f"  never accepted: {message_id}")
        missing = ours["moves_without_both_board_mails"] + s["moves_without_both_board_mails"]
        if extended(args):
            sink.quiet(2.0, 30.0)
            with sink.cond:
                mails = list(sink.mails)
            check = result["exactness"] = exactness(database_url, burst, mails)
            print(f"exactness (burst): {check['moves_applied']} of {check['moves_sent']} moves "
                  f"applied, boards with a move missing, twice or out of order: "
                  f"{len(check['boards_with_wrong_moves'])}; moves without exactly two board "
                  f"mails: {check['moves_without_two_board_mails']}; replies received twice: "
                  f"{check['replies_received_twice']}; error mails (a `#n` guard that fired "
                  f"would be one): {len(errors)}")
            print(f"  inbound by status {check['inbound']} (tried more than once: "
                  f"{check['inbound_tried_more_than_once']}); outbound by status "
                  f"{check['outbound']}")
            if (check["boards_with_wrong_moves"] or check["replies_received_twice"]
                    or check["moves_without_two_board_mails"]
                    or set(check["inbound"]) - {"done"} or set(check["outbound"]) - {"sent"}):
                exit_code = 2
        if errors or unexpected or missing or all_stats.failed or setup["dropped_games"]:
            exit_code = 2  # the figures are printed, but the run was not clean
    except BenchError as exc:
        print(f"pipeline bench failed: {exc}", file=sys.stderr)
        result["failure"] = str(exc)
        exit_code = 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        exit_code = 130
    finally:
        ABORT.set()
        if chaos is not None:
            chaos.close()
        server_exit = procs.stop_server()
        procs.stop_all()
        if sink is not None:
            sink.close()
        log_text = log_path.read_text(errors="replace") if log_path.exists() else ""
        for worker_log in sorted(tmp.glob("worker-*.log")):
            log_text += "\n" + worker_log.read_text(errors="replace")
        if bench_db is not None:
            bench_db.drop()
        spy_log_path = tmp / "py-spy.log"
        if spy_log_path.exists():
            print(f"py-spy: {spy_log_path.read_text(errors='replace').strip()[-400:]}")
        records = log_records(log_text)
        result["worker_sections"] = worker_time = worker_sections(tmp)
        print_worker_sections(worker_time)
        noisy = [r for r in records if r[0].split(" ", 3)[2:3] in (["WARNING"], ["ERROR"],
                                                                   ["CRITICAL"])]
        result["loadavg_at_end"] = os.getloadavg()
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        result["server_exit"] = server_exit
        result["server_log_warnings"] = len(noisy)
        result["server_log_first_warnings"] = ["\n".join(r) for r in noisy[:5]]
        print(f"server exit status {server_exit}; server log: {len(noisy)} WARNING/ERROR "
              "records")
        for record in noisy[:5]:
            print(f"  {record[0][:200]}")
            for line in record[1:][-3:]:  # the end of a traceback: where and why
                print(f"    {line[:200]}")
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(without_nan(result), default=str))
    return exit_code, result


if __name__ == "__main__":
    sys.exit(main())
