"""What a helper process reports about itself (:mod:`tests.ops.test_helper_processes`
starts it through :data:`pbm_emergo.ops.processes.HELPERS` in a script of its own): this
module imports nothing of the server's, so what the helper has loaded, the fork server
loaded."""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import Any


def report(queue: Any) -> None:
    """What was imported before this body ran, and whether the collector was set aside."""
    language = sys.modules.get("pbm_emergo.views.text_language")
    queue.put({
        "preloaded": sorted(name for name in sys.modules if name.startswith("pbm_emergo.ops.")),
        "frozen": gc.get_freeze_count(),
        "language model": language is not None and language.model_loaded(),
    })


def outlive_parent(ready: Path, gone: Path) -> None:
    """Say that it runs, then wait until the process that started it is gone and say so."""
    from pbm_emergo.ops.processes import parent_watch

    parent_gone = parent_watch()
    ready.write_text("alive" if not parent_gone() else "gone at once")
    while not parent_gone():
        time.sleep(0.05)
    gone.write_text("gone")
