"""Which userids and passwords a player may choose, and how a userid reads at a glance, on
values. No database (whether a player has the userid, or one like it, is the shell's)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbm_emergo.game.accounts import (
    MAX_PASSWORD,
    password_fault,
    userid_fault,
    userid_skeleton,
)
from pbm_emergo.game.words import MIN_PASSWORD, USERID_PATTERN


@pytest.mark.parametrize("userid", ["alice", "Bob_2", "carol-d", "zz", "a" * 16, "Emergoist"])
def test_a_userid_a_player_may_choose(userid: str) -> None:
    assert userid_fault(userid) is None


@pytest.mark.parametrize(
    ("userid", "code"),
    [
        ("a", "userid_not_allowed"),
        ("a" * 17, "userid_not_allowed"),
        ("2pac", "userid_not_allowed"),
        ("al ice", "userid_not_allowed"),
        ("alice@x", "userid_not_allowed"),
        ("all", "userid_reserved"),
        ("ALL", "userid_reserved"),
        ("robot4", "userid_server_like"),
        ("r0bot", "userid_server_like"),
        ("Admin_2", "userid_server_like"),
        ("pbmserv-bot", "userid_server_like"),
        ("root1", "userid_server_like"),
        ("emergo2", "userid_server_like"),
        ("emergo_", "userid_reserved"),
        ("nobody9", "userid_server_like"),
    ],
)
def test_a_userid_that_is_refused_and_why(userid: str, code: str) -> None:
    fault = userid_fault(userid)
    assert fault is not None and fault.code == code
    assert f"'{userid[:40]}'" in str(fault)


def test_userids_that_read_alike() -> None:
    assert userid_skeleton("Bob_") == userid_skeleton("b0b") == userid_skeleton("bob")
    assert userid_skeleton("Il1") == "lll"
    assert userid_skeleton("alice") != userid_skeleton("alicia")


@given(st.text(min_size=1, max_size=20))
def test_every_userid_allowed_fits_the_pattern(userid: str) -> None:
    if userid_fault(userid) is None:
        assert USERID_PATTERN.fullmatch(userid)


@pytest.mark.parametrize(
    ("length", "allowed"),
    [(MIN_PASSWORD - 1, False), (MIN_PASSWORD, True), (MAX_PASSWORD, True),
     (MAX_PASSWORD + 1, False)],
)  # fmt: skip
def test_a_passwords_length(length: int, allowed: bool) -> None:
    fault = password_fault("x" * length)
    assert (fault is None) == allowed
    if fault is not None:
        assert str(fault) == (
            f"A password needs {MIN_PASSWORD} to {MAX_PASSWORD} characters (no spaces)."
        )
