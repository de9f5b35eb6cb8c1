"""Internationalised addresses (RFC 6531/6532): what clean_address and check_address take and
refuse, and how the relay's SMTPUTF8 answer is asked and kept."""

from __future__ import annotations

import threading

import pytest

from pbm_emergo import config as config_module
from pbm_emergo.app.addresses import check_address, check_addresses
from pbm_emergo.app.messages import clean_address
from pbm_emergo.app.results import Refused
from pbm_emergo.config import Config, RelayAnswers, relay_takes_smtputf8
from tests.support.waits import scaled

SERVER = Config(address="pbmserv@emergo.test")


@pytest.mark.parametrize(
    ("given", "cleaned"),
    [
        ("jörg@bücher.example", "jörg@bücher.example"),
        ("<Jörg@Bücher.Example>", "jörg@bücher.example"),
        ("jo\u0308rg@bu\u0308cher.example", "jörg@bücher.example"),  # NFD -> NFC
        ("用户@例子.广告", "用户@例子.广告"),
        ("δοκιμή@παράδειγμα.δοκιμή", "δοκιμή@παράδειγμα.δοκιμή"),
        ("jörg@example.org", "jörg@example.org"),  # UTF-8 local part, ASCII domain
        ("joerg@bücher.example", "joerg@bücher.example"),  # ASCII local part, U-labels
        ("joerg@xn--bcher-kva.example", "joerg@xn--bcher-kva.example"),  # stays ASCII
        ("straße@straße.de", "straße@straße.de"),  # IDNA2008 keeps the sharp s
        ("ö" * 32 + "@x.example", "ö" * 32 + "@x.example"),  # 64 octets
        # What the email package and aiosmtpd make of UTF-8 bytes (surrogateescape).
        ("j\udcc3\udcb6rg@b\udcc3\udcbccher.example", "jörg@bücher.example"),
        ("Alice@Example.org", "alice@example.org"),  # ASCII as before
    ],
)
def test_good_addresses_are_cleaned(given: str, cleaned: str) -> None:
    assert clean_address(given) == cleaned


@pytest.mark.parametrize(
    "given",
    [
        "ö" * 33 + "@x.example",  # 66 octets in the local part (33 characters)
        "j@" + ".".join(["bücher" + str(n) for n in range(40)]) + ".example",  # > 254 octets
        "j\x85rg@x.example",  # C1 control (NEL)
        "j\x01rg@x.example",
        "jö\u00a0rg@x.example",  # no-break space
        "jö rg@x.example",
        "jö\u2028rg@x.example",  # line separator
        "jö\r\nrg@x.example",
        "j\u202erg@x.example",  # right-to-left override
        "jö\u200brg@x.example",  # zero-width space
        'jö"rg@x.example',
        "jö\\rg@x.example",
        "jö\ue000rg@x.example",  # private use
        ".jörg@x.example",
        "jörg.@x.example",
        "jö..rg@x.example",
        "jörg@",
        "@bücher.example",
        "jörg@bü cher.example",
        "jörg@bü\u200dcher.example",  # a joiner where IDNA2008 does not allow one
        "jörg@bücher..example",
        "jörg@-bücher.example",
        "jörg@xn--a.example",  # not a valid A-label
        "jörg@Ⅸ.example",  # disallowed in IDNA2008 (a compatibility character)
        "jörg@💩.example",  # symbols are not allowed in IDNA2008 labels
        "jörg@[192.0.2.1]",
        "j\udcffrg@x.example",  # bytes that were not UTF-8
        "jörg",
    ],
)
def test_bad_addresses_are_refused(given: str) -> None:
    assert clean_address(given) is None


YES = Config(address="pbmserv@emergo.test", smtputf8="yes")
NO = Config(address="pbmserv@emergo.test", smtputf8="no")


@pytest.mark.parametrize(
    "address",
    ["jörg@bücher.example", "Jörg@Bücher.example", "joerg@xn--bcher-kva.example",
     "用户@例子.广告", "jörg@example.org"],
)
def test_check_address_takes_idn_where_the_relay_does(address: str) -> None:
    check_address(YES, address)


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("jörg@xn--a.example", "is not a mail address"),  # a bad A-label
        ("joerg@xn--a.example", "is not a domain name"),  # the same in an ASCII address
        ("jörg@bücher.123", "is not a domain name"),
        ("jörg@bü\u200dcher.example", "is not a mail address"),
        ("j\u202erg@bücher.example", "is not a mail address"),
        ("ö" * 33 + "@bücher.example", "is not a mail address"),
    ],
)
def test_check_address_refuses_bad_idn(address: str, why: str) -> None:
    with pytest.raises(Refused) as refused:
        check_address(YES, address)
    assert why in str(refused.value)


def test_check_address_refuses_non_ascii_where_the_relay_cannot_deliver() -> None:
    with pytest.raises(Refused) as refused:
        check_address(NO, "jörg@bücher.example")
    assert "mail relay cannot deliver to non-ASCII addresses" in str(refused.value)
    assert "plain ASCII address" in str(refused.value)
    # ASCII addresses, also with an A-label domain, are not affected.
    check_address(NO, "joerg@xn--bcher-kva.example")
    check_address(NO, "alice@example.org")


def test_check_addresses_keeps_one_composed_form() -> None:
    assert check_addresses(YES, ["Jo\u0308rg@bücher.example", "JÖRG@BÜCHER.EXAMPLE"]) == [
        "Jörg@bücher.example"
    ]


# --- the relay's answer -------------------------------------------------------------------


def test_the_setting_and_a_maildir_need_no_question() -> None:
    assert relay_takes_smtputf8(YES) is True
    assert relay_takes_smtputf8(NO) is False
    assert relay_takes_smtputf8(Config(outbound="maildir:/tmp/x")) is True  # auto
    with pytest.raises(ValueError, match="smtputf8 must be one of"):
        Config(smtputf8="maybe")


def test_the_relay_is_asked_rarely_and_its_last_answer_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(config_module.time, "monotonic", lambda: now[0])
    answers: list[bool | None] = [None, True, None, False]
    asked: list[tuple[str, int]] = []

    def ask(host: str, port: int, local_hostname: str) -> bool | None:
        asked.append((host, port))
        return answers.pop(0)

    relay = RelayAnswers(ask)
    assert relay.takes_smtputf8("relay", 25, "me") is None  # down: unknown
    assert relay.takes_smtputf8("relay", 25, "me") is None  # not asked again at once
    assert len(asked) == 1
    now[0] += config_module.RELAY_UNKNOWN_SECONDS
    assert relay.takes_smtputf8("relay", 25, "me") is True  # asked again after a minute
    now[0] += config_module.RELAY_ANSWER_SECONDS - 1
    assert relay.takes_smtputf8("relay", 25, "me") is True  # kept for an hour
    assert len(asked) == 2
    now[0] += 1
    assert relay.takes_smtputf8("relay", 25, "me") is True  # down again: the last answer
    assert len(asked) == 3
    now[0] += config_module.RELAY_UNKNOWN_SECONDS
    assert relay.takes_smtputf8("relay", 25, "me") is False  # the relay changed its mind
    relay.remember("relay", 25, True)  # the outbox sender's EHLO said otherwise
    assert relay.takes_smtputf8("relay", 25, "me") is True
    assert len(asked) == 4


def test_while_one_thread_asks_the_others_have_the_last_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(config_module.time, "monotonic", lambda: now[0])
    asking, go_on = threading.Event(), threading.Event()
    answers = [True, False]

    def ask(host: str, port: int, local_hostname: str) -> bool | None:
        if len(answers) == 1:  # the second question hangs until the test lets it go
            asking.set()
            assert go_on.wait(scaled(10))
        return answers.pop(0)

    relay = RelayAnswers(ask)
    assert relay.takes_smtputf8("relay", 25, "me") is True
    now[0] += config_module.RELAY_ANSWER_SECONDS
    results: list[bool | None] = []
    thread = threading.Thread(
        target=lambda: results.append(relay.takes_smtputf8("relay", 25, "me"))
    )
    thread.start()
    assert asking.wait(scaled(10))
    assert relay.takes_smtputf8("relay", 25, "me") is True  # at once, not waiting
    go_on.set()
    thread.join(10)
    assert results == [False]
    assert relay.takes_smtputf8("relay", 25, "me") is False
