"""A reply with a file attached (a game record): multipart/mixed, the reply as it would be
alone first, then the file; the file counts towards the size of one reply."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default

import pytest

from pbm_emergo.app.messages import Reply
from pbm_emergo.views.reply_mail import MAX_ATTACHMENT_BYTES, Attachment, reply_bytes, reply_mail
from pbm_emergo.views.reply_size import MAX_REPLY_BYTES

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
RECORD = '[White "alice"]\n\n1. e4 d6 1-0\n'


def content(part: object) -> str:
    """A text part's content as written, line ends as in the reply (LF)."""
    assert isinstance(part, EmailMessage)
    text = part.get_content()
    assert isinstance(text, str)
    return text.replace("\r\n", "\n")


def sent(reply: Reply) -> EmailMessage:
    mail = reply_mail(reply, server_address="pbm@example.org", now=NOW)
    msg = message_from_bytes(mail.raw, policy=default)
    assert isinstance(msg, EmailMessage)
    return msg


def test_a_board_mail_with_its_record() -> None:
    reply = Reply(
        to="alice@example.org",
        subject="Emergo Board 101 Game over",
        body="the board\n",
        board=101,
        html="<p>the board</p>",
        attachment=Attachment("board-101.emergo", RECORD),
    )
    msg = sent(reply)
    assert msg.get_content_type() == "multipart/mixed"
    assert content(msg.get_body(("plain",))) == "the board\n"
    assert "<p>the board</p>" in content(msg.get_body(("html",)))
    [file] = list(msg.iter_attachments())
    assert file.get_filename() == "board-101.emergo"
    assert file.get_content_type() == "text/plain"
    assert content(file) == RECORD


def test_a_plain_reply_with_a_file() -> None:
    msg = sent(Reply(to="bob@example.org", subject="Emergo Board 101 record", body="moves\n",
                     attachment=Attachment("board-101.emergo", RECORD)))  # fmt: skip
    assert msg.get_content_type() == "multipart/mixed"
    [first, file] = msg.get_payload()  # type: ignore[misc]
    assert first.get_content_type() == "text/plain" and content(first) == "moves\n"
    assert content(file) == RECORD


def test_the_file_counts_towards_the_size_of_one_reply() -> None:
    record = "x" * (MAX_ATTACHMENT_BYTES - 10) + "\n"
    long_body = "line of the board\n" * 10_000
    msg = sent(Reply(to="bob@example.org", subject="s", body=long_body,
                     attachment=Attachment("board-1.emergo", record)))  # fmt: skip
    text = content(msg.get_body(("plain",)))
    assert len(text.encode()) + len(record.encode()) <= MAX_REPLY_BYTES
    assert "left out" in text


def test_a_file_too_large_is_left_out() -> None:
    record = "x" * (MAX_ATTACHMENT_BYTES + 1)
    msg = sent(Reply(to="bob@example.org", subject="s", body="b\n",
                     attachment=Attachment("board-1.emergo", record)))  # fmt: skip
    assert msg.get_content_type() == "text/plain"
    assert not list(msg.iter_attachments())


def test_a_reply_without_a_file_is_as_before() -> None:
    msg = sent(Reply(to="bob@example.org", subject="s", body="b\n"))
    assert msg.get_content_type() == "text/plain"
    assert reply_bytes  # the writer of build_reply's messages is the same


@pytest.mark.parametrize("name", ["", "../etc/passwd", 'a"b.txt', "a b", "x" * 80, "é.txt"])
def test_a_file_name_is_plain(name: str) -> None:
    with pytest.raises(ValueError, match="not a plain file name"):
        Attachment(name, "text")
