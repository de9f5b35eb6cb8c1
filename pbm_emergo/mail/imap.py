"""Mail read from a mailbox over IMAP instead of received by the SMTP listener: for a server
whose address is a mailbox at a provider (``PBM_EMERGO_INBOX``).

Each mail in the watched folder goes through the listener's own path (the handler's MAIL,
RCPT and DATA hooks: the size limit, the sender checks, the parse with its loop and
auto-reply checks, the durable inbox), and only once it is stored is it moved out of the
folder (to ``pbm-emergo/processed``, or deleted). A crash between the two leaves it in the
folder; read again, it is a duplicate of the stored mail and only moved. Its key is the
sender and the Message-ID, as for SMTP mail; a mail without a Message-ID is given one made of
the mailbox, the folder's UIDVALIDITY and the mail's UID, which name that mail in that folder
and no other. A mail the listener would refuse for good (5xx) is moved to
``pbm-emergo/refused`` for the operator.

A mail the listener defers (4xx: its sender's relay question cannot be answered now, a store
that failed) is set aside, and the mails after it are read on: one mail cannot hold back the
folder. It stays in the folder and is tried again at later looks, after a pause that doubles
from :data:`DEFER_PAUSE_FIRST` to :data:`DEFER_PAUSE_MAX`; still deferred
:data:`DEFER_GIVE_UP` after its first answer, it is moved to ``pbm-emergo/deferred`` for the
operator, with a warning (moved back to the folder, it is a new mail and tried afresh). A
look at the folder in which no mail was answered but 4xx (the database down, say) is the
server's failure, not the mails': none of them is set aside, and the reader reconnects with
its backoff, as after any failure. What is set aside is kept in the reader's memory: a
restart tries every mail again.

The standard library's imaplib does the protocol (no dependency; synchronous, as the threads
of :mod:`pbm_emergo.ops.server` are); IDLE (RFC 2177), which Python 3.11's imaplib lacks, is
the short loop of :meth:`MailboxReader._idle`. The wait in IDLE is renewed every
``inbox_poll_seconds``, with a look at the folder each time: servers without IDLE are polled
at that pace.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import imaplib
import logging
import re
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.utils import parseaddr
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from pbm_emergo.config import Config
from pbm_emergo.mail.inbound import InboxHandler

log = logging.getLogger(__name__)

# The URL schemes: how the connection is secured, and the default port.
INBOX_SCHEMES = {"imaps": ("tls", 993), "imap": ("starttls", 143)}
PROCESSED_FOLDER = "pbm-emergo/processed"
REFUSED_FOLDER = "pbm-emergo/refused"
DEFERRED_FOLDER = "pbm-emergo/deferred"
# A mail answered 4xx: its pauses before it is tried again (seconds, doubling), and how long
# after its first 4xx it is left for the operator (see the module docstring).
DEFER_PAUSE_FIRST, DEFER_PAUSE_MAX = 60.0, 3600.0
DEFER_GIVE_UP = 24 * 3600.0
SOCKET_TIMEOUT = 60.0  # a server silent this long in a command is taken as gone
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 300.0  # seconds between reconnections, doubling
# After a refused login the password is not tried again for this long, doubling up to the
# second figure, unless its file changes: a provider may lock an account after a few failed
# logins in a row (as the outbound submission login, pbm_emergo.mail.outbound).
LOGIN_RETRY_FIRST, LOGIN_RETRY_MAX = 60.0, 3600.0
# How often the folder pbm-emergo/processed is cleared of mails older than
# inbox_processed_days.
EXPIRE_EVERY_SECONDS = 24 * 3600.0
IDLE_CHECK_SECONDS = 1.0  # how often a wait in IDLE looks whether the reader is stopping


@dataclass(frozen=True)
class InboxServer:
    """The mailbox of an inbox URL: ``security`` is "tls" (imaps) or "starttls" (imap)."""

    security: str
    host: str
    port: int
    user: str
    folder: str

    @property
    def url(self) -> str:
        """The URL as logs show it (it never holds a password)."""
        scheme = "imaps" if self.security == "tls" else "imap"
        return (f"{scheme}://{quote(self.user, safe='')}@{self.host}:{self.port}/"
                f"{quote(self.folder)}")


def inbox_server(url: str) -> InboxServer:
    """The mailbox of ``imaps://USER@host:port/FOLDER`` or ``imap://USER@host:port/FOLDER``
    (STARTTLS required), the user percent-encoded; FOLDER defaults to INBOX. Raises
    ValueError for anything else, and for a URL holding a password (the message never
    repeats the URL)."""
    parts = urlsplit(url)
    scheme = INBOX_SCHEMES.get(parts.scheme)
    if scheme is None or not parts.hostname:
        raise ValueError("inbox must be imaps://USER@host:port/FOLDER or "
                         f"imap://USER@host:port/FOLDER (the scheme given: {parts.scheme!r})")
    if parts.password is not None:
        raise ValueError("inbox must not hold a password (a URL shows in logs and in ps): put "
                         "it in a file and name that file in PBM_EMERGO_INBOX_PASSWORD_FILE")
    if not parts.username:
        raise ValueError("inbox has no user: imaps://USER@host:port/FOLDER, the user "
                         "percent-encoded (games%40example.org)")
    folder = unquote(parts.path.lstrip("/")) or "INBOX"
    if not folder.isascii() or any(c in folder for c in '"\\\r\n'):
        raise ValueError("inbox folder must be a plain ASCII folder name")
    try:
        port = parts.port or scheme[1]
    except ValueError:
        raise ValueError("inbox has a port that is not a number") from None
    return InboxServer(scheme[0], parts.hostname, port, unquote(parts.username), folder)


class LoginRefused(Exception):
    """The mailbox refused the login: the password (or the user) is wrong."""


def open_mailbox(
    server: InboxServer, password_file: Path, ca_file: Path | None,
    timeout: float = SOCKET_TIMEOUT,
) -> imaplib.IMAP4:
    """TLS (implicit, or STARTTLS, which imaplib requires the server to offer), the
    certificate verified (against ``ca_file`` alone where set: a private CA), then the login
    with the first line of ``password_file``, read now (a corrected password needs no
    restart). A refused login raises :class:`LoginRefused`."""
    context = ssl.create_default_context(cafile=str(ca_file) if ca_file is not None else None)
    imap: imaplib.IMAP4
    if server.security == "tls":
        imap = imaplib.IMAP4_SSL(server.host, server.port, ssl_context=context, timeout=timeout)
    else:
        imap = imaplib.IMAP4(server.host, server.port, timeout=timeout)
        try:
            imap.starttls(ssl_context=context)
        except Exception:
            imap.shutdown()
            raise
    try:
        lines = password_file.read_text(encoding="utf-8").splitlines()
        if not lines or not lines[0]:
            raise ValueError(f"{password_file} holds no password on its first line")
        try:
            imap.login(server.user, lines[0])
        except imaplib.IMAP4.error as exc:
            raise LoginRefused(f"{server.host}:{server.port} refused the login of "
                               f"{server.user!r} ({exc})") from None
    except Exception:
        imap.shutdown()
        raise
    return imap


def select_folder(imap: imaplib.IMAP4, folder: str) -> str:
    """Select ``folder``: its UIDVALIDITY."""
    return _select(imap, folder)


def close_mailbox(imap: imaplib.IMAP4) -> None:
    _close(imap)


class TemporaryFailure(Exception):
    """No mail can be stored now (the database, a shutdown): they stay in the folder."""


@dataclass
class _Deferred:
    """A mail set aside after a 4xx: since when, how often, and when it is tried again."""

    first: float
    attempts: int
    next_try: float


class MailboxReader:
    """Reads the watched folder until stopped: connects, stores and moves each mail, waits
    in IDLE (or polls), and reconnects with backoff after any failure."""

    def __init__(
        self,
        config: Config,
        handler: InboxHandler,
        *,
        connect: Callable[[InboxServer], imaplib.IMAP4] | None = None,
    ) -> None:
        if config.inbox is None:
            raise ValueError("no inbox set")
        if config.inbox_password_file is None:
            raise ValueError("inbox set: set PBM_EMERGO_INBOX_PASSWORD_FILE to a file holding "
                             "the mailbox's password")
        self.server = inbox_server(config.inbox)
        self.config = config
        self.handler = handler
        self.password_file: Path = config.inbox_password_file
        self.ca_file = config.inbox_ca_file
        self.delete = config.inbox_processed == "delete"
        self.poll_seconds = config.inbox_poll_seconds
        self._connect = connect or self.connect
        self._loop = asyncio.new_event_loop()
        # The mails set aside after a 4xx, by UIDVALIDITY and UID.
        self.deferred: dict[tuple[str, str], _Deferred] = {}
        # A test stands in for a crash between storing and moving here.
        self.after_store: Callable[[int], None] | None = None
        self._imap: imaplib.IMAP4 | None = None  # the open connection (see interrupt)
        self.processed_days = config.inbox_processed_days
        self._next_expiry = 0.0  # time.monotonic() of the next clearing of processed

    # --- the connection --------------------------------------------------------------

    def connect(self, server: InboxServer) -> imaplib.IMAP4:
        """The connection of :func:`open_mailbox`, with this reader's files."""
        return open_mailbox(server, self.password_file, self.ca_file)

    def run(self, stopping: threading.Event, on_ready: Callable[[], None] | None = None) -> None:
        """Read the folder until ``stopping`` is set; every failure is followed by a new
        connection, the pause doubling from 1 s to 5 minutes while they fail. A refused
        login is not tried again for a minute, then for longer each time (up to an hour), so
        that the provider does not lock the account; a change of the password file ends the
        wait. Each problem is logged once, until a login works again."""
        pause = BACKOFF_FIRST
        login_pause = LOGIN_RETRY_FIRST
        logged: str | None = None  # the problem last logged, until a login works
        while not stopping.is_set():
            try:
                imap = self._connect(self.server)
            except LoginRefused as exc:
                problem = (f"{exc}: check the password in {self.password_file} (an app "
                           "password, where the provider asks for one)")
                if problem != logged:
                    log.error("cannot log in to %s: %s; not tried again for %.0f s (longer "
                              "after each refusal) unless that file changes", self.server.url,
                              problem, login_pause)
                    logged = problem
                self._wait_for_password(stopping, login_pause)
                login_pause = min(LOGIN_RETRY_MAX, login_pause * 2)
                continue
            except Exception as exc:  # noqa: BLE001 - the server, the network, TLS
                problem = _reason(exc) + _hint(exc)
                if problem != logged:
                    log.warning("cannot log in to %s: %s; trying again, from %.0f s apart to "
                                "%.0f s apart (logged again when it changes)",
                                self.server.url, problem, pause, BACKOFF_MAX)
                    logged = problem
                stopping.wait(pause)
                pause = min(BACKOFF_MAX, pause * 2)
                continue
            if logged is not None:
                log.info("logged in to %s again", self.server.url)
                logged = None
            login_pause = LOGIN_RETRY_FIRST
            self._imap = imap
            try:
                self._session(imap, stopping, on_ready)
                pause = BACKOFF_FIRST
            except Exception as exc:  # noqa: BLE001 - a dropped connection, a restart
                if stopping.is_set():
                    break  # interrupted at shutdown: the mail in hand is read again later
                log.warning("mailbox %s: %s; reconnecting in %.0f s",
                            self.server.url, _reason(exc), pause)
                stopping.wait(pause)
                pause = min(BACKOFF_MAX, pause * 2)
            finally:
                self._imap = None
                _close(imap)

    def interrupt(self) -> None:
        """Cut the open connection (from another thread, at shutdown): whatever the reader
        waits for ends at once. A mail stored and not yet moved is read again after the
        next start and only moved (a duplicate)."""
        imap = self._imap
        if imap is not None:
            with contextlib.suppress(OSError):
                imap.socket().shutdown(socket.SHUT_RDWR)

    def _wait_for_password(self, stopping: threading.Event, seconds: float) -> None:
        """Wait ``seconds``, or until stopping, or until the password file changes."""
        stamp = _stamp(self.password_file)
        deadline = time.monotonic() + seconds
        while not stopping.is_set():
            left = deadline - time.monotonic()
            if left <= 0 or _stamp(self.password_file) != stamp:
                return
            stopping.wait(min(IDLE_CHECK_SECONDS, left))

    def close(self) -> None:
        self._loop.close()

    def _session(self, imap: imaplib.IMAP4, stopping: threading.Event,
                 on_ready: Callable[[], None] | None) -> None:
        folders = _Folders(imap)
        uidvalidity = _select(imap, self.server.folder)
        idle = "IDLE" in imap.capabilities
        log.info("reading %s (%s)", self.server.url,
                 "IDLE" if idle else f"polled every {self.poll_seconds:g} s")
        while not stopping.is_set():
            if self.processed_days and time.monotonic() >= self._next_expiry:
                self.expire_processed(imap, folders)
                _select(imap, self.server.folder)
                self._next_expiry = time.monotonic() + EXPIRE_EVERY_SECONDS
            self.read_folder(imap, folders, uidvalidity)
            if on_ready is not None:
                on_ready()  # logged in, and what was waiting is taken
                on_ready = None
            if idle:
                self._idle(imap, stopping)
            else:
                stopping.wait(self.poll_seconds)
                _ok(imap.noop())

    # --- one look at the folder ------------------------------------------------------

    def read_folder(self, imap: imaplib.IMAP4, folders: _Folders, uidvalidity: str) -> int:
        """Store and move every mail in the folder, oldest first, setting aside those the
        listener defers (see the module docstring); how many were taken."""
        taken = 0
        uids = _uids(_ok(imap.uid("SEARCH", "UNDELETED")))
        # Forget the mails that left the folder (moved by the operator, or another client).
        present = set(uids)
        self.deferred = {key: aside for key, aside in self.deferred.items()
                         if key[0] == uidvalidity and key[1] in present}
        fresh: list[tuple[str, str]] = []  # deferred for the first time in this look
        answered = False  # some mail was answered 2xx or 5xx: the server is working
        for uid in uids:
            aside = self.deferred.get((uidvalidity, uid))
            if aside is not None and time.monotonic() < aside.next_try:
                continue
            size = _size(_ok(imap.uid("FETCH", uid, "(RFC822.SIZE)")))
            if size is not None and size > self.config.max_message_size:
                answer = (f"552 5.3.4 Message too big: this server takes mail of at most "
                          f"{self.config.max_message_size} bytes")
            else:
                raw = _body(_ok(imap.uid("FETCH", uid, "(BODY.PEEK[])")))
                if raw is None:
                    continue  # expunged meanwhile by another client
                answer = self.store(raw, uid, uidvalidity)
            if answer.startswith("421"):
                raise TemporaryFailure(answer)  # shutting down
            if answer.startswith("4"):
                if aside is None:
                    fresh.append((uid, answer))
                elif self._defer_again(imap, folders, uid, aside, answer):
                    taken += 1
                continue
            answered = True
            self.deferred.pop((uidvalidity, uid), None)
            if answer.startswith("2"):
                if self.after_store is not None:
                    self.after_store(int(uid))
                if self.delete:
                    _delete(imap, uid)
                else:
                    _move(imap, uid, folders.named(PROCESSED_FOLDER))
            else:
                log.warning("mail UID %s of %s refused (%s): moved to %s", uid,
                            self.server.url, answer, REFUSED_FOLDER)
                _move(imap, uid, folders.named(REFUSED_FOLDER))
            taken += 1
        if fresh and not answered:
            raise TemporaryFailure(fresh[0][1])
        for uid, answer in fresh:
            now = time.monotonic()
            self.deferred[(uidvalidity, uid)] = _Deferred(now, 1, now + DEFER_PAUSE_FIRST)
            log.warning("mail UID %s of %s deferred (%s): set aside, tried again in %.0f s; "
                        "the mails after it are read on", uid, self.server.url, answer,
                        DEFER_PAUSE_FIRST)
        return taken

    def expire_processed(self, imap: imaplib.IMAP4, folders: _Folders) -> int:
        """Delete the mails of pbm-emergo/processed that the mailbox received more than
        ``inbox_processed_days`` ago (their internal date); how many. They were stored long
        ago, and they hold their senders' passwords in clear."""
        typ, _ = imap.select(_quoted(folders.existing(PROCESSED_FOLDER)))
        if typ != "OK":
            return 0  # no such folder yet
        before = datetime.date.today() - datetime.timedelta(days=self.processed_days)
        uids = _uids(_ok(imap.uid("SEARCH", "BEFORE", before.strftime("%d-%b-%Y"))))
        if uids:
            _ok(imap.uid("STORE", ",".join(uids), "+FLAGS.SILENT", r"(\Deleted)"))
            _ok(imap.expunge())
            log.info("%d mail(s) received before %s deleted from %s (inbox_processed_days = "
                     "%d)", len(uids), before.isoformat(), PROCESSED_FOLDER, self.processed_days)
        return len(uids)

    def _defer_again(self, imap: imaplib.IMAP4, folders: _Folders, uid: str,
                     aside: _Deferred, answer: str) -> bool:
        """A mail set aside was deferred again: its next pause, or, :data:`DEFER_GIVE_UP`
        after its first 4xx, moved to the operator's folder (True)."""
        now = time.monotonic()
        aside.attempts += 1
        if now - aside.first >= DEFER_GIVE_UP:
            log.warning("mail UID %s of %s deferred %d times in %.0f s (%s): moved to %s for "
                        "the operator; moved back to %s, it is tried again", uid,
                        self.server.url, aside.attempts, now - aside.first, answer,
                        DEFERRED_FOLDER, self.server.folder)
            _move(imap, uid, folders.named(DEFERRED_FOLDER))
            return True
        pause = min(DEFER_PAUSE_MAX, DEFER_PAUSE_FIRST * 2 ** (aside.attempts - 1))
        aside.next_try = now + pause
        log.info("mail UID %s of %s deferred again (%s): tried again in %.0f s", uid,
                 self.server.url, answer, pause)
        return False

    def store(self, raw: bytes, uid: str, uidvalidity: str) -> str:
        """The listener's answer to this mail, stored when it is a 2xx."""
        headers = BytesHeaderParser().parsebytes(raw)
        if headers["Message-ID"] is None:
            raw = f"Message-ID: {self.message_id(uid, uidvalidity)}\r\n".encode() + raw
        return self._loop.run_until_complete(self._as_listener(raw, _envelope_sender(headers)))

    def message_id(self, uid: str, uidvalidity: str) -> str:
        """The Message-ID given to a mail without one: the same for the same mail in the
        same folder, and for no other."""
        mailbox = f"{self.server.host}:{self.server.port}/{self.server.user}/{self.server.folder}"
        digest = hashlib.sha256(mailbox.encode()).hexdigest()[:16]
        return f"<imap.{uidvalidity}.{uid}.{digest}@pbm-emergo.invalid>"

    async def _as_listener(self, raw: bytes, sender: str) -> str:
        from aiosmtpd.smtp import Envelope

        envelope = Envelope()
        envelope.smtp_utf8 = not sender.isascii()
        server: Any = None
        session: Any = None
        answer = await self.handler.handle_MAIL(server, session, envelope, sender, [])
        if answer.startswith("2"):
            answer = await self.handler.handle_RCPT(server, session, envelope,
                                                    self.config.address, [])
        if answer.startswith("2"):
            envelope.original_content = raw
            answer = await self.handler.handle_DATA(server, session, envelope)
        return answer

    # --- IDLE --------------------------------------------------------------------------

    def _idle(self, imap: imaplib.IMAP4, stopping: threading.Event) -> None:
        """Wait in IDLE until the folder changes, ``stopping`` is set or poll_seconds pass."""
        tag = imap._new_tag()
        imap.send(tag + b" IDLE\r\n")
        line = imap.readline()
        if not line.startswith(b"+"):
            raise imaplib.IMAP4.error(f"IDLE refused: {line[:200]!r}")
        sock = imap.socket()
        # Read only what the socket (or TLS) holds, so that stopping is seen each second.
        # An EXISTS that came in the very packet of the "+" waits in imaplib's buffer until
        # the renewal below: the folder is looked at then in any case.
        waited = 0.0
        while not stopping.is_set() and waited < self.poll_seconds:
            pending = isinstance(sock, ssl.SSLSocket) and sock.pending() > 0
            if not pending and not select.select([sock], [], [], IDLE_CHECK_SECONDS)[0]:
                waited += IDLE_CHECK_SECONDS
                continue
            line = imap.readline()
            if not line:
                raise imaplib.IMAP4.abort("the server closed the connection")
            if line.startswith(b"* BYE"):
                raise imaplib.IMAP4.abort(line.decode("ascii", "replace").strip())
            if re.match(rb"\* \d+ (EXISTS|RECENT)", line):
                break
        imap.send(b"DONE\r\n")
        while True:
            line = imap.readline()
            if not line:
                raise imaplib.IMAP4.abort("the server closed the connection")
            if line.startswith(tag + b" "):
                if not line.startswith(tag + b" OK"):
                    raise imaplib.IMAP4.error(f"IDLE ended with {line[:200]!r}")
                return


class _Folders:
    """The folders we move mail to, named with the server's hierarchy delimiter and created
    when first needed."""

    def __init__(self, imap: imaplib.IMAP4) -> None:
        self.imap = imap
        self.created: dict[str, str] = {}
        found = _ok(imap.list('""', '""'))
        match = re.match(rb'\(.*?\) "(.)"', found[0] or b"") if found else None
        self.delimiter = match.group(1).decode() if match else "/"

    def existing(self, name: str) -> str:
        """``name`` with the server's delimiter, not created."""
        return self.created.get(name) or name.replace("/", self.delimiter)

    def named(self, name: str) -> str:
        if name not in self.created:
            folder = name.replace("/", self.delimiter)
            parent = name.split("/")[0]
            for each in (parent, folder):
                typ, data = self.imap.create(each)
                if typ != "OK" and b"exist" not in b" ".join(d or b"" for d in data).lower():
                    raise imaplib.IMAP4.error(f"cannot create the folder {each}: {data!r}")
            self.created[name] = folder
        return self.created[name]


def _envelope_sender(headers: Any) -> str:
    """The mail's envelope sender: its Return-Path (which the delivering server writes),
    else its From address."""
    return_path = headers["Return-Path"]
    if return_path is not None:
        return parseaddr(str(return_path))[1]
    return parseaddr(str(headers["From"] or ""))[1]


def _select(imap: imaplib.IMAP4, folder: str) -> str:
    _ok(imap.select(_quoted(folder)))
    found = imap.response("UIDVALIDITY")[1]
    if not found or found[0] is None:
        raise imaplib.IMAP4.error(f"the server gave no UIDVALIDITY for {folder}")
    return bytes(found[0]).decode()


def _move(imap: imaplib.IMAP4, uid: str, folder: str) -> None:
    if "MOVE" in imap.capabilities:
        _ok(imap.uid("MOVE", uid, _quoted(folder)))
    else:
        _ok(imap.uid("COPY", uid, _quoted(folder)))
        _delete(imap, uid)


def _delete(imap: imaplib.IMAP4, uid: str) -> None:
    _ok(imap.uid("STORE", uid, "+FLAGS.SILENT", r"(\Deleted)"))
    if "UIDPLUS" in imap.capabilities:
        _ok(imap.uid("EXPUNGE", uid))
    else:
        _ok(imap.expunge())


def _quoted(name: str) -> str:
    return '"' + name + '"'


def _ok(result: tuple[str, list[Any]]) -> list[Any]:
    typ, data = result
    if typ != "OK":
        raise imaplib.IMAP4.error(f"{typ} {data!r}"[:300])
    return data


def _uids(data: list[Any]) -> list[str]:
    return [uid.decode() for uid in (data[0] or b"").split()] if data else []


def _size(data: list[Any]) -> int | None:
    for item in data:
        line = item[0] if isinstance(item, tuple) else item
        match = re.search(rb"RFC822\.SIZE (\d+)", line or b"")
        if match:
            return int(match.group(1))
    return None


def _body(data: list[Any]) -> bytes | None:
    for item in data:
        if isinstance(item, tuple) and len(item) == 2:
            return bytes(item[1])
    return None


def _hint(exc: BaseException) -> str:
    """What to do about a connection failure, where a setting fixes it."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (" (if a private CA signed the server's certificate, name the CA's certificate "
                "in PBM_EMERGO_INBOX_CA_FILE)")
    if isinstance(exc, FileNotFoundError):
        return " (PBM_EMERGO_INBOX_CA_FILE or PBM_EMERGO_INBOX_PASSWORD_FILE)"
    return ""


def _stamp(path: Path) -> tuple[int, ...] | None:
    """What tells whether a file changed (None: it cannot be read)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_size, found.st_ino)


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def _close(imap: imaplib.IMAP4) -> None:
    try:
        imap.logout()
    except Exception:  # noqa: BLE001 - the connection is gone already
        with contextlib.suppress(Exception):
            imap.shutdown()


__all__ = ["InboxServer", "LoginRefused", "MailboxReader", "close_mailbox", "inbox_server",
           "open_mailbox", "select_folder"]
