"""The test suite itself: tests stop what they start."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def pulseaudio_running(env: dict[str, str]) -> bool:
    return subprocess.run(["pulseaudio", "--check"], capture_output=True, env=env).returncode == 0


def test_a_test_session_stops_the_pulseaudio_daemon_it_started(tmp_path) -> None:
    """A daemon left behind made the next demo play into the tests' null sink. The session
    under test gets a runtime folder of its own, so its daemon is its own (one a user or
    another session runs is never touched)."""
    if not shutil.which("pulseaudio") or not shutil.which("pactl"):
        pytest.skip("PulseAudio is not installed (./setup.sh test installs it)")
    for folder in ("run", "home"):
        (tmp_path / folder).mkdir(mode=0o700)
    env = {**os.environ, "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "XDG_RUNTIME_DIR": str(tmp_path / "run"), "HOME": str(tmp_path / "home")}
    env.pop("PULSE_SERVER", None)
    assert not pulseaudio_running(env)
    marker = tmp_path / "used"
    (tmp_path / "test_inner.py").write_text(
        "def test_plays(pulse_loop):\n"
        f"    open({str(marker)!r}, 'w').write(pulse_loop)\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
                           str(tmp_path / "test_inner.py")], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    if not marker.exists():
        pytest.skip(f"the PulseAudio fixture could not start a daemon here: {done.stdout[-300:]}")
    assert done.returncode == 0, done.stdout
    assert not pulseaudio_running(env)
