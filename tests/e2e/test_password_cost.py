"""The cost of a password hash: OWASP's argon2id settings by default, other settings taken
from the configuration, and a hash made at an older cost rehashed at its player's next
successful check, through the listener."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.config import Config
from pbm_emergo.db import credentials, players
from pbm_emergo.db.models import Player
from tests.support.hashing import CountingHasher
from tests.support.post import ALICE, BOB, Post, challenge, text


def stored_hash(sessions: sessionmaker[Session], userid: str) -> str:
    with sessions.begin() as session:
        return session.scalars(select(Player.password_hash).where(Player.userid == userid)).one()


def test_the_default_cost_is_owasps_and_the_settings_change_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(players, "_hasher", players._hasher)
    monkeypatch.setattr(credentials, "_cache", credentials.cache())
    players.use_password_settings(Config())
    assert players.hash_password("a-secret1").startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    players.use_password_settings(Config(password_hash_memory_kib=12_288,
                                         password_hash_time_cost=3))
    made = players.hash_password("a-secret1")
    assert made.startswith("$argon2id$v=19$m=12288,t=3,p=1$")
    assert players.check_password(1, made, "a-secret1").ok


def test_settings_below_argon2s_floor_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 8 KiB a lane"):
        Config(password_hash_memory_kib=4)
    with pytest.raises(ValueError, match="at least 1"):
        Config(password_hash_time_cost=0)
    with pytest.raises(ValueError, match="0 or more"):
        Config(credential_cache_seconds=-1)


def test_a_hash_made_at_an_older_cost_is_rehashed_at_the_next_good_password(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post()
    board = challenge(post)
    # alice's password as the library's own default cost hashed it (m=64 MiB, t=3, p=4).
    old = PasswordHasher().hash("alice-pw1")
    with db_sessions.begin() as session:
        session.execute(update(Player).where(Player.userid == "alice").values(password_hash=old))
    credentials.cache().clear()
    wrong = post.send(f"emergo move {board} alice not-her-pw e4", ALICE)
    assert "Wrong password" in text(wrong[0])
    assert stored_hash(db_sessions, "alice") == old  # a wrong password changes nothing
    credentials.cache().clear()
    mails = post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    assert not any("rror" in str(m["Subject"]) for m in mails)
    rehashed = stored_hash(db_sessions, "alice")
    assert rehashed != old and not rehashed.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert not players._hasher.check_needs_rehash(rehashed)
    assert players.check_password(0, rehashed, "alice-pw1").ok
    # The password itself still works, now against the new hash.
    credentials.cache().clear()
    mails = post.send(f"emergo move {board} alice alice-pw1 propose", ALICE)
    assert not any("rror" in str(m["Subject"]) for m in mails)
    assert stored_hash(db_sessions, "alice") == rehashed


def test_with_no_credential_cache_every_good_password_is_hashed(
    make_post: Callable[..., Post], monkeypatch: pytest.MonkeyPatch, hasher: CountingHasher
) -> None:
    post = make_post()
    board = challenge(post)
    monkeypatch.setattr(credentials, "_cache", credentials.CredentialCache(ttl=0))
    hasher.checked = 0
    post.send(f"emergo move {board} alice alice-pw1 e4", ALICE)
    post.send(f"emergo move {board} bob bob-pw1 e6", BOB)
    post.send(f"emergo move {board} alice alice-pw1 propose", ALICE)
    assert hasher.checked == 3
    assert len(credentials.cache()) == 0
    # With the cache (the default), alice's second good password needs no hash.
    monkeypatch.setattr(credentials, "_cache", credentials.CredentialCache())
    post.send(f"emergo move {board} bob bob-pw1 reject", BOB)
    post.send(f"emergo move {board} bob bob-pw1 f5", BOB)
    assert hasher.checked == 4
