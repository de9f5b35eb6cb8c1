"""Every reply template renders with the variables its command passes (StrictUndefined)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from jinja2 import StrictUndefined, UndefinedError

import pbm_emergo
from pbm_emergo.commands.registry import help_entries
from pbm_emergo.game.digest import WaitingBoard
from pbm_emergo.game.languages import LANGUAGES
from pbm_emergo.rules import Position, position_words, render_board
from pbm_emergo.views.fit import fit
from pbm_emergo.views.i18n import speaking
from pbm_emergo.views.picture import board_picture
from pbm_emergo.views.player_rules import Figure
from pbm_emergo.views.templating import environment, render, template_dir, template_names

COMMANDS = [
    {"usage": "help [topic]", "description": "the summary", "section": "account"},
    {"usage": "emergo help", "description": "the rules", "section": "emergo"},
]
ERROR = {
    "reason": "It went wrong.",
    "command": "frob ********",
    "board": None,
    "board_text": None,
    "folded": False,
}

PICTURE = board_picture(Position().play("e4"), "e4")

# One sample context per template; a new template without a sample fails the test below.
# The engine's notes on a finished board (game.analysis.compose).
_NOTE = {
    "number": 7, "played": "c5xc3", "userid": "bob", "label": "blunder", "loss": "2.60",
    "score": "-2.10", "best": "e6", "best_score": "+0.50", "line": "e6 d4 d8",
}
ANALYSIS = {
    "number": 101, "white": "alice", "black": "bob",
    "result": "alice (Ohs) wins: bob resigned.",
    "rows": [
        {"number": 7, "userid": "bob", "played": "c5xc3", "mark": "??", "score": "-2.10",
         "label": "blunder"},
    ],
    "notes": [_NOTE],
    "turning": _NOTE,
    "diagram": "BOARD",
    "summaries": [{
        "userid": "alice", "side": "Ohs", "average": "0.10",
        "summary": {"moves": 4, "inaccuracies": 1, "mistakes": 0, "blunders": 0},
    }],
    "nodes": 12345,
    "seconds": "3",
    "listing": False,
}

SAMPLES: dict[str, dict[str, Any]] = {
    "help.txt.j2": {"address": "pbm@example.org", "commands": COMMANDS, "unknown_topic": None},
    "help_command.txt.j2": {"usage": "help [topic]", "description": "d", "details": "more"},
    "emergo_help.txt.j2": {
        "address": "pbm@example.org", "rules": "THE RULES\n", "board": "BOARD",
        "commands": COMMANDS,
    },
    "rules.txt.j2": {"address": "pbm@example.org", "rules": "THE RULES\n"},
    "multiple.txt.j2": {
        "results": [
            {"line": "help", "ok": True, "summary": "sent", "text": "TEXT", "same_as": None,
             "left_out": False},
            {"line": "help", "ok": True, "summary": "sent", "text": None, "same_as": 1,
             "left_out": False},
            {"line": "emergo help", "ok": True, "summary": "sent", "text": None,
             "same_as": None, "left_out": True},
            {"line": "frob", "ok": False, "summary": "no such command", "text": None,
             "same_as": None, "left_out": False},
        ],
        "unprocessed": ["help"],
        "unprocessed_more": 7,
        "limit": 30,
        "ignored": 2,
        "stopped_at": "the signature",
        "failed": 1,
    },
    "board.txt.j2": {
        "number": 101,
        "white": "alice",
        "black": "bob",
        "white_rating": 1600,
        "black_rating": 1584,
        "options": "rated",
        "headline": "alice played e4 (move 1).",
        "as_of": None,
        "votes": ["bob offers a draw."],
        "status": "It is bob's turn.",
        "ratings": [],
        "moves_total": 1,
        "move_lines": ["  1. e4"],
        "decline": "To decline this game, send 'emergo resign 101 YOURID PASSWORD'.",
        "board": "BOARD",
        "words": None,
        "comment": "Hi",
        "commenter": "alice",
        "last_move": "Last move.",
        "taken": "alice 1 min, bob 2 min",
        "link": "https://emergo.example.org/boards/101",
    },
    # The HTML parts of board mails (rendered with autoescape in the mail; see tests/web).
    "board.html.j2": {
        "sections": ["<div>BOARD</div>"], "title": "Emergo Board 101", "notice": [], "lang": "en"
    },
    "board/section.html.j2": {
        "picture": PICTURE,
        "number": 101,
        "white": "alice",
        "black": "bob",
        "white_rating": 1600,
        "black_rating": 1584,
        "options": "rated",
        "headline": "alice played e4 (move 1).",
        "as_of": None,
        "votes": ["bob offers a draw."],
        "status": "It is bob's turn.",
        "ratings": [],
        "moves_total": 1,
        "move_lines": ["  1. e4"],
        "decline": "To decline this game, send 'emergo resign 101 YOURID PASSWORD'.",
        "comment": "Hi",
        "commenter": "alice",
        "last_move": "Last move.",
        "taken": "alice 1 min, bob 2 min",
        "link": "https://emergo.example.org/boards/101",
    },
    "board/picture.html.j2": {"picture": PICTURE, "white": "alice", "black": "bob"},
    "board/cell.html.j2": {"cell": PICTURE.cells[20]},
    "board/heads.html.j2": {"columns": range(1, 10)},
    "board/row.html.j2": {"row": PICTURE.rows[4], "index": 4},
    "rules/figure.html.j2": {
        "figure": Figure(Position(), "e4", "Ohs enters on e4."),
        "pictures": [("Before", board_picture(Position())), ("After e4", PICTURE)],
    },
    "preview.html.j2": {
        "lang": "en",
        "picture": PICTURE,
        "number": 101,
        "white": "alice",
        "black": "bob",
        "start": 2,
        "current": 2,
        "tried": ["c5"],
        "status": "Then...",
    },
    "changed.txt.j2": {"userid": "alice", "what": "addresses", "addresses": ["a@example.org"]},
    "games.txt.j2": {
        "rows": [
            {"number": 101, "move": 3, "white": "alice", "black": "bob", "status": "alice to move"}
        ],
        "which": "active",
        "userids": [],
        "white": "Ohs",
        "black": "Eks",
        "truncated": False,
        "limit": 200,
    },
    "list.txt.j2": {"games": [{"name": "emergo", "active": 2, "finished": 1}], "players": 3},
    "moves.txt.j2": {
        "number": 101,
        "move_number": 3,
        "userid": "alice",
        "side": "Ohs, o",
        "count": 2,
        "lines": ["a5  b4"],
        "capture_size": 0,
        "in_hand": 11,
    },
    "preview.txt.j2": {
        "number": 101,
        "start": 2,
        "current": 2,
        "tried": ["c5"],
        "status": "Then...",
        "board": "BOARD",
    },
    "submitted.txt.j2": {
        "number": 101,
        "notation": "e4",
        "move_number": 3,
        "replaces": "d4",
        "userid": "alice",
        "board": "BOARD",
    },
    "record.txt.j2": {
        "number": 101,
        "white": "alice",
        "black": "bob",
        "options": "rated",
        "started": "2026-11-21 10:00 UTC",
        "finished": None,
        "state": "In progress.",
        "rows": [("  1. e4", "  2. e6")],
    },
    "show.txt.j2": {"boards": ["BOARD ONE\n", "BOARD TWO\n"]},
    "signoff.txt.j2": {"userid": "alice", "resigned": [101, 102]},
    "deleted.txt.j2": {"userid": "alice", "resigned": [101]},
    "forgot.txt.j2": {"userid": "alice", "days": 1},
    "reset.txt.j2": {"userid": "alice", "sender": "a@example.org", "at": "2026-12-01 12:00 UTC"},
    "notice/reset_code.txt.j2": {
        "userid": "alice", "requested_by": "x@example.org", "code": "ABCD-EFGH",
        "server": "emergo@example.org", "expires": "2026-12-02 12:00 UTC",
    },
    "signup.txt.j2": {
        "userid": "alice",
        "addresses": ["a@example.org"],
        "waiting": ["a2@example.org"],
        "days": 7,
        "forged": True,
        "rating": 1600,
        "address": "pbm@example.org",
    },
    "signup_code.txt.j2": {
        "userid": "alice",
        "waiting": ["a2@example.org"],
        "address": "a@example.org",
        "server": "pbm@example.org",
        "code": "K7QX-M2PD-9HTR-B4NE",
        "expires": "2026-11-28 10:00 UTC",
        "days": 7,
    },
    "notice/own_code.txt.j2": {
        "address": "a@example.org",
        "server": "pbm@example.org",
        "code": "K7QX-M2PD-9HTR-B4NE",
        "expires": "2026-11-28 10:00 UTC",
        "days": 7,
    },
    "addresses_changed.txt.j2": {
        "userid": "alice",
        "addresses": ["a@example.org"],
        "waiting": ["a2@example.org"],
        "stay": True,
        "days": 7,
    },
    "confirmed.txt.j2": {
        "userid": "alice",
        "address": "a2@example.org",
        "addresses": ["a@example.org", "a2@example.org"],
    },
    "notice/confirm_address.txt.j2": {
        "userid": "alice",
        "address": "a2@example.org",
        "requested_by": "a@example.org",
        "server": "pbm@example.org",
        "code": "K7QX-M2PD-9HTR-B4NE",
        "expires": "2026-11-28 10:00 UTC",
        "days": 7,
    },
    "notice/under_attack.txt.j2": {
        "userid": "alice",
        "sender": "eve@example.org",
        "forged": False,
        "unproven": False,
        "count": 5,
        "locked_until": "2026-11-21 11:00 UTC",
        "registered": ["a@example.org"],
    },
    "notice/foreign_address.txt.j2": {
        "userid": "alice",
        "sender": "eve@example.org",
        "command": "signoff alice ********",
        "when": "2026-11-21 10:00 UTC",
    },
    "notice/locked.txt.j2": {
        "userid": "alice",
        "sender": "eve@example.org",
        "count": 5,
        "locked_until": "2026-11-21 11:00 UTC",
    },
    "notice/dead_letter.txt.j2": {"subject": "emergo move 101 alice ******** e4"},
    "notice/reply_limit.txt.j2": {"limit": 100, "held_until": "2026-11-26 13:00 UTC"},
    "notice/reply_cut.txt.j2": {"limit_kb": 64, "left": 120},
    "notice/html_left_out.txt.j2": {"limit_kb": 64},
    "notice/reminder.txt.j2": {
        "userid": "bob",
        "number": 101,
        "days": 7,
        "days_left": 21,
        "weekends": True,
        "board_text": "THE BOARD\n",
    },
    "notice/lock_vacation.txt.j2": {
        "userid": "bob", "number": 101, "until": "2026-11-22 10:00 UTC", "left": 29,
        "allowance": 30, "year": 2026,
    },
    "notice/vacation_over.txt.j2": {
        "userid": "bob", "ended": "2026-11-22 10:00 UTC", "left": 28, "allowance": 30,
        "year": 2026,
    },
    "error/error.txt.j2": ERROR,
    "error/wrong_password.txt.j2": {
        **ERROR, "userid": "bob", "attempts_left": 0, "locked_until": "11:00", "registered": True,
        "forged": True, "unproven": False,
    },
    "error/stale_move.txt.j2": {**ERROR, "given": 3, "expected": 5},
    "error/malformed_move.txt.j2": ERROR,
    "error/not_your_turn.txt.j2": {
        **ERROR, "queue": "e4xc4xc6", "userid": "bob", "opponent": "alice", "number": 101,
    },
    "error/ambiguous_move.txt.j2": {**ERROR, "candidates": ["e4xc4xc6xe6xe4xc4", "e4xc4"]},
    "error/illegal_move.txt.j2": {
        **ERROR,
        "why": "Capture is compulsory.",
        "capture_size": 2,
        "legal_lines": ["a5"],
        "legal_count": 1,
    },
    "error/usage.txt.j2": {**ERROR, "usage": "signup userid password"},
    "error/unknown_command.txt.j2": {**ERROR, "commands": COMMANDS},
    "analysis.txt.j2": ANALYSIS,
    "analysis.html.j2": {**ANALYSIS, "picture": PICTURE},
    "error/start_here.txt.j2": {"reason": "Your mail has no command it knows.", "folded": False},
    "notice/support_password.txt.j2": {
        "userid": "alice", "password": "K7QX-M2PD-9HTR", "reason": "asked by phone",
        "server": "pbmserv@emergo.example.org",
    },
    "notice/support_unlocked.txt.j2": {
        "userid": "alice", "reason": "asked by phone", "server": "pbmserv@emergo.example.org",
    },
    "notice/support_deleted.txt.j2": {
        "userid": "alice", "reason": "asked by mail", "server": "pbmserv@emergo.example.org",
        "resigned": [101, 102], "kept": True,
    },
    "notice/support_merged.txt.j2": {
        "old": "alice2", "kept": "alice", "rating": 1632, "reason": "two accounts",
        "server": "pbmserv@emergo.example.org", "boards": [101], "addresses": ["a@example.org"],
    },
}

# Ratings and results, talking, spectators, finding and refusing opponents.
STANDING = {
    "rank": 1, "userid": "alice", "rating": 1616, "deviation": 290, "won": 1, "lost": 0, "drawn": 0,
    "active_boards": 2, "seeking": 1,
}
SAMPLES.update({
    "standings.txt.j2": {
        "sections": [{"title": "Provisional players", "rows": [STANDING]}],
        "userids": ["alice"],
        "start": 1600,
        "start_deviation": 350,
        "provisional_deviation": 110,
        "inactive_days": 365,
        "ladder": {"robot3": "ladder Elo 1145 (266-2024)"},
        "ladder_explanation": "Ladder Elo: measured robot against robot.",
    },
    "history.txt.j2": {
        "rows": [
            {"date": "2026-11-21", "number": 101, "players": "alice - bob",
             "result": "alice won (resigned)", "points": "alice +32, bob -32"}
        ],
        "userids": ["alice"],
        "truncated": True,
        "limit": 100,
    },
    "chat.txt.j2": {
        "userid": "alice", "number": 101, "white": "alice", "black": "bob", "text": "Hello",
    },
    "message.txt.j2": {"userid": "alice", "text": "Hello", "server": "pbm@example.org"},
    "message_sent.txt.j2": {"sent_to": ["bob"], "missing": ["zed"]},
    "subscriptions.txt.j2": {
        "headline": "carol is now subscribed to board 101.",
        "userid": "carol",
        "boards": [101],
        "every": False,
    },
    "notify.txt.j2": {
        "userid": "carol",
        "lines": ["On: the final board mail of board 101."],
        "every": True,
        "boards": [101],
    },
    "seeks.txt.j2": {
        "rows": [{"userid": "alice", "seeking": 2, "rating": "1600 provisional", "active": 0}],
        "provisional_deviation": 110,
    },
    "declined.txt.j2": {
        "number": 101, "white": "alice", "black": "bob", "decliner": "bob", "comment": "Sorry",
    },
})

# Moves in advance and time.
BOARD_EXTRAS = {
    "vacations": ["bob is on vacation until 2026-12-01 10:00 UTC."],
    "queue": ["Your queued move (only you see this): d5 as move 4."],
    "clocks": ["alice 1 h used, 9 d 23 h left", "bob none used, 10 d left"],
    "clock_title": "Thinking time (10 days each)",
}
SAMPLES["board.txt.j2"].update(BOARD_EXTRAS)
SAMPLES["board/section.html.j2"].update(BOARD_EXTRAS)
SAMPLES.update({
    "queue.txt.j2": {
        "userid": "bob", "number": 101, "lines": ["Your queued move: d5."], "cleared": False,
        "board_text": "THE BOARD\n",
    },
    "autoplay.txt.j2": {"userid": "alice", "on": True, "played": [101]},
    "board_style.txt.j2": {"userid": "alice", "style": "list", "example": "THE BOARD\n"},
    "vacation.txt.j2": {
        "userid": "alice", "until": "2026-12-01 10:00 UTC", "days": 10, "left": 20,
        "allowance": 30, "year": 2026, "replaced": "2026-11-25 10:00 UTC",
    },
    "error/queued_move.txt.j2": {
        "userid": "bob", "number": 101, "notation": "d8", "why": "d8 is occupied.",
        "your_turn": True, "board_text": "THE BOARD\n",
    },
})

# Leagues and tournaments.
EVENT_LINE = {
    "place": 1, "userid": "alice", "player": 1, "points": "2½", "tiebreak": "3",
    "played": 3, "won": 2, "drawn": 1, "lost": 0,
}
SAMPLES.update({
    "events.txt.j2": {
        "rows": [{
            "name": "autumn", "format": "round-robin", "status": "open", "players": 3,
            "max": 4, "round": 0, "starts": "2026-12-01 10:00 UTC",
        }],
    },
    "event.txt.j2": {
        "event_name": "autumn", "season": None, "event_format": "round-robin",
        "status": "running", "round": 2, "total_rounds": 3, "starts": None,
        "winner": None, "rated": True, "clock": "7 days a move", "divisions": [[EVENT_LINE]],
        "tiebreak": "Sonneborn-Berger", "status_text": "running",
        "crosstable": [{"place": 1, "userid": "alice", "cells": [{"text": "x"}], "points": "2½"}],
        "withdrawn": [], "next_games": [{"userid": "alice", "games": ["board 101 against bob"]}],
    },
})


# The clock in view.
CLOCK_EXTRAS = {
    "deadlines": [
        "If bob does not move: a reminder at 2026-12-08 11:00 CET (Europe/Amsterdam), and "
        "the game is lost on time from 2026-12-29 11:00 CET (Europe/Amsterdam)."
    ],
}
SAMPLES["board.txt.j2"].update(CLOCK_EXTRAS)
SAMPLES["board/section.html.j2"].update(CLOCK_EXTRAS)
SAMPLES["timezone.txt.j2"] = {
    "userid": "bob", "zone": "Europe/Amsterdam", "now": "2026-12-01 11:00 CET (Europe/Amsterdam)",
}


# The daily digest.
SAMPLES["notify_digest.txt.j2"] = {
    "userid": "alice", "hour": 18, "zone": "Europe/Amsterdam",
    "next_at": "2026-12-01 18:00 CET (Europe/Amsterdam)",
}
SAMPLES["digest.txt.j2"] = {
    "userid": "alice",
    "boards": [
        {
            "board": WaitingBoard(
                101, "bob", "Ohs (o)", 3, "27 d 23 h",
                "a reminder at 2026-12-08 18:00 CET (Europe/Amsterdam), lost on time from "
                "2026-12-29 18:00 CET (Europe/Amsterdam)",
                "emergo move 101 alice PASSWORD MOVE",
            ),
            "picture": "THE BOARD",
            "link": "https://emergo.example.org/boards/101",
        }
    ],
    "now": "2026-12-01 18:00 CET (Europe/Amsterdam)",
}

# The language of a player's replies.
SAMPLES["language.txt.j2"] = {"userid": "bob", "language": "Nederlands"}


def test_the_environment_is_strict_and_keeps_newlines() -> None:
    env = environment()
    assert env.undefined is StrictUndefined
    assert env.keep_trailing_newline and env.trim_blocks and env.lstrip_blocks
    assert (template_dir() / "help.txt.j2").is_file()


def test_templates_are_found_relative_to_the_package() -> None:
    package = Path(pbm_emergo.__file__).resolve().parent
    # A source checkout or an editable install reads the top-level folder; a wheel carries it
    # as the data package pbm_emergo.templates (tests/db/test_packaging.py).
    assert template_dir().resolve() == (package.parent / "templates").resolve()


def test_every_template_has_a_sample() -> None:
    assert sorted(SAMPLES) == template_names()


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_template_renders(name: str) -> None:
    text = render(name, **SAMPLES[name])
    assert text.endswith("\n")
    assert "{{" not in text and "{%" not in text


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_template_refuses_a_missing_variable(name: str) -> None:
    sample = dict(SAMPLES[name])
    sample.pop(next(iter(sample)))
    with pytest.raises(UndefinedError):
        render(name, **sample)


# --- text that fits: every text template within 72 columns --------------------------------

LONG_NAMES = {
    name: f"{name}_{'long' * 5}"[:20] for name in ("alice", "alice2", "bob", "carol", "eve", "zed")
}
ALL_OPTIONS = (
    "unrated; a blocked player draws; reminder after 14 days, forfeit after 60 days; "
    "100 days of thinking time each"
)
_NAME = re.compile(r"\b(" + "|".join(sorted(LONG_NAMES, key=len, reverse=True)) + r")\b")
_BOARDS = ("BOARD", "THE BOARD\n", "BOARD ONE\n", "BOARD TWO\n")


def _longer(value: Any) -> Any:
    """A sample value as a long game would make it: 20-character userids, a real board
    (the diagram with both names), every option of a challenge."""
    if isinstance(value, str):
        if value in _BOARDS:
            position = Position().play("e4").play("e6")
            return render_board(position, LONG_NAMES["alice"], LONG_NAMES["bob"])
        if value == "rated":
            return ALL_OPTIONS
        return _NAME.sub(lambda m: LONG_NAMES[m[1]], value)
    if isinstance(value, dict):
        return {k: _longer(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_longer(v) for v in value)
    return value


def _variants(name: str) -> list[dict[str, Any]]:
    """The sample, and the sample with each boolean flipped and each optional value left
    out (None), so that every branch of a template is seen once."""
    sample = _longer(SAMPLES[name])
    found = [sample]
    for key, value in sample.items():
        if isinstance(value, bool):
            found.append({**sample, key: not value})
        elif value is not None and key not in ("number", "userid", "board", "board_text"):
            found.append({**sample, key: None})
    if name == "board_style.txt.j2":
        found.append({**sample, "style": "diagram"})
    if name == "board.txt.j2":
        words = position_words(Position().play("e4").play("e6"), "e6")
        found.append({**sample, "words": words})
    return found


TEXT_TEMPLATES = [name for name in sorted(SAMPLES) if name.endswith(".txt.j2")]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", TEXT_TEMPLATES)
def test_every_text_template_fits_72_columns(name: str, language: str) -> None:
    for n, context in enumerate(_variants(name)):
        try:
            with speaking(language):
                text = render(name, **context)
        except (AttributeError, TypeError, UndefinedError):
            if n == 0:
                raise
            continue  # a variant without a value this template cannot do without
        too_long = [line for line in text.splitlines() if len(line) > 72]
        assert not too_long, f"{name} with {context}"


def test_the_analysis_reads_aloud_in_list_mode() -> None:
    """For a player who asked for ``board list``: the position in words, each move a
    sentence (no table of padded columns and punctuation marks to read out)."""
    words = position_words(Position().play("e4"), "e4")
    text = render("analysis.txt.j2", **{**ANALYSIS, "diagram": words, "listing": True})
    assert "The position after move 7, in words, row by row:\n" in text
    assert "  e4: Ohs man\n" in text
    assert "  Move 7, bob: c5xc3, value -2.10, a blunder.\n" in text
    assert "??" not in text
    assert "from Ohs's side" in " ".join(text.split())


@pytest.mark.parametrize("indent", [0, 4])
def test_a_list_of_usages_keeps_each_command_to_its_own_lines(indent: int) -> None:
    # The list of the unknown-command error, alone and in a multiple report (which indents
    # each answer by 4): a long usage goes on indented under itself, never into the next.
    entries = [e.shown() for e in help_entries()]
    text = render("error/unknown_command.txt.j2", **ERROR, commands=entries)
    text = "\n".join(" " * indent + line if line else line for line in text.split("\n"))
    text = fit(text)
    lines = text.split("\n")
    start = lines.index(" " * indent + "These are the commands this server knows:") + 1
    usages: list[str] = []
    for line in lines[start:]:
        if not line.strip():
            break
        if line.startswith(" " * (indent + 2)) and line[indent + 2] != " ":
            usages.append(line.strip())
        else:
            usages[-1] += " " + line.strip()
    assert usages == [e["usage"] for e in entries]
    assert max(map(len, lines)) <= 72


def test_a_long_usage_goes_on_indented_under_itself() -> None:
    [usage] = [e.usage for e in help_entries() if e.usage.startswith("emergo event create")]
    text = render("error/usage.txt.j2", **ERROR, usage=usage)
    lines = text[text.index("Write it like this:\n") :].split("\n")[1:]
    shown = lines[: lines.index("")]
    assert shown[0].startswith("  emergo event create ") and len(shown) > 1
    assert all(line.startswith("    [") for line in shown[1:])
    assert " ".join(" ".join(shown).split()) == usage
