"""Whether this test run is on an emulated CPU, and what that changes for the tests that wait.

``tools/pi-check`` runs the suite in a Debian arm64 root under qemu-user, where every
instruction is translated: the same tests take about twenty times as long as here, and no
stream keeps real time (PulseAudio counts hundreds of underruns a second). Two things follow:

- a **hang guard** (a timeout that only stops a test that would otherwise wait forever) is
  multiplied by :data:`HANG_FACTOR`, so a slow CPU is not mistaken for a hang;
- a **real-time claim** (a loop heard through PulseAudio, a game faster than real time) cannot
  be checked at all: :func:`real_time_needed` skips it, with the reason, rather than failing or
  passing. On a real Pi, or anything not emulated, nothing here changes a test.
"""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path

import pytest

_BINFMT = Path("/proc/sys/fs/binfmt_misc")


def emulator() -> str:
    """'' on real hardware, else what emulates this CPU: ``VOICEHOST_EMULATED`` if set (``0``
    or empty: not emulated; tools/pi-check sets it), else ``qemu-user`` when the kernel's
    /proc/cpuinfo names an x86 CPU under an ARM interpreter (qemu-user passes the host's
    through) or the kernel has an enabled qemu handler for this very architecture (a real
    arm64 machine never registers one for its own; a chroot does not see the handlers)."""
    told = os.environ.get("VOICEHOST_EMULATED")
    if told is not None:
        return "" if told.strip() in ("", "0") else told.strip()
    machine = platform.machine()
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        cpuinfo = ""
    if machine.startswith(("aarch64", "arm")) and re.search(r"^vendor_id\s*:\s*(GenuineIntel|AuthenticAMD)",
                                                             cpuinfo, re.MULTILINE):
        return "qemu-user"
    try:
        return "qemu-user" if (_BINFMT / f"qemu-{machine}").read_text().startswith("enabled") else ""
    except OSError:
        return ""


EMULATOR = emulator()
# Measured: the whole suite took 4,403 s under qemu-user against about 200 s natively.
HANG_FACTOR = 25 if EMULATOR else 1


def hang_guard(seconds: float) -> float:
    """A timeout that only guards against a hang, stretched for an emulated CPU."""
    return seconds * HANG_FACTOR


def real_time_needed(what: str) -> None:
    """Skip (with the reason) a test whose claim is about real time, when the CPU is emulated."""
    if EMULATOR:
        pytest.skip(f"{what} needs real time, which this CPU under {EMULATOR} emulation cannot keep "
                    f"(tools/pi-check: arm64 is checked, a Pi's speed is not)")
