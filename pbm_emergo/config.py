"""Server configuration: defaults, then a TOML file, then the environment, then flags.

Every setting is readable from the environment as ``PBM_EMERGO_<NAME>``; a TOML file (given
with ``--config`` or ``PBM_EMERGO_CONFIG``, else :data:`DEFAULT_CONFIG_FILE` where it
exists) holds the same names in lower case, for example ``smtp_port = 2525``. Every command
(``serve``, ``worker``, ``web``, ``deliver``, ``admin``, ``check``, ``db``) reads them through
:func:`load_config`, in that order, so that an operator's shell and the systemd unit see the
same settings.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import smtplib
import ssl
import threading
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

log = logging.getLogger(__name__)

ENV_PREFIX = "PBM_EMERGO_"
# Whether the outbound relay delivers mail to non-ASCII addresses (SMTPUTF8, RFC 6531):
# "auto" asks the relay (its EHLO answer), "yes" and "no" say so without asking.
SMTPUTF8_SETTINGS = ("auto", "yes", "no")
# The SMTP listener's event loop: uvloop's (libuv, written in C) or the standard library's.
EVENT_LOOPS = ("uvloop", "asyncio")
# What the listener speaks on its socket: SMTP, or LMTP for an MTA that delivers by LMTP.
LISTEN_PROTOCOLS = ("smtp", "lmtp")
# The configuration file read when neither --config nor PBM_EMERGO_CONFIG names one: where
# the deploy recipes install it, so that `pbm-emergo admin` in a shell reads what the
# systemd unit's `serve` reads.
DEFAULT_CONFIG_FILE = Path("/etc/pbm-emergo/pbm-emergo.toml")


@dataclass(frozen=True)
class Config:
    """Everything the server reads from its environment."""

    data_dir: Path = Path("pbm-emergo-data")
    # None means the embedded default: a SQLite file in data_dir.
    database_url: str | None = None
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 2525
    # What the listening socket speaks, one of LISTEN_PROTOCOLS: "smtp", or "lmtp" (RFC
    # 2033) for an MTA in front that delivers by LMTP (see pbm_emergo.mail.inbound).
    listen_protocol: str = "smtp"
    address: str = "pbmserv@localhost"
    # "smtp://host:port" for a relay, "smtp+starttls://USER@host:port" or
    # "smtps://USER@host:port" for a submission server with a login (see outbound_server),
    # or "maildir:PATH"; None means a maildir in data_dir.
    outbound: str | None = None
    # The file holding the outbound login's password: read at each new connection (a fixed
    # password needs no restart), so that it is never on a command line or in a URL.
    outbound_password_file: Path | None = None
    # A PEM file of the CA that signed the outbound server's certificate (a private CA);
    # None: the system's trusted CAs.
    outbound_ca_file: Path | None = None
    # A mailbox to read the mail from instead of the SMTP listener:
    # "imaps://USER@host:port/FOLDER" or "imap://USER@host:port/FOLDER" (STARTTLS required),
    # the user percent-encoded (see pbm_emergo.mail.imap). None: the listener alone.
    inbox: str | None = None
    # The file holding the mailbox's password, read at each login; the CA of its
    # certificate where it is a private one (None: the system's trusted CAs).
    inbox_password_file: Path | None = None
    inbox_ca_file: Path | None = None
    # What becomes of a stored mail in the mailbox: "move" (to the folder
    # pbm-emergo/processed) or "delete".
    inbox_processed: str = "move"
    # "yes": the SMTP listener runs beside the mailbox reader; "no": the reader alone.
    inbox_with_listener: str = "no"
    # Days a mail stays in the folder pbm-emergo/processed (by the date the mailbox received
    # it) before the reader deletes it; 0: kept for good.
    inbox_processed_days: int = 30
    # How often the reader looks at a mailbox whose server has no IMAP IDLE.
    inbox_poll_seconds: float = 60.0
    reply_limit: int = 100  # replies to one address per hour
    # Mails to other people that one mail may cause, and one sender in an hour, when those
    # people did not ask for them: a challenge's first board mail, a message, a chat, a
    # confirmation code, a notice (see pbm_emergo.app.budget); and one account in an hour,
    # the mails its logged-in commands caused from whatever address (None: the same as
    # one sender's, see account_mails_to_others_per_hour).
    mails_to_others_per_mail: int = 5
    mails_to_others_per_hour: int = 30
    mails_to_others_per_account_hour: int | None = None
    max_message_size: int = 256 * 1024
    # Days a mail is kept as received (a dead letter) or as its redacted copy (a processed
    # mail) before its raw text is removed; its row (who, when, the masked command) stays.
    raw_retention_days: int = 30
    # Inbox worker processes (``serve``/``worker``); 0 means one for each CPU.
    workers: int = 0
    # Processes accepting SMTP on the listening socket (``serve``); 0 means one for each
    # CPU, at most 4. A listener is one Python process's work (the GIL): more of them use
    # more cores under a burst.
    listeners: int = 0
    # How much lower the CPU priority (``nice``) of the inbox workers, the outbox sender and
    # the robots is than the listener's: under a burst the listener, which a sending MTA is
    # waiting on, gets the CPU first. Their write transactions keep the listener's priority
    # (see db.session.lower_priority_but_not_writes). 0 keeps them all equal.
    worker_nice: int = 19
    # While SMTP clients are sending, the inbox workers and the outbox sender wait for the
    # listeners to fall quiet before their next mail, up to this many seconds at a stretch
    # and in the long run at most half as long as they work (see pbm_emergo.mail.activity).
    # 0: they never wait.
    listener_first_seconds: float = 2.0
    # The authserv-id of our own MTA's Authentication-Results headers (RFC 8601), for
    # example "mx.example.org": a mail whose From domain fails DMARC (else SPF) by that
    # header is not trusted for what relies on its address alone. None: not checked.
    authserv_id: str | None = None
    # The web view (``pbm-emergo web``, ``serve --http-port``): where it listens (port 0:
    # ``serve`` starts none) and its public base URL, which board mails link to if set.
    http_host: str = "127.0.0.1"
    http_port: int = 0
    web_url: str | None = None
    # Vacation days each player may take in a calendar year (``vacation userid pw DAYS``).
    vacation_days: int = 30
    # Wrong passwords checked (argon2) for one mail, and for one sender address in an hour:
    # past them a password is refused without being hashed (see pbm_emergo.app.lockout).
    password_failures_per_mail: int = 3
    password_failures_per_hour: int = 10
    # argon2id's cost for password hashes: memory (KiB), passes, lanes. OWASP's m=19 MiB,
    # t=2, p=1 (see docs/security.md); a stored hash made with other values is rehashed at
    # its player's next successful check.
    password_hash_memory_kib: int = 19_456
    password_hash_time_cost: int = 2
    password_hash_parallelism: int = 1
    # How long a worker process remembers a verified password (a keyed hash in memory, see
    # pbm_emergo.db.credentials); 0: every password is checked against its stored hash.
    credential_cache_seconds: float = 3600.0
    # "yes": the worker processes of this machine share that cache (in /dev/shm, see
    # pbm_emergo.db.credentials); "no": each process has its own.
    credential_cache_shared: str = "yes"
    # Active games against the robots one player may have at a time; a challenge beyond it
    # is refused (the robots play one board at a time; see pbm_emergo.app.robots). 0: none.
    robot_games_per_player: int = 10
    # The engine's analyses of finished games (emergo analyse; see pbm_emergo.app.analysis):
    # how many one player may ask for a day, and the search time a move and a game.
    analyses_per_day: int = 3
    analysis_seconds_per_move: float = 1.0
    analysis_seconds_per_game: float = 60.0
    # Prometheus metrics (``serve``/``worker --metrics-port``): where ``/metrics`` is served
    # (port 0: not served). The log format: "text" (details as key=value) or "json".
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 0
    log_format: str = "text"
    # Whether replies may go to non-ASCII addresses (jörg@bücher.example): "auto" (ask the
    # relay whether it takes SMTPUTF8; a maildir takes anything), "yes" or "no". See
    # :func:`relay_takes_smtputf8`.
    smtputf8: str = "auto"
    # The listener's event loop, one of EVENT_LOOPS (see pbm_emergo.mail.inbound).
    event_loop: str = "uvloop"
    # The web console at /admin (pbm_emergo.web.console): the file of its operators, made
    # by ``pbm-emergo admin console-user NAME``. None: no console.
    console_users_file: Path | None = None
    # How long a board mail to a robot's opponent waits for the robot's answer, in seconds:
    # an answer within it takes the mail's place, so a turn against a robot is one mail
    # (pbm_emergo.app.outbox). 0: every board mail goes at once.
    robot_reply_wait: float = 30.0

    def __post_init__(self) -> None:
        if self.smtputf8 not in SMTPUTF8_SETTINGS:
            raise ValueError(
                f"smtputf8 must be one of {', '.join(SMTPUTF8_SETTINGS)}, not {self.smtputf8!r}"
            )
        if not self.listener_first_seconds >= 0:  # also NaN
            raise ValueError(
                f"listener_first_seconds must be 0 or more, not {self.listener_first_seconds!r}"
            )
        if self.password_hash_parallelism < 1 or self.password_hash_time_cost < 1:
            raise ValueError("password_hash_time_cost and password_hash_parallelism must be "
                             "at least 1")
        if self.password_hash_memory_kib < 8 * self.password_hash_parallelism:
            raise ValueError("password_hash_memory_kib must be at least 8 KiB a lane "
                             "(password_hash_parallelism)")
        if self.inbox_processed_days < 0:
            raise ValueError("inbox_processed_days must be 0 (kept for good) or more")
        if not self.credential_cache_seconds >= 0:
            raise ValueError("credential_cache_seconds must be 0 or more")
        if not self.robot_reply_wait >= 0:
            raise ValueError("robot_reply_wait must be 0 or more")
        if self.listen_protocol not in LISTEN_PROTOCOLS:
            raise ValueError(f"listen_protocol must be one of {', '.join(LISTEN_PROTOCOLS)}, "
                             f"not {self.listen_protocol!r}")
        if self.event_loop not in EVENT_LOOPS:
            raise ValueError(
                f"event_loop must be one of {', '.join(EVENT_LOOPS)}, not {self.event_loop!r}"
            )
        for name, allowed in (("inbox_processed", ("move", "delete")),
                              ("inbox_with_listener", ("yes", "no")),
                              ("credential_cache_shared", ("yes", "no"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be {' or '.join(allowed)}, "
                                 f"not {getattr(self, name)!r}")
        if self.outbound and not self.outbound.startswith("maildir:"):
            server = outbound_server(self.outbound)  # refuses a password in the URL
            if server.user is not None and self.outbound_password_file is None:
                raise ValueError(
                    f"outbound logs in as {server.user!r}: set PBM_EMERGO_OUTBOUND_PASSWORD_FILE"
                    " to a file holding its password"
                )

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'pbm-emergo.sqlite3').resolve()}"

    @property
    def is_embedded_database(self) -> bool:
        return self.effective_database_url.startswith("sqlite")

    @property
    def effective_outbound(self) -> str:
        if self.outbound:
            return self.outbound
        return f"maildir:{(self.data_dir / 'outbox-maildir').resolve()}"

    @property
    def account_mails_to_others_per_hour(self) -> int:
        """The hourly budget of mails to others of one account."""
        if self.mails_to_others_per_account_hour is None:
            return self.mails_to_others_per_hour
        return self.mails_to_others_per_account_hour

    @property
    def worker_count(self) -> int:
        return self.workers if self.workers > 0 else max(1, os.cpu_count() or 1)

    @property
    def listener_count(self) -> int:
        return self.listeners if self.listeners > 0 else max(1, min(4, os.cpu_count() or 1))

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"


_FIELDS = {f.name: f for f in dataclasses.fields(Config) }


# --- what the relay can deliver ------------------------------------------------------------

RELAY_ANSWER_SECONDS = 3600.0  # a relay's answer is asked again after an hour
RELAY_UNKNOWN_SECONDS = 60.0  # a relay that could not be asked is asked again after a minute
RELAY_PROBE_TIMEOUT = 10.0


# The outbound URL schemes: how the connection is secured, and the default port.
OUTBOUND_SCHEMES = {
    "smtp": ("plain", 25),  # a relay of our own: no TLS, no login
    "smtp+starttls": ("starttls", 587),  # submission: STARTTLS required, then the login
    "smtps": ("tls", 465),  # submission over implicit TLS
}


@dataclass(frozen=True)
class OutboundServer:
    """Where replies go over SMTP: ``security`` is "plain", "starttls" or "tls"; ``user``
    the login (None: none)."""

    security: str
    host: str
    port: int
    user: str | None = None


def outbound_server(outbound: str) -> OutboundServer:
    """The server of an SMTP outbound URL (``smtp://host:port``,
    ``smtp+starttls://USER@host:port``, ``smtps://USER@host:port``, the user
    percent-encoded). Raises ValueError for anything else, and for a URL holding a password
    (the message never repeats the URL, which may hold one)."""
    parts = urlsplit(outbound)
    scheme = OUTBOUND_SCHEMES.get(parts.scheme)
    if scheme is None or not parts.hostname:
        raise ValueError(
            "outbound must be smtp://host:port, smtp+starttls://USER@host:port, "
            f"smtps://USER@host:port or maildir:PATH (the scheme given: {parts.scheme!r})"
        )
    if parts.password is not None:
        raise ValueError(
            "outbound must not hold a password (a URL shows in logs and in ps): put it in a "
            "file and name that file in PBM_EMERGO_OUTBOUND_PASSWORD_FILE"
        )
    security, default_port = scheme
    user = unquote(parts.username) if parts.username else None
    if user is not None and security == "plain":
        raise ValueError(
            "outbound smtp:// does not log in (the password would cross the network in "
            "clear): use smtp+starttls://USER@host:587 or smtps://USER@host:465"
        )
    try:
        port = parts.port or default_port
    except ValueError:
        raise ValueError("outbound has a port that is not a number") from None
    return OutboundServer(security, parts.hostname, port, user)


def outbound_tls_context(ca_file: Path | None) -> ssl.SSLContext:
    """TLS for the outbound server: its certificate verified against the system's CAs, or
    against ``ca_file`` alone (a private CA), and its name checked."""
    return ssl.create_default_context(cafile=str(ca_file) if ca_file is not None else None)


def ask_relay_smtputf8(
    host: str, port: int, local_hostname: str, *, security: str = "plain",
    ca_file: Path | None = None,
) -> bool | None:
    """Connect, EHLO (after TLS where the server is a submission server), QUIT: whether the
    relay offers SMTPUTF8 (None: it could not be asked). No login: EHLO tells."""
    try:
        smtp: smtplib.SMTP
        if security == "tls":
            smtp = smtplib.SMTP_SSL(host, port, local_hostname=local_hostname,
                                    timeout=RELAY_PROBE_TIMEOUT,
                                    context=outbound_tls_context(ca_file))
        else:
            smtp = smtplib.SMTP(host, port, local_hostname=local_hostname,
                                timeout=RELAY_PROBE_TIMEOUT)
        with smtp:
            smtp.ehlo()
            if security == "starttls":
                smtp.starttls(context=outbound_tls_context(ca_file))
                smtp.ehlo()
            return smtp.has_extn("smtputf8")
    except (smtplib.SMTPException, OSError) as exc:
        log.warning("could not ask the relay %s:%d whether it takes SMTPUTF8: %s",
                    host, port, exc)
        return None


@dataclass(frozen=True)
class _Answer:
    takes: bool | None
    ask_again: float  # time.monotonic() after which the relay is asked again


class RelayAnswers:
    """What each relay said about SMTPUTF8 (per process), so that it is asked rarely: again
    after an hour, or after a minute when it could not be asked. A relay that cannot be
    asked again keeps its last answer meanwhile; while one thread asks, the others have the
    last answer, or wait for this one if there is none yet."""

    def __init__(self, ask: Callable[[str, int, str], bool | None] = ask_relay_smtputf8) -> None:
        self.ask = ask
        self._cond = threading.Condition()
        self._answers: dict[tuple[str, int], _Answer] = {}
        self._asking: set[tuple[str, int]] = set()

    def takes_smtputf8(
        self, host: str, port: int, local_hostname: str,
        ask: Callable[[], bool | None] | None = None,
    ) -> bool | None:
        """The relay's answer; ``ask`` asks it in place of the default question."""
        key = (host, port)
        with self._cond:
            while True:
                known = self._answers.get(key)
                if known is not None and time.monotonic() < known.ask_again:
                    return known.takes
                if key not in self._asking:
                    break
                if known is not None:
                    return known.takes  # being asked again: the last answer meanwhile
                self._cond.wait()
            self._asking.add(key)
        takes: bool | None = None
        try:
            takes = ask() if ask is not None else self.ask(host, port, local_hostname)
        finally:
            with self._cond:
                self._asking.discard(key)
                fresh = takes is not None
                if not fresh and known is not None:
                    takes = known.takes
                self._remember(host, port, takes, fresh=fresh)
                self._cond.notify_all()
        return takes

    def remember(self, host: str, port: int, takes: bool) -> None:
        """What the relay said when connected to anyway (the outbox sender's EHLO)."""
        with self._cond:
            self._remember(host, port, takes, fresh=True)

    def _remember(self, host: str, port: int, takes: bool | None, *, fresh: bool) -> None:
        known = self._answers.get((host, port))
        if known is None or known.takes != takes:
            log.info("the relay %s:%d %s", host, port, {
                True: "takes SMTPUTF8: non-ASCII addresses are served",
                False: "does not take SMTPUTF8: non-ASCII addresses are refused",
                None: "could not be asked about SMTPUTF8 (asked again in a minute)",
            }[takes])
        wait = RELAY_ANSWER_SECONDS if fresh else RELAY_UNKNOWN_SECONDS
        self._answers[(host, port)] = _Answer(takes, time.monotonic() + wait)

    def forget(self) -> None:
        with self._cond:
            self._answers.clear()


RELAY_ANSWERS = RelayAnswers()


def relay_takes_smtputf8(config: Config) -> bool | None:
    """Whether replies can be delivered to non-ASCII addresses: True or False, None when
    ``smtputf8 = "auto"`` and the relay has not been reachable since this process started.

    ``yes``/``no`` are taken at their word. With ``auto`` a maildir (the default) takes any
    address, as it only writes files; an SMTP relay is asked once (connect, EHLO: does it
    offer SMTPUTF8?) and its answer kept for an hour (see :class:`RelayAnswers`), so the
    question is off the path of ordinary mail: only mail from or to a non-ASCII address
    asks it.
    """
    if config.smtputf8 != "auto":
        return config.smtputf8 == "yes"
    if config.effective_outbound.startswith("maildir:"):
        return True
    server = outbound_server(config.effective_outbound)
    if server.security == "plain":
        return RELAY_ANSWERS.takes_smtputf8(server.host, server.port, config.domain)
    return RELAY_ANSWERS.takes_smtputf8(
        server.host, server.port, config.domain,
        lambda: ask_relay_smtputf8(server.host, server.port, config.domain,
                                   security=server.security, ca_file=config.outbound_ca_file),
    )


def _coerce(name: str, value: Any) -> Any:
    kind = _FIELDS[name].type
    if value is None:
        return None
    if kind in ("int", int, "int | None"):
        return int(value)
    if kind in ("float", float):
        return float(value)
    if kind in ("Path", Path, "Path | None"):
        return Path(value)
    return str(value)


def load_config(
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    config_file: str | Path | None = None,
) -> Config:
    """Build the configuration: defaults < TOML file < environment < explicit overrides.

    ``overrides`` holds values given on the command line; ``None`` values are ignored.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    path = config_file_path(config_file, env)
    if path:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        for key, value in data.items():
            if key not in _FIELDS:
                raise ValueError(f"{path}: unknown setting {key!r}")
            values[key] = _coerce(key, value)
    for name in _FIELDS:
        raw = env.get(ENV_PREFIX + name.upper())
        if raw not in (None, ""):
            values[name] = _coerce(name, raw)
    for name, value in (overrides or {}).items():
        if value is not None:
            values[name] = _coerce(name, value)
    return Config(**values)


def config_file_path(
    config_file: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> Path | None:
    """The TOML file :func:`load_config` reads: ``config_file`` (``--config``), else
    ``PBM_EMERGO_CONFIG``, else :data:`DEFAULT_CONFIG_FILE` if it exists; None: none."""
    env = os.environ if environ is None else environ
    named = config_file or env.get(ENV_PREFIX + "CONFIG")
    if named:
        return Path(named)
    return DEFAULT_CONFIG_FILE if DEFAULT_CONFIG_FILE.exists() else None


# The data (password hashes, addresses, mail) is its owner's alone, whatever the umask: the
# data folder 0700, the database 0600 (and every pbm-emergo command runs with umask 077,
# pbm_emergo.cli.PRIVATE_UMASK).


def private_folder(path: Path) -> int | None:
    """Make ``path`` (and its missing parents) a folder only its owner may enter (0700),
    whatever the umask. A folder of this user's that was open to others is closed; its
    former mode is returned (None: it was private, or is new, or is someone else's, which is
    left as it is)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    found = path.stat()
    if found.st_uid != os.getuid() or not found.st_mode & 0o077:
        return None
    path.chmod(0o700)
    return found.st_mode & 0o777


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (then it is left as it is)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
