"""A PulseAudio daemon of a test process's own: one null sink, the default speaker, whose
monitor is the default microphone (speaker → microphone, with no sound card).

Each xdist worker starts its own, so their sound tests play at the same time instead of
taking turns on one server; a daemon a user or another test run has is never touched. Its
socket is in a temp folder, it reads no default.pa (no devices probed, no databases shared
with another daemon), and it dies with the process that started it (a worker killed by
xdist or a timeout leaves none behind). Only the standard library here: a test can start one
from a bare ``python -c``.

A null sink that no low-latency stream uses renders in 2-second blocks: a stream opened then
stalls until the block ends, and its timing is off for a second more (the tests used to wait
4 s before their first line). A recording of its monitor at 10 ms latency (``parec`` into
nothing) keeps it rendering in small blocks for the daemon's whole life, so a stream starts
at once; the sink is suspended while that recording connects, so it resumes at its latency.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SINK = "voicehost_test"
TOOLS = ("pulseaudio", "pactl", "parec")


class PulseUnavailable(RuntimeError):
    """No daemon here (the reason says why): the tests that need one skip."""


@dataclass
class PulseDaemon:
    folder: Path                      # its socket, its runtime files, its log
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)   # the daemon, the keeper
    sink: str = SINK

    @property
    def server(self) -> str:
        """For ``PULSE_SERVER`` and ``pactl --server``."""
        return f"unix:{self.folder / 'native'}"

    @property
    def pid(self) -> int:
        return self.processes[0].pid

    @property
    def keeper_pid(self) -> int:
        return self.processes[1].pid

    @classmethod
    def start(cls) -> PulseDaemon:
        missing = [tool for tool in TOOLS if not shutil.which(tool)]
        if missing:
            raise PulseUnavailable(f"{', '.join(missing)} not installed (./setup.sh test installs pulseaudio "
                                   "and pulseaudio-utils)")
        pulse = cls(Path(tempfile.mkdtemp(prefix="voicehost-pulse-")))  # short: a socket's path has ~100 bytes
        try:
            pulse._start()
        except BaseException:
            pulse.stop()
            raise
        return pulse

    def _start(self) -> None:
        daemon = self._run("pulseaudio", "--daemonize=no", "-n", "--use-pid-file=no", "--exit-idle-time=-1",
                           "--log-target=stderr",
                           f"--load=module-native-protocol-unix auth-anonymous=1 socket={self.folder / 'native'}",
                           f"--load=module-null-sink sink_name={self.sink}")
        if not _wait_for(lambda: self.pactl("info") is not None, unless=lambda: daemon.poll() is not None):
            raise PulseUnavailable(f"PulseAudio does not start here: {self.log()[-300:]}")
        self.pactl("suspend-sink", self.sink, "1")
        keeper = self._run("parec", f"--server={self.server}", f"--device={self.sink}.monitor", "--latency-msec=10",
                           "--raw")
        if not _wait_for(lambda: bool((self.pactl("list", "short", "source-outputs") or "").strip()),
                         unless=lambda: keeper.poll() is not None):
            raise PulseUnavailable(f"parec cannot record the null sink's monitor: {self.log()[-300:]}")
        self.pactl("suspend-sink", self.sink, "0")

    def _run(self, *argv: str) -> subprocess.Popen[bytes]:
        with open(self.folder / "log", "ab") as log:
            self.processes.append(subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                preexec_fn=_die_with_the_parent(), env={**os.environ, "XDG_RUNTIME_DIR": str(self.folder)}))
        return self.processes[-1]

    def pactl(self, *argv: str) -> str | None:
        """What pactl printed, or None when it failed."""
        try:
            done = subprocess.run(["pactl", "--server", self.server, *argv], capture_output=True, text=True,
                                  timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    def log(self) -> str:
        try:
            return (self.folder / "log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """The keeper, then the daemon; each waited for (no zombie), the folder removed."""
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _wait_for(ready: Callable[[], bool], unless: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Poll ``ready`` until it is true (True), or ``unless`` is or ``seconds`` pass (False)."""
    deadline = time.monotonic() + seconds
    while not ready():
        if unless() or time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _die_with_the_parent() -> Callable[[], None]:
    """For a child process: SIGTERM when the process that started it dies. prctl is looked up
    here, before the fork: the child only calls it."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    pr_set_pdeathsig = 1
    return lambda: prctl(pr_set_pdeathsig, signal.SIGTERM)
