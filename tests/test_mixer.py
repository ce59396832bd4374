"""The mixer's arithmetic, block by block, without a sound card: ducking, fades, onsets."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from audio.mixer import Mixer, MixSettings

RATE = 48000
BLOCK = 480


class Ones:
    def read(self, out: np.ndarray) -> None:
        out.fill(1.0)


def run(mixer: Mixer, blocks: int, start: float = 0.0) -> np.ndarray:
    out = np.zeros(BLOCK, dtype=np.float32)
    collected = []
    for k in range(blocks):
        mixer.render(out, start + k * BLOCK / RATE)
        collected.append(out.copy())
    return np.concatenate(collected)


@pytest.fixture
def mixer() -> Iterator[Mixer]:
    m = Mixer(MixSettings(samplerate=RATE, fade_s=0.1, duck_attack_s=0.05, duck_release_s=0.1, music_level=0.5),
              Ones())
    yield m
    m.close()


def test_days_are_silent_and_night_music_fades_in_and_out(mixer: Mixer) -> None:
    assert not run(mixer, 10).any()
    mixer.night(True)
    fading = run(mixer, 20)
    assert fading[0] < 0.01 and np.all(np.diff(fading) >= -1e-6) and fading[-1] == pytest.approx(0.5)
    mixer.night(False)
    out = run(mixer, 20)
    assert out[-1] == 0.0 and np.all(np.diff(out) <= 1e-6)


def test_voice_waits_for_the_music_to_duck_then_music_stays_down_while_it_speaks(mixer: Mixer) -> None:
    mixer.night(True)
    run(mixer, 30)
    clip = np.full(RATE // 2, 0.25, dtype=np.float32)
    onset = mixer.say(clip, "line")
    out = run(mixer, 60, start=10.0)
    first = int(round((onset.result(1) - 10.0) * RATE))
    assert 0 < first / RATE <= 0.06  # the voice waited for the attack, no longer
    assert np.all(np.diff(out[:first]) <= 1e-6)  # the music went down smoothly meanwhile
    music_under = out[first + 100] - 0.25
    assert 20 * np.log10(music_under / 0.5) <= -12


def test_day_lines_start_at_once_and_report_the_exact_onset(mixer: Mixer) -> None:
    clip = np.full(1000, 0.3, dtype=np.float32)
    future = mixer.say(clip, "Спасибо.")
    out = run(mixer, 5, start=50.0)
    late = mixer.limiter.delay   # the limiter's look-ahead: the sound, and its reported onset, 2 ms later
    assert not out[:late].any()
    assert out[late] == pytest.approx(0.3) and out[late + 999] == pytest.approx(0.3) and out[late + 1000] == 0.0
    assert future.result(1) == 50.0 + mixer.limiter.delay_s
    assert mixer.subtitles[-1] == (50.0 + mixer.limiter.delay_s, "Спасибо.")


def test_lines_queue_one_after_another_with_the_pause_between(mixer: Mixer) -> None:
    a = mixer.say(np.full(700, 0.1, dtype=np.float32))
    b = mixer.say(np.full(300, 0.2, dtype=np.float32))
    out = run(mixer, 110, start=0.0)
    pause, late = int(mixer.settings.pause_s * RATE), mixer.limiter.delay
    assert b.result(1) - a.result(1) == pytest.approx((700 + pause) / RATE)
    assert out[late + 699] == pytest.approx(0.1) and not out[late + 700:late + 700 + pause].any()
    assert out[late + 700 + pause] == pytest.approx(0.2) and out[late + 1000 + pause] == 0.0


def test_a_cue_needs_no_pause_and_a_line_long_after_another_starts_at_once(mixer: Mixer) -> None:
    mixer.say(np.full(700, 0.1, dtype=np.float32))
    cue = mixer.say(np.full(100, 0.3, dtype=np.float32), pause=False)
    run(mixer, 2, start=0.0)
    assert cue.result(1) == pytest.approx(700 / RATE + mixer.limiter.delay_s)
    run(mixer, 120, start=1.0)  # more than the pause goes by
    later = mixer.say(np.full(100, 0.2, dtype=np.float32))
    run(mixer, 1, start=5.0)
    assert later.result(1) == 5.0 + mixer.limiter.delay_s


def test_the_callback_allocates_nothing_new() -> None:
    import tracemalloc
    m = Mixer(MixSettings(samplerate=RATE), Ones())
    m.night(True)
    out = np.zeros(BLOCK, dtype=np.float32)
    for k in range(50):
        m.render(out, k / 100)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for k in range(200):
        m.render(out, 1 + k / 100)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename") if stat.size_diff > 0)
    m.close()
    assert grown < 4096  # no per-block arrays: only interpreter noise


def test_the_mix_never_reaches_full_scale(mixer: Mixer) -> None:
    mixer.night(True)
    run(mixer, 30)
    mixer.say(np.full(RATE // 4, 0.9, dtype=np.float32))
    assert np.max(np.abs(run(mixer, 60))) < 1.0
