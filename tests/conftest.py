"""Shared helpers: play a script given as a dict, read its protocol."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from pulse import PulseDaemon, PulseUnavailable

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


# ---- xdist: the tests of one xdist_group run on one worker ----------------------------------

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--dist loadgroup`` keeps an ``xdist_group``'s tests on one worker by adding "@group" to
    their node ids; pytest 9.2 made node ids structured, and xdist 3.8 still writes the old
    attribute, so the suffix is lost and a group's tests are scattered, each worker making the
    group's recording again (pytest-dev/pytest-xdist#1386). Until xdist catches up, the suffix
    is written here (a no-op where xdist's own took)."""
    if not config.getoption("loadgroup", False):
        return
    for item in items:
        groups = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                         for mark in item.iter_markers("xdist_group")})
        if groups and "@" not in item.nodeid and hasattr(item, "_id"):
            item._id = type(item._id).parse(f"{item.nodeid}@{'_'.join(groups)}")


# ---- sound: a PulseAudio null sink whose monitor is the microphone (speaker → microphone) ----

@pytest.fixture(scope="session")
def pulse_daemon() -> Iterator[PulseDaemon]:
    """This test process's own PulseAudio daemon (tests/pulse.py), stopped at the session's end."""
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
    try:
        _wait_until_the_sink_is_quick()
        yield pulse_daemon.sink
    finally:
        if before is None:
            os.environ.pop("PULSE_SERVER", None)
        else:
            os.environ["PULSE_SERVER"] = before
        _restart_portaudio()


def _restart_portaudio() -> None:
    """PortAudio lists devices once, when it starts: restarted, it sees the current server."""
    import sys
    sounddevice = sys.modules.get("sounddevice")
    if sounddevice is not None:
        sounddevice._terminate()
        sounddevice._initialize()


def _wait_until_the_sink_is_quick(patience_s: float = 10.0) -> None:
    """PortAudio is restarted (to see the daemon); then a speaker and a microphone are opened
    until both run at once: a tenth of a second after they start, each has had most of its
    10-ms blocks (a daemon that has just started may refuse the first streams, and a null
    sink renders in 2-second blocks until a low-latency stream uses it: tests/pulse.py)."""
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


def _count(blocks: dict[str, int], key: str, silence: bool = False):
    def callback(data, frames, time_info, status) -> None:
        if silence:
            data.fill(0)
        blocks[key] += 1
    return callback


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
