"""Addresses: which may be registered, their owners' consent, and changing them.

The server must not mail strangers. An address given to ``signup`` or ``change address`` is
registered at once only if the command came from it (in a mail that did not fail its
domain's DMARC check) or the player has it already. Any other address is mailed a one-time
code and waits in ``address_confirmations``; it is registered when someone sends
``confirm CODE`` within 7 days. Until then it is in no player's list of addresses, so no
board mail, challenge or notice can reach it: the code mail is the only mail it gets, and
at most one a day.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbm_emergo.config import Config, relay_takes_smtputf8
from pbm_emergo.db import players
from pbm_emergo.db.models import Player
from pbm_emergo.game.messages import Reply, a_label_ok, ascii_domain, clean_address
from pbm_emergo.game.results import Refused, Result
from pbm_emergo.game.unit import UnitOfWork, Write
from pbm_emergo.views.templating import render

if TYPE_CHECKING:
    from pbm_emergo.db.session import Session

MAX_ADDRESSES = 5
CONFIRM_TIME = timedelta(days=7)
# One code mail to an address in this time, whoever asks.
CODE_MAIL_INTERVAL = timedelta(days=1)

# Codes: 16 characters of Crockford's base32 (80 random bits), shown in groups of four.
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 16
# Letters people mistype for digits, read as Crockford's base32 reads them.
_CODE_READING = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})

# One DNS label: letters, digits and hyphens, neither first nor last a hyphen.
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def at_text(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def server_addresses(config: Config) -> set[str]:
    """The addresses that reach this server itself (never a player's)."""
    return {config.address.lower(), f"postmaster@{config.domain}".lower()}


def check_address(config: Config, address: str) -> None:
    """Raise a Refused unless ``address`` is a plain address in a real-looking domain
    that is not this server's own, and one this server can mail: a non-ASCII address
    (jörg@bücher.example) only when the relay delivers to such addresses (SMTPUTF8)."""
    # The same test the mail layer applies to a recipient: no address we could never mail.
    if clean_address(address) != _nfc(address).lower() or ".." in address:
        raise Refused(f"'{address[:80]}' is not a mail address.")
    domain = address.rpartition("@")[2].lower()
    # An internationalised domain is checked in its ASCII form (A-labels, by IDNA2008);
    # an A-label given as such must decode.
    ascii_form = domain if domain.isascii() else ascii_domain(_nfc(domain))
    labels = (ascii_form or "").split(".")
    if (
        not all(_LABEL.fullmatch(label) and a_label_ok(label) for label in labels)
        or labels[-1].isdigit()
    ):
        raise Refused(
            f"'{address[:80]}' is not a mail address: '{domain[:80]}' is not a domain name."
        )
    if address.lower() in server_addresses(config):
        raise Refused(
            f"'{address}' is this server's own address; give an address of yours."
        )
    # Unknown (the relay could not be asked yet) counts as yes: the mail waits in the
    # outbox with the rest, and fails with the reason if the relay cannot take it.
    if not address.isascii() and relay_takes_smtputf8(config) is False:
        raise Refused(
            f"This server's mail relay cannot deliver to non-ASCII addresses such as "
            f"'{address[:80]}'; please give a plain ASCII address."
        )


def check_addresses(config: Config, addresses: list[str]) -> list[str]:
    """The addresses, each checked, without duplicates (case-insensitively), in Unicode's
    composed form (NFC) so that one address is always written the same way."""
    if len(addresses) > MAX_ADDRESSES:
        raise Refused(f"At most {MAX_ADDRESSES} addresses may be registered.")
    seen: dict[str, str] = {}
    for address in addresses:
        check_address(config, address)
        address = _nfc(address.strip())
        seen.setdefault(address.lower(), address)
    return list(seen.values())


def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def sender_vouches_for(ctx: UnitOfWork, address: str) -> bool:
    """Whether the mail came from ``address`` (and did not fail its DMARC check)."""
    return ctx.sender_trusted and address.lower() == ctx.sender.lower()


def new_code() -> str:
    """A one-time confirmation code, such as ``K7QX-M2PD-9HTR-B4NE``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def code_key(code: str) -> str:
    """The code as stored (hashed): dashes and spaces dropped, O read as 0, I and L as 1."""
    return code.upper().translate(_CODE_READING)


@dataclass(frozen=True)
class Waiting:
    """An address that needs its owner's consent, and where it goes in the player's list."""

    address: str
    position: int


@dataclass
class Request:
    """What asking for confirmations adds to a command: the writes (given the player's id)
    and the code mails; ``kept``: addresses already waiting for this player's code."""

    writes: list[tuple[Waiting, str]]  # each with its code hash
    mails: list[Reply]
    kept: list[str]

    def store(self, player_id: int, ctx: UnitOfWork, *, replaces: bool) -> Write:
        """The write that stores the waiting addresses for ``player_id``."""
        now, sender, pending = ctx.now, ctx.sender, list(self.writes)

        def write(session: Session) -> None:
            for waiting, hashed in pending:
                players.add_confirmation(
                    session, player_id, waiting.address, hashed, now,
                    expires_at=now + CONFIRM_TIME, requested_by=sender,
                    position=waiting.position, replaces=replaces,
                    not_since=now - CODE_MAIL_INTERVAL,
                )  # fmt: skip

        return write


def request_confirmations(
    ctx: UnitOfWork, userid: str, waiting: list[Waiting], *, player_id: int | None
) -> Request:
    """Codes for the ``waiting`` addresses of ``userid`` (``player_id`` None: a new
    account): a Refused if one of them had a code mailed within the last day for
    someone else; an address already waiting for this player keeps its code."""
    request = Request(writes=[], mails=[], kept=[])
    for item in waiting:
        recent = players.recent_confirmation(
            ctx.session, item.address, ctx.now - CODE_MAIL_INTERVAL
        )
        if (
            recent is not None
            and recent.player_id == player_id
            and recent.expires_at > ctx.now
        ):
            request.kept.append(item.address)
            continue
        if recent is not None:
            raise Refused(
                f"A confirmation code was mailed to {item.address} at "
                f"{at_text(recent.created_at)}, and it gets at most one a day; ask again "
                f"after {at_text(recent.created_at + CODE_MAIL_INTERVAL)}, or write from "
                "that address."
            )
        code = new_code()
        request.writes.append((item, players.code_hash(code_key(code))))
        request.mails.append(
            Reply(
                to=item.address,
                subject=f"Emergo: please confirm your address for {userid}",
                body=render(
                    "notice/confirm_address.txt.j2",
                    userid=userid,
                    address=item.address,
                    requested_by=ctx.sender,
                    server=ctx.config.address,
                    code=code,
                    expires=at_text(ctx.now + CONFIRM_TIME),
                    days=CONFIRM_TIME.days,
                ),
            )
        )
    return request


def change_addresses(ctx: UnitOfWork, player: Player, addresses: list[str]) -> Result:
    """Replace the player's registered addresses by ``addresses``; those that need their
    owner's consent wait for it (with none usable now, the old addresses stay until the
    first new one is confirmed). The addresses dropped are told."""
    fresh = check_addresses(ctx.config, addresses)
    ctx.reveal(*addresses)  # valid addresses are not secrets
    registered = {a.address_key for a in player.addresses}
    at_once = [a for a in fresh if a.lower() in registered or sender_vouches_for(ctx, a)]
    waiting = [Waiting(a, i) for i, a in enumerate(fresh) if a not in at_once]
    request = request_confirmations(ctx, player.userid, waiting, player_id=player.id)
    # With no address usable now, the old ones stay until a new one is confirmed:
    # a player is never left without an address by a typing mistake.
    replaces = not at_once
    old = [a.address for a in player.addresses]
    new = at_once if at_once else old
    player_id, now, kept = player.id, ctx.now, request.kept
    store_waiting = request.store(player_id, ctx, replaces=replaces)

    def store(session: Session) -> None:
        if at_once:
            players.replace_addresses(session, player_id, at_once, now)
        players.drop_confirmations(session, player_id, keep=kept)
        store_waiting(session)

    ctx.write(store)
    body = render(
        "addresses_changed.txt.j2",
        userid=player.userid,
        addresses=new,
        waiting=[w.address for w in waiting],
        stay=replaces and bool(waiting),
        days=CONFIRM_TIME.days,
    )
    subject = f"Emergo: addresses of {player.userid} changed"
    dropped = [a for a in old if a.lower() not in {n.lower() for n in new}]
    notices = [
        Reply(to=a, subject=subject, body=body) for a in dropped if a.lower() != ctx.sender
    ]
    return Result(
        summary=f"changed the addresses of {player.userid}",
        answer=body,
        answer_subject=subject,
        replies=notices + request.mails,
    )


def confirm_address(ctx: UnitOfWork, code: str) -> Result:
    """Register the address that is waiting for ``code`` (from anyone who has it)."""
    confirmation = players.find_confirmation(ctx.session, players.code_hash(code_key(code)))
    if confirmation is None or confirmation.expires_at <= ctx.now:
        raise Refused(
            "No address is waiting for this code: it was used already, it expired (a "
            "code is valid for 7 days), or it was mistyped."
        )
    player = ctx.session.get(Player, confirmation.player_id)
    if player is None or not player.active:
        raise Refused("The player this code was for has signed off.")
    old = [a.address for a in player.addresses]
    new = players.addresses_once_confirmed(old, confirmation)
    confirmation_id, now = confirmation.id, ctx.now

    def store(session: Session) -> None:
        players.confirm_address(session, confirmation_id, now)

    ctx.write(store)
    body = render(
        "confirmed.txt.j2",
        userid=player.userid,
        address=confirmation.address,
        addresses=new,
    )
    subject = f"Emergo: addresses of {player.userid} changed"
    dropped = [a for a in old if a.lower() not in {n.lower() for n in new}]
    return Result(
        summary=f"confirmed {confirmation.address} for {player.userid}",
        answer=body,
        answer_subject=subject,
        replies=[
            Reply(to=a, subject=subject, body=body)
            for a in dropped
            if a.lower() != ctx.sender
        ],
    )
