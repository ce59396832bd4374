"""Shared helpers: play a script given as a dict, read its protocol."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest
from hypothesis import HealthCheck, settings
from pulse import pulse_daemon, pulse_loop  # noqa: F401  (the sound fixtures)

import voicehost.i18n  # noqa: F401  (loaded as in the program, so hw's messages come out translated)
from hw.pinmap import PinMap, load_pinmap
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import Simulation, simulate
from voicehost.simulation.script import script_from_data

if TYPE_CHECKING:
    from gpiozero.pins.mock import MockFactory

    from audio.tts import SpeechRenderer

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
def sport_protocol() -> Callable[..., dict[str, Any]]:
    return play


# ---- the seat panel: gpiozero's own MockFactory with PWM pins stands in for the Pi header ----

TEN = Path(__file__).resolve().parent.parent / "config" / "tables" / "ten-seats.toml"


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()
    factory.close()


@pytest.fixture
def ten_seats() -> PinMap:
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


# The tests that wait on real time (a voice at its own pace, PulseAudio recordings, a game on
# a null sink), longest first, in two xdist groups of about a minute each: two workers play
# them one after another while the others run the CPU-bound rest beside them. Started all at
# once, they left both cores 80 % idle for 40 s and the CPU-bound tests queued behind them.
# A group is a module, or a module's test (its function name).
REAL_TIME_GROUPS = {
    "room": ("test_listener.py::test_a_player_reads_the_phrases_shown_to_him",
             "test_listener.py::test_the_command_at_a_null_sink_table_with_the_korean_model",
             "test_listener.py::test_an_echoing_room_lengthens_the_suggested_hold_off"),
    "audio_loop": ("test_audio_loop.py",
                   "test_director.py::test_voicehost_run_finishes_a_game_without_microphone_or_sound_card",
                   "test_listener.py"),
}
# Modules that wait on real time but need no group: collected right after the groups, so they
# start early rather than when the rest is nearly done (a whole module moves: its fixtures stay shared).
WAITING_FIRST = ("test_web_browser.py", "test_web_setup.py", "test_panel.py", "test_table_sim.py", "test_appliance.py")


def real_time_group(item: pytest.Item) -> str | None:
    """The group of :data:`REAL_TIME_GROUPS` a test belongs to (its own test named, else its module)."""
    test = f"{item.path.name}::{getattr(item, 'originalname', item.name)}"
    for wanted in (test, item.path.name):
        for group, members in REAL_TIME_GROUPS.items():
            if wanted in members:
                return group
    return None


class _WaitingFirst:
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        groups = list(REAL_TIME_GROUPS)
        rank = {name: len(groups) + place for place, name in enumerate(WAITING_FIRST)}

        def order(item: pytest.Item) -> int:
            group = real_time_group(item)
            return groups.index(group) if group else rank.get(item.path.name, len(groups) + len(rank))

        for item in items:
            if (group := real_time_group(item)) is not None:
                item.add_marker(pytest.mark.xdist_group(group))
        items.sort(key=order)   # stable: the rest keep their order


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_WaitingFirst(), "voicehost-waiting-first")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` starts two workers more than the machine has cores: the two that play the
    real-time groups leave most of their core idle, and the others fill it."""
    return (os.cpu_count() or 1) + 2


# ---- sound: a PulseAudio null sink whose monitor is the microphone (speaker → microphone) ----
# pulse_daemon and pulse_loop: tests/pulse.py, imported above.

@pytest.fixture(scope="session")
def renderer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SpeechRenderer]:
    """The real voice (pyttsx3 + espeak-ng), with a cache private to the test session."""
    from audio.tts import SpeechRenderer, VoiceUnavailable
    try:
        speech = SpeechRenderer(cache_dir=tmp_path_factory.mktemp("tts"))
    except VoiceUnavailable as err:
        pytest.skip(f"no Russian voice here: {err}")
    yield speech
    speech.close()


@pytest.fixture(autouse=True)
def _language_of_the_environment() -> Iterator[None]:
    """After each test the language is the environment's again: a test that runs ``main`` with
    ``--lang en`` leaves it chosen, and the next test in that worker would speak English."""
    yield
    from voicehost.i18n import set_language

    set_language(None)


@pytest.fixture
def russian(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The product's default, whatever the machine running the tests has set: for a test that
    asserts the Russian a club reads."""
    from voicehost.i18n import set_language

    for variable in ("VOICEHOST_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    set_language(None)
    yield
    set_language(None)


@pytest.fixture
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The program in English for a test that asserts the English of its messages (the ids in
    the code); subprocesses inherit it. The product's default, and every other test's, is Russian."""
    from voicehost.i18n import set_language

    monkeypatch.setenv("VOICEHOST_LANG", "en")
    set_language(None)
    yield
    set_language(None)


@pytest.fixture
def no_audio_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without a sound card: sounddevice's OutputStream refuses, as PortAudio does there."""
    import sounddevice

    def refused(*args: Any, **kwargs: Any) -> NoReturn:
        raise sounddevice.PortAudioError("Error querying device -1")

    monkeypatch.setattr(sounddevice, "OutputStream", refused)


@pytest.fixture(scope="module")
def english_module() -> Iterator[None]:
    """:func:`english` for a whole module (``pytestmark``), property-based tests included."""
    from voicehost.i18n import set_language

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VOICEHOST_LANG", "en")
        set_language(None)
        yield
    set_language(None)
