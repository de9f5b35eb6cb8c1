"""help, emergo help, unknown commands and multiple, through process()."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbm_emergo.app.messages import CommandMail, Reply, clean_subject
from pbm_emergo.commands.text import command_lines, comment_text, masked
from pbm_emergo.config import Config
from pbm_emergo.mail.commands import dispatch
from pbm_emergo.mail.quotes import quote_start
from tests.support.text import flat

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def send(subject: str, body: str = "", sender: str = "carol@example.org") -> list[Reply]:
    mail = CommandMail(sender=sender, subject=subject, body=body, message_id="<t@example.org>")
    # help needs no database; the session is never touched.
    replies, writes = dispatch(None, mail, Config(), NOW)  # type: ignore[arg-type]
    assert writes == []
    return replies


def test_help_lists_every_command_from_the_registry() -> None:
    from pbm_emergo.commands.registry import all_commands

    [reply] = send("help")
    assert reply.to == "carol@example.org"
    assert reply.subject == "Emergo help"
    for command in all_commands():
        # An alias (emergo ratings, emergo sub ...) is named by the command it stands for.
        assert (command.usage() if command.listed else command.name) in flat(reply.body)
    assert "pbmserv@localhost" in reply.body


def test_help_topic_describes_one_command() -> None:
    [reply] = send("HELP help")
    assert reply.subject == "Emergo help: help"
    assert reply.body.startswith("help [topic]\n")


@pytest.mark.parametrize("topic", ["move", "queue", "challenge", "signup", "multiple"])
def test_help_for_a_command_fits_72_columns_with_examples_on_their_own_lines(
    topic: str,
) -> None:
    [reply] = send(f"help {topic}")
    lines = reply.body.splitlines()
    assert max(len(line) for line in lines) <= 72, [x for x in lines if len(x) > 72]
    if topic in ("move", "queue"):
        examples = [line for line in lines if line.startswith(f"  emergo {topic} 101 ")]
        assert examples, reply.body


def test_unknown_help_topic_says_so_and_lists_commands() -> None:
    [reply] = send("help frobnicate")
    # An unknown word may be a password typed in the wrong place: never echoed.
    assert reply.body.startswith("There is no help topic '********'.")
    assert "frobnicate" not in reply.body
    assert "emergo help" in reply.body


@pytest.mark.parametrize(
    ("topic", "shown"),
    [("Pw-Secret9", "********"), ("PW-SECRET9", "********"), ("move Pw-Secret9", "move ********")],
)
def test_an_unknown_help_topic_is_echoed_masked_in_any_case(topic: str, shown: str) -> None:
    """Echoed lower-cased, a password written with capitals would slip past the scrubbing
    of replies (which matches it as written)."""
    [reply] = send(f"help {topic}")
    assert reply.body.startswith(f"There is no help topic '{shown}'.")
    assert "pw-secret9" not in reply.body.lower()


def test_reply_prefixes_are_ignored() -> None:
    assert clean_subject("Re: AW:  Fwd[2]: emergo   help ") == "emergo help"
    [reply] = send("Re: help")
    assert reply.subject == "Emergo help"


def test_unknown_command_gets_an_error_with_arguments_masked() -> None:
    [reply] = send("emergo mvoe 101 alice s3cret e4")
    assert reply.subject == "Emergo error"
    # The typo is shown: it is read as the command meant, whose password place is masked.
    assert reply.body.startswith(
        "There is no command 'emergo mvoe'. Did you mean 'emergo move'?\n"
    )
    assert "s3cret" not in reply.body
    # 101 is too short to be a password, e4 is move notation; alice is no player here.
    assert "emergo mvoe 101 ******** ******** e4" in reply.body
    assert "  help [topic]" in reply.body


def test_empty_subject_is_explained() -> None:
    [reply] = send("", "hello there")
    assert reply.subject == "Emergo: start here"
    assert "Subject" in reply.body.splitlines()[0]
    assert "emergo challenge YOURID robot1" in reply.body


def test_a_mail_with_no_command_is_told_where_to_start() -> None:
    [reply] = send("Hi there")
    assert reply.subject == "Emergo: start here"
    assert reply.body.startswith("This server plays Emergo by mail, and your mail has no command")
    assert "signup YOURID PASSWORD" in reply.body
    assert "emergo challenge YOURID robot1" in reply.body
    assert "Hi" not in reply.body and "there" not in reply.body  # nothing echoed


@pytest.mark.parametrize(
    ("subject", "meant"),
    [
        ("emergo mvoe 101 alice s3cret e4", "emergo move"),
        ("emergo chalenge alice bob", "emergo challenge"),
        ("sigup carol pw", "signup"),
        ("chnage password alice old new", "change password"),
        ("emrgo show 101", "emergo show"),
        ("multipel", "multiple"),
    ],
)
def test_a_mistyped_command_is_answered_with_the_nearest_one(subject: str, meant: str) -> None:
    [reply] = send(subject)
    assert reply.subject == "Emergo error"
    assert f"Did you mean '{meant}'?" in reply.body.splitlines()[0]


def test_multiple_reports_results_unprocessed_and_ignored() -> None:
    body = "help\n\nnonsense secret\nEND\nhelp\nmore\n"
    [reply] = send("multiple", body)
    assert reply.subject == "Emergo multiple: 1 done, 1 failed"
    text = reply.body
    assert "- Results:\n  > help\n  sent the command summary\n" in text
    assert "  > ******** ********\n  Error: There is no command '********'.\n" in text
    assert "secret" not in text
    assert "nonsense" not in text
    assert "- Ignored: 2 lines from the line 'end' on." in text
    assert "Unprocessed" not in text
    assert text.rstrip().endswith("- Done.")


def test_multiple_runs_a_bounded_number_of_lines() -> None:
    body = "\n".join(["help help"] * 35)
    [reply] = send("multiple", body)
    assert reply.subject == "Emergo multiple: 30 done, 0 failed"
    unprocessed = reply.body.split("- Unprocessed")[1]
    assert unprocessed.count("help help") == 5


@pytest.mark.parametrize(
    ("body", "lines", "ignored"),
    [
        ("help\n-- \nAlice\nhelp", ["help"], 2),
        ("help\n> help\n", ["help"], 1),
        ("help\nOn Monday, Bob wrote:\nhelp", ["help"], 2),
        ("help\n\n  help   emergo \n", ["help", "help emergo"], 0),
    ],
)
def test_body_lines_stop_at_signature_quote_and_end(
    body: str, lines: list[str], ignored: int
) -> None:
    found = command_lines(body, quote_at=quote_start(body))
    assert found.commands == lines
    assert found.ignored == ignored


def test_comment_stops_at_signature() -> None:
    assert comment_text("\nNice move!\n\n-- \nBob\n") == "Nice move!"


def test_masking_knows_where_passwords_are() -> None:
    assert masked("help me please") == "help me ********"
    assert masked("frob a b") == "******** a b"


def test_multiple_is_listed_but_not_nested() -> None:
    [reply] = send("help multiple")
    assert reply.body.startswith("multiple\n\nWrite 'multiple' as the Subject")
    [report] = send("multiple", "multiple\nhelp help\n")
    assert "  > multiple\n  Error: 'multiple' works only as the Subject" in report.body
    assert report.subject == "Emergo multiple: 1 done, 1 failed"


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("emergo move 101 alice s3cret e4", "emergo move 101 alice ******** e4"),
        # Passwords where they do not belong: masked wherever they are (and the place
        # where a password belongs is masked whatever is written there).
        ("emergo move 101 s3cret alice e4", "emergo move 101 ******** ******** e4"),
        ("emergo move 101 alice e4 s3cret", "emergo move 101 alice ******** ********"),
        ("emergo resign 101 s3cret alice", "emergo resign 101 ******** ********"),
        ("change password s3cret alice new2word", "change password ******** ******** ********"),
        ("signoff s3cret alice", "signoff ******** ********"),
        ("signup erin erin@example.org s3cret", "signup ******** ******** ********"),
        ("s3cret", "********"),
        ("emergo show 101 s3cret", "emergo show 101 ********"),
        # What is known is shown: boards and userids that exist, options, moves, keywords.
        ("emergo show 101#3", "emergo show 101#3"),
        ("emergo challenge alice bob -unrated --nagtime=3", "emergo challenge alice bob "
         "-unrated --nagtime=3"),
        ("emergo move 101 bob hush e4xc4xc6#17", "emergo move 101 bob ******** e4xc4xc6#17"),
        ("emergo games alice inactive", "emergo games alice inactive"),
        ("emergo show 4242", "emergo show ********"),
    ],
)
def test_only_known_words_are_shown(line: str, shown: str) -> None:
    from pbm_emergo.commands.masking import mask_line
    from pbm_emergo.game.words import Known

    known = Known(userids=frozenset({"alice", "bob"}), boards=frozenset({101}))
    assert mask_line(line, known) == shown


@pytest.mark.parametrize("subject", ["emergo help", "help emergo", "HELP Emergo"])
def test_emergo_help_has_rules_board_notation_and_commands(subject: str) -> None:
    from pbm_emergo.commands.registry import all_commands
    from pbm_emergo.rules import Position, render_board

    [reply] = send(subject)
    assert reply.subject == "Emergo help"
    body = reply.body
    assert render_board(Position()) in body
    for heading in ("How to play Emergo", "\nCapturing\n", "\nEntering\n",
                    "\nThe end of the game\n", "How to write a move", "Commands"):  # fmt: skip
        assert heading in body
    for fact in ("Maximum capture", "shadowpiece", "e5 on the very first move", "No feeding",
                 "third time", "e4xc4xc6xe6xe4xc4", "e4-e5", "#n"):  # fmt: skip
        assert fact in flat(body)
    for command in all_commands():
        assert (command.usage() if command.listed else command.name) in flat(body)


def test_emergo_help_with_a_topic_is_help_on_that_command() -> None:
    [reply] = send("emergo help move")
    assert reply.subject == "Emergo help: emergo move"
    assert reply.body.startswith("emergo move board userid password MOVE[#n]\n")


def test_help_rules_teaches_the_game_with_pictures() -> None:
    [reply] = send("help rules")
    assert reply.subject == "Emergo rules"
    body = reply.body
    assert body.startswith("How to play Emergo\n")
    for heading in ("The board", "Your turn", "Capturing", "Jumping on", "Columns and prisoners",
                    "Entering", "The end of the game", "Writing your moves"):  # fmt: skip
        assert f"\n{heading}\n" in body
    # The pictures: the diamond, a capture before and after, a column spelled out.
    assert "\nAfter e4xe6:\n" in body and "\nAfter c3xc5xe5xg5:\n" in body
    assert " E - .   .   .   o   x   .   .   .   .   \n" in body
    assert "  g5: o xxx\n" in body
    assert "#" not in body and "`" not in body and "**" not in body  # no markdown marks
    assert all(len(line) <= 72 for line in body.splitlines())
