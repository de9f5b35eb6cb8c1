"""Forged Authentication-Results headers, replayed through the listener.

The server trusts an Authentication-Results header only as our MTA writes it: the raw,
undecoded value starts with the configured authserv-id (no comment, quoting or encoded
word around it), and a ``pass`` counts only above the topmost Received header, where the
milters of our MTA put theirs and where no sender can write. Each mail here arrives as
Postfix hands it on: our MTA's headers, its Received header, then what the sender wrote.
A forged ``pass`` registers no address without its code, by `signup` or by
`change address`; the header as our MTA writes it still does.
"""

from __future__ import annotations

import smtplib
from collections.abc import Callable, Sequence
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pbm_emergo.db.models import Player
from tests.support.mail import SERVER_ADDRESS
from tests.support.post import (
    ALICE,
    BOB,
    Post,
    reply_ids,
    subjects,
    text,
    wait_for_replies,
)
from tests.support.signup import code_subject, confirmation_code

AUTHSERV_ID = "mx.emergo.test"
EVE = "eve@evil.example"
DOMAIN = "stranger.example"
VICTIM = f"victim@{DOMAIN}"
OUR_RECEIVED = (
    f"Received: from client.evil.example (client.evil.example [192.0.2.7])\r\n"
    f"\tby {AUTHSERV_ID} (Postfix) with ESMTPS id 4Xk2Lq0Zz9z1\r\n"
    f"\tfor <{SERVER_ADDRESS}>; Mon, 6 May 2024 10:00:00 +0000 (UTC)"
)
PASS = f"dmarc=pass (p=reject dis=none) header.from={DOMAIN}"
GENUINE_NONE = f"{AUTHSERV_ID}; dmarc=none (p=none dis=none) header.from={DOMAIN}"

# (what our MTA added above its Received header, what the sender wrote below it)
FORGED: dict[str, tuple[Sequence[str], Sequence[str]]] = {
    # Even where only our MTA can write, a header not in its exact form is anyone's.
    "comment after the id": ([f"{AUTHSERV_ID} (ok); {PASS}"], []),
    "comment before the id": ([f"(ok) {AUTHSERV_ID}; {PASS}"], []),
    "encoded word": ([f"=?us-ascii?q?{AUTHSERV_ID.replace('.', '=2E')}?=; {PASS}"], []),
    "quoted id": ([f'"{AUTHSERV_ID}"; {PASS}'], []),
    # The exact form, written by the sender: below our Received header.
    "below our Received": ([], [f"{AUTHSERV_ID}; {PASS}"]),
    # With milters that find no DMARC record: their "none" above, the sender's "pass" below.
    "pass below a genuine none": ([GENUINE_NONE], [f"{AUTHSERV_ID} (ok); {PASS}"]),
    "exact pass below a genuine none": ([GENUINE_NONE], [f"{AUTHSERV_ID}; {PASS}"]),
}
GENUINE = (
    [f"{AUTHSERV_ID};\r\n\tdmarc=pass (p=reject dis=none) header.from={DOMAIN}",
     f"{AUTHSERV_ID}; spf=pass smtp.mailfrom={DOMAIN}"],
    [],
)  # fmt: skip


def send_raw(
    post: Post,
    subject: str,
    sender: str,
    results: tuple[Sequence[str], Sequence[str]],
) -> list[EmailMessage]:
    """Mail ``subject`` from ``sender`` with the Authentication-Results headers
    ``results`` (above and below our MTA's Received header), byte for byte as given;
    wait until every mail it caused was relayed."""
    post.count += 1
    message_id = f"<ar{post.count}@evil.example>"
    above, below = results
    lines = [
        *(f"Authentication-Results: {value}" for value in above),
        OUR_RECEIVED,
        *(f"Authentication-Results: {value}" for value in below),
        f"From: {sender}",
        f"To: {SERVER_ADDRESS}",
        f"Subject: {subject}",
        f"Message-ID: {message_id}",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=us-ascii",
        "",
        "",
    ]
    with smtplib.SMTP("127.0.0.1", post.server.config.smtp_port,
                      local_hostname="client.test", timeout=30) as smtp:  # fmt: skip
        smtp.sendmail(sender, [SERVER_ADDRESS], "\r\n".join(lines).encode("ascii"))
    wait_for_replies(post.sessions, message_id, ("sent", "failed", "held"))
    ids = reply_ids(post.sessions, message_id)
    mails = post.relay.handler.with_message_ids(ids)
    return sorted(mails, key=lambda m: (str(m["To"]), str(m["Subject"])))


def registered(sessions: sessionmaker[Session], userid: str) -> list[str]:
    with sessions() as session:
        player = session.scalars(select(Player).where(Player.userid_key == userid)).one()
        return sorted(a.address for a in player.addresses)


def test_forged_authentication_results_register_no_address_without_its_code(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post(authserv_id=AUTHSERV_ID)
    post.signup("eve", "eve-pw-1", EVE)
    for n, (variant, results) in enumerate(FORGED.items()):
        userid = f"mallet{n}"
        [answer] = send_raw(post, f"signup {userid} {userid}-pw1", VICTIM, results)
        assert answer["Subject"] == code_subject(userid), variant
        assert registered(db_sessions, userid) == [], variant
        mails = send_raw(post, f"change address eve eve-pw-1 {VICTIM}", VICTIM, results)
        [answer] = [m for m in mails if str(m["To"]) == VICTIM]
        assert "confirm " + confirmation_code(text(answer)) in text(answer), variant
        assert registered(db_sessions, "eve") == [EVE], variant
    # Eve subscribes one of the accounts to every board: a new game reaches nobody of it.
    post.send("emergo subscribe all mallet0 mallet0-pw1", EVE)
    started = post.send("emergo challenge alice bob", ALICE)
    assert sorted(str(m["To"]) for m in started) == [ALICE, BOB]
    # The victim got the codes and the answers that carry them, nothing else.
    answers = {code_subject(f"mallet{n}") for n in range(len(FORGED))}
    answers.add("Emergo: addresses of eve changed")
    assert {subject for _, subject in subjects(post.received_by(VICTIM))} == answers


def test_the_header_as_our_mta_writes_it_proves_the_address(
    make_post: Callable[..., Post], db_sessions: sessionmaker[Session]
) -> None:
    post = make_post(authserv_id=AUTHSERV_ID)
    carol = f"carol@{DOMAIN}"
    [welcome] = send_raw(post, "signup carol carol-pw1", carol, GENUINE)
    assert welcome["Subject"] == "Emergo: welcome carol", text(welcome)
    assert registered(db_sessions, "carol") == [carol]
    post.signup("eve", "eve-pw-1", EVE)
    send_raw(post, f"change address eve eve-pw-1 {VICTIM}", VICTIM, GENUINE)
    assert registered(db_sessions, "eve") == [VICTIM]
