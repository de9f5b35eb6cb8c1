"""Fixtures of the end-to-end tests: a real mail server (listener, workers, scheduler) on a
free port with a recording relay, on a clock the test moves."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.clock import Clock
from tests.support.mail import SERVER_ADDRESS, Relay, free_port
from tests.support.post import ALICE, BOB, Post


@pytest.fixture
def clock() -> Clock:
    """The server's clock, from the present moment on (reminders and forfeits are days
    apart: the test moves it)."""
    return Clock(datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
def make_post(
    db_config: Config,
    db_sessions: sessionmaker[Session],
    clock: Clock,
    quick_argon2: None,
) -> Iterator[Callable[..., Post]]:
    """``make_post(**settings)``: start a server with these Config settings and its relay,
    sign up alice and bob (passwords alice-pw1 and bob-pw1), return its Post. Servers and
    relays stop at the end of the test."""
    started: list[tuple[MailServer, Relay]] = []

    def make(**settings: object) -> Post:
        relay = Relay()
        relay.start()
        config = dataclasses.replace(
            db_config,
            address=SERVER_ADDRESS,
            smtp_port=free_port(),
            outbound=relay.url,
            **{"reply_limit": 100_000, **settings},  # type: ignore[arg-type]
        )
        post = Post(None, relay, db_sessions)  # type: ignore[arg-type]
        server = MailServer(
            config,
            db_sessions,
            backoff=Backoff(base=timedelta(milliseconds=100), cap=timedelta(seconds=1)),
            poll_seconds=0.2,
            scheduler_seconds=0.2,
            on_scheduled=post.scheduler_ran,
            clock=clock,
        )
        post.server = server
        server.start()
        started.append((server, relay))
        for userid, address in (("alice", ALICE), ("bob", BOB)):
            post.signup(userid, f"{userid}-pw1", address)
        return post

    yield make
    for server, relay in started:
        server.stop()
        relay.stop()
