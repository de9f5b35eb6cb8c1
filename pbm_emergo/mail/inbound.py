"""The SMTP (or LMTP) listener: accept mail for the server's address, store it, then say 250."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import re
import socket
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbm_emergo.app.messages import clean_address
from pbm_emergo.config import Config, relay_takes_smtputf8
from pbm_emergo.db import inbox
from pbm_emergo.db.inbox import NewInbound
from pbm_emergo.db.session import Engine, SessionFactory, durable_writes, read_sessions
from pbm_emergo.db.types import utcnow
from pbm_emergo.mail.activity import ListenerActivity
from pbm_emergo.mail.commands import describe
from pbm_emergo.mail.parse import parse_mail
from pbm_emergo.telemetry import metrics

log = logging.getLogger(__name__)

# No mail address holds an ASCII control character (NUL, TAB...).
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Stored:
    id: int
    duplicate: bool


class NonAsciiReplyAddress(Exception):  # noqa: N818 - what the mail is, not an error
    """The mail would be answered at a non-ASCII address (its From, with an ASCII envelope
    sender): stored only once the relay is known to take SMTPUTF8 (see
    :meth:`InboxHandler.handle_DATA`)."""


class OverLimit(Exception):  # noqa: N818 - what the mail is, not an error
    """The mail passes a bound of :mod:`pbm_emergo.mail.limits` (its text says which): it
    is refused at DATA, not parsed, not stored."""


class GroupCommit:
    """Stores the mails that arrive together in one transaction (a group commit).

    One thread (``inbox-store``, started on first use) does all the work after DATA: it
    takes every mail waiting at that moment, works each out (parse, describe: given as a
    function, run here, outside the transaction) and stores them in one transaction, while
    the mails that arrive meanwhile wait for the next one. Under load every mail's
    transaction would otherwise queue for the database's write lock on its own; and with
    one thread besides the event loop, the two do not fight over the GIL as a pool of
    threads did. A mail's future is resolved only once its own transaction committed. If
    a group's transaction fails, its mails are stored one by one, so one bad mail fails
    alone.
    """

    def __init__(self, session_factory: SessionFactory) -> None:
        # The 250 waits for this commit: on disk, not just handed to the operating system.
        self.engine: Engine = durable_writes(session_factory.kw["bind"])
        self._cond = threading.Condition()
        self._pending: list[tuple[Callable[[], NewInbound], Future[Stored]]] = []
        self._thread: threading.Thread | None = None

    def submit(self, work: Callable[[], NewInbound]) -> Stored:
        """Store the mail ``work`` works out; returns once its transaction committed."""
        return self.submit_nowait(work).result()

    def submit_nowait(self, work: Callable[[], NewInbound]) -> Future[Stored]:
        """Queue the mail ``work`` works out (in the store thread) to be stored; the future
        is resolved once it is (or failed)."""
        future: Future[Stored] = Future()
        with self._cond:
            self._pending.append((work, future))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="inbox-store", daemon=True
                )
                self._thread.start()
            self._cond.notify()
        return future

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending:
                    self._cond.wait()
                waiting, self._pending = self._pending, []
            group: list[tuple[NewInbound, Future[Stored]]] = []
            try:
                for work, future in waiting:
                    try:
                        group.append((work(), future))
                    except Exception as exc:  # noqa: BLE001 - this mail fails alone
                        future.set_exception(exc)
                if group:
                    self._store(group)
            except BaseException as exc:  # noqa: BLE001 - never leave a sender waiting
                for _, future in waiting:
                    if not future.done():
                        future.set_exception(exc)

    def _store(self, group: list[tuple[NewInbound, Future[Stored]]]) -> None:
        try:
            with self.engine.begin() as db:
                results = inbox.store_inbound_many(db, [mail for mail, _ in group])
        except Exception as exc:  # noqa: BLE001 - then one by one: only a bad mail fails
            if len(group) == 1:
                group[0][1].set_exception(exc)
                return
            for item in group:
                self._store([item])
            return
        for (_, future), (stored, created) in zip(group, results, strict=True):
            future.set_result(Stored(stored, duplicate=not created))


class InboxHandler:
    """aiosmtpd handler: RCPT only for our address and postmaster; DATA stored before 250."""

    def __init__(
        self,
        session_factory: SessionFactory,
        config: Config,
        *,
        on_stored: Callable[[], None] | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.session_factory = session_factory
        self.config = config
        self.on_stored = on_stored
        self.clock = clock
        self.reads = read_sessions(session_factory)
        self.committer = GroupCommit(session_factory)
        self.accepting = True
        # DATA commands between "storing" and their answer; stop() waits for them.
        self.in_flight = 0
        self._idle = threading.Condition()
        address = config.address.lower()
        self.local_recipients = {address, f"postmaster@{config.domain}".lower(), "postmaster"}

    def __dir__(self) -> list[str]:
        # What aiosmtpd lists a handler's attributes for, for every connection: its hooks
        # (handle_*) and AUTH mechanisms (auth_*). See CountingSMTP.__dir__.
        return list(_verbs_and_hooks(type(self), ("handle_", "auth_")))

    async def handle_MAIL(  # noqa: N802 - aiosmtpd's hook name
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        mail_options: list[str],
    ) -> str:
        if _CONTROL.search(address):
            # A NUL cannot be stored in a PostgreSQL text column: refused for good here,
            # instead of a 451 on storing that the sending MTA retries for days.
            log.info("refused sender with a control character at MAIL FROM: %s",
                     ascii(address)[:200])
            return "553 5.1.7 The sender address is not a valid mail address"
        if not address.isascii():
            refusal = await self._non_ascii_refusal(address, envelope.smtp_utf8)
            if refusal is not None:
                log.info("refused non-ASCII sender %s at MAIL FROM: %s",
                         ascii(address)[:200], refusal[:3])
                return refusal
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 2.1.0 OK"

    async def _non_ascii_refusal(self, address: str, smtp_utf8: bool) -> str | None:
        """Why a non-ASCII sender is refused, None when it is accepted. It is accepted only
        if the relay takes SMTPUTF8, so that our replies can reach it; otherwise its MTA
        bounces the mail with our reason, instead of our accepting it and never answering."""
        if not smtp_utf8:
            # RFC 6531: a non-ASCII address only in a transaction with the SMTPUTF8
            # parameter, and 553 ("mailbox name not allowed") with X.6.7 ("non-ASCII
            # addresses not permitted") to refuse one; 555 means a MAIL parameter we do
            # not know, which is not the case here.
            return ("553 5.6.7 A non-ASCII sender address needs the SMTPUTF8 parameter "
                    "(RFC 6531)")
        if clean_address(address) is None:
            return "553 5.1.7 The sender address is not a valid mail address"
        return await self._relay_refusal(
            "553 5.6.7 This server's mail relay cannot deliver to non-ASCII "
            "addresses: please write from a plain ASCII address"
        )

    async def handle_RCPT(  # noqa: N802 - aiosmtpd's hook name
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if not self.accepting:
            return "421 4.3.2 Service shutting down, try again later"
        if address.strip("<>").lower() not in self.local_recipients:
            return "550 5.1.1 No such user here"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(  # noqa: N802 - aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        if not self.accepting:
            return "421 4.3.2 Service shutting down, try again later"
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        mail_from = envelope.mail_from or ""
        recipients = list(envelope.rcpt_tos)
        with self._idle:
            self.in_flight += 1
        try:
            # Worked out and stored off the event loop, by the group commit's thread; this
            # session waits without holding a thread.
            work = functools.partial(self.received, raw, mail_from, recipients)
            try:
                stored = await asyncio.wrap_future(self.committer.submit_nowait(work))
            except NonAsciiReplyAddress as unanswerable:
                # As a non-ASCII envelope sender at MAIL FROM: answered only if the relay
                # can deliver to the address, else refused (never 250 and silence).
                refusal = await self._reply_address_refusal()
                if refusal is not None:
                    log.info("refused mail from %r answered at non-ASCII %s at DATA: %s",
                             mail_from, ascii(str(unanswerable))[:200], refusal[:3])
                    return refusal
                work = functools.partial(
                    self.received, raw, mail_from, recipients, relay_checked=True
                )
                stored = await asyncio.wrap_future(self.committer.submit_nowait(work))
        except OverLimit as over:
            # A final answer: the same mail would be refused again.
            log.warning("refused mail from %r at DATA: %s", mail_from, over)
            return (f"554 5.6.0 This mail cannot be read here: {over}; please send it "
                    f"as a plain mail")
        except Exception:  # noqa: BLE001 - the sending MTA keeps the mail and retries
            log.exception("could not store mail from %r", mail_from)
            return "451 4.3.0 Could not store the message, try again later"
        finally:
            with self._idle:
                self.in_flight -= 1
                self._idle.notify_all()
        metrics.get().accepted.labels("true" if stored.duplicate else "false").inc()
        if stored.duplicate:
            # A warning: an operator trying the server by hand who resends a mail sees why
            # nothing happens.
            log.warning(
                "duplicate of in-%d from %r: this sender's mail with this Message-ID was "
                "received before, so it is neither stored nor run again; to have it run, "
                "send it with a new Message-ID", stored.id, mail_from,
            )
            return "250 2.0.0 OK (duplicate, already received)"
        if self.on_stored is not None:
            self.on_stored()
        return f"250 2.0.0 OK queued as {stored.id}"

    async def _reply_address_refusal(self) -> str | None:
        """Why a mail whose reply address is non-ASCII is refused at DATA, None when the
        relay can deliver the reply."""
        return await self._relay_refusal(
            "553 5.6.7 The From address is not ASCII and cannot be answered through "
            "this server: its mail relay cannot deliver to non-ASCII addresses; "
            "please write from a plain ASCII address"
        )

    async def _relay_refusal(self, refused: str) -> str | None:
        """``refused`` when the relay cannot deliver to a non-ASCII address, a 451 while it
        cannot be asked, None when it can. Asked at most once an hour (cached), off the
        event loop."""
        loop = asyncio.get_running_loop()
        takes = await loop.run_in_executor(None, relay_takes_smtputf8, self.config)
        if takes is None:
            # The relay could not be asked yet: the sending MTA keeps the mail and retries.
            return ("451 4.4.0 Our mail relay cannot be reached to learn whether replies "
                    "can go to a non-ASCII address; try again later")
        return None if takes else refused

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no DATA is being stored (for a clean stop)."""
        with self._idle:
            return self._idle.wait_for(lambda: self.in_flight == 0, timeout)

    def store(self, raw: bytes, mail_from: str, recipients: list[str]) -> Stored:
        """Work out what the mail is, then store it. Mails arriving together are stored in
        one short transaction (:class:`GroupCommit`); this returns once this mail's
        transaction committed."""
        return self.committer.submit(functools.partial(self.received, raw, mail_from, recipients))

    def received(
        self, raw: bytes, mail_from: str, recipients: list[str], *, relay_checked: bool = False
    ) -> NewInbound:
        """What the mail is, ready to store (run off the event loop). A mail past a bound of
        :mod:`pbm_emergo.mail.limits` raises :class:`OverLimit`, checked before anything
        parses it. A mail to be answered at a non-ASCII address raises
        :class:`NonAsciiReplyAddress` unless
        ``relay_checked`` (the relay was found to take SMTPUTF8, or the envelope sender is
        that address: handle_MAIL checked it)."""
        envelope_sender = clean_address(mail_from) or ("" if mail_from in ("", "<>") else mail_from)
        # Never a NUL into the database (PostgreSQL refuses it in text), also for a sender
        # that did not come through handle_MAIL.
        envelope_sender = envelope_sender.replace("\x00", "")[:320]
        recipients = [r.replace("\x00", "") for r in recipients]
        # Parsed here, once: the worker reads this parse back (see ParsedMail.to_stored).
        parsed = parse_mail(
            raw, envelope_sender, own_address=self.config.address,
            authserv_id=self.config.authserv_id,
        )
        if parsed.over_limit is not None:
            raise OverLimit(parsed.over_limit)
        not_answered = parsed.not_answered or self._not_for_us(recipients)
        reply_to = parsed.sender or ""
        if not (relay_checked or reply_to.isascii() or not_answered is not None
                or reply_to == envelope_sender):
            raise NonAsciiReplyAddress(reply_to)
        # Its commands, read here once (the worker runs and redacts what is stored): the
        # command line as it may be shown (only words known not to be secret: `admin mail`
        # and the log show it), and the boards it names, so that workers keep one board's
        # mail in order.
        with self.reads() as session:
            text = describe(parsed.subject, parsed.body, session, quote_at=parsed.quote_at)
        return NewInbound(
            raw=raw,
            envelope_sender=envelope_sender,
            recipients=recipients,
            message_id=parsed.message_id,
            received_at=self.clock(),
            subject=text.command[:900] or None,
            boards=text.boards if not_answered is None else (),
            sender=parsed.sender,
            not_answered=not_answered[:200] if not_answered else None,
            parsed={**parsed.to_stored(), "commands": text.to_stored()},
        )

    def _not_for_us(self, recipients: list[str]) -> str | None:
        """Mail only for postmaster is kept for the operator, not run as commands."""
        own = self.config.address.lower()
        if any(r.strip("<>").lower() == own for r in recipients):
            return None
        return "mail for postmaster (kept for the operator)"


def new_event_loop(kind: str) -> asyncio.AbstractEventLoop:
    """A new event loop for the listener: ``"uvloop"`` (libuv's, written in C; the default)
    or ``"asyncio"`` (the standard library's).

    Every SMTP command and answer of every session goes through the loop's transports and
    selector; on uvloop the listener spends about an eighth less CPU on each mail (see the
    README, "Performance"). aiosmtpd runs on either. Without uvloop installed (it is a
    dependency on Linux and macOS), the standard loop is used, with a warning.
    """
    if kind == "uvloop":
        try:
            import uvloop
        except ImportError:
            log.warning("uvloop is not installed: the listener uses asyncio's event loop")
        else:
            return cast(asyncio.AbstractEventLoop, uvloop.new_event_loop())
    return asyncio.new_event_loop()


class CountingSMTP(SMTP):
    """aiosmtpd's SMTP session, counting every 4xx and 5xx answer by code (ours, and
    aiosmtpd's own: 552 for mail over the size limit, 5xx for bad commands), remembering
    the addresses it has read in MAIL and RCPT commands, sending a multi-line reply in one
    write, and noting in ``activity`` when it last heard from or answered its client (the
    workers and the outbox sender let the listeners go first: pbm_emergo.mail.activity)."""

    _reply_lines: list[bytes] | None = None  # the lines of a multi-line reply so far
    # Told of everything a client sends and every answer (see pbm_emergo.mail.activity).
    activity: ListenerActivity | None = None

    def data_received(self, data: bytes) -> None:
        if self.activity is not None:
            self.activity.heard()
        super().data_received(data)

    def __dir__(self) -> list[str]:
        # aiosmtpd makes a new session for every connection, and its __init__ finds the
        # session's SMTP verbs (smtp_*) and AUTH mechanisms (auth_*) by listing dir() and
        # fetching every attribute (inspect.getmembers): a tenth of the listener's CPU
        # per mail. Those are all it reads dir() for, so that is what dir() lists here
        # (worked out once per class); see also InboxHandler.__dir__.
        return list(_verbs_and_hooks(type(self), ("smtp_", "auth_")))

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        # aiosmtpd reads the address of every MAIL and RCPT command with the email
        # package's address parser (and makes a new class each time): about a tenth of the
        # listener's CPU per mail. The same few arguments come again and again (our own
        # address in every RCPT, each player's in MAIL), and the answer depends only on
        # the argument and the local part limit, so it is remembered (a bounded cache,
        # shared by the sessions of this process).
        key = (arg, self.local_part_limit)
        found = _ADDRESSES_READ.get(key)
        if found is None:
            try:
                found = super()._getaddr(arg)
            except Exception:  # noqa: BLE001 - see below
                # The email package's parser fails on some malformed addresses instead of
                # saying so: a bare address ending in "@" ("x@": IndexError), a domain
                # literal left open ("x@[": AttributeError, "x@[ ": UnboundLocalError).
                # aiosmtpd, which means a malformed address to get 553, would answer
                # "500 Error: ..." and log a traceback; any such failure is one.
                found = (None, None)
            if len(_ADDRESSES_READ) >= _ADDRESSES_KEPT:
                _ADDRESSES_READ.clear()
            _ADDRESSES_READ[key] = found
        return found

    async def push(self, status: Any) -> None:
        line: bytes = (
            status.encode("utf-8" if self.enable_SMTPUTF8 else "ascii")
            if isinstance(status, str) else status
        )
        if line[3:4] == b"-":
            # A line of a multi-line reply (EHLO's): held back and sent with its last line,
            # one write (and one system call) for the whole reply instead of one a line.
            if self._reply_lines is None:
                self._reply_lines = []
            self._reply_lines.append(line)
            return
        if self._reply_lines:
            line = b"\r\n".join([*self._reply_lines, line])
            self._reply_lines = None
        if line[:1] in (b"4", b"5"):
            metrics.get().smtp_answers.labels(line[:3].decode("ascii", "replace")).inc()
        if self.activity is not None:
            self.activity.heard()
        await super().push(line)


class CountingLMTP(CountingSMTP, LMTP):
    """:class:`CountingSMTP` speaking LMTP (RFC 2033), for an MTA in front that delivers by
    LMTP (``listen_protocol = "lmtp"``): LHLO instead of EHLO, and after DATA one reply for
    each accepted recipient, as the MTA reads them. The mail is stored once for all of its
    recipients, so each gets the same reply: the handler's (250 stored, 451 try again,
    553...), or aiosmtpd's own (552 over the size limit)."""

    # Replies the end of the DATA now being read gets: its accepted recipients (0: not in DATA).
    _replies_after_data = 0

    async def smtp_DATA(self, arg: str) -> None:
        self._replies_after_data = len(self.envelope.rcpt_tos) if self.envelope else 0
        try:
            await super().smtp_DATA(arg)
        finally:
            self._replies_after_data = 0

    async def push(self, status: Any) -> None:
        line = status.decode("ascii", "replace") if isinstance(status, bytes) else status
        if self._replies_after_data and not line.startswith("354"):
            # The answer to the mail's content (not DATA's "go ahead"): once a recipient.
            replies, self._replies_after_data = self._replies_after_data, 0
            for _ in range(replies):
                await super().push(status)
            return
        await super().push(status)


def _verbs_and_hooks(cls: type, prefixes: tuple[str, ...]) -> tuple[str, ...]:
    """The attribute names of ``cls`` that start with one of ``prefixes`` (remembered)."""
    names = _NAMES_OF_CLASSES.get((cls, prefixes))
    if names is None:
        names = tuple(name for name in dir(cls) if name.startswith(prefixes))
        _NAMES_OF_CLASSES[(cls, prefixes)] = names
    return names


_NAMES_OF_CLASSES: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}


# CountingSMTP._getaddr's memory: (argument, local part limit) -> (address, rest).
_ADDRESSES_READ: dict[tuple[str, int], tuple[str | None, str | None]] = {}
_ADDRESSES_KEPT = 4096  # then the memory starts over


class CountingController(Controller):
    """aiosmtpd's controller with :class:`CountingSMTP` (:class:`CountingLMTP` with
    ``protocol="lmtp"``); given ``sock``, it serves that listening socket (shared by several
    listener processes) instead of binding its own."""

    def __init__(self, handler: Any, *, sock: socket.socket | None = None,
                 activity: ListenerActivity | None = None, protocol: str = "smtp",
                 **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self.sock = sock
        self.activity = activity
        self.session_class = CountingLMTP if protocol == "lmtp" else CountingSMTP
        self._sessions: weakref.WeakSet[SMTP] = weakref.WeakSet()

    def factory(self) -> SMTP:
        # Given the loop, aiosmtpd does not look it up for every connection.
        session = self.session_class(self.handler, loop=self.loop, **self.SMTP_kwargs)
        session.activity = self.activity
        self._sessions.add(session)
        return session

    def stop(self, no_assert: bool = False) -> None:
        """Stop taking connections, close those still open (an idle client, or one that
        hung up while its session was being cancelled), then stop the loop: a loop closed
        with open connections leaks them, and uvloop's refuses to close at all (EBUSY)."""
        if self._thread is not None and self.loop.is_running():

            async def close_connections() -> None:
                if self.server is not None:
                    self.server.close()
                for session in list(self._sessions):
                    transport = session.transport
                    if transport is not None and not transport.is_closing():
                        transport.close()
                for _ in range(3):  # their connection_lost runs
                    await asyncio.sleep(0)

            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(close_connections(), self.loop).result(5)
        super().stop(no_assert)

    def _create_server(self) -> Any:
        if self.sock is None:
            return super()._create_server()
        return self.loop.create_server(self._factory_invoker, sock=self.sock)

    def _trigger_server(self) -> None:
        if self.sock is None:
            super()._trigger_server()  # type: ignore[no-untyped-call]
            return
        # aiosmtpd opens a connection to see its factory work; on a shared socket another
        # process may take that connection, so the factory is called on the loop instead.
        async def invoke() -> None:
            self._factory_invoker()

        asyncio.run_coroutine_threadsafe(invoke(), self.loop).result(self.ready_timeout)


class Listener:
    """The aiosmtpd controller with our settings (no DNS lookups, size limit, our handler).

    It binds its own socket, or serves ``sock``, a listening socket bound by the main
    process (see ``pbm_emergo.ops.listeners.ListenerProcesses``): the kernel then hands each new
    connection to one of the processes waiting on it.
    """

    def __init__(
        self,
        handler: InboxHandler,
        config: Config,
        *,
        sock: socket.socket | None = None,
        activity: ListenerActivity | None = None,
    ) -> None:
        self.handler = handler
        self.config = config
        kwargs: dict[str, Any] = {
            "hostname": config.smtp_host,
            "port": config.smtp_port,
            # Without these, aiosmtpd looks the host name up in DNS for every connection.
            "server_hostname": config.domain,
            "ident": "pbm-emergo",
            "data_size_limit": config.max_message_size,
            "decode_data": False,
            # SMTPUTF8 is offered: UTF-8 headers are fine; a non-ASCII sender address only
            # when the relay can deliver our replies to it (handle_MAIL).
            "enable_SMTPUTF8": True,
        }
        self.controller = CountingController(
            handler, sock=sock, activity=activity, loop=new_event_loop(config.event_loop),
            protocol=config.listen_protocol, **kwargs,
        )
        self._lock = threading.Lock()
        self.running = False

    def start(self) -> None:
        self.controller.start()
        self.running = True
        # At DEBUG: every listener process starts one; serve says once where it listens.
        log.debug("listening on %s:%d (%s)", self.config.smtp_host, self.config.smtp_port,
                  self.config.listen_protocol.upper())

    def sockets(self) -> list[socket.socket]:
        """The listening sockets (to share with other listener processes)."""
        server = self.controller.server
        if server is None:
            return []
        return [
            socket.socket(fileno=os.dup(s.fileno()))
            for s in cast(asyncio.Server, server).sockets
        ]

    def stop(self) -> None:
        """Stop accepting: new RCPT and DATA commands get 421, mail being stored gets its
        answer, then the sockets close."""
        with self._lock:
            if not self.running:
                return
            self.handler.accepting = False
            # Mail being stored gets its answer (250, or 451) before the sockets close.
            if not self.handler.wait_idle(timeout=30):
                log.warning("stopping with mail still being stored; its sender will retry")
            self.controller.stop()
            self.running = False
