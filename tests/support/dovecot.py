"""A private Dovecot IMAP server on loopback for the tests: a configuration in a temporary
folder, one test user in a passwd-file, maildir storage there, TLS with a certificate made
with openssl (a CA of the test's, which the client trusts), implicit TLS and STARTTLS ports.

Needs the Debian package dovecot-imapd (.ci/run installs it); :func:`unavailable_reason`
says why it cannot run here. As root the mail is kept as the user nobody (Dovecot refuses
mail access as root); otherwise as the current user.
"""

from __future__ import annotations

import imaplib
import os
import pwd
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import BinaryIO

from tests.support.mail import free_port, wait_for
from tests.support.waits import scaled

USER = "games@example.org"
PASSWORD = "imap-Secret-7f3a9c"


def unavailable_reason() -> str | None:
    if shutil.which("dovecot") is None and not Path("/usr/sbin/dovecot").exists():
        return "dovecot is not installed (Debian: apt-get install dovecot-imapd)"
    if shutil.which("openssl") is None:
        return "openssl is not installed"
    return None


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


class Dovecot:
    """``dovecot -F -c CONFIG`` in ``folder``; :meth:`append` puts a mail in the mailbox."""

    def __init__(
        self, folder: Path | None = None, *, idle: bool = True, auth_listener: bool = False
    ) -> None:
        # A folder of its own under the system's temporary folder by default: Dovecot's
        # unprivileged processes must reach it, which pytest's private tmp_path forbids.
        self.own_folder = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="pbm-dovecot-")) if folder is None else folder
        self._stderr: BinaryIO | None = None
        self.idle = idle
        self.imaps_port = free_port()
        self.imap_port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.ca_file = self.folder / "ca.pem"
        self.password_file = self.folder / "imap-password"
        # With ``auth_listener``, Dovecot's auth service also answers on this socket: the
        # SASL login that Postfix's smtpd asks of it (smtpd_sasl_type = dovecot).
        self.auth_listener = auth_listener
        self.auth_socket = self.folder / "run" / "auth-postfix"
        self._write_config()

    def _write_config(self) -> None:
        folder = self.folder
        folder.chmod(0o755)
        for name in ("run", "state", "mail"):
            (folder / name).mkdir(exist_ok=True)
        _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                 "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                 "-subj", "/CN=test-imap-ca", "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=folder)
        (folder / "server.ext").write_text(
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
            "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        )
        _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1",
                 cwd=folder)
        _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile",
                 "server.ext", cwd=folder)
        self.password_file.write_text(PASSWORD + "\n")
        (folder / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}::::\n")
        if os.geteuid() == 0:
            mail_user = pwd.getpwnam("nobody")
            login_user, internal_user = "dovenull", "dovecot"
            os.chown(folder / "mail", mail_user.pw_uid, mail_user.pw_gid)
        else:
            mail_user = pwd.getpwuid(os.getuid())
            login_user = internal_user = mail_user.pw_name
        capability = ("" if self.idle else
                      "imap_capability = IMAP4rev1 LITERAL+ SASL-IR UIDPLUS MOVE NAMESPACE\n")
        auth_service = ("" if not self.auth_listener else
                        f"service auth {{\n  unix_listener {self.auth_socket} {{\n"
                        "    mode = 0666\n  }\n}\n")
        (folder / "dovecot.conf").write_text(f"""\
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = required
ssl_cert = <{folder}/server.pem
ssl_key = <{folder}/server.key
disable_plaintext_auth = yes
auth_mechanisms = plain
default_login_user = {login_user}
default_internal_user = {internal_user}
first_valid_uid = 1
mail_location = maildir:{folder}/mail/%u
{capability}passdb {{
  driver = passwd-file
  args = {folder}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user.pw_uid} gid={mail_user.pw_gid} home={folder}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.imaps_port}
    ssl = yes
  }}
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0666
  }}
  unix_listener stats-writer {{
    mode = 0666
  }}
}}
{auth_service}""")

    def url(self, *, starttls: bool = False, folder: str = "INBOX") -> str:
        user = USER.replace("@", "%40")
        if starttls:
            return f"imap://{user}@127.0.0.1:{self.imap_port}/{folder}"
        return f"imaps://{user}@127.0.0.1:{self.imaps_port}/{folder}"

    def start(self) -> None:
        self._stderr = (self.folder / "stderr.log").open("ab")
        self.process = subprocess.Popen(
            ["dovecot", "-F", "-c", str(self.folder / "dovecot.conf")],
            stdout=subprocess.DEVNULL, stderr=self._stderr,
        )
        wait_for(self._answers, timeout=30, interval=0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(scaled(30))
        self.process = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def remove(self) -> None:
        """Stop it and remove its folder (where it made that folder itself)."""
        self.stop()
        if self.own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def restart(self, down_seconds: float = 0.0) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()

    def _answers(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"dovecot exited: {self.log_text()[-2000:]}")
        try:
            self.connect().logout()
            return True
        except OSError:
            return False

    def log_text(self) -> str:
        return "".join(
            path.read_text(errors="replace")
            for path in (self.folder / "dovecot.log", self.folder / "stderr.log")
            if path.exists()
        )

    def connect(self) -> imaplib.IMAP4_SSL:
        context = ssl.create_default_context(cafile=str(self.ca_file))
        imap = imaplib.IMAP4_SSL("127.0.0.1", self.imaps_port, ssl_context=context, timeout=30)
        imap.login(USER, PASSWORD)
        return imap

    def append(self, msg: EmailMessage | bytes, folder: str = "INBOX") -> None:
        raw = msg if isinstance(msg, bytes) else msg.as_bytes(policy=policy.SMTP)
        imap = self.connect()
        try:
            typ, data = imap.append(folder, None, None, raw)
            assert typ == "OK", data
        finally:
            imap.logout()

    def count(self, folder: str) -> int:
        """How many mails ``folder`` holds (0 when it does not exist)."""
        imap = self.connect()
        try:
            typ, data = imap.select(f'"{folder}"', readonly=True)
            return int(data[0] or 0) if typ == "OK" else 0
        finally:
            imap.logout()
