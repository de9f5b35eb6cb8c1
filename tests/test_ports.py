"""The ports the tests' servers bind: found free, and out of the kernel's way."""

from __future__ import annotations

import socket

from tests.support import mail
from tests.support.mail import PORTS_FROM, free_port


def test_free_ports_lie_below_the_ephemeral_range_and_differ() -> None:
    # Below the range the kernel hands out for outgoing connections and bind(0), a port
    # found free stays free until the test's server binds it.
    ports = [free_port() for _ in range(200)]
    assert all(PORTS_FROM <= port < mail._ephemeral_start() for port in ports)
    assert len(set(ports)) == len(ports)
    with socket.create_server(("127.0.0.1", ports[-1])):
        pass


def test_a_port_in_use_is_passed_over() -> None:
    share = mail._port_share()
    upcoming = share[mail._next_port % len(share)]
    with socket.create_server(("127.0.0.1", upcoming)):
        assert free_port() == share[(share.index(upcoming) + 1) % len(share)]
