"""Screenshots of a board page in English and in German, for docs/web.md.

Usage (from the repository root, with Debian's chromium installed):
    PYTHONPATH=. .venv/bin/python bench/board_screenshots.py [OUTPUT_FOLDER]  # docs/screenshots

It makes a SQLite database in a temporary folder, signs up alice and bob and plays the test
games' capture game on board 101 (tests/web/support.py, the commands sent straight to the
command layer as the tests send them), serves it with ``pbm-emergo web``, and takes each
picture with Chromium's own headless screenshot::

    chromium --headless --no-sandbox --hide-scrollbars --window-size=1280,1100 \\
        --screenshot=docs/screenshots/board-page-en.png 'http://127.0.0.1:PORT/boards/101?lang=en'

(``?lang=de`` for the German one: docs/screenshots/board-page-de.png). Prints the files made.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sqlalchemy.orm import sessionmaker

from pbm_emergo.config import load_config
from pbm_emergo.db.session import create_engine_for, upgrade_to_head
from tests.support.mailer import ADDRESSES, PASSWORDS, Mailer
from tests.support.servers import running, web_server
from tests.web.support import CAPTURE_GAME

ROOT = Path(__file__).resolve().parents[1]
WINDOW = "1280,1100"
PAGES = {"board-page-en.png": "en", "board-page-de.png": "de"}


def played_database(folder: Path) -> str:
    """A migrated SQLite database in ``folder`` with board 101 played to its capture."""
    url = f"sqlite:///{folder / 'screenshots.sqlite3'}"
    upgrade_to_head(url=url)
    config = load_config(overrides={"database_url": url, "data_dir": folder / "data"}, environ={})
    mailer = Mailer(sessionmaker(create_engine_for(url), expire_on_commit=False), config)
    for userid, password in PASSWORDS.items():
        mailer.signup(userid, password, ADDRESSES[userid])
    mailer.send("emergo challenge alice bob")
    mailer.play(101, CAPTURE_GAME)
    return url


def main(argv: list[str]) -> int:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("no chromium: install Debian's chromium package", file=sys.stderr)
        return 1
    out = Path(argv[0]) if argv else ROOT / "docs" / "screenshots"
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        url, args = web_server(played_database(folder), folder / "web.log")
        with running(args, url + "/", folder / "web.log"):
            for name, lang in PAGES.items():
                target = out / name
                subprocess.run(
                    [chromium, "--headless", "--no-sandbox", "--hide-scrollbars",
                     f"--user-data-dir={folder / 'chromium'}", f"--window-size={WINDOW}",
                     f"--screenshot={target}", f"{url}/boards/101?lang={lang}"],
                    check=True, capture_output=True, timeout=120,
                )  # fmt: skip
                print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
