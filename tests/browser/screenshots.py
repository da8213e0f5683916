"""The README's screenshots, taken again: ``python -m tests.browser.screenshots`` (or ``make screenshots``).

The browser tests that reach each picture's moment (Playwright on Debian's chromium, against a real server
on an embedded PostgreSQL) write it to artifacts/screenshots/; this copies the README's ones to
docs/screenshots/. Review the pictures before committing them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from service.runtime.settings import PROJECT_ROOT
from tests.browser.conftest import ARTIFACTS

DOCS = PROJECT_ROOT / "docs" / "screenshots"

# the README's picture -> the browser test that takes it
SHOTS = {
    "basari-bid-composer.png": "tests/browser/test_basari_bid.py",
    "johari-board-targets.png": "tests/browser/test_act_on_the_board.py",
    "bazaar-early.png": "tests/browser/test_play_by_clicking.py::test_a_person_plays_a_whole_game_by_clicking[bazaar]",
    "basari-replay-steps.png": "tests/browser/test_replay_steps.py",
    "notifications.png": "tests/browser/test_notifications.py",
    "seat-invitation-link.png": "tests/browser/test_seat_invitation.py",
}


def main() -> int:
    """Run the tests that take the pictures, then copy them into docs/screenshots/."""
    for name in SHOTS:
        (ARTIFACTS / name).unlink(missing_ok=True)  # a picture left from an earlier run is not taken again
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *dict.fromkeys(SHOTS.values())],
        cwd=PROJECT_ROOT,
        env={**os.environ, "REQUIRE_BROWSER": "1"},
        check=False,
    )
    if ran.returncode:
        print("the tests that take the screenshots failed: docs/screenshots/ is unchanged", file=sys.stderr)
        return ran.returncode
    DOCS.mkdir(parents=True, exist_ok=True)
    for name in SHOTS:
        shutil.copyfile(ARTIFACTS / name, DOCS / name)
        print(f"docs/screenshots/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
