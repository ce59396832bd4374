"""A PulseAudio daemon of a test process's own: one null sink, the default speaker, whose
monitor is the default microphone (speaker → microphone, with no sound card).

Each xdist worker starts its own, so their sound tests play at the same time instead of
taking turns on one server; a daemon a user or another test run has is never touched. Its
socket is in a temp folder, it reads no default.pa (no devices probed, no databases shared
with another daemon), and it dies with the process that started it (a worker killed by
xdist or a timeout leaves none behind). The fixtures (``pulse_daemon``, ``pulse_loop``) are
imported by conftest.py; ``-p pulse`` gives a bare pytest session them alone.

A null sink that no low-latency stream uses renders in 2-second blocks: a stream opened then
stalls until the block ends, and its timing is off for a second more (the tests used to wait
4 s before their first line). A recording of its monitor at 10 ms latency (``parec`` into
nothing) keeps it rendering in small blocks for the daemon's whole life, so a stream starts
at once; the sink is suspended while that recording connects, so it resumes at its latency.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest
from machine import EMULATOR, real_time_needed

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

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
                           "--log-target=stderr", "--log-level=debug",   # debug: its underruns, for Disturbance
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

    def underruns(self) -> int:
        """How many times a playing stream ran dry in this daemon so far (its debug log's
        "Implicit underrun of 'ALSA Playback'", "Underrun on ..."): a client that came late."""
        return len(_PULSE_UNDERRUN.findall(self.log()))

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


_PULSE_UNDERRUN = re.compile(r"[Uu]nderrun (?:of|on) '")


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


# ---- a measurement the machine's load disturbed, and its retry -----------------------------------

@dataclass
class Disturbance:
    """What went wrong in real time while a measurement ran, counted from its start: the
    PulseAudio daemon's underruns (a playing stream came late), PortAudio's flags on the
    streams under test (``underruns`` of audio.output.DeviceOutput, ``overflows`` of
    audio.listener.MicListener or a test's recorder: a callback so late that the device ran
    dry or dropped input) and gaps in a recording's ADC times (input blocks lost). None of
    these can happen on an idle machine with a sound loop that works; a loop that is broken
    in what a test checks (a gate that never closes, a mixer that drops the voice) causes none.
    So a wrong result with a count here may be the load's doing, and is measured again; a wrong
    result without one is the loop's."""

    daemon: PulseDaemon
    streams: list[Any]                       # objects with .underruns or .overflows (counted by their callbacks)
    gaps: Callable[[], int] = lambda: 0     # lost input blocks, counted by a recorder
    start: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.start = self.counts()

    def counts(self) -> dict[str, int]:
        return {"PulseAudio underruns": self.daemon.underruns(),
                "PortAudio underruns/overflows": sum(getattr(s, "underruns", 0) + getattr(s, "overflows", 0)
                                                     for s in self.streams),
                "input gaps": self.gaps()}

    def since_start(self) -> str:
        """'' when nothing went wrong since the start, else what did (e.g. '3 PulseAudio underruns')."""
        now = self.counts()
        return ", ".join(f"{now[k] - self.start[k]} {k}" for k in now if now[k] > self.start[k])


# A disturbed measurement is made again this many times in all, no more: a machine so busy that
# every attempt is disturbed fails the test (a table's host would hear the dropouts too).
ATTEMPTS = 3
Result = TypeVar("Result")


def measured(measure: Callable[[], tuple[Result, str]], check: Callable[[Result], None],
             attempts: int = ATTEMPTS) -> Result:
    """``measure()`` gives a result and its disturbance ('' when undisturbed, see
    :class:`Disturbance`); ``check`` asserts on the result. A result that passes passes; a
    wrong result from an undisturbed run fails at once; a wrong result from a disturbed run is
    measured again (a warning says so), up to ``attempts`` in all, and the last one fails with
    every attempt's disturbance in its message. On an emulated CPU (tests/machine.py) a
    disturbed wrong result skips at once, with its disturbance as the reason."""
    seen: list[str] = []
    for attempt in range(1, attempts + 1):
        result, disturbed = measure()
        try:
            check(result)
            return result
        except AssertionError as err:
            if seen:
                err.add_note(f"earlier attempts were disturbed ({'; '.join(seen)})")
            if not disturbed:
                err.add_note("this attempt was undisturbed: no underrun, no lost input")
                raise
            err.add_note(f"attempt {attempt} of {attempts} was disturbed: {disturbed}")
            if EMULATOR:   # every attempt would be: the emulated CPU cannot keep real time
                real_time_needed(f"a measurement disturbed by the load ({disturbed})")
            if attempt == attempts:
                raise
            seen.append(disturbed)
            warnings.warn(f"measured again: attempt {attempt} was wrong ({str(err).splitlines()[0][:120]}) "
                          f"and disturbed ({disturbed})", stacklevel=2)
    raise AssertionError("unreachable")


REAL_TIME_PRIORITY = 10   # SCHED_FIFO, low among real-time priorities (the kernel's own threads are at 50)


@contextlib.contextmanager
def real_time() -> Iterator[None]:
    """Streams opened and started inside run their audio threads (PortAudio's callback, the
    ALSA pulse plugin's mainloop, a listener's worker) at SCHED_FIFO: they inherit the policy of
    the thread that starts them. Niceness alone was not enough: beside two CPU hogs, an output
    stream at low latency ran dry a quarter of its blocks, at SCHED_FIFO none after its first
    second. The test's own thread goes back to its policy after (a model load or a TTS render
    at SCHED_FIFO would starve the other workers). Where it is not allowed (not root), nothing
    changes."""
    try:
        policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(REAL_TIME_PRIORITY))
    except (PermissionError, OSError, AttributeError):
        yield
        return
    try:
        yield
    finally:
        os.sched_setscheduler(0, policy, param)


def settle(*outputs: Any, quiet_s: float = 0.5, patience_s: float = 5.0) -> None:
    """Wait until each output (with ``underruns``) has played ``quiet_s`` without running dry:
    a stream that has just started underruns in a burst at first (PortAudio re-primes the
    ALSA pulse plugin), and a measurement should start after that. Gives up after ``patience_s``
    (the measurement then counts what follows)."""
    deadline = time.monotonic() + patience_s
    last, since = sum(o.underruns for o in outputs), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = sum(o.underruns for o in outputs)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return


# ---- the fixtures ----------------------------------------------------------------------------

@pytest.fixture(scope="session")
def pulse_daemon() -> Iterator[PulseDaemon]:
    """This test process's own PulseAudio daemon, stopped at the session's end."""
    try:
        daemon = PulseDaemon.start()
    except PulseUnavailable as err:
        pytest.skip(str(err))
    yield daemon
    daemon.stop()


@pytest.fixture(scope="module")
def pulse_loop(pulse_daemon: PulseDaemon) -> Iterator[str]:
    """This module's sound goes to this process's own daemon: PortAudio is restarted with
    ``PULSE_SERVER`` pointing there (and again after, without it). Yields the sink's name."""
    before = os.environ.get("PULSE_SERVER")
    os.environ["PULSE_SERVER"] = pulse_daemon.server
    niceness = _ahead_of_the_cpu_bound_tests(pulse_daemon)
    try:
        _wait_until_the_sink_is_quick()
        yield pulse_daemon.sink
    finally:
        _set_niceness(0, niceness)
        if before is None:
            os.environ.pop("PULSE_SERVER", None)
        else:
            os.environ["PULSE_SERVER"] = before
        _restart_portaudio()


# How much sooner than the other workers' tests the sound of a real-time test gets a core.
REAL_TIME_NICENESS = -10


def _ahead_of_the_cpu_bound_tests(daemon: PulseDaemon) -> int:
    """The CPU-bound tests run on more workers than the machine has cores (conftest), beside the
    ones that play and record sound in real time: there, a late audio callback is a dropout in the
    recording, and a line measured a decibel too quiet. A table's host has its machine to
    itself; here, this worker's threads opened from now on (PortAudio's callback, the recorder)
    and its PulseAudio daemon and recorder come first. Returns this thread's niceness before.
    Where raising a priority is not allowed (not root), nothing changes."""
    before = os.getpriority(os.PRIO_PROCESS, 0)
    _set_niceness(0, REAL_TIME_NICENESS)
    for pid in (daemon.pid, daemon.keeper_pid):
        for thread in _threads(pid):   # a niceness is a thread's own: the daemon's IO threads too
            _set_niceness(thread, REAL_TIME_NICENESS)
            with contextlib.suppress(PermissionError, ProcessLookupError, OSError):   # as the streams' (real_time)
                os.sched_setscheduler(thread, os.SCHED_FIFO, os.sched_param(REAL_TIME_PRIORITY))
    return before


def _threads(pid: int) -> list[int]:
    try:
        return [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return [pid]


def _set_niceness(thread: int, niceness: int) -> None:
    """``thread`` 0: the calling thread (and the threads it starts from now on)."""
    try:
        os.setpriority(os.PRIO_PROCESS, thread, niceness)
    except (PermissionError, ProcessLookupError):
        pass


def _restart_portaudio() -> None:
    """PortAudio lists devices once, when it starts: restarted, it sees the current server."""
    sounddevice = sys.modules.get("sounddevice")
    if sounddevice is not None:
        sounddevice._terminate()
        sounddevice._initialize()


def _wait_until_the_sink_is_quick(patience_s: float = 10.0) -> None:
    """PortAudio is restarted (to see the daemon); then a speaker and a microphone are opened
    until both run at once: a tenth of a second after they start, each has had most of its
    10-ms blocks (a daemon that has just started may refuse the first streams, and a null
    sink renders in 2-second blocks until a low-latency stream uses it: see above)."""
    try:
        import sounddevice
    except Exception as err:  # no libportaudio2
        pytest.skip(f"sounddevice cannot start ({err})")
    deadline = time.monotonic() + patience_s
    last: Exception | str = "never opened"
    while time.monotonic() < deadline:
        blocks = {"out": 0, "in": 0}
        streams = []
        try:
            _restart_portaudio()
            streams = [sounddevice.OutputStream(samplerate=48000, blocksize=480, channels=1, dtype="float32",
                                                latency="low", callback=_count(blocks, "out", silence=True)),
                       sounddevice.InputStream(samplerate=48000, blocksize=480, channels=1, dtype="float32",
                                               latency="low", callback=_count(blocks, "in"))]
            for stream in streams:
                stream.start()
            time.sleep(0.1)
            if min(blocks.values()) >= 5:
                return
            last = f"blocks in the first 0.1 s: {blocks}"
        except Exception as err:  # PortAudioError while the daemon settles
            last = err
        finally:
            for stream in streams:
                stream.close()
        time.sleep(0.1)
    if isinstance(last, Exception):
        pytest.skip(f"PulseAudio's null sink does not open streams here ({last})")
    # slow, but it works: the tests run, and say what they find


def _count(blocks: dict[str, int], key: str,
           silence: bool = False) -> Callable[[NDArray[np.float32], int, Any, Any], None]:
    def callback(data: NDArray[np.float32], frames: int, time_info: Any, status: Any) -> None:
        if silence:
            data.fill(0)
        blocks[key] += 1
    return callback
