"""``pbm-emergo check``: whether a configuration works, part by part, before (or while) the
server runs on it: the database, the way mail comes in, the way replies go out, the web
view's address, and the privacy of the data folder. Each finding says what was tried and,
for a problem, the setting (or the step) that fixes it. Nothing is created or changed: a
missing SQLite database is reported, not made; a login is tried once.
"""

from __future__ import annotations

import errno
import socket
import ssl
import stat
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pbm_emergo.config import Config, outbound_server
from pbm_emergo.mail.imap import (
    LoginRefused,
    close_mailbox,
    inbox_server,
    open_mailbox,
    select_folder,
)
from pbm_emergo.mail.outbound import MAILDIR_SUBFOLDERS, DeliveryError, SMTPTransport

TIMEOUT = 10.0  # seconds for each connection a check makes


@dataclass(frozen=True)
class Finding:
    """One part checked: ``problem`` False when it works; ``fix`` the setting or step that
    puts a problem right."""

    part: str
    detail: str
    problem: bool = False
    fix: str | None = None


def _ok(part: str, detail: str) -> Finding:
    return Finding(part, detail)


def _problem(part: str, detail: str, fix: str) -> Finding:
    return Finding(part, detail, problem=True, fix=fix)


# --- the database ------------------------------------------------------------------------


def check_database(config: Config) -> Finding:
    """Reachable and migrated to the newest schema."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from pbm_emergo.db.session import create_engine_for, current_revision, head_revision

    url = config.effective_database_url
    shown = make_url(url).render_as_string(hide_password=True)
    if config.is_embedded_database:
        path = Path(url.removeprefix("sqlite:///"))
        if not path.exists():
            return _problem("database", f"there is no database at {path}",
                            "run `pbm-emergo db upgrade` to make it, or set data_dir "
                            "(PBM_EMERGO_DATA_DIR) or database_url (PBM_EMERGO_DATABASE_URL) "
                            "to where the server's database is")
    engine = create_engine_for(url)
    try:
        revision = current_revision(engine)
    except SQLAlchemyError as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:300]
        return _problem("database", f"{shown} cannot be reached: {reason}",
                        "database_url (PBM_EMERGO_DATABASE_URL): the host, the port, the "
                        "role and its password, the database's name")
    finally:
        engine.dispose()
    head = head_revision()
    if revision != head:
        return _problem("database", f"{shown} is at schema revision {revision or '(empty)'}, "
                        f"not {head}", "run `pbm-emergo db upgrade`")
    return _ok("database", f"{shown}: reachable, at the newest schema ({head})")


# --- mail in -------------------------------------------------------------------------------


def check_intake(config: Config) -> list[Finding]:
    """The mailbox (login, TLS with the CA file, the folder) and/or the listener's port."""
    found: list[Finding] = []
    if config.inbox:
        found.append(check_mailbox(config))
    if not config.inbox or config.inbox_with_listener == "yes":
        found.append(check_listener(config))
    return found


def check_mailbox(config: Config) -> Finding:
    assert config.inbox is not None
    try:
        server = inbox_server(config.inbox)
    except ValueError as exc:
        return _problem("intake", str(exc), "inbox (PBM_EMERGO_INBOX)")
    where = server.url
    if config.inbox_password_file is None:
        return _problem("intake", f"{where}: no password file",
                        "inbox_password_file (PBM_EMERGO_INBOX_PASSWORD_FILE)")
    if config.inbox_ca_file is not None and not config.inbox_ca_file.is_file():
        return _problem("intake", f"{where}: the CA file {config.inbox_ca_file} does not exist",
                        "inbox_ca_file (PBM_EMERGO_INBOX_CA_FILE): the PEM file of the CA "
                        "that signed the mailbox server's certificate")
    try:
        imap = open_mailbox(server, config.inbox_password_file, config.inbox_ca_file, TIMEOUT)
    except ssl.SSLCertVerificationError as exc:
        return _problem("intake", f"{where}: its certificate could not be verified "
                        f"({exc.verify_message})",
                        "inbox_ca_file (PBM_EMERGO_INBOX_CA_FILE), where a private CA signed "
                        "it; else the host name in inbox (PBM_EMERGO_INBOX)")
    except LoginRefused as exc:
        return _problem("intake", f"{where}: {exc}",
                        f"the password on the first line of {config.inbox_password_file} "
                        "(inbox_password_file, PBM_EMERGO_INBOX_PASSWORD_FILE), or the user "
                        "in inbox (PBM_EMERGO_INBOX)")
    except (OSError, ValueError, UnicodeError) as exc:
        if isinstance(exc, OSError) and exc.filename is not None:
            return _problem("intake", f"{where}: {exc}",
                            "inbox_password_file (PBM_EMERGO_INBOX_PASSWORD_FILE)")
        return _problem("intake", f"{where}: {type(exc).__name__}: {exc}",
                        "inbox (PBM_EMERGO_INBOX): the host, the port, imaps:// (993) or "
                        "imap:// with STARTTLS (143)")
    except Exception as exc:  # noqa: BLE001 - imaplib's errors: the server said no
        return _problem("intake", f"{where}: {type(exc).__name__}: {exc}",
                        "inbox (PBM_EMERGO_INBOX)")
    try:
        select_folder(imap, server.folder)
    except Exception as exc:  # noqa: BLE001 - imaplib's errors
        return _problem("intake", f"{where}: the folder {server.folder} cannot be read ({exc})",
                        "the folder in inbox (PBM_EMERGO_INBOX)")
    finally:
        close_mailbox(imap)
    return _ok("intake", f"{where}: logged in over TLS, the folder {server.folder} read")


def check_listener(config: Config) -> Finding:
    """The listener's address: answered (a server runs there), or free to listen on."""
    host, port = config.smtp_host, config.smtp_port
    where = f"{host}:{port} ({config.listen_protocol.upper()})"
    try:
        with socket.create_connection((host, port), timeout=TIMEOUT) as conn:
            conn.settimeout(TIMEOUT)
            greeting = conn.recv(512).decode("ascii", "replace").strip()
    except OSError:
        greeting = None
    if greeting is not None:
        if greeting.startswith("220"):
            return _ok("intake", f"{where}: a server answers: {greeting[:80]}")
        return _problem("intake", f"{where}: something that is no mail server listens there "
                        f"({greeting[:60]!r})", "smtp_host and smtp_port (PBM_EMERGO_SMTP_HOST, "
                        "PBM_EMERGO_SMTP_PORT), and the MTA's transport to them")
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((host, port))
    except OSError as exc:
        why = {errno.EADDRINUSE: "in use by another program",
               errno.EADDRNOTAVAIL: "not an address of this machine",
               errno.EACCES: "a port below 1024, which needs privileges"}.get(
                   exc.errno or 0, str(exc))
        return _problem("intake", f"{where}: cannot listen there: {why}",
                        "smtp_host and smtp_port (PBM_EMERGO_SMTP_HOST, PBM_EMERGO_SMTP_PORT)")
    return _ok("intake", f"{where}: free, `serve` can listen there (no server runs now)")


# --- mail out ------------------------------------------------------------------------------


def check_outbound(config: Config) -> Finding:
    outbound = config.effective_outbound
    if outbound.startswith("maildir:"):
        return check_maildir(Path(outbound.removeprefix("maildir:")).expanduser())
    try:
        server = outbound_server(outbound)
    except ValueError as exc:
        return _problem("outbound", str(exc), "outbound (PBM_EMERGO_OUTBOUND)")
    where = f"{server.host}:{server.port}"
    if config.outbound_ca_file is not None and not config.outbound_ca_file.is_file():
        return _problem("outbound", f"{where}: the CA file {config.outbound_ca_file} does not "
                        "exist", "outbound_ca_file (PBM_EMERGO_OUTBOUND_CA_FILE)")
    transport = SMTPTransport(server.host, server.port, config.domain,
                              security=server.security, user=server.user,
                              password_file=config.outbound_password_file,
                              ca_file=config.outbound_ca_file, timeout=TIMEOUT)
    try:
        transport.try_connection()
    except DeliveryError as exc:
        text = str(exc)
        if "could not be verified" in text:
            fix = "outbound_ca_file (PBM_EMERGO_OUTBOUND_CA_FILE), where a private CA signed it"
        elif "password" in text or "login" in text:
            fix = ("the password on the first line of the file outbound_password_file "
                   "(PBM_EMERGO_OUTBOUND_PASSWORD_FILE), or the user in outbound "
                   "(PBM_EMERGO_OUTBOUND)")
        else:
            fix = ("outbound (PBM_EMERGO_OUTBOUND): the host, the port, smtp:// for a relay, "
                   "smtp+starttls:// (587) or smtps:// (465) for submission")
        return _problem("outbound", text, fix)
    how = {"plain": "a relay, no login", "starttls": "STARTTLS and the login",
           "tls": "TLS and the login"}[server.security]
    return _ok("outbound", f"{where}: connected ({how})")


def check_maildir(path: Path) -> Finding:
    """A maildir with its three subfolders, or one the first reply makes."""
    if not path.exists():
        parent = next((p for p in path.parents if p.exists()), None)
        if parent is not None and _writable(parent):
            return _ok("outbound", f"maildir {path}: made at the first reply")
        return _problem("outbound", f"maildir {path} does not exist and cannot be made",
                        "outbound (PBM_EMERGO_OUTBOUND=maildir:PATH) or data_dir "
                        "(PBM_EMERGO_DATA_DIR)")
    missing = [sub for sub in MAILDIR_SUBFOLDERS if not (path / sub).is_dir()]
    if missing:
        return _problem("outbound", f"maildir {path} has no {', '.join(missing)} folder: it is "
                        "no maildir for a mail reader",
                        f"mkdir -m 700 {' '.join(str(path / sub) for sub in missing)} (`serve` "
                        "also makes them at its next reply), or outbound "
                        "(PBM_EMERGO_OUTBOUND=maildir:PATH)")
    if not all(_writable(path / sub) for sub in MAILDIR_SUBFOLDERS):
        return _problem("outbound", f"maildir {path} cannot be written by this user",
                        "run as the server's user, or outbound (PBM_EMERGO_OUTBOUND)")
    return _ok("outbound", f"maildir {path}: new, cur and tmp there")


def _writable(path: Path) -> bool:
    import os

    return os.access(path, os.W_OK | os.X_OK)


# --- the web view --------------------------------------------------------------------------


def check_web(config: Config) -> Finding:
    if not config.web_url:
        return _ok("web", "web_url not set: board mails carry no link to the web view")
    url = config.web_url
    if not url.startswith(("http://", "https://")):
        return _problem("web", f"web_url {url!r} is not an http:// or https:// address",
                        "web_url (PBM_EMERGO_WEB_URL)")
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:  # noqa: S310 - http(s)
            status = answer.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return _problem("web", f"{url} cannot be reached: {reason}",
                        "web_url (PBM_EMERGO_WEB_URL), and the web view behind it: http_port "
                        "(PBM_EMERGO_HTTP_PORT) for `serve`, or `pbm-emergo web`, and the "
                        "proxy in front (deploy/nginx/)")
    if status >= 400:
        return _problem("web", f"{url} answers HTTP {status}",
                        "web_url (PBM_EMERGO_WEB_URL), and the proxy in front (deploy/nginx/)")
    return _ok("web", f"{url} answers (HTTP {status})")


# --- the data folder -----------------------------------------------------------------------


def check_data_folder(config: Config) -> Finding:
    """The data folder and what is in it: this user's, and no one else's to read."""
    import os

    folder = config.data_dir.resolve()
    if not folder.exists():
        return _ok("data folder", f"{folder}: made (0700) by `db upgrade` or `serve`")
    open_to_others = []
    for path in (folder, *sorted(folder.iterdir())):
        found = path.lstat()
        if found.st_uid != os.getuid():
            return _problem("data folder", f"{path} belongs to uid {found.st_uid}, not to this "
                            "user", "run check (and the server) as the user that owns the "
                            "data folder, or data_dir (PBM_EMERGO_DATA_DIR)")
        if found.st_mode & 0o077 and not stat.S_ISLNK(found.st_mode):
            open_to_others.append(f"{path} ({stat.filemode(found.st_mode)})")
    if open_to_others:
        return _problem("data folder", "others may read: " + ", ".join(open_to_others[:5]),
                        f"chmod -R go= {folder} (`serve` makes the folder itself private at "
                        "start)")
    return _ok("data folder", f"{folder}: this user's alone")


# --- all of it -----------------------------------------------------------------------------


def run_checks(config: Config) -> list[Finding]:
    """Every check, in the order a mail travels."""
    checks: list[Callable[[Config], Finding | list[Finding]]] = [
        check_database, check_intake, check_outbound, check_web, check_data_folder,
    ]
    found: list[Finding] = []
    for check in checks:
        result = check(config)
        found.extend(result if isinstance(result, list) else [result])
    return found


def format_finding(finding: Finding) -> str:
    mark = "PROBLEM" if finding.problem else "ok"
    line = f"{mark:<8}{finding.part:<12} {finding.detail}"
    if finding.fix:
        line += f"\n{'':<8}{'':<12} fix: {finding.fix}"
    return line


__all__ = ["Finding", "check_data_folder", "check_database", "check_intake", "check_listener",
           "check_mailbox", "check_maildir", "check_outbound", "check_web", "format_finding",
           "run_checks"]
