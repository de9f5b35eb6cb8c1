"""The web console's operators: a file of names and argon2id hashes, one ``NAME:HASH`` a
line, which ``pbm-emergo admin console-user NAME`` writes and the console reads at its start.

The file is its owner's alone (mode 0600, written whole into a new file and renamed over
the old one, so that a reader never sees half of it); a file that others may read is
refused, as ssh refuses a private key that others may read.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from pbm_emergo.config import Config

OPERATOR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MIN_OPERATOR_PASSWORD = 12


class OperatorsError(Exception):
    """The operators' file or a new operator cannot be used: what is wrong, and the fix."""


def hasher(config: Config) -> PasswordHasher:
    """argon2id at the server's configured cost (as the players' passwords)."""
    return PasswordHasher(
        memory_cost=config.password_hash_memory_kib,
        time_cost=config.password_hash_time_cost,
        parallelism=config.password_hash_parallelism,
    )


def read_operators(path: Path) -> dict[str, str]:
    """The operators of the file at ``path``: their hashes by name."""
    try:
        found = path.stat()
    except FileNotFoundError:
        raise OperatorsError(
            f"{path}: no such file; make it with `pbm-emergo admin console-user NAME`"
        ) from None
    if stat.S_IMODE(found.st_mode) & 0o077:
        raise OperatorsError(f"{path}: others may read it; `chmod 600 {path}`")
    operators: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, password_hash = line.partition(":")
        if not sep or not OPERATOR_NAME.fullmatch(name) or not password_hash:
            raise OperatorsError(f"{path}, line {number}: not NAME:HASH")
        operators[name] = password_hash
    return operators


def set_operator(path: Path, name: str, password: str, config: Config) -> bool:
    """Add the operator ``name`` to the file at ``path`` (made if missing), or give them a
    new password; True when the name is new."""
    if not OPERATOR_NAME.fullmatch(name):
        raise OperatorsError(
            f"{name!r} is not a name for an operator: letters, digits, '.', '_' and '-', at most 64"
        )
    if len(password) < MIN_OPERATOR_PASSWORD:
        raise OperatorsError(
            f"the password is too short: at least {MIN_OPERATOR_PASSWORD} characters"
        )
    operators = read_operators(path) if path.exists() else {}
    new = name not in operators
    operators[name] = hasher(config).hash(password)
    text = "".join(f"{n}:{h}\n" for n, h in operators.items())
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return new


def password_matches(config: Config, password_hash: str, password: str) -> bool:
    """Whether ``password`` is the one of ``password_hash``."""
    try:
        return hasher(config).verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


__all__ = [
    "OPERATOR_NAME",
    "OperatorsError",
    "password_matches",
    "read_operators",
    "set_operator",
]
