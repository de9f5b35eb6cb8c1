"""The size of one reply: the ``multiple`` report and the cut every reply goes through."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pbm_emergo.app.messages import Reply
from pbm_emergo.app.multiple import report
from pbm_emergo.game.words import MAX_UNPROCESSED_SHOWN
from pbm_emergo.views.reply_mail import build_reply
from pbm_emergo.views.reply_size import MAX_REPLY_BYTES, cut_to_size, fit_alternative, size_of


@dataclass
class Line:
    line: str
    ok: bool
    summary: str
    text: str | None
    summary_said: str | None = None


def test_cut_to_size_keeps_whole_lines_and_says_how_many_are_left_out() -> None:
    text = "".join(f"line {n}\n" for n in range(100_000))
    cut = cut_to_size(text)
    assert size_of(cut) <= MAX_REPLY_BYTES
    kept = cut.splitlines()[:-2]  # the notice takes two lines
    assert kept == [f"line {n}" for n in range(len(kept))]
    assert f"{100_000 - len(kept)} more lines left out" in cut.splitlines()[-1]
    assert cut_to_size("short\n") == "short\n"
    one_long_line = cut_to_size("é" * 100_000, 2000)
    assert size_of(one_long_line) <= 2000 and one_long_line.startswith("éé")


def test_an_html_version_that_does_not_fit_is_left_out_with_a_line_saying_so() -> None:
    assert fit_alternative("text\n", "<p>x</p>") == ("text\n", "<p>x</p>")
    text, html = fit_alternative("text\n", "<p>" + "x" * MAX_REPLY_BYTES + "</p>")
    assert html is None and text.startswith("text\n") and "HTML version" in text


def test_every_reply_mail_is_capped() -> None:
    huge = Reply("bob@example.org", "Emergo games", ("y" * 79 + "\n") * 5000)
    msg = build_reply(huge, server_address="pbm@emergo.test", now=datetime.now(UTC))
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    assert size_of(body.get_content()) <= MAX_REPLY_BYTES
    assert "This reply was cut here" in body.get_content()


def test_the_report_gives_each_answer_once_and_stays_within_the_limit() -> None:
    big = "\n".join(f"board line {n}" for n in range(3000))  # about 45 kB
    results = [Line("emergo help", True, "sent", "HELP TEXT")] * 3 + [
        Line(f"emergo show {n}", True, "sent", f"{n}\n{big}") for n in range(101, 111)
    ] + [
        Line("frob", False, "There is no command 'frob'.", None),
        Line("emergo show 110", True, "sent", f"110\n{big}"),  # left out above: again
        Line("emergo moves 101", True, "sent", "SMALL ANSWER"),  # still fits
    ]
    unprocessed = [f"line {n}" for n in range(500)]
    text = report(results, unprocessed, str.upper, limit=30, ignored=0, stopped_at=None,
                  failed=1)
    assert size_of(text) <= MAX_REPLY_BYTES
    assert text.count("HELP TEXT") == 1
    assert text.count("(The same answer as for line 1 above.)") == 2
    # The first long answer is shown, the next cut, the rest left out; all lines listed.
    # The first long answers are shown, then cut, then left out; every line is listed,
    # and a short answer after them still fits.
    assert text.count("> emergo show") == 11
    assert text.count("    board line 2999\n") == 1  # the first shown in full
    assert "This reply was cut here" in text
    left_out = "(The answer is left out: this reply reached its size limit.)"
    assert text.count(left_out) >= 3
    assert text.split("> emergo show 110")[-1].startswith(f"\n  sent\n  {left_out}")
    assert "SMALL ANSWER" in text
    assert "Error: There is no command 'frob'." in text
    assert "LINE 0" in text and f"LINE {MAX_UNPROCESSED_SHOWN}" not in text
    assert f"... and {500 - MAX_UNPROCESSED_SHOWN} more lines, not shown." in text
    assert text.rstrip().endswith("- Done.")
