"""The argument grammar: arity, secret places, the login and the usage text are derived
from one declaration per command, and the mail language and masking read them from it; the
arguments bound to it give a command its words by part, of which it makes its request (the
shell resolves the board and the login: tests/commands/test_resolve.py). No database."""

from __future__ import annotations

import pytest

from pbm_emergo.commands import masking, registry
from pbm_emergo.commands.base import Command, UsageError
from pbm_emergo.commands.grammar import (
    BOARD,
    NEW_PASSWORD,
    PASSWORD,
    USERID,
    WORD,
    Grammar,
    named,
    optional,
    repeated,
    rest,
    secret,
)
from pbm_emergo.game.words import MASK, Known


def command(name: str) -> type[Command]:
    return registry.by_name()[name]


# --- arity -----------------------------------------------------------------------------


def test_arity_is_the_sum_of_the_parts() -> None:
    move = Grammar(BOARD, USERID, PASSWORD, named(WORD, "MOVE[#n]"))
    assert (move.least, move.most) == (4, 4)
    seek = Grammar(USERID, PASSWORD, optional(named(WORD, "N|off")))
    assert (seek.least, seek.most) == (2, 3)
    queue = Grammar(BOARD, USERID, PASSWORD, repeated(named(WORD, "MOVE"), 1, 20))
    assert (queue.least, queue.most) == (4, 23)
    signup = Grammar(named(WORD, "userid"), NEW_PASSWORD, repeated(named(WORD, "address"), 0))
    assert (signup.least, signup.most) == (2, None)
    assert (Grammar().least, Grammar().most) == (0, 0)
    assert (Grammar(rest()).least, Grammar(rest()).most) == (0, None)


def test_fits_counts_against_the_bounds() -> None:
    seek = Grammar(USERID, PASSWORD, optional(named(WORD, "N|off")))
    assert [seek.fits(n) for n in range(5)] == [False, False, True, True, False]
    notify = Grammar(USERID, PASSWORD, repeated(BOARD, 0))
    assert not notify.fits(1)
    assert notify.fits(2) and notify.fits(40)


@pytest.mark.parametrize(
    ("name", "least", "most"),
    [
        ("emergo move", 4, 4),
        ("emergo resign", 3, 3),
        ("emergo queue", 4, 23),
        ("emergo challenge", 2, 10),
        ("emergo preview", 2, 31),
        ("emergo show", 1, None),
        ("emergo games", 0, None),
        ("help", 0, 3),
        ("list", 0, 0),
        ("multiple", 0, None),
        ("signup", 2, None),
        ("confirm", 1, 1),
    ],
)
def test_commands_arity(name: str, least: int, most: int | None) -> None:
    grammar = command(name).grammar
    assert (grammar.least, grammar.most) == (least, most)


def test_the_arity_is_checked_before_the_command_runs() -> None:
    move = command("emergo move")
    with pytest.raises(UsageError) as raised:
        move.check_arguments(["101", "alice", "secret1"])
    assert raised.value.reason == (
        "The command emergo move needs these arguments: "
        "emergo move board userid password MOVE[#n]."
    )
    move.check_arguments(["101", "alice", "secret1", "e4"])  # fits: no error


def test_a_misread_command_gets_its_own_error_before_the_arity() -> None:
    # Three arguments do not fit `emergo accept`, but the error says what was meant.
    with pytest.raises(UsageError) as raised:
        command("emergo accept").check_arguments(["101", "bob", "secret1"])
    assert "'emergo move 101 USERID PASSWORD accept'" in raised.value.reason


# --- secret places and the login -------------------------------------------------------


def test_secret_places_and_login_are_derived() -> None:
    change = Grammar(USERID, named(PASSWORD, "old"), named(NEW_PASSWORD, "new"))
    assert change.secret_positions == (1, 2)
    assert change.login == (0, 1)  # the new password is set, not checked
    move = Grammar(BOARD, USERID, PASSWORD, named(WORD, "MOVE"))
    assert move.secret_positions == (2,)
    assert move.login == (1, 2)
    signup = Grammar(named(WORD, "userid"), NEW_PASSWORD, repeated(named(WORD, "address"), 0))
    assert signup.secret_positions == (1,)
    assert signup.login is None
    confirm = Grammar(secret("CODE"))
    assert (confirm.secret_positions, confirm.login) == ((0,), None)
    assert Grammar(repeated(USERID, 0)).secret_positions == ()


def test_a_secret_needs_a_fixed_place() -> None:
    with pytest.raises(ValueError, match="fixed position"):
        Grammar(repeated(named(WORD, "address"), 0), USERID, PASSWORD)
    with pytest.raises(ValueError, match="fixed position"):
        Grammar(USERID, optional(PASSWORD))
    with pytest.raises(ValueError, match="follow the userid"):
        Grammar(BOARD, PASSWORD)
    # An optional secret may end a grammar: its place is known when it is there.
    join = Grammar(WORD, USERID, PASSWORD, optional(secret("EVENTPASSWORD")))
    assert join.secret_positions == (2, 3) and join.login == (1, 2)


def test_every_login_password_is_a_secret_place() -> None:
    logins = 0
    for found in registry.all_commands():
        grammar = found.grammar
        if grammar.login is not None:
            logins += 1
            assert grammar.login[1] in grammar.secret_positions
            assert grammar.login[1] == grammar.login[0] + 1
    assert logins >= 15


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        # The password is the name of an existing player: masked all the same.
        ("emergo move 101 alice bob e4", f"emergo move 101 alice {MASK} e4"),
        ("change password alice bob carol", f"change password alice {MASK} {MASK}"),
        ("emergo limit alice bob 3", f"emergo limit alice {MASK} 3"),
        ("confirm alice", f"confirm {MASK}"),
        # Out of place, a word is shown only when it is public.
        ("emergo show alice bob", "emergo show alice bob"),
    ],
)
def test_masking_reads_the_secret_places_from_the_grammar(line: str, shown: str) -> None:
    known = Known(userids=frozenset({"alice", "bob", "carol"}), boards=frozenset({101}))
    assert masking.mask_line(line, known) == shown


def test_an_unknown_userid_is_shown_only_once_checked_not_to_be_a_password() -> None:
    known = Known(userids=frozenset({"alice"}))
    line = "emergo challenge alice robot9"
    # On receipt nothing is checked: the word may be the sender's password.
    assert masking.mask_line(line, known) == f"emergo challenge alice {MASK}"
    assert masking.unchecked_userids([line, "emergo show robot9", line], known) == ["robot9"]
    checked = Known(userids=known.userids, not_passwords=frozenset({"robot9"}))
    assert masking.mask_line(line, checked) == line
    assert masking.unchecked_userids([line], checked) == []
    # Only at a userid's place of a command that takes no password.
    assert masking.mask_line("emergo move 101 alice robot9 e4", checked) == (
        f"emergo move 101 alice {MASK} e4"
    )


def test_secret_places_are_not_looked_up() -> None:
    userids, _ = masking.candidates(["change password alice bobbybob carolcarol"])
    assert userids == {"alice"}


# --- usage -----------------------------------------------------------------------------


def test_usage_is_made_from_the_parts() -> None:
    assert Grammar(BOARD, USERID, PASSWORD).usage == "board userid password"
    assert Grammar(USERID, PASSWORD, optional(named(WORD, "N|off"))).usage == (
        "userid password [N|off]"
    )
    assert Grammar(USERID, PASSWORD, repeated(BOARD, 0)).usage == "userid password [board ...]"
    assert Grammar(USERID, PASSWORD, repeated(named(WORD, "address"))).usage == (
        "userid password address ..."
    )
    assert Grammar(rest()).usage == ""
    assert Grammar(repeated(named(WORD, "topic"), 0, 3, shown="[topic]")).usage == "[topic]"


@pytest.mark.parametrize(
    ("name", "usage"),
    [
        ("signup", "signup userid password [address ...]"),
        ("change password", "change password userid old new"),
        ("message", "message userid password to [to ...]"),
        ("multiple", "multiple"),
        ("emergo help", "emergo help"),
        (
            "emergo challenge",
            "emergo challenge u1 u2 [-unrated] [-blocked=draw] [--nagtime=DAYS] "
            "[--forfeittime=DAYS] [--totaltime=DAYS] [-timebank=240h] [-increment=36h] "
            "[-weekends]",
        ),
        ("emergo subscribe", "emergo subscribe board|all userid password"),
        ("emergo sub", "emergo sub board|all userid password"),
        ("emergo games", "emergo games [userid ...] [all|active|inactive|next]"),
        ("emergo preview", "emergo preview board[#n] MOVE ..."),
        ("emergo seeks", "emergo seeks"),
    ],
)
def test_commands_usage(name: str, usage: str) -> None:
    assert command(name).usage() == usage


# --- the arguments bound -----------------------------------------------------------------


def test_each_part_takes_its_words() -> None:
    queue = Grammar(BOARD, USERID, PASSWORD, repeated(named(WORD, "MOVE[#n]"), 1, 20))
    assert [(p.key, start, end) for p, start, end in queue.spans(6)] == [
        ("board", 0, 1), ("userid", 1, 2), ("password", 2, 3), ("move", 3, 6)
    ]
    seek = Grammar(USERID, PASSWORD, optional(named(WORD, "N|off")))
    assert [(p.key, start, end) for p, start, end in seek.spans(2)] == [
        ("userid", 0, 1), ("password", 1, 2), ("n", 2, 2)
    ]
    # A part of variable length leaves the later parts their least.
    message = Grammar(USERID, PASSWORD, named(USERID, "to"), repeated(named(USERID, "to"), 0))
    assert [(start, end) for _, start, end in message.spans(5)] == [(0, 1), (1, 2), (2, 3), (3, 5)]


def test_a_command_reads_its_words_by_part() -> None:
    queue = command("emergo queue").bind(["101", "bob", "pw", "e4=d5", "c3=g7"])
    assert queue.word("userid") == "bob"
    assert queue.words_of("move") == ["e4=d5", "c3=g7"]
    seek = command("emergo seek")
    assert seek.bind(["bob", "pw"]).optional_word("n") is None
    assert seek.bind(["bob", "pw", "3"]).optional_word("n") == "3"
    message = command("message").bind(["bob", "pw", "alice", "carol"])
    assert message.words_of("to") == ["alice", "carol"]
    with pytest.raises(KeyError):
        queue.word("move")  # two words
    with pytest.raises(KeyError):
        queue.word("days")  # no such part
