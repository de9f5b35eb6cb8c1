"""docs/deploy.md's Postfix + LMTP recipe, run as written, then a whole game through it.

The block marked ``<!-- recipe-test: postfix-lmtp -->`` is run by bash in a copy of the
source folder, against a private Postfix (tests/e2e/postfix.py). What a test machine must
change, and nothing else, is changed:

- the system folders are folders under a temporary one: every ``/etc/postfix``,
  ``/etc/pbm-emergo``, ``/etc/systemd/system``, ``/var/lib/pbm-emergo`` and
  ``/opt/pbm-emergo/bin/`` of the recipe and of the copied deploy/ files;
- the listener's port 2525 (in deploy/'s files) is a free one, and the ports and addresses
  of this machine's Postfix, web view and metrics are given in the environment
  (``PBM_EMERGO_*``, which wins over the copied file), with ``PBM_EMERGO_CONFIG`` naming the
  copied file where a real machine finds it in /etc;
- ``systemctl`` stands for what systemd would do: ``reload postfix`` reloads the private
  Postfix, ``enable --now pbm-emergo`` runs the installed unit's ``ExecStartPre`` and then
  its ``ExecStart`` in the background, in its ``StateDirectory``; ``sudo -u USER`` runs the
  command as the test's user.

Then alice and bob play a rated game by mail through that Postfix (LMTP into the server,
the replies out through Postfix into their mailboxes). Needs the Debian package postfix and
root (.ci/run installs the package); elsewhere skipped with the reason, except under
CI=true, where it fails.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import signal
import smtplib
import subprocess
import sys
from collections.abc import Iterable, Iterator
from email import policy
from email.message import EmailMessage
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

import tests.support.post
from pbm_emergo.config import load_config
from pbm_emergo.db.models import OutboundMessage
from pbm_emergo.db.session import dispose_engines, get_sessionmaker
from tests.support.mail import free_port, wait_for
from tests.support.post import Post, play_a_short_game

from .postfix import POSTCONF, PostfixInstance, require_postfix

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_MD = ROOT / "docs" / "deploy.md"
MARK = "<!-- recipe-test: postfix-lmtp -->"
SERVER = "pbmserv@emergo.example.org"  # the address of deploy/pbm-emergo.toml


def recipe() -> str:
    """The marked block of docs/deploy.md."""
    found = re.search(re.escape(MARK) + r"\n```sh\n(.*?)```", DEPLOY_MD.read_text(), re.S)
    assert found is not None, f"docs/deploy.md has no block marked {MARK}"
    return found.group(1)


def test_the_recipe_names_only_files_it_copies() -> None:
    """Every deploy/ file the recipe names is copied by one of its own steps, and the
    Postfix settings it appends name only files it installs."""
    text = recipe()
    named = set(re.findall(r"deploy/[\w./-]+", text))
    assert named == {"deploy/pbm-emergo.toml", "deploy/postfix/main.cf",
                     "deploy/postfix/transport-lmtp", "deploy/postfix/pbm-emergo-recipients",
                     "deploy/pbm-emergo.service"}
    for path in named:
        assert (ROOT / path).is_file(), path
        assert re.search(rf"^(install -m 0644|cp -n|cat) {re.escape(path)} ", text, re.M), path
    main_cf = (ROOT / "deploy" / "postfix" / "main.cf").read_text()
    active = [line for line in main_cf.splitlines() if line and not line.startswith("#")]
    for path in re.findall(r"/etc/postfix/[\w.-]+", "\n".join(active)):
        assert path in text, f"main.cf names {path}, which the recipe does not install"


class Mailboxes:
    """What Post reads of its relay, read from the private Postfix's mailboxes: every mail
    delivered there once each mail the server sent (to Postfix) has arrived."""

    def __init__(self, postfix: PostfixInstance, sessions: object, names: tuple[str, ...]):
        self.handler = self
        self.postfix = postfix
        self.sessions = sessions
        self.names = names

    def _sent(self) -> int:
        with self.sessions() as session:  # type: ignore[operator]
            count: int = session.scalar(
                select(func.count()).select_from(OutboundMessage)
                .where(OutboundMessage.status == "sent")
            )
            return count

    def _delivered(self) -> list[tuple[str, EmailMessage]]:
        return [
            (f"{name}@example.org",
             email.message_from_bytes(raw, policy=policy.default))  # type: ignore[misc]
            for name in self.names for raw in self.postfix.delivered(name)
        ]

    def messages(self) -> list[EmailMessage]:
        sent = self._sent()
        delivered = wait_for(lambda: (found := self._delivered()) and len(found) >= sent
                             and found, timeout=60, interval=0.2)
        return [msg for _, msg in delivered]

    def with_message_ids(self, ids: Iterable[str]) -> list[EmailMessage]:
        """As the recording relay's: the mails delivered with these Message-IDs."""
        wanted = set(ids)
        return [m for m in self.messages() if m["Message-ID"] in wanted]

    @property
    def received(self) -> list[tuple[str, list[str], EmailMessage]]:
        return [(SERVER, [to], msg) for to, msg in self._delivered()]


@pytest.fixture
def recipe_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Post]:
    require_postfix()
    listener_port, http_port = free_port(), free_port()
    postfix = PostfixInstance(
        port=free_port(), listener_port=listener_port, server_domain="emergo.example.org",
        mailbox_domain="example.org", mailboxes=("alice", "bob"),
    )
    folders = {name: tmp_path / name for name in ("etc-pbm-emergo", "units", "source")}
    data = tmp_path / "var-lib-pbm-emergo"
    folders["units"].mkdir()
    substitutions = {
        "/etc/postfix": str(postfix.conf),
        "/etc/pbm-emergo": str(folders["etc-pbm-emergo"]),
        "/etc/systemd/system": str(folders["units"]),
        "/var/lib/pbm-emergo": str(data),
        "/opt/pbm-emergo/bin/": str(Path(sys.executable).parent) + "/",
    }

    def adapted(text: str) -> str:
        for old, new in substitutions.items():
            text = text.replace(old, new)
        return text

    # The source folder as an operator unpacks it, its deploy/ files adapted.
    source = folders["source"]
    shutil.copytree(ROOT / "deploy", source / "deploy")
    for path in (source / "deploy").rglob("*"):
        if path.is_file():
            path.write_text(adapted(path.read_text()).replace("2525", str(listener_port)))
    unit = (source / "deploy" / "pbm-emergo.service").read_text()

    def unit_setting(name: str) -> list[str]:
        return re.findall(rf"^{name}=(.*)$", unit, re.M)

    [state], [workdir], [pre], [start] = (
        unit_setting(n) for n in ("StateDirectory", "WorkingDirectory", "ExecStartPre",
                                  "ExecStart")
    )
    assert (state, workdir) == ("pbm-emergo", str(data))  # systemd makes it, 0755
    environment = " ".join(f"export {e};" for e in unit_setting("Environment"))
    serve_log, pid_file = tmp_path / "serve.log", tmp_path / "serve.pid"
    prelude = f"""\
set -euxo pipefail
export MAIL_CONFIG={postfix.conf}
start_unit() {{
    install -d -m 0755 {data}
    ( {environment} cd {workdir}; {pre}; exec {start} ) >{serve_log} 2>&1 &
    echo $! >{pid_file}
}}
systemctl() {{
    case "$*" in
        "reload postfix") postfix reload ;;
        "daemon-reload") ;;
        "enable --now pbm-emergo") start_unit ;;
        *) echo "systemctl $*: not emulated by the test" >&2; return 1 ;;
    esac
}}
sudo() {{ if [ "$1" = -u ]; then shift 2; fi; "$@"; }}
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBM_EMERGO_")}
    env.update({
        "PBM_EMERGO_CONFIG": str(folders["etc-pbm-emergo"] / "pbm-emergo.toml"),
        "PBM_EMERGO_OUTBOUND": f"smtp://127.0.0.1:{postfix.port}",
        "PBM_EMERGO_HTTP_PORT": str(http_port),
        "PBM_EMERGO_WEB_URL": f"http://127.0.0.1:{http_port}",
        "PBM_EMERGO_METRICS_PORT": "0",
        "PBM_EMERGO_REPLY_LIMIT": "100000",
        "PYTHONUNBUFFERED": "1",
        # Postfix's commands (postmap, postfix) where root finds them.
        "PATH": f"{Path(POSTCONF).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
    })
    script = prelude + adapted(recipe())
    postfix.start()
    # The private Postfix as a stock one: the settings the recipe appends are not set yet
    # (a setting named twice makes every Postfix command warn), its transport map empty.
    subprocess.run([POSTCONF, "-c", str(postfix.conf), "-X", "relay_domains",
                    "transport_maps"], check=True, timeout=60)
    (postfix.conf / "transport").write_text("")
    try:
        done = subprocess.run(["bash", "-c", script], cwd=source, env=env, text=True,
                              capture_output=True, timeout=240)
        log = serve_log.read_text() if serve_log.exists() else ""
        assert done.returncode == 0, (f"the recipe failed:\n{done.stdout}\n{done.stderr}\n"
                                      f"{log[-3000:]}\n{postfix.log_text()[-3000:]}")
        # It ended with `pbm-emergo check`, every part working.
        assert done.stdout.rstrip().endswith("all good"), done.stdout
        assert "PROBLEM" not in done.stdout
        config = load_config(environ=env)
        assert config.listen_protocol == "lmtp" and config.address == SERVER

        def send(port: int, msg: EmailMessage, envelope_sender: str | None = None) -> None:
            msg.replace_header("To", SERVER)
            sender = envelope_sender if envelope_sender is not None else str(msg["From"])
            with smtplib.SMTP("127.0.0.1", postfix.port, local_hostname="client.example.org",
                              timeout=30) as smtp:
                smtp.sendmail(sender, [SERVER], msg.as_bytes(policy=policy.SMTP))

        monkeypatch.setattr(tests.support.post, "send", send)
        sessions = get_sessionmaker(config)
        server = SimpleNamespace(config=config)
        yield Post(server, Mailboxes(postfix, sessions, ("alice", "bob")),  # type: ignore[arg-type]
                   sessions)
        assert re.search(rf"postfix/lmtp\[\d+\]: \w+: to=<{re.escape(SERVER)}>, "
                         rf"relay=127\.0\.0\.1\[127\.0\.0\.1\]:{listener_port},.* status=sent",
                         postfix.log_text())
    finally:
        if pid_file.exists():
            pid = int(pid_file.read_text())
            try:
                os.kill(pid, signal.SIGTERM)
                wait_for(lambda: not Path(f"/proc/{pid}").exists() or None, timeout=90,
                         interval=0.2)
            except ProcessLookupError:
                pass
        dispose_engines()
        print((serve_log.read_text() if serve_log.exists() else "")[-4000:])
        print(postfix.log_text()[-4000:])
        postfix.stop()


def test_a_game_through_the_postfix_lmtp_recipe(recipe_run: Post) -> None:
    over = play_a_short_game(recipe_run)
    assert all(str(m["From"]) == SERVER for m in over)
    # The replies went out through Postfix: its own trace headers.
    assert all(m["Delivered-To"] in ("alice@example.org", "bob@example.org") for m in over)


def test_every_recipe_checks_the_setup() -> None:
    """Every block of docs/deploy.md that starts the server runs `pbm-emergo check`; the
    mailbox's names the CA-file setting."""
    blocks = re.findall(r"```sh\n(.*?)```", DEPLOY_MD.read_text(), re.S)
    starting = [b for b in blocks if "pbm-emergo serve" in b or "enable --now" in b]
    assert len(starting) >= 4
    for block in starting:
        assert "pbm-emergo check" in block, block
    [mailbox] = [b for b in starting if "PBM_EMERGO_INBOX=" in b]
    assert "PBM_EMERGO_INBOX_CA_FILE" in mailbox
