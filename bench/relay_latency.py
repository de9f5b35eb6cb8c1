"""Mails a second from the outbox's SMTP transport to a relay some way off, and the sending
thread's CPU a mail: with the relay offering PIPELINING (MAIL, RCPT and DATA in one write:
two round trips a mail) and not (four round trips a mail).

In one process: an aiosmtpd relay on 127.0.0.1 that accepts every mail, behind a proxy that
holds every chunk for half the round-trip time in each direction (as a relay or a provider's
submission server ``--rtt`` milliseconds away), and :class:`SMTPTransport` delivering
``--mails`` board-sized mails over one connection, as the outbox sender does. For each
round-trip time, the relay is offered with and without PIPELINING, in turn, ``--runs``
times; the figures are the medians of the runs. From a round trip of a few milliseconds on,
latency decides the mails a second, which a busy machine then moves little; the CPU is the
sending thread's own (``time.thread_time``), which it does move.

    .venv/bin/python bench/relay_latency.py [--mails 50] [--rtt 0 --rtt 20 --rtt 50]
        [--runs 3]

To measure another copy of the server, put it first on PYTHONPATH and run from outside the
checkout (``cd /tmp && PYTHONPATH=/path/to/copy python /path/to/relay_latency.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiosmtpd.controller import Controller

import pbm_emergo
from pbm_emergo.mail.outbound import SMTPTransport

# A board mail's size: its text and HTML parts (about 20 kB).
MAIL = (
    b"From: pbmserv@example.org\r\nTo: player@example.org\r\nSubject: Emergo Board 101\r\n"
    b"\r\n" + b"a line of the board mail, 72 characters at most, as the plain part's\r\n" * 280
)


class Relay:
    """Takes every mail; offers PIPELINING when ``pipelining`` is set."""

    def __init__(self) -> None:
        self.pipelining = False
        self.received = 0

    async def handle_EHLO(  # noqa: N802 - aiosmtpd's hook name
        self, server: Any, session: Any, envelope: Any, hostname: str, responses: list[str]
    ) -> list[str]:
        session.host_name = hostname
        if self.pipelining:
            return [responses[0], "250-PIPELINING", *responses[1:]]
        return responses

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.received += 1
        return "250 OK"


class DelayingProxy:
    """Forwards each connection to ``target`` port, every chunk held ``delay`` seconds (in
    order: every chunk is held alike)."""

    def __init__(self, target: int, delay: float) -> None:
        self.target = target
        self.delay = delay
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(10)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", 0)
        )
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self.loop.run_forever()
        server.close()
        tasks = asyncio.all_tasks(self.loop)
        for task in tasks:
            task.cancel()
        self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        self.loop.close()

    async def _connection(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        relay_in, relay_out = await asyncio.open_connection("127.0.0.1", self.target)
        with contextlib.suppress(asyncio.CancelledError):  # the proxy stopping
            await asyncio.gather(
                self._pipe(client_in, relay_out), self._pipe(relay_in, client_out)
            )

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        while chunk := await source.read(65536):
            loop.call_later(self.delay, sink.write, chunk)
        loop.call_later(self.delay, sink.close)


@contextmanager
def relay_at(rtt_ms: float) -> Iterator[tuple[Relay, int]]:
    relay = Relay()
    with socket.socket() as probe:  # a free port (aiosmtpd's Controller needs one named)
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    controller = Controller(relay, hostname="127.0.0.1", port=port,
                            server_hostname="relay.bench")
    controller.start()
    proxy = None
    if rtt_ms > 0:
        proxy = DelayingProxy(port, rtt_ms / 2000)
        proxy.start()
        port = proxy.port
    try:
        yield relay, port
    finally:
        if proxy is not None:
            proxy.stop()
        controller.stop()


def delivered(relay: Relay, port: int, mails: int, *, pipelining: bool) -> tuple[float, float]:
    """Mails a second, and the delivering thread's CPU a mail in microseconds."""
    relay.pipelining = pipelining
    transport = SMTPTransport("127.0.0.1", port, "bench.test", max_mails=mails + 1)
    try:
        transport.deliver("pbmserv@example.org", "warm-up@example.org", MAIL)  # connect, EHLO
        start, cpu = time.perf_counter(), time.thread_time()
        for n in range(mails):
            transport.deliver("pbmserv@example.org", f"p{n}@example.org", MAIL)
        seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu
    finally:
        transport.close()
    return mails / seconds, cpu / mails * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=50, help="mails a run")
    parser.add_argument("--rtt", type=float, action="append", metavar="MS",
                        help="round-trip times to the relay in ms (default: 0, 20, 50)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each, alternating")
    args = parser.parse_args()
    print(f"server: {pbm_emergo.__file__}")
    print(f"{args.mails} mails of {len(MAIL):,} bytes over one connection; "
          f"median of {args.runs} runs, alternating")
    print(f"{'':7} {'mails a second':^34}   {'CPU a mail, sending thread (us)':^34}")
    print(f"{'rtt ms':>7} {'one by one':>12} {'pipelined':>12} {'ratio':>8}   "
          f"{'one by one':>12} {'pipelined':>12} {'ratio':>8}")
    for rtt in args.rtt or [0.0, 20.0, 50.0]:
        rates: dict[bool, list[float]] = {False: [], True: []}
        cpus: dict[bool, list[float]] = {False: [], True: []}
        with relay_at(rtt) as (relay, port):
            for _ in range(args.runs):
                for pipelining in (False, True):
                    rate, cpu = delivered(relay, port, args.mails, pipelining=pipelining)
                    rates[pipelining].append(rate)
                    cpus[pipelining].append(cpu)
            assert relay.received == 2 * args.runs * (args.mails + 1), relay.received
        plain, pipelined = (statistics.median(rates[p]) for p in (False, True))
        plain_cpu, pipelined_cpu = (statistics.median(cpus[p]) for p in (False, True))
        print(f"{rtt:7.0f} {plain:12.1f} {pipelined:12.1f} {pipelined / plain:7.2f}x   "
              f"{plain_cpu:12.0f} {pipelined_cpu:12.0f} {pipelined_cpu / plain_cpu:7.2f}x")


if __name__ == "__main__":
    main()
