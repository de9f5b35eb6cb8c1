"""Deliver the outbox: to an SMTP relay (``smtp://host:port``), a submission server with a
login over TLS (``smtp+starttls://USER@host:port``, ``smtps://USER@host:port``) or a local
maildir (``maildir:PATH``), with exponential backoff on temporary failures.

The SMTP transport keeps one connection open and sends consecutive mails over it, as an MTA's
client does (MAIL, RCPT and DATA in one write where the relay offers PIPELINING); the sender
records the outcomes of a batch in one transaction, after the deliveries (a crash before that
commit sends those mails again: never lost, maybe twice).
"""

from __future__ import annotations

import logging
import mailbox
import os
import smtplib
import ssl
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

from pbm_emergo.config import RELAY_ANSWERS, outbound_server, outbound_tls_context
from pbm_emergo.db import outbox
from pbm_emergo.db.claims import worker_name
from pbm_emergo.db.models import OUTBOUND_SENT
from pbm_emergo.db.outbox import ClaimedOutbound
from pbm_emergo.db.session import SessionFactory, one_statement, read_sessions, write_turn
from pbm_emergo.db.types import utcnow
from pbm_emergo.telemetry import metrics

log = logging.getLogger(__name__)

SMTP_TIMEOUT = 30.0
IDLE_SECONDS = 5.0  # an unused connection to the relay is closed (QUIT) after this
MAILS_PER_CONNECTION = 100  # then QUIT and a new connection, as MTAs do
RECORD_WITHIN = 1.0  # seconds: outcomes are committed at the end of a batch, or sooner
# After a refused login the password is not tried again for this long unless its file
# changed: a provider may lock an account after a few failed logins in a row.
LOGIN_RETRY_SECONDS = 60.0


class DeliveryError(Exception):
    """A delivery attempt failed; ``permanent`` says whether retrying is pointless."""

    def __init__(self, message: str, *, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


class StopFlag(Protocol):
    """What tells the sender to stop between mails (a threading.Event, or the like)."""

    def is_set(self) -> bool: ...


class Transport(Protocol):
    """Hands mail over. A transport belongs to one thread, the outbox sender's, which
    delivers one mail after the other; only :meth:`close` may come from another thread."""

    def deliver(self, sender: str, recipient: str, raw: bytes) -> None:
        """Hand one mail over; raise :class:`DeliveryError` when that fails."""

    def close_if_idle(self, now: float) -> float | None:
        """Close a connection unused for a while (``now``: :func:`time.monotonic`). Returns
        the seconds until an open connection will be idle long enough, None if none is."""

    def close(self) -> None:
        """Close any open connection (shutdown)."""


class _ClosedByRelay(Exception):
    """The relay had closed the reused connection before our first command: try again."""


class SMTPTransport:
    """Delivery to an SMTP relay: 5xx is permanent, 4xx and connection errors temporary.

    Consecutive mails go over one connection (EHLO once; MAIL, RCPT, DATA per mail, sent
    in one write where the relay offers PIPELINING; RSET after a failed transaction). If the
    relay had closed the connection while it was idle (a disconnect or a 421 in answer to
    MAIL), the mail is sent again at once over a new connection: only a failure on a fresh
    connection is reported. The connection is closed with QUIT after ``max_mails`` mails,
    by :meth:`close_if_idle` once unused for ``idle_seconds``, and by :meth:`close`.

    A submission server (``security`` "starttls" or "tls") is reached over TLS with its
    certificate verified (``ca_file``: a private CA), and logged in to as ``user`` with the
    password read from ``password_file`` at each new connection. A server that does not
    offer STARTTLS, a certificate that cannot be verified and a refused login are temporary
    failures (the mail waits, nothing goes out in clear: the operator fixes it), logged as
    an error once until a connection succeeds again. After a refused login the same password
    is not tried again for ``login_retry_seconds`` (the mails wait as if refused), so that a
    queue of mails does not make the provider see a burst of failed logins; a change of the
    password file ends that wait.

    A transport belongs to one sending thread: its mails go one after the other over the one
    connection (a second sender needs a transport of its own). A lock makes :meth:`close`
    from another thread (shutdown) wait for the mail in hand.
    """

    def __init__(
        self,
        host: str,
        port: int,
        local_hostname: str,
        *,
        security: str = "plain",
        user: str | None = None,
        password_file: Path | None = None,
        ca_file: Path | None = None,
        login_retry_seconds: float = LOGIN_RETRY_SECONDS,
        idle_seconds: float = IDLE_SECONDS,
        max_mails: int = MAILS_PER_CONNECTION,
        timeout: float = SMTP_TIMEOUT,
    ) -> None:
        self.host = host
        self.port = port
        self.local_hostname = local_hostname
        self.security = security
        self.user = user
        self.password_file = password_file
        self.ca_file = ca_file
        self.login_retry_seconds = login_retry_seconds
        self._trouble: str | None = None  # the connection problem last logged, until fixed
        # The last refused login: what the server said, when, and the password file then.
        self._refused: tuple[str, float, tuple[int, ...] | None] | None = None
        self.idle_seconds = idle_seconds
        self.max_mails = max(1, max_mails)
        self.timeout = timeout
        self._lock = threading.Lock()
        self._smtp: smtplib.SMTP | None = None
        # Closes the socket quietly if the transport is dropped with its connection open
        # (a sender stopped without close()), before the socket could warn that it leaked.
        self._closer: weakref.finalize[[], SMTPTransport] | None = None
        self._mails = 0  # transactions on the open connection
        self._last_used = 0.0  # time.monotonic() at the end of the last one

    def deliver(self, sender: str, recipient: str, raw: bytes) -> None:
        with self._lock:
            try:
                if self._smtp is not None:
                    try:
                        self._transaction(self._smtp, sender, recipient, raw, reused=True)
                        return
                    except _ClosedByRelay as exc:
                        log.info("the relay %s:%d closed the connection (%s): reconnecting",
                                 self.host, self.port, exc.__cause__)
                self._transaction(self._connect(), sender, recipient, raw, reused=False)
            except smtplib.SMTPRecipientsRefused as exc:
                code, text = next(iter(exc.recipients.values()))
                raise DeliveryError(_describe(code, text), permanent=code >= 500) from exc
            except smtplib.SMTPResponseException as exc:
                raise DeliveryError(
                    _describe(exc.smtp_code, exc.smtp_error), permanent=exc.smtp_code >= 500
                ) from exc
            except (smtplib.SMTPException, OSError) as exc:
                raise DeliveryError(f"{type(exc).__name__}: {exc}", permanent=False) from exc
            except UnicodeError as exc:
                # smtplib sends commands in ASCII: such an address can never be delivered.
                raise DeliveryError(
                    f"the address {recipient!r} cannot be sent over SMTP", permanent=True
                ) from exc

    def close_if_idle(self, now: float) -> float | None:
        with self._lock:
            if self._smtp is None:
                return None
            left = self._last_used + self.idle_seconds - now
            if left > 0:
                return left
            log.debug("closing the idle connection to %s:%d", self.host, self.port)
            self._quit()
            return None

    def close(self) -> None:
        with self._lock:
            self._quit()

    def try_connection(self) -> None:
        """Connect as a delivery would (TLS, the login), then QUIT: raises
        :class:`DeliveryError` naming the problem (``pbm-emergo check``)."""
        with self._lock:
            try:
                self._connect()
            except (smtplib.SMTPException, OSError) as exc:
                raise DeliveryError(f"{self.host}:{self.port}: {type(exc).__name__}: {exc}",
                                    permanent=False) from exc
            self._quit()

    # --- one connection ----------------------------------------------------------------

    def _connect(self) -> smtplib.SMTP:
        if self._refused is not None:
            problem, since, stamp = self._refused
            if (time.monotonic() - since < self.login_retry_seconds
                    and self._password_stamp() == stamp):
                raise self._trouble_with(problem)
        try:
            smtp = self._open()
            try:
                smtp.ehlo_or_helo_if_needed()
                if self.security == "starttls":
                    self._starttls(smtp)
                if self.user is not None:
                    self._login(smtp, self.user)
            except BaseException:
                smtp.close()
                raise
        except ssl.SSLCertVerificationError as exc:
            raise self._trouble_with(
                f"the certificate of {self.host}:{self.port} could not be verified "
                f"({exc.verify_message}): if a private CA signed it, name the CA's "
                "certificate in PBM_EMERGO_OUTBOUND_CA_FILE"
            ) from exc
        if self._trouble is not None:
            log.info("the connection to %s:%d works again", self.host, self.port)
            self._trouble = None
        self._refused = None
        self._smtp, self._mails = smtp, 0
        self._closer = weakref.finalize(self, smtp.close)
        # What the relay said about SMTPUTF8, for free (see config.relay_takes_smtputf8).
        RELAY_ANSWERS.remember(self.host, self.port, smtp.has_extn("smtputf8"))
        log.debug("connected to %s:%d", self.host, self.port)
        return smtp

    def _open(self) -> smtplib.SMTP:
        """A new connection: over implicit TLS for smtps://, else in clear (for a relay, or
        until STARTTLS)."""
        if self.security == "tls":
            return smtplib.SMTP_SSL(
                self.host, self.port, local_hostname=self.local_hostname,
                timeout=self.timeout, context=outbound_tls_context(self.ca_file),
            )
        return smtplib.SMTP(
            self.host, self.port, local_hostname=self.local_hostname, timeout=self.timeout
        )

    def _starttls(self, smtp: smtplib.SMTP) -> None:
        """Turn the connection into TLS, or refuse to go on: no mail and no password goes
        out in clear to a server that does not offer STARTTLS (a downgrade, a wrong port)."""
        if not smtp.has_extn("starttls"):
            raise self._trouble_with(
                f"the server {self.host}:{self.port} does not offer STARTTLS, which "
                "smtp+starttls:// requires: nothing is sent in clear (is it the submission "
                "port, 587? for implicit TLS use smtps://HOST:465)"
            )
        try:
            smtp.starttls(context=outbound_tls_context(self.ca_file))
        except smtplib.SMTPResponseException as exc:
            raise self._trouble_with(
                f"{self.host}:{self.port} refused STARTTLS "
                f"({_describe(exc.smtp_code, exc.smtp_error)})"
            ) from None
        smtp.ehlo()  # the extensions offered over TLS (AUTH, SMTPUTF8) may differ

    def _login(self, smtp: smtplib.SMTP, user: str) -> None:
        """Log in as ``user`` with the password file's first line: one attempt (PLAIN, else
        LOGIN; over TLS), not one for each method the server offers as smtplib's login
        makes, since failed logins count against the account at a provider."""
        stamp = self._password_stamp()
        try:
            if self.password_file is None:
                raise OSError("PBM_EMERGO_OUTBOUND_PASSWORD_FILE is not set")
            password = self.password_file.read_text(encoding="utf-8").splitlines()[0]
        except (OSError, UnicodeError, IndexError) as exc:
            reason = "it is empty" if isinstance(exc, IndexError) else exc
            raise self._trouble_with(
                f"the password of {user!r} for {self.host}:{self.port} could not be read "
                f"from {self.password_file} ({reason})"
            ) from None
        offered = smtp.esmtp_features.get("auth", "").upper().split()
        mechanism = next((m for m in ("PLAIN", "LOGIN") if m in offered), None)
        if mechanism is None:
            raise self._trouble_with(
                f"{self.host}:{self.port} offers no login by password (AUTH PLAIN or LOGIN): "
                "is it the provider's submission server?"
            )
        smtp.user, smtp.password = user, password
        try:
            if mechanism == "PLAIN":
                smtp.auth("PLAIN", smtp.auth_plain)
            else:
                smtp.auth("LOGIN", smtp.auth_login)
        except smtplib.SMTPAuthenticationError as exc:
            problem = (
                f"{self.host}:{self.port} refused the login of {user!r} "
                f"({_describe(exc.smtp_code, exc.smtp_error)}): check the password in "
                f"{self.password_file} (an app password, where the provider asks for one)"
            )
            self._refused = (problem, time.monotonic(), stamp)
            raise self._trouble_with(problem) from None
        except UnicodeError:
            raise self._trouble_with(
                f"the user {user!r} or the password in {self.password_file} is not ASCII, "
                "which the login methods of Python's smtplib cannot send"
            ) from None

    def _password_stamp(self) -> tuple[int, ...] | None:
        """What tells whether the password file changed (None: it cannot be read)."""
        try:
            found = os.stat(self.password_file) if self.password_file is not None else None
        except OSError:
            return None
        return None if found is None else (found.st_mtime_ns, found.st_size, found.st_ino)

    def _trouble_with(self, problem: str) -> DeliveryError:
        """A temporary failure that the operator must fix, logged as an error once (and
        again only after a connection worked or the problem changed)."""
        if problem != self._trouble:
            log.error("outbound mail waits: %s; replies are kept and retried", problem)
            self._trouble = problem
        return DeliveryError(problem, permanent=False)

    def _transaction(
        self, smtp: smtplib.SMTP, sender: str, recipient: str, raw: bytes, *, reused: bool
    ) -> None:
        """MAIL, RCPT, DATA (pipelined where the relay offers it); on failure leave the
        connection clean (RSET) or drop it, and raise :class:`_ClosedByRelay` for a reused
        connection the relay had closed.

        Mail from or to a non-ASCII address, or with UTF-8 headers (RFC 6532), is sent with
        the SMTPUTF8 parameter (RFC 6531); a relay that does not offer it can never deliver
        it, which fails it for good before a command is sent."""
        utf8 = not (sender.isascii() and recipient.isascii() and _ascii_headers(raw))
        if utf8 and not smtp.has_extn("smtputf8"):
            raise DeliveryError(
                f"the relay {self.host}:{self.port} does not offer SMTPUTF8, which mail to "
                "a non-ASCII address or with UTF-8 headers needs",
                permanent=True,
            )
        first = True
        self._mails += 1
        try:
            options = [f"SIZE={len(raw)}"] if smtp.has_extn("size") else []
            if utf8:
                options.append("SMTPUTF8")  # MAIL and RCPT then go in UTF-8, either way
            pipelining = smtp.has_extn("pipelining")
            if pipelining:
                code, text = _pipelined_commands(smtp, sender, recipient, options)
            else:
                code, text = smtp.mail(sender, options)
            if code != 250:
                if pipelining and code != 421:  # a relay that says 421 hangs up
                    smtp.getreply()  # RCPT's, then DATA's: in step for RSET
                    _end_refused_data(smtp)
                raise smtplib.SMTPSenderRefused(code, text, sender)
            first = False
            if pipelining:
                code, text = _pipelined_replies(smtp, recipient)
            else:
                code, text = smtp.rcpt(recipient)
                if code not in (250, 251):
                    raise smtplib.SMTPRecipientsRefused({recipient: (code, text)})
                code, text = smtp.docmd("DATA")
            if code != 354:
                raise smtplib.SMTPDataError(code, text)
            smtp.send(_with_dots_doubled(raw) + b".\r\n")
            code, text = smtp.getreply()
            if code != 250:
                raise smtplib.SMTPDataError(code, text)
        except BaseException as exc:
            self._after_failure(smtp, exc)
            if reused and first and _closed_by_relay(exc):
                raise _ClosedByRelay(str(exc)) from exc
            raise
        finally:
            smtp.command_encoding = "ascii"  # the next mail on this connection starts plain
            self._last_used = time.monotonic()
            if self._smtp is not None and self._mails >= self.max_mails:
                self._quit()

    def _after_failure(self, smtp: smtplib.SMTP, exc: BaseException) -> None:
        """Reset the failed transaction so the next mail starts clean, or drop a connection
        that is gone, closing, or in an unknown state (a timeout, an unexpected error)."""
        code = _reply_code(exc)
        answered = (code is not None and code != 421) or isinstance(exc, UnicodeError)
        if answered:
            try:
                if smtp.rset()[0] == 250:
                    return
            except (smtplib.SMTPException, OSError):
                pass
        self._drop()

    def _drop(self) -> None:
        """Close the connection's socket without a word to the relay."""
        if self._closer is not None:
            self._closer()  # smtp.close(), once
        self._smtp, self._closer, self._mails = None, None, 0

    def _quit(self) -> None:
        """Close the connection politely (QUIT), ignoring a relay that is already gone."""
        smtp = self._smtp
        if smtp is None:
            return
        try:
            smtp.quit()
        except (smtplib.SMTPException, OSError):
            pass
        finally:
            self._drop()
            log.debug("closed the connection to %s:%d", self.host, self.port)


def _pipelined_commands(
    smtp: smtplib.SMTP, sender: str, recipient: str, options: list[str]
) -> tuple[int, bytes]:
    """Send MAIL, RCPT and DATA in one write to a relay that offers PIPELINING (RFC 2920),
    and read MAIL's reply: with :func:`_pipelined_replies`, two round trips a mail instead
    of four."""
    if "SMTPUTF8" in options:
        smtp.command_encoding = "utf-8"
    tail = "".join(" " + option for option in options)
    # Encoded before anything is sent: an address SMTP cannot carry leaves nothing half-said.
    smtp.send(f"MAIL FROM:{smtplib.quoteaddr(sender)}{tail}\r\n"
              f"RCPT TO:{smtplib.quoteaddr(recipient)}\r\nDATA\r\n")
    return smtp.getreply()


def _pipelined_replies(smtp: smtplib.SMTP, recipient: str) -> tuple[int, bytes]:
    """After MAIL was taken: read the replies to the pipelined RCPT and DATA; DATA's is
    returned. A refused recipient raises as smtplib's rcpt() would, after the reply to DATA
    was read (so that RSET finds the connection in step)."""
    code, text = smtp.getreply()
    if code not in (250, 251):
        if code != 421:
            _end_refused_data(smtp)
        raise smtplib.SMTPRecipientsRefused({recipient: (code, text)})
    return smtp.getreply()


def _with_dots_doubled(raw: bytes) -> bytes:
    """The message as DATA sends it: each line that starts with a dot gets another
    (RFC 5321 4.5.2), and it ends with a line break. The same bytes as smtplib's data()
    sends, found by plain replacing rather than a regular expression (a board mail: about 20
    against 140 microseconds)."""
    message = raw.replace(b"\n.", b"\n..")
    if message.startswith(b"."):
        message = b"." + message
    return message if message.endswith(b"\r\n") else message + b"\r\n"


def _end_refused_data(smtp: smtplib.SMTP) -> None:
    """Read the reply to a pipelined DATA after its sender or recipient was refused; a
    relay that answers 354 all the same is sent an empty message's end (RFC 2920 3.1),
    which it refuses for want of a recipient."""
    if smtp.getreply()[0] == 354:
        smtp.send(b".\r\n")
        smtp.getreply()


def _ascii_headers(raw: bytes) -> bool:
    """Whether the header block of the mail ``raw`` is ASCII (the body may be 8-bit)."""
    if raw.isascii():
        return True
    end = raw.find(b"\r\n\r\n")
    return raw[: end if end >= 0 else len(raw)].isascii()


def _reply_code(exc: BaseException) -> int | None:
    """The relay's reply code in a refused MAIL/RCPT/DATA, None for anything else."""
    if isinstance(exc, smtplib.SMTPResponseException):
        return exc.smtp_code
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return next(iter(exc.recipients.values()))[0]
    return None


def _closed_by_relay(exc: BaseException) -> bool:
    """A 421 (closing), a disconnect or a broken pipe: what an idle connection the relay
    has closed answers to a command."""
    code = _reply_code(exc)
    if code is not None:
        return code == 421
    # SMTPServerDisconnected (smtplib's word for EOF, reset, broken pipe) or another
    # socket error; the other SMTPExceptions are no sign of a closed connection.
    return isinstance(exc, smtplib.SMTPServerDisconnected) or (
        isinstance(exc, OSError) and not isinstance(exc, smtplib.SMTPException)
    )


MAILDIR_SUBFOLDERS = ("new", "cur", "tmp")


def _describe(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {text}"


class MaildirTransport:
    """Delivery into a local maildir (the default: a new user sees replies with no mail setup).
    The maildir and any of its subfolders ``new``, ``cur``, ``tmp`` that are missing (a
    folder made by hand) are made (0700) before each mail. A mail is on the disk, its file
    and its name in ``new``, before it counts as delivered (and is marked sent)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def deliver(self, sender: str, recipient: str, raw: bytes) -> None:
        try:
            for sub in MAILDIR_SUBFOLDERS:
                (self.path / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
            box = mailbox.Maildir(self.path, create=False)
            box.add(raw.replace(b"\r\n", b"\n"))
            # mailbox syncs the file in tmp/ before it links it into new/: that name is
            # synced here.
            _on_disk(self.path / "new")
        except OSError as exc:
            raise DeliveryError(f"maildir {self.path}: {exc}", permanent=False) from exc

    def close_if_idle(self, now: float) -> float | None:
        return None  # nothing is kept open

    def close(self) -> None:
        pass


def _on_disk(path: Path) -> None:
    """Wait until what ``path`` holds (a folder: its entries) is on the disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def transport_for(
    outbound: str,
    local_hostname: str,
    *,
    password_file: Path | None = None,
    ca_file: Path | None = None,
) -> Transport:
    """The transport for ``maildir:PATH`` or an SMTP URL (see :func:`outbound_server`),
    with the login's ``password_file`` and the private CA's ``ca_file``."""
    if outbound.startswith("maildir:"):
        return MaildirTransport(Path(outbound[len("maildir:") :]).expanduser())
    server = outbound_server(outbound)
    if server.user is not None and password_file is None:
        raise ValueError(f"outbound logs in as {server.user!r}: set "
                         "PBM_EMERGO_OUTBOUND_PASSWORD_FILE to a file holding its password")
    return SMTPTransport(
        server.host, server.port, local_hostname, security=server.security,
        user=server.user, password_file=password_file, ca_file=ca_file,
    )


@dataclass(frozen=True)
class Backoff:
    """Delay before the next attempt after n failed ones: base * 2**(n-1), capped."""

    base: timedelta = outbox.DEFAULT_BASE_DELAY
    cap: timedelta = outbox.DEFAULT_MAX_DELAY

    def delay(self, attempts: int) -> timedelta:
        return outbox.retry_delay(attempts, self.base, self.cap)


# The status a delivery left a reply in -> its ``result`` in pbm_emergo_replies_total.
_RESULTS = {"sent": "sent", "pending": "retried", "failed": "failed", "dead": "dead"}


@dataclass(frozen=True)
class _Outcome:
    """What became of one claimed mail, to be recorded: sent (``error`` None) or not."""

    message: ClaimedOutbound
    error: str | None = None
    permanent: bool = False
    retry_now: bool = False  # not tried (shutdown): due again at once, no backoff


class OutboxSender:
    """Claims due outbound mail, delivers it, records the outcome.

    Per batch: one transaction claims it, the transport delivers each mail, one transaction
    records every outcome (sooner when delivering takes longer than ``record_within``
    seconds, so that a slow relay does not keep many accepted mails unrecorded). A mail is
    marked sent only in a transaction after the relay accepted it; if the process dies in
    between, the claim goes stale and the mail is sent again: twice perhaps, never lost.

    Belongs to one thread, like its transport; :meth:`run_once` closes the transport's
    connection when nothing is due and it has been idle (or when ``stop`` is set), and
    :meth:`close` closes it (call it when the sending loop ends).
    """

    def __init__(
        self,
        session_factory: SessionFactory,
        transport: Transport,
        envelope_sender: str,
        *,
        backoff: Backoff | None = None,
        clock: Callable[[], datetime] = utcnow,
        record_within: float = RECORD_WITHIN,
    ) -> None:
        self.session_factory = session_factory
        self.reads = read_sessions(session_factory)
        self.transport = transport
        self.envelope_sender = envelope_sender
        self.backoff = backoff or Backoff()
        self.clock = clock
        self.record_within = record_within
        self._idle_left: float | None = None  # seconds until the transport's idle close
        # Outcomes not recorded yet because the database could not be written: recorded
        # first thing next time (else the mails, delivered, would be sent again after the
        # lease).
        self._unrecorded: list[_Outcome] = []
        # Mails claimed but not read yet (the read failed: the database went away): they are
        # ours, and read first thing next time rather than left waiting for the lease.
        self._unread: list[int] = []
        # Whether the last claim took a whole batch: then there is most likely more.
        self._full_last_time = False

    def run_once(self, stop: StopFlag | None = None) -> int:
        """Deliver one batch of due mail; returns how many were attempted."""
        if self._unrecorded:
            waiting, self._unrecorded = self._unrecorded, []
            self._record(waiting)  # raises (and keeps them) while the database cannot write
            log.info("recorded the outcome of %d deliveries made earlier", len(waiting))
        now = self.clock()
        claimed: list[ClaimedOutbound] = []
        ids = self._unread or self._claim(now)
        if ids:
            self._unread = ids
            # Read after the claim committed, not while holding the write lock.
            with self.reads() as session:
                claimed = outbox.outbound_by_ids(session, ids)
            self._unread = []
        if not claimed:
            self._idle_left = self.transport.close_if_idle(time.monotonic())
        else:
            self._idle_left = None
            self._send_batch(claimed, stop)
        if stop is not None and stop.is_set():
            self.close()
        return len(claimed)

    def _claim(self, now: datetime) -> list[int]:
        """Claim a batch of due mail; their ids."""
        # Look first without the write lock: an idle sender must not take it. (Right after
        # a whole batch there is most likely more: then claim at once.)
        if not self._full_last_time:
            with self.reads() as session:
                if not outbox.outbound_due(session, now):
                    return []
        # The claim names this thread (worker_name), not the writes thread that makes it.
        ids = self._take(worker_name(), now)
        self._full_last_time = len(ids) == outbox.OUTBOUND_BATCH
        return ids

    @write_turn
    def _take(self, worker: str, now: datetime) -> list[int]:
        # One statement (on PostgreSQL its own transaction: one round trip).
        with one_statement(self.session_factory.kw["bind"]) as connection:
            return outbox.claim_due_outbound_ids(
                connection, worker, now, limit=outbox.OUTBOUND_BATCH
            )

    def close(self) -> None:
        """Close the transport's connection (when the sender stops)."""
        self._idle_left = None
        self.transport.close()

    def _send_batch(self, claimed: Sequence[ClaimedOutbound], stop: StopFlag | None) -> None:
        outcomes: list[_Outcome] = []
        since = time.monotonic()
        for index, message in enumerate(claimed):
            if stop is not None and stop.is_set():
                # Put back what we did not try, so that nothing waits for the lease.
                outcomes.extend(
                    _Outcome(rest, "not tried: shutting down", retry_now=True)
                    for rest in claimed[index:]
                )
                break
            try:
                outcomes.append(self._deliver(message))
            except BaseException as exc:
                # Not a DeliveryError (a bug, an interrupt): record what was delivered and
                # put the rest back; this one may have been accepted, and is sent again.
                outcomes.append(_Outcome(message, f"{type(exc).__name__}: {exc}"))
                outcomes.extend(
                    _Outcome(rest, "not tried: the sender stopped", retry_now=True)
                    for rest in claimed[index + 1 :]
                )
                self._record(outcomes)
                raise
            if time.monotonic() - since >= self.record_within:
                self._record(outcomes)
                outcomes, since = [], time.monotonic()
        self._record(outcomes)

    def _deliver(self, message: ClaimedOutbound) -> _Outcome:
        try:
            self.transport.deliver(self.envelope_sender, message.recipient, message.raw)
        except DeliveryError as exc:
            return _Outcome(message, str(exc), permanent=exc.permanent)
        return _Outcome(message)

    def _record(self, outcomes: Sequence[_Outcome]) -> None:
        """Record the outcomes of deliveries in one transaction (kept for the next
        :meth:`run_once` if that fails)."""
        if not outcomes:
            return
        try:
            statuses = self._store_outcomes(outcomes)
        except BaseException:
            self._unrecorded.extend(outcomes)
            raise
        self._count_and_log(outcomes, statuses)

    @write_turn
    def _store_outcomes(self, outcomes: Sequence[_Outcome]) -> list[str | None]:
        """Each mail's status now, None for a mail whose claim was taken over meanwhile."""
        with self.session_factory.begin() as session:
            now = self.clock()
            sent = outbox.mark_outbound_sent_many(
                session, [o.message for o in outcomes if o.error is None], now
            )
            statuses: list[str | None] = []
            for outcome in outcomes:
                if outcome.error is None:
                    statuses.append(OUTBOUND_SENT if outcome.message.id in sent else None)
                else:
                    statuses.append(outbox.mark_outbound_failed(
                        session, outcome.message, outcome.error, now,
                        permanent=outcome.permanent,
                        base_delay=timedelta(0) if outcome.retry_now else self.backoff.base,
                        max_delay=self.backoff.cap,
                    ))
        return statuses

    def _count_and_log(
        self, outcomes: Sequence[_Outcome], statuses: Sequence[str | None]
    ) -> None:
        replies = metrics.get().replies
        for outcome, status in zip(outcomes, statuses, strict=True):
            message = outcome.message
            if status is not None and not outcome.retry_now:
                replies.labels(_RESULTS.get(status, status)).inc()
            if status is None:
                log.warning("outbound %d to %s: our claim had expired (%s)", message.id,
                            message.recipient, outcome.error or "delivered")
            elif outcome.error is None:
                log.info("outbound %d delivered to %s", message.id, message.recipient)
            elif not outcome.retry_now:
                log.warning("outbound %d to %s: %s (now %s)", message.id, message.recipient,
                            outcome.error, status)

    def seconds_until_due(self, maximum: float) -> float:
        """How long the sender may sleep before something is due (at most ``maximum``, and
        no longer than until the transport's connection is to be closed for idleness)."""
        with self.reads() as session:
            due = outbox.next_outbound_due(session)
        if self._idle_left is not None:
            maximum = min(maximum, self._idle_left + 0.01)
        if due is None:
            return maximum
        return max(0.0, min(maximum, (due - self.clock()).total_seconds()))
