"""Addresses: which may be registered, their owners' consent, and changing them.

The server must not mail strangers. An address given to ``signup`` or ``change address`` is
registered at once only if the player has it already, or if the command came from it in a
mail our MTA proved to come from there (DMARC, else SPF, "pass" in its
Authentication-Results: a From header alone proves nothing). Any other address, the sender's
own included, is mailed a one-time code and waits in ``address_confirmations``; it is
registered when someone sends ``confirm CODE`` within 7 days. Until then it is in no
player's list of addresses, so no board mail, challenge or notice can reach it: the code
mail is the only mail it gets.

A code asked by the address itself comes as the answer to that mail, and is always sent
(like every answer, within the hourly reply limit of the address): so nobody else's requests
can keep an owner from confirming. Codes asked from other addresses are capped per address
and day: one per address asking, and a few in all, so that the server cannot be made to
mail a stranger codes day after day.

Addresses that are never a player's are refused: any address at the server's own domain
(its own address, ``pbmserv+x@``, ``postmaster@``, ``root@`` ...) and, at any domain, the
role mailboxes that read no mail or read it for other purposes (``mailer-daemon``,
``postmaster``, ``abuse``, ``noreply`` ...).
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbm_emergo.app.messages import Reply, a_label_ok, ascii_domain, clean_address
from pbm_emergo.app.results import Refused, Result
from pbm_emergo.app.unit import UnitOfWork
from pbm_emergo.config import Config, relay_takes_smtputf8
from pbm_emergo.db import players
from pbm_emergo.db.players import ConfirmationRead
from pbm_emergo.db.reads.accounts import Account, account_by_id
from pbm_emergo.game.account_changes import (
    AddressConfirmed,
    AddressesChanged,
    Confirmations,
    WaitingAddress,
)
from pbm_emergo.views import i18n
from pbm_emergo.views.templating import render

MAX_ADDRESSES = 5
CONFIRM_TIME = timedelta(days=7)
# Code mails to an address asked from other addresses in this time: one per address
# asking, and at most CODES_FROM_OTHERS in all. The address's own requests are not capped.
CODE_MAIL_INTERVAL = timedelta(days=1)
CODES_FROM_OTHERS = 3

# Local parts of role mailboxes that no player plays from (RFC 2142 and the like): mail to
# them is never read (mailer-daemon, noreply), bounces back as a loop, or lands on a desk
# that handles complaints (postmaster, abuse). Compared in lower case, without a +tag and
# without the separators . - _.
ROLE_LOCAL_PARTS = frozenset(
    [
        "abuse",
        "bounce",
        "bounces",
        "donotreply",
        "hostmaster",
        "listserv",
        "mailerdaemon",
        "majordomo",
        "noreply",
        "postmaster",
        "root",
        "security",
        "webmaster",
    ]
)

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


def at_server_domain(config: Config, domain: str) -> bool:
    """Whether ``domain`` is the server's own mail domain or below it: its addresses
    (``pbmserv+x@``, ``root@``) reach the server or its operator, never a player."""
    own = config.domain.lower().rstrip(".")
    domain = domain.lower().rstrip(".")
    return domain == own or domain.endswith("." + own)


def role_mailbox(address: str) -> bool:
    """Whether ``address`` is a role mailbox that no player plays from (ROLE_LOCAL_PARTS)."""
    local = address.rpartition("@")[0].lower().partition("+")[0]
    return local.translate(_ROLE_SEPARATORS) in ROLE_LOCAL_PARTS


_ROLE_SEPARATORS = str.maketrans({".": None, "-": None, "_": None})


def check_address(config: Config, address: str) -> None:
    """Raise a Refused unless ``address`` is a plain address in a real-looking domain
    that is not this server's own, and one this server can mail: a non-ASCII address
    (jörg@bücher.example) only when the relay delivers to such addresses (SMTPUTF8)."""
    # The same test the mail layer applies to a recipient: no address we could never mail.
    if clean_address(address) != _nfc(address).lower() or ".." in address:
        raise Refused(i18n._("'%(address)s' is not a mail address.", address=address[:80]))
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
            i18n._(
                "'%(address)s' is not a mail address: '%(domain)s' is not a domain name.",
                address=address[:80],
                domain=domain[:80],
            )
        )
    if address.lower() in server_addresses(config) or at_server_domain(config, domain):
        raise Refused(
            i18n._(
                "'%(address)s' is an address at this server's own domain (%(domain)s), where "
                "no player receives mail; give an address of yours.",
                address=address,
                domain=config.domain,
            )
        )
    if role_mailbox(address):
        raise Refused(
            i18n._(
                "'%(address)s' is a role mailbox (%(mailbox)s@ serves the mail system or its "
                "operators, and nobody plays from it); give your own address.",
                address=address,
                mailbox=address.rpartition("@")[0],
            )
        )
    # Unknown (the relay could not be asked yet) counts as yes: the mail waits in the
    # outbox with the rest, and fails with the reason if the relay cannot take it.
    if not address.isascii() and relay_takes_smtputf8(config) is False:
        raise Refused(
            i18n._(
                "This server's mail relay cannot deliver to non-ASCII addresses such as "
                "'%(address)s'; please give a plain ASCII address.",
                address=address[:80],
            )
        )


def check_addresses(config: Config, addresses: list[str]) -> list[str]:
    """The addresses, each checked, without duplicates (case-insensitively), in Unicode's
    composed form (NFC) so that one address is always written the same way."""
    if len(addresses) > MAX_ADDRESSES:
        raise Refused(i18n._("At most %(most)s addresses may be registered.", most=MAX_ADDRESSES))
    seen: dict[str, str] = {}
    for address in addresses:
        check_address(config, address)
        address = _nfc(address.strip())
        seen.setdefault(address.lower(), address)
    return list(seen.values())


def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def sender_vouches_for(ctx: UnitOfWork, address: str) -> bool:
    """Whether the mail was proven to come from ``address`` (its DMARC, else SPF, check
    passed at our MTA)."""
    return ctx.sender_proven and is_sender(ctx, address)


def is_sender(ctx: UnitOfWork, address: str) -> bool:
    """Whether ``address`` is the one the mail says it came from (answers go there)."""
    return bool(ctx.sender) and address.lower() == ctx.sender.lower()


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
    """What asking for confirmations adds to a command: the codes to store (with the
    player's id, in a change) and the code mails to other addresses; ``own_code``: the
    code of the sender's own address, for the command's answer to carry; ``kept``:
    addresses already waiting for this player's code."""

    writes: list[tuple[Waiting, str]]  # each with its code hash
    mails: list[Reply]
    kept: list[str]
    own_code: str | None = None

    def confirmations(self, ctx: UnitOfWork, *, replaces: bool) -> Confirmations:
        """The waiting addresses as a change stores them (each re-checked against the cap
        on code mails)."""
        now = ctx.now
        cap = code_mail_cap(now)
        return Confirmations(
            waiting=tuple(
                WaitingAddress(waiting.address, hashed, waiting.position)
                for waiting, hashed in self.writes
            ),
            at=now,
            expires_at=now + CONFIRM_TIME,
            requested_by=ctx.sender,
            replaces=replaces,
            cap_since=cap.since,
            cap_per_requester=cap.per_requester,
            cap_in_all=cap.in_all,
        )


def code_mail_cap(now: datetime) -> players.CodeMailCap:
    """The cap on code mails asked from other addresses (see the module docstring)."""
    return players.CodeMailCap(
        since=now - CODE_MAIL_INTERVAL, per_requester=1, in_all=CODES_FROM_OTHERS
    )


def request_confirmations(
    ctx: UnitOfWork, userid: str, waiting: list[Waiting], *, player_id: int | None
) -> Request:
    """Codes for the ``waiting`` addresses of ``userid`` (``player_id`` None: a new
    account). The sender's own address always gets a fresh code (in the answer: see
    :attr:`Request.own_code`); another address gets a code mail unless it is already
    waiting for this player's code (then that code stays), or a Refused when the codes
    asked for it from other addresses reached their cap."""
    request = Request(writes=[], mails=[], kept=[])
    cap = code_mail_cap(ctx.now)
    for item in waiting:
        code = new_code()
        if is_sender(ctx, item.address):
            request.writes.append((item, players.code_hash(code_key(code))))
            request.own_code = code
            continue
        recent = players.recent_confirmations(ctx.session, item.address, cap.since)
        if any(
            c.player_id == player_id and player_id is not None and c.expires_at > ctx.now
            for c in recent
        ):
            request.kept.append(item.address)
            continue
        refused = cap.refusal(recent, item.address, ctx.sender)
        if refused is not None:
            raise _over_cap(item.address, *refused)
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


def own_code_values(ctx: UnitOfWork, code: str) -> dict[str, object]:
    """What notice/own_code.txt.j2 needs to show the sender the code of their address."""
    return {
        "address": ctx.sender,
        "server": ctx.config.address,
        "code": code,
        "expires": at_text(ctx.now + CONFIRM_TIME),
        "days": CONFIRM_TIME.days,
    }


def _over_cap(address: str, which: str, oldest: ConfirmationRead) -> Refused:
    again = at_text(oldest.created_at + CODE_MAIL_INTERVAL)
    if which == "requester":
        return Refused(
            i18n._(
                "A confirmation code for %(address)s was asked from your address at "
                "%(asked)s, and each address may ask one a day for it, so no code was "
                "mailed. Ask again after %(again)s, or send the command from %(address)s "
                "itself: its own requests are always answered, with the code.",
                address=address, asked=at_text(oldest.created_at), again=again,
            )
        )
    return Refused(
        i18n._(
            "%(address)s was mailed %(most)s confirmation codes asked from other addresses "
            "in the last day, the most it gets, so no code was mailed. Ask again after "
            "%(again)s, or send the command from %(address)s itself: its own requests are "
            "always answered, with the code.",
            address=address, most=CODES_FROM_OTHERS, again=again,
        )
    )


def change_addresses(ctx: UnitOfWork, player: Account, addresses: list[str]) -> Result:
    """Replace the player's registered addresses (as read with their account) by
    ``addresses``; those that need their owner's consent wait for it (with none usable now,
    the old addresses stay until the first new one is confirmed). The addresses dropped
    are told."""
    fresh = check_addresses(ctx.config, addresses)
    ctx.reveal(*addresses)  # valid addresses are not secrets
    registered = player.address_keys
    at_once = [a for a in fresh if a.lower() in registered or sender_vouches_for(ctx, a)]
    waiting = [Waiting(a, i) for i, a in enumerate(fresh) if a not in at_once]
    request = request_confirmations(ctx, player.userid, waiting, player_id=player.id)
    # With no address usable now, the old ones stay until a new one is confirmed:
    # a player is never left without an address by a typing mistake.
    replaces = not at_once
    old = list(player.addresses)
    new = at_once if at_once else old
    ctx.write(AddressesChanged(
        player.id, tuple(at_once), tuple(request.kept),
        request.confirmations(ctx, replaces=replaces), ctx.now,
    ))  # fmt: skip
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
    notices = [Reply(to=a, subject=subject, body=body) for a in dropped if a.lower() != ctx.sender]
    answer = body
    if request.own_code is not None:
        answer += "\n" + render("notice/own_code.txt.j2", **own_code_values(ctx, request.own_code))
    return Result(
        said=lambda: i18n._("changed the addresses of %(userid)s", userid=player.userid),
        answer=answer,
        answer_subject=subject,
        replies=notices + request.mails,
    )


def confirm_address(ctx: UnitOfWork, code: str) -> Result:
    """Register the address that is waiting for ``code`` (from anyone who has it)."""
    confirmation = players.find_confirmation(ctx.session, players.code_hash(code_key(code)))
    if confirmation is None or confirmation.expires_at <= ctx.now:
        raise Refused(
            i18n._(
                "No address is waiting for this code: it was used already, it expired (a "
                "code is valid for 7 days), or it was mistyped."
            )
        )
    player = account_by_id(ctx.session, confirmation.player_id)
    if player is None or not player.active:
        raise Refused(i18n._("The player this code was for has signed off."))
    old = list(player.addresses)
    new = players.addresses_once_confirmed(old, confirmation)
    confirmation_id = confirmation.id
    ctx.write(AddressConfirmed(confirmation_id, ctx.now))
    if not old:
        # The account's first address (a signup whose sender was not proven): its welcome.
        waiting = [
            c.address for c in players.confirmations_of(ctx.session, player.id)
            if c.id != confirmation_id and c.expires_at > ctx.now
        ]  # fmt: skip
        return Result(
            said=lambda: i18n._(
                "confirmed %(address)s for %(userid)s",
                address=confirmation.address,
                userid=player.userid,
            ),
            answer=render(
                "signup.txt.j2",
                userid=player.userid,
                addresses=new,
                waiting=waiting,
                days=CONFIRM_TIME.days,
                forged=False,
                rating=players.rating_of(ctx.session, player.id),
                address=ctx.config.address,
            ),
            answer_subject=f"Emergo: welcome {player.userid}",
        )
    body = render(
        "confirmed.txt.j2",
        userid=player.userid,
        address=confirmation.address,
        addresses=new,
    )
    subject = f"Emergo: addresses of {player.userid} changed"
    dropped = [a for a in old if a.lower() not in {n.lower() for n in new}]
    return Result(
        said=lambda: i18n._(
            "confirmed %(address)s for %(userid)s",
            address=confirmation.address,
            userid=player.userid,
        ),
        answer=body,
        answer_subject=subject,
        replies=[
            Reply(to=a, subject=subject, body=body) for a in dropped if a.lower() != ctx.sender
        ],
    )
