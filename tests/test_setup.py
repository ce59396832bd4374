"""setup.sh: the one command a club runs on a fresh Pi."""

from __future__ import annotations

import re
from pathlib import Path

SETUP = Path(__file__).resolve().parent.parent / "setup.sh"


def test_setup_waits_for_the_dpkg_lock_held_by_another_apt() -> None:
    """A fresh Pi runs unattended-upgrades: every apt-get call waits for the lock (apt's own
    DPkg::Lock::Timeout) instead of dying at once."""
    calls = [line for line in SETUP.read_text().splitlines() if re.search(r"\bapt-get\b", line)
             and not line.lstrip().startswith("#")]
    assert calls and all("wait_for_lock" in line for line in calls), calls
    assert '"DPkg::Lock::Timeout=$APT_LOCK_TIMEOUT_S"' in SETUP.read_text()
