"""Shared helpers: play a script given as a dict, read its protocol."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from hw.pinmap import load_pinmap
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import Simulation, simulate
from voicehost.simulation.script import script_from_data

settings.register_profile("ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("deep", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

# The tests never read this user's config layer nor write journals into this user's data folder
# (subprocesses inherit it too); the TTS cache stays shared, so a warm cache keeps them fast.
_ISOLATED = tempfile.mkdtemp(prefix="voicehost-tests-")
atexit.register(shutil.rmtree, _ISOLATED, True)
os.environ["XDG_CONFIG_HOME"] = os.path.join(_ISOLATED, "config")
os.environ["VOICEHOST_DATA"] = os.path.join(_ISOLATED, "data")

# The seating most tests use: Don 3, mafia 5 and 9, Sheriff 7, the rest citizens.
ROLES = {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}


def play(**script: Any) -> dict[str, Any]:
    """Simulate a sport script (roles default to :data:`ROLES`) and return its protocol."""
    return run(**script)[0]


def run(**script: Any) -> tuple[dict[str, Any], Simulation]:
    script.setdefault("ruleset", "sport")
    script.setdefault("roles", ROLES)
    result = simulate(script_from_data(script))
    return build_protocol(result.game, result.ignored), result


def kinds(result: Simulation, kind: str) -> list[Any]:
    """The events of one kind, for asserting on what the host would announce."""
    return [e for e in result.game.events if e.kind == kind]


@pytest.fixture
def sport_protocol():
    return play


# ---- the seat panel: gpiozero's own MockFactory with PWM pins stands in for the Pi header ----

TEN = Path(__file__).resolve().parent.parent / "config" / "tables" / "ten-seats.toml"


@pytest.fixture
def mock_factory():
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()
    factory.close()


@pytest.fixture
def ten_seats():
    return load_pinmap(TEN)


# ---- sound: a PulseAudio null sink whose monitor is the microphone (speaker → microphone) ----

def _run(*argv: str) -> int:
    import subprocess
    try:
        return subprocess.run(argv, capture_output=True, timeout=20).returncode
    except (OSError, subprocess.TimeoutExpired):
        return 127


def _wait_until_the_sink_opens() -> None:
    """A PulseAudio daemon that has just started may refuse the first streams: PortAudio is
    restarted (to see the new default devices) and a speaker and a microphone are opened and
    closed until both work."""
    import time
    try:
        import sounddevice
    except Exception as err:  # no libportaudio2
        pytest.skip(f"sounddevice cannot start ({err})")
    last: Exception | None = None
    for _ in range(40):
        try:
            sounddevice._terminate()
            sounddevice._initialize()
            for kind in (sounddevice.OutputStream, sounddevice.InputStream):
                stream = kind(samplerate=48000, channels=1, dtype="float32")
                stream.start()
                stream.stop()
                stream.close()
            return
        except Exception as err:  # PortAudioError while the daemon settles
            last = err
            time.sleep(0.25)
    pytest.skip(f"PulseAudio's null sink does not open streams here ({last})")


@pytest.fixture(scope="module")
def pulse_loop():
    """Start PulseAudio if needed, add a null sink and make it the default speaker, with its
    monitor as the default microphone. Skips (with the reason) where PulseAudio is missing.

    There is one sound server per machine, so one module at a time may use it: the xdist
    workers (and any other test run on the machine) take turns through a lock file, held
    while the module's tests run."""
    import fcntl
    import tempfile
    with open(Path(tempfile.gettempdir()) / "voicehost-pulseaudio.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield from _null_sink_loop()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _null_sink_loop():
    import shutil
    import subprocess
    if not shutil.which("pulseaudio") or not shutil.which("pactl"):
        pytest.skip("PulseAudio is not installed (./setup.sh test installs pulseaudio and pulseaudio-utils)")
    started_here = _run("pactl", "info") != 0  # a daemon already running is the user's: left as it is
    if started_here:
        _run("pulseaudio", "--start", "--exit-idle-time=-1")
        for _ in range(50):
            if _run("pactl", "info") == 0:
                break
            import time
            time.sleep(0.1)
        else:
            pytest.skip("PulseAudio does not start here")
    info = subprocess.run(["pactl", "info"], capture_output=True, text=True).stdout
    previous = {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in info.splitlines() if ":" in line}
    module = subprocess.run(["pactl", "load-module", "module-null-sink", "sink_name=voicehost_test"],
                            capture_output=True, text=True).stdout.strip()
    _run("pactl", "set-default-sink", "voicehost_test")
    _run("pactl", "set-default-source", "voicehost_test.monitor")
    _wait_until_the_sink_opens()
    yield "voicehost_test"
    if previous.get("Default Sink"):
        _run("pactl", "set-default-sink", previous["Default Sink"])
    if previous.get("Default Source"):
        _run("pactl", "set-default-source", previous["Default Source"])
    if module.isdigit():
        _run("pactl", "unload-module", module)
    if started_here:
        stop_pulseaudio()


def stop_pulseaudio() -> None:
    """Stop the daemon this session started (tests stop what they start: a daemon left behind
    would make the next demo play into the test's null sink)."""
    import time
    _run("pulseaudio", "--kill")
    for _ in range(50):
        if _run("pulseaudio", "--check") != 0:
            return
        time.sleep(0.1)


@pytest.fixture(scope="session")
def renderer(tmp_path_factory):
    """The real voice (pyttsx3 + espeak-ng), with a cache private to the test session."""
    from audio.tts import SpeechRenderer, VoiceUnavailable
    try:
        speech = SpeechRenderer(cache_dir=tmp_path_factory.mktemp("tts"))
    except VoiceUnavailable as err:
        pytest.skip(f"no Russian voice here: {err}")
    yield speech
    speech.close()
