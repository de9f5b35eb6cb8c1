"""Reading reply text as a player reads it: every text reply is wrapped at 72 columns
(pbm_emergo/views/fit.py), so a sentence may run over several lines."""

from __future__ import annotations


def flat(text: str) -> str:
    """``text`` with every run of white space (line ends included) made one space, so
    that a test finds a sentence wherever the lines broke."""
    return " ".join(text.split())
