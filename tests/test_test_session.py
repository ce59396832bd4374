"""The test suite itself: tests stop what they start."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pulse import TOOLS

TESTS = Path(__file__).resolve().parent

# Run by the session under test after its fixtures are torn down: is the daemon still there?
AFTER_THE_SESSION = '''
import os

def pytest_unconfigure(config):
    pids = [int(pid) for pid in open(os.environ["INNER_MARKER"]).read().split()[:2]]
    alive = [pid for pid in pids if os.path.exists(f"/proc/{pid}")]   # the fixture waited: no zombies
    open(os.environ["INNER_MARKER"], "a").write(" alive" if alive else " stopped")
'''


def pulseaudio_running(env: dict[str, str]) -> bool:
    return subprocess.run(["pulseaudio", "--check"], capture_output=True, env=env).returncode == 0


def running(pid: int, name: str = "pulseaudio") -> bool:
    """Is process ``pid`` a live ``name`` (not gone, not a zombie waiting to be reaped)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    comm, state = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2]
    return comm == name and state != "Z"


def inner_session(tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], list[str], dict[str, str]]:
    """Run a pytest session with the suite's sound fixtures (tests/pulse.py) on one test.
    It gets a runtime folder and a home of its own, so a daemon it started the usual way would
    show there. Returns the run, what the test wrote in its marker, and the environment."""
    if not all(shutil.which(tool) for tool in TOOLS):
        pytest.skip("PulseAudio is not installed (./setup.sh test installs it)")
    for folder in ("run", "home"):
        (tmp_path / folder).mkdir(mode=0o700)
    marker = tmp_path / "used"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(tmp_path), os.environ.get("PYTHONPATH", "")]),
           "XDG_RUNTIME_DIR": str(tmp_path / "run"), "HOME": str(tmp_path / "home"), "INNER_MARKER": str(marker)}
    env.pop("PULSE_SERVER", None)
    assert not pulseaudio_running(env)
    (tmp_path / "after_the_session.py").write_text(AFTER_THE_SESSION)
    (tmp_path / "test_inner.py").write_text(
        "import os\n"
        "def test_plays(pulse_loop, pulse_daemon):\n"
        "    assert os.environ['PULSE_SERVER'] == pulse_daemon.server\n"
        "    d = pulse_daemon\n"
        "    open(os.environ['INNER_MARKER'], 'w').write(f'{d.pid} {d.keeper_pid} {d.server} {pulse_loop}')\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "pulse", "-p", "after_the_session",
                           "-p", "no:cacheprovider", str(tmp_path / "test_inner.py")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    if not marker.exists():
        pytest.skip(f"the PulseAudio fixture could not start a daemon here: {done.stdout[-300:]}")
    return done, marker.read_text().split(), env


def test_a_test_session_stops_the_pulseaudio_daemon_it_started(tmp_path: Path) -> None:
    """A daemon left behind made the next demo play into the tests' null sink. The fixture's
    daemon is the session's own, on its own socket, and is gone when the session ends."""
    done, (pid, keeper, server, sink, after), env = inner_session(tmp_path)
    assert done.returncode == 0, done.stdout
    assert sink == "voicehost_test" and after == "stopped"
    assert not running(int(pid)) and not running(int(keeper), "parec")
    assert subprocess.run(["pactl", "--server", server, "info"], capture_output=True).returncode != 0
    assert not pulseaudio_running(env)


def test_a_test_process_killed_mid_session_leaves_no_daemon(tmp_path: Path) -> None:
    """An xdist worker killed (a crash, a timeout) never tears its fixtures down: the kernel
    stops its daemon and the keeper's recording with it."""
    if not all(shutil.which(tool) for tool in TOOLS):
        pytest.skip("PulseAudio is not installed (./setup.sh test installs it)")
    started = ("import os, signal, sys\n"
               f"sys.path.insert(0, {str(TESTS)!r})\n"
               "from pulse import PulseDaemon\n"
               "pulse = PulseDaemon.start()\n"
               "print(pulse.pid, pulse.keeper_pid, pulse.folder, flush=True)\n"
               "os.kill(os.getpid(), signal.SIGKILL)\n")
    done = subprocess.run([sys.executable, "-c", started], capture_output=True, text=True, timeout=60)
    assert done.returncode == -9, done.stderr
    pid, keeper, folder = done.stdout.split()
    deadline = time.monotonic() + 60   # a busy machine's daemons take their time; only a leak takes this long
    while (running(int(pid)) or running(int(keeper), "parec")) and time.monotonic() < deadline:
        time.sleep(0.02)
    shutil.rmtree(folder, ignore_errors=True)   # the killed process could not (once the daemon has left it)
    assert not running(int(pid)) and not running(int(keeper), "parec")
