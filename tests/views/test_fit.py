"""Text that fits 72 columns (pbm_emergo/views/fit.py): what is wrapped and how, and what
is left whole."""

from __future__ import annotations

import pytest

from pbm_emergo.views.fit import KEPT_SPACE, fit, refit_shortened
from pbm_emergo.views.rendered import CLOSE, OPEN, unmark
from pbm_emergo.views.templating import environment, render


def test_short_text_is_left_as_it_is() -> None:
    text = "Row e:\n  e4: Ohs man\n\n     1   2   3\n"
    assert fit(text) is text


def test_a_long_line_breaks_at_spaces_under_its_own_indent() -> None:
    line = "  " + " ".join(f"word{n}" for n in range(30))
    lines = fit(line).split("\n")
    assert all(len(x) <= 72 for x in lines) and len(lines) > 1
    assert all(x.startswith("  word") for x in lines)
    assert " ".join(fit(line).split()) == " ".join(line.split())


def test_a_list_item_continues_under_its_text_and_a_usage_under_itself() -> None:
    item = "- " + "a long list item that goes on and on " * 3
    second = fit(item).split("\n")[1]
    assert second.startswith("  ") and second[2] != " "
    usage = "  emergo challenge u1 u2 [-unrated] [-blocked=draw] [--nagtime=DAYS] [--forfeit=D]"
    wrapped = fit(usage + "\n      open a new board").split("\n")
    assert wrapped[1].startswith("    [") and wrapped[2] == "      open a new board"


def test_a_hard_wrapped_paragraph_reflows_instead_of_leaving_a_word_alone() -> None:
    text = (
        "This server has sent 2 mails to your address in the last hour, the most it\n"
        "sends to one address in an hour.\n\nNext.\n"
    )
    lines = fit(text).split("\n")
    assert lines[0].endswith("the most") and lines[1].startswith("it sends to one address")
    assert "Next." in lines and all(len(x) <= 72 for x in lines)


@pytest.mark.parametrize(
    ("text", "first_lines"),
    [
        pytest.param(
            "(robot2 and robot3 play better). Against a person, name their userid instead:\n"
            "  emergo challenge carol OPPONENT\n",
            [
                "(robot2 and robot3 play better). Against a person, name their userid",
                "instead:",
                "  emergo challenge carol OPPONENT",
            ],
            # Hung like a usage line, "instead:" would read as the example's first line.
            id="a paragraph that introduces an example continues at the margin",
        ),
        pytest.param(
            "Pour terminer, envoyez à pbmserv@emergo.example.org (depuis n'importe quelle"
            " adresse)\nl'objet\n",
            [
                "Pour terminer, envoyez à pbmserv@emergo.example.org (depuis n'importe",
                "quelle adresse) l'objet",
            ],
            id="a bracket does not end a sentence that goes on in lower case",
        ),
    ],
)
def test_wrapped_so(text: str, first_lines: list[str]) -> None:
    assert fit(text).split("\n")[: len(first_lines)] == first_lines


def test_a_bracket_ends_a_line_of_its_own() -> None:
    own_line = "Emergo Board 101: " + "carol " * 8 + "(Ohs, 1600) against dave (Eks, 1600)"
    lines = fit(own_line + "\nOptions: rated.").split("\n")
    assert lines[-1] == "Options: rated." and all(len(x) <= 72 for x in lines)


def test_a_quoted_command_is_not_broken_over_two_lines() -> None:
    command = "'emergo move 101 " + OPEN + "carol" + CLOSE + " PASSWORD accept'"
    text = f"dave bietet Remis an; carol kann mit {command} antworten (oder reject)."
    wrapped = fit(text)
    lines = wrapped.split("\n")
    assert lines == [
        "dave bietet Remis an; carol kann mit",
        f"{command} antworten (oder reject).",
    ]
    assert [unmark(wrapped)[0][a:b] for a, b in unmark(wrapped)[1]] == ["carol"]
    # A possessive opens and closes no quote; a command longer than a line still breaks.
    prose = "It is carol's turn and dave's as well, 'emergo' is a word; " * 2
    assert " ".join(fit(prose).split()) == " ".join(prose.split())
    long = "Send '" + "emergo " * 12 + "PASSWORD' now."
    assert all(len(x) <= 72 for x in fit(long).split("\n"))


def test_the_templates_wordwrap_keeps_a_quoted_command_whole_too() -> None:
    # A template's paragraph wrapped by its own filter, before fit sees it.
    template = environment().from_string(
        "{% filter wordwrap(72) %}Expect it within about 2 minutes, in a mail with the "
        "Subject 'Emergo analysis {{ number }}'. Then send 'emergo show {{ number }}' "
        "for the board.{% endfilter %}"
    )
    text = unmark(template.render(number=102))[0]
    assert "'Emergo analysis 102'" in text.split("\n")[1]
    assert all("'emergo show 102'" in line for line in text.split("\n") if "show" in line)
    assert KEPT_SPACE not in text and " ".join(text.split()) == (
        "Expect it within about 2 minutes, in a mail with the Subject 'Emergo analysis 102'. "
        "Then send 'emergo show 102' for the board."
    )


def test_quoted_lines_and_long_words_are_left_whole() -> None:
    quoted = "> " + "quoted text " * 10
    link = "https://emergo.example.org/" + "x" * 80
    assert fit(quoted) == quoted
    assert link in fit(f"The board on the web: {link}").split("\n")


def test_the_value_marks_stay_around_their_values() -> None:
    # A template's values stay marked through the wrapping, so masking still knows them.
    marked = "Wrong password for " + OPEN + "alice" + CLOSE + ". " + "More words here. " * 5
    text, spans = unmark(fit(marked))
    assert [text[a:b] for a, b in spans] == ["alice"]


def test_a_rendered_reply_fits() -> None:
    reply = render("notice/reply_cut.txt.j2", limit_kb=64, left=12)
    assert all(len(line) <= 72 for line in reply.splitlines())


def test_a_text_masked_after_it_was_fitted_is_fitted_again() -> None:
    long = "averyveryverylonguseridthatgoesonandon"
    before = fit(
        f"The userid '{long}' is not allowed: a userid has 2 to 16 characters (letters, "
        "digits, _ and -) and starts with a letter.\n\nNext paragraph.\n"
    )
    shorter = refit_shortened(before, before.replace(long, "********"))
    assert shorter.split("\n")[:3] == [
        "The userid '********' is not allowed: a userid has 2 to 16 characters",
        "(letters, digits, _ and -) and starts with a letter.",
        "",
    ]
    # A line that wrapping did not break (a multiple report's command over its answer)
    # takes nothing from the next.
    report = "- Results:\n  > emergo move 101 alice averylongpassword e4\n  sent board 101\n"
    masked = report.replace("averylongpassword", "********")
    assert refit_shortened(report, masked) == masked
    # A short word masked makes its line longer: wrapped.
    line = "Wrong password 'ab' for alice, " + "and more words to fill it up " * 2
    longer = refit_shortened(fit(line), fit(line).replace("'ab'", "'********'"))
    assert all(len(x) <= 72 for x in longer.split("\n"))
    assert " ".join(longer.split()) == " ".join(line.replace("'ab'", "'********'").split())
