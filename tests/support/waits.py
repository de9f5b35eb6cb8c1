"""How long a test waits for something that should happen: each wait, scaled.

A test waits for a server to answer, a mail to be relayed, a process to exit. On a quiet
machine that takes a fraction of a second; on a small machine busy with other work, many
times longer. The figures written in the tests are what a quiet machine needs with a wide
margin; :func:`scaled` multiplies them by ``PBM_EMERGO_TEST_WAIT_SCALE`` (a number, 3 by
default), so that a slow machine makes a test slower, never wrong. A wait that runs out
still fails the test: what was awaited did not happen.

Only waits for something to happen are scaled. A wait that proves something does *not*
happen (nothing is heard within half a second) stays as written: longer would only prove
it more slowly.
"""

from __future__ import annotations

import os

WAIT_SCALE_ENV = "PBM_EMERGO_TEST_WAIT_SCALE"
DEFAULT_WAIT_SCALE = 3.0


def wait_scale() -> float:
    """The factor of every wait (``PBM_EMERGO_TEST_WAIT_SCALE``, else 3)."""
    value = os.environ.get(WAIT_SCALE_ENV, "").strip()
    if not value:
        return DEFAULT_WAIT_SCALE
    scale = float(value)
    if scale <= 0:
        raise ValueError(f"{WAIT_SCALE_ENV} must be a positive number, not {value!r}")
    return scale


def scaled(seconds: float) -> float:
    """``seconds`` as long as this machine needs (see the module docstring)."""
    return seconds * wait_scale()
