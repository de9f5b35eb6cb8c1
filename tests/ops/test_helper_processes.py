"""How the server's helper processes start and end (:mod:`pbm_emergo.ops.processes`): forked
from a fork server that imported their modules once and set them aside from the collector,
and gone when the process that started them is."""

from __future__ import annotations

import ast
import signal
import subprocess
import sys
from pathlib import Path

from tests.support.mail import wait_for
from tests.support.servers import alive, descendants

from .support import clean_env

ROOT = Path(__file__).resolve().parents[2]

_PRELOADED = """
from pbm_emergo.ops.listeners import run_listener_process
from pbm_emergo.ops.processes import HELPERS, preload_helpers
from tests.ops.helper_probe import report

preload_helpers(run_listener_process)
queue = HELPERS.Queue()
helper = HELPERS.Process(target=report, args=(queue,))
helper.start()
print(queue.get(timeout=60))
helper.join()
"""


def test_a_helper_starts_with_the_modules_the_fork_server_imported_set_aside() -> None:
    out = subprocess.run([sys.executable, "-c", _PRELOADED], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=clean_env(), timeout=120).stdout
    seen = ast.literal_eval(out)  # the dict the helper printed
    # The body's module and what it imports were there before the body ran (the probe
    # imports nothing of the server's), and the last module the fork server imports froze
    # everything before it.
    assert "pbm_emergo.ops.listeners" in seen["preloaded"]
    assert "pbm_emergo.ops.processes" in seen["preloaded"]
    assert "pbm_emergo.ops.preloaded" in seen["preloaded"]
    assert seen["frozen"] > 10_000
    # The inbox workers' language detector is loaded once, there, for all of them.
    assert seen["language model"] is True


def test_without_a_preload_a_helper_imports_what_it_needs_itself() -> None:
    script = _PRELOADED.replace("preload_helpers(run_listener_process)\n", "")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=clean_env(), timeout=120).stdout
    seen = ast.literal_eval(out)
    assert seen == {"preloaded": [], "frozen": 0, "language model": False}


_OUTLIVED = """
import sys, time
from pathlib import Path
from pbm_emergo.ops.processes import HELPERS
from tests.ops.helper_probe import outlive_parent

helper = HELPERS.Process(target=outlive_parent, args=(Path(sys.argv[1]), Path(sys.argv[2])))
helper.start()
print(helper.pid, flush=True)
time.sleep(600)
"""


def test_a_helper_sees_the_process_that_started_it_killed(tmp_path: Path) -> None:
    ready, gone = tmp_path / "ready", tmp_path / "gone"
    with subprocess.Popen([sys.executable, "-c", _OUTLIVED, str(ready), str(gone)],
                          stdout=subprocess.PIPE, text=True, cwd=ROOT, env=clean_env()) as main:
        try:
            assert main.stdout is not None
            helper = int(main.stdout.readline())
            assert helper in descendants(main.pid)  # below the fork server, not beside
            wait_for(lambda: ready.exists(), timeout=60)
            assert ready.read_text() == "alive"
            assert not gone.exists()
        finally:
            main.send_signal(signal.SIGKILL)
            main.wait()
    wait_for(lambda: gone.exists(), timeout=30)
    wait_for(lambda: not alive(helper), timeout=30)


def test_a_process_not_started_by_multiprocessing_has_no_parent_to_outlive() -> None:
    from pbm_emergo.ops.processes import parent_watch

    assert parent_watch()() is False
