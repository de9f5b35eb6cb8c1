"""A private Postfix instance for tests, on loopback only.

Everything lives in one temporary folder (configuration, queue, data, mailboxes, log);
the machine's own /etc/postfix is not touched and no outside address is ever used:

- smtpd listens on 127.0.0.1:``port`` only (``inet_interfaces``, ``inet_protocols``);
- mail for ``server_domain`` goes by a transport map to ``smtp:[127.0.0.1]:listener_port``
  (the brackets: no MX lookup), and DNS is switched off (``smtp_dns_support_level``);
- mail for ``mailboxes`` at ``mailbox_domain`` is delivered by virtual(8) into Maildirs
  under mail/;
- anything else is refused at RCPT, and the default transport is ``error:``.

Needs the Debian package postfix and root (Postfix's master runs as root and drops to the
``postfix`` user). The same settings, for a real installation, are in deploy/postfix/.
"""

from __future__ import annotations

import contextlib
import mailbox
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbm_emergo.config import Config
from pbm_emergo.db.session import dispose_engines, get_sessionmaker, upgrade_to_head
from pbm_emergo.mail.outbound import Backoff
from pbm_emergo.ops.server import MailServer
from tests.support.mail import make_config

POSTFIX = shutil.which("postfix") or "/usr/sbin/postfix"
POSTCONF = shutil.which("postconf") or "/usr/sbin/postconf"


def unavailable_reason() -> str | None:
    """Why a private Postfix cannot run here, or None when it can."""
    if not Path(POSTFIX).exists():
        return "Postfix is not installed (Debian package postfix)"
    if os.geteuid() != 0:
        return "a private Postfix instance needs root (its master process runs as root)"
    try:
        pwd.getpwnam("postfix")
    except KeyError:
        return "there is no postfix user (install the Debian package postfix)"
    return None


class PostfixInstance:
    def __init__(
        self,
        *,
        port: int,
        listener_port: int,
        server_domain: str,
        mailbox_domain: str,
        mailboxes: tuple[str, ...],
        submission_port: int | None = None,
        tls_files: tuple[Path, Path] | None = None,
        sasl_path: Path | None = None,
    ) -> None:
        self.port = port
        # A submission listener on ``submission_port``: STARTTLS required with the
        # certificate and key ``tls_files``, a SASL login through Dovecot's auth socket
        # ``sasl_path``, and nothing accepted from a client that has not logged in.
        self.submission_port = submission_port
        self.tls_files = tls_files
        self.sasl_path = sasl_path
        self.listener_port = listener_port
        self.server_domain = server_domain
        self.mailbox_domain = mailbox_domain
        self.mailboxes = mailboxes
        self.root = Path(tempfile.mkdtemp(prefix="pbm-emergo-postfix-"))
        self.conf = self.root / "conf"
        self.mail = self.root / "mail"
        self.log = self.root / "maillog"

    def _postconf(self, *args: str) -> None:
        subprocess.run([POSTCONF, "-c", str(self.conf), *args], check=True,
                       capture_output=True, timeout=60)

    def _postfix(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([POSTFIX, "-c", str(self.conf), *args], check=False,
                              capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        # The postfix user must reach the queue, the nobody user the mailboxes.
        self.root.chmod(0o755)
        self.conf.mkdir()
        (self.root / "queue").mkdir()
        data = self.root / "data"
        data.mkdir()
        shutil.chown(data, user="postfix")
        shutil.copy("/etc/postfix/master.cf.proto" if Path("/etc/postfix/master.cf.proto")
                    .exists() else "/etc/postfix/master.cf", self.conf / "master.cf")
        (self.conf / "main.cf").write_text("")
        nobody = pwd.getpwnam("nobody")
        self.mail.mkdir()
        os.chown(self.mail, nobody.pw_uid, nobody.pw_gid)
        settings = {
            "compatibility_level": "3.6",
            "queue_directory": str(self.root / "queue"),
            "data_directory": str(self.root / "data"),
            "maillog_file": str(self.log),
            "maillog_file_prefixes": str(self.root),
            "myhostname": f"mx.{self.mailbox_domain}",
            "mydomain": self.mailbox_domain,
            "myorigin": self.mailbox_domain,
            "mydestination": "",
            "inet_interfaces": "127.0.0.1",
            "inet_protocols": "ipv4",
            "mynetworks": "127.0.0.0/8",
            # Only our two test domains are accepted, whoever connects; nothing else is ever
            # sent anywhere (the error transport instead of a DNS lookup and a connection).
            "smtpd_relay_restrictions": "reject_unauth_destination",
            "default_transport": "error:this test Postfix sends nowhere else",
            "relay_transport": "error:this test Postfix sends nowhere else",
            "relay_domains": self.server_domain,
            "transport_maps": f"texthash:{self.conf / 'transport'}",
            "smtp_dns_support_level": "disabled",
            "smtp_host_lookup": "native",
            "virtual_mailbox_domains": self.mailbox_domain,
            "virtual_mailbox_base": str(self.mail),
            # Each mailbox a Maildir (the trailing slash) under mail/.
            "virtual_mailbox_maps": f"texthash:{self.conf / 'mailboxes'}",
            "virtual_uid_maps": f"static:{nobody.pw_uid}",
            "virtual_gid_maps": f"static:{nobody.pw_gid}",
            "alias_maps": "",
            "alias_database": "",
            "local_recipient_maps": "",
            "biff": "no",
            # Retry quickly in tests (the listener may start after Postfix).
            "queue_run_delay": "2s",
            "minimal_backoff_time": "2s",
            "maximal_backoff_time": "4s",
            "smtp_connect_timeout": "5s",
        }
        (self.conf / "transport").write_text(
            f"{self.server_domain} smtp:[127.0.0.1]:{self.listener_port}\n"
        )
        (self.conf / "mailboxes").write_text(
            "".join(f"{name}@{self.mailbox_domain} {name}/\n" for name in self.mailboxes)
        )
        self._postconf("-e", *(f"{k}={v}" for k, v in settings.items()))
        # No chroot (it would need copies of /etc files); smtpd on our loopback port only.
        self._postconf("-F", "*/*/chroot = n")
        self._postconf("-M#", "smtp/inet")
        self._postconf("-M", f"127.0.0.1:{self.port}/inet = 127.0.0.1:{self.port} inet n - n - "
                             "- smtpd")
        self._postconf("-M", "postlog/unix-dgram = postlog unix-dgram n - n - 1 postlogd")
        if self.submission_port is not None:
            self._add_submission(self.submission_port)
        # Postfix's commands wait about 2 s when a configuration file changed a moment ago:
        # these were written just now, by us alone.
        an_hour_ago = time.time() - 3600
        for written in self.conf.iterdir():
            os.utime(written, (an_hour_ago, an_hour_ago))
        # "check" creates the queue's subfolders with the right owners.
        result = self._postfix("check")
        if result.returncode == 0:
            result = self._postfix("start")
        if result.returncode != 0:
            raise RuntimeError(f"postfix start failed: {result.stdout}{result.stderr}"
                               f"{self.log_text()}")

    def _add_submission(self, port: int) -> None:
        assert self.tls_files is not None and self.sasl_path is not None
        cert, key = self.tls_files
        options = {
            "smtpd_tls_security_level": "encrypt",
            "smtpd_tls_cert_file": str(cert),
            "smtpd_tls_key_file": str(key),
            "smtpd_sasl_auth_enable": "yes",
            "smtpd_sasl_type": "dovecot",
            "smtpd_sasl_path": str(self.sasl_path),
            "smtpd_recipient_restrictions": "permit_sasl_authenticated,reject",
            "smtpd_relay_restrictions": "permit_sasl_authenticated,reject",
        }
        self._postconf("-M", f"127.0.0.1:{port}/inet = 127.0.0.1:{port} inet n - n - - smtpd "
                             + " ".join(f"-o {k}={v}" for k, v in options.items()))

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def maildir(self, local_part: str) -> Path:
        return self.mail / local_part

    def delivered(self, local_part: str) -> list[bytes]:
        """The mails Postfix delivered to the mailbox ``local_part`` so far."""
        maildir = self.maildir(local_part)
        if not (maildir / "new").is_dir():
            return []
        box = mailbox.Maildir(maildir, create=False)
        return [box.get_bytes(key) for key in box.iterkeys()]

    def stop(self) -> None:
        try:
            self._postfix("stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def require_postfix() -> None:
    """Skip the test when this machine cannot run the private Postfix (fail under CI=true)."""
    reason = unavailable_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI=true: not skipping)")
        pytest.skip(reason)


@contextlib.contextmanager
def server_behind(
    postfix: PostfixInstance, tmp_path: Path, *, outbound: str | None = None,
    backoff: Backoff | None = None, **settings: object
) -> Iterator[tuple[MailServer, Config]]:
    """Our server (``settings`` for its Config) on ``postfix``'s listener port, replies
    through ``postfix`` (its smtpd on ``port`` unless ``outbound`` says otherwise): both
    started, then stopped (Postfix's log printed)."""
    config: Config = make_config(tmp_path, smtp_port=postfix.listener_port,
                         outbound=outbound or f"smtp://127.0.0.1:{postfix.port}", **settings)
    upgrade_to_head(config)
    server = MailServer(config, get_sessionmaker(config), poll_seconds=0.2, backoff=backoff)
    postfix.start()
    try:
        server.start()
        try:
            yield server, config
        finally:
            server.stop()
    finally:
        log = postfix.log_text()
        postfix.stop()
        dispose_engines()
        print(log[-4000:])
