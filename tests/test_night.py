"""The night that hides the night (issue 43): a breath before the count, the music's loudness
plan (the speech band ducks under each number, the treble stays up and hides the taps), music
a club would play, and the figures ``voicehost bench mix`` holds them to."""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
import pytest

from audio import masking
from audio.level import loudness
from audio.mixer import Mixer, MixSettings
from audio.music import MUSIC_LUFS, MusicFeed, band_energy, split_bands
from audio.nightmusic import CHORDS, MOTIF, NightMusic, night_music

RATE = 48000
BLOCK = 480
COUNT_P10_DB = -6.5   # the worst tenth of taps through the sample game's count, at least (docs/voice.md)


class _Bands:
    """Music of three constant bands: 1.0 under 2 kHz, 1.0 from 2 to 3.4 kHz, 1.0 over (each read apart)."""

    def read(self, out: np.ndarray) -> None:
        out.fill(3.0)

    def read_bands(self, low: np.ndarray, mid: np.ndarray, high: np.ndarray) -> None:
        low.fill(1.0)
        mid.fill(1.0)
        high.fill(1.0)


def _run(mixer: Mixer, seconds: float, start: float) -> np.ndarray:
    out = np.zeros(BLOCK, dtype=np.float32)
    blocks = []
    for k in range(int(seconds * RATE / BLOCK)):
        mixer.render(out, start + k * BLOCK / RATE)
        blocks.append(out.copy())
    return np.concatenate(blocks)


def test_the_first_number_of_a_count_waits_for_the_pause_the_next_do_not() -> None:
    """«Мафия выходит на охоту.» then «один» a line's pause later (it came 0.054 s later while
    the hold skipped every pause), and the numbers after it follow without one."""
    mixer = Mixer(MixSettings(samplerate=RATE, pause_s=1.0))
    try:
        wake = mixer.say(np.full(RATE // 2, 0.1, dtype=np.float32), "wake")
        _run(mixer, 0.3, 0.0)
        mixer.hold(True)
        first = mixer.say(np.full(RATE // 4, 0.1, dtype=np.float32), "1")
        _run(mixer, 2.0, 0.3)
        second = mixer.say(np.full(RATE // 4, 0.1, dtype=np.float32), "2")
        _run(mixer, 0.5, 2.3)
        mixer.hold(False)
        assert first.result(1) - (wake.result(1) + 0.5) == pytest.approx(1.0, abs=0.011)
        assert second.result(1) == pytest.approx(2.3, abs=0.011)  # no pause inside the count
    finally:
        mixer.close()


def test_through_a_count_each_number_ducks_the_low_band_and_the_top_of_the_speech_band_not_the_treble() -> None:
    settings = MixSettings(samplerate=RATE, fade_s=0.01, music_level=0.2, count_duck_db=-14.0,
                           count_top_duck_db=-8.0)
    mixer = Mixer(settings, _Bands())
    try:
        mixer.night(True)
        _run(mixer, 0.5, 0.0)
        mixer.hold(True)
        numbers = []
        for k in range(3):
            mixer.say(np.zeros(int(0.4 * RATE), dtype=np.float32), str(k))
            numbers.append(_run(mixer, 1.0, 1.0 + k))
        mixer.hold(False)
    finally:
        mixer.close()
    # 0.2 × (treble, never ducked + the low band × its duck + the top of the speech band × its own)
    lowest = min(float(block.min()) for block in numbers)
    assert lowest == pytest.approx(0.2 * (1 + 10 ** (-14 / 20) + 10 ** (-8 / 20)), rel=0.01)
    assert all(block.max() == pytest.approx(0.6, abs=0.01) for block in numbers)  # back up between numbers


def test_a_line_ducks_only_the_low_band_and_not_through_the_pause_before_it() -> None:
    """Outside the count a line lowers the music under 2 kHz only; through the second's pause
    before it the music is whole until the duck's attack."""
    settings = MixSettings(samplerate=RATE, fade_s=0.01, music_level=0.2, duck_db=-12.0, pause_s=1.0)
    mixer = Mixer(settings, _Bands())
    try:
        mixer.night(True)
        mixer.say(np.zeros(RATE // 10, dtype=np.float32), "a")
        _run(mixer, 0.2, 0.0)
        onset = mixer.say(np.zeros(RATE // 2, dtype=np.float32), "b")
        mix = _run(mixer, 2.0, 0.2)
        start = onset.result(1) - 0.2
    finally:
        mixer.close()
    delay = mixer.limiter.delay_s
    pause = mix[int((start - 0.45 + delay) * RATE):int((start - 0.15 + delay) * RATE)]
    under = mix[int((start + 0.05 + delay) * RATE):int((start + 0.45 + delay) * RATE)]
    assert float(pause.min()) == pytest.approx(0.6, abs=0.005)
    assert float(under.max()) == pytest.approx(0.2 * (2 + 10 ** (-12 / 20)), rel=0.01)


def test_the_mix_is_limited_to_its_true_peak_ceiling_a_look_ahead_later() -> None:
    """A loud line over loud music: no sample or inter-sample peak over −3 dBTP, and the line's
    reported onset is where its sound is, 2 ms after the block's time."""
    from audio.level import true_peak_db

    line = np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE).astype(np.float32) * 0.9
    mixer = Mixer(MixSettings(samplerate=RATE, fade_s=0.01, music_level=1.0), _Music())
    try:
        mixer.night(True)
        _run(mixer, 0.3, 0.0)
        onset = mixer.say(line, "loud")
        mix = _run(mixer, 2.0, 0.3)
        assert onset.result(1) == pytest.approx(0.3 + 0.06 + mixer.limiter.delay_s, abs=0.011)
    finally:
        mixer.close()
    assert true_peak_db(mix) <= -2.9
    assert mixer.limiter.delay_s == pytest.approx(0.002)


class _Music:
    """The built-in night music, served in its three bands."""

    def __init__(self) -> None:
        self.bands = split_bands(night_music(RATE, 4.0, seed=3), RATE, 2000.0, 3400.0)
        self.position = 0

    def read(self, out: np.ndarray) -> None:
        raise AssertionError("the mixer reads the bands apart")

    def read_bands(self, low: np.ndarray, mid: np.ndarray, high: np.ndarray) -> None:
        end = self.position + len(low)
        for band, row in zip((low, mid, high), self.bands, strict=True):
            band[:] = row[self.position:end]
        self.position = end


def test_the_split_sums_back_to_the_music() -> None:
    music = night_music(RATE, 3.0, seed=2)
    low, high = split_bands(music, RATE, 3400.0)
    assert np.max(np.abs(low + high - music)) < 1e-5
    assert band_energy(low, RATE, 5000, 20000) < 0.01 * band_energy(high, RATE, 5000, 20000)
    assert band_energy(high, RATE, 100, 2000) < 0.01 * band_energy(low, RATE, 100, 2000)


def test_the_motif_plays_the_chords_own_third() -> None:
    """Over a major chord the motif never takes the minor third (G over E major)."""
    music = NightMusic(RATE, seed=5)
    for _ in range(30):
        for bar in music._phrase():
            root, third = CHORDS[bar.chord]
            wrong = 3 if third == 4 else 4
            assert all(MOTIF[third][degree] % 12 != wrong for _, degree in bar.motif), bar


def test_the_phrases_end_on_different_cadences() -> None:
    music = NightMusic(RATE, seed=5)
    endings = collections.Counter(music._phrase()[-1].chord for _ in range(60))
    assert len(endings) >= 4 and max(endings.values()) <= 30, endings


def test_the_music_is_balanced_from_the_bass_to_the_treble() -> None:
    """Judged against pink noise, which has the same energy in every octave: each octave band
    from 63 Hz to 16 kHz holds its ninth of the energy within 3 dB (the music before: the
    16 kHz octave 6.5 dB under it, the hats and shaker crowding 4–8 kHz), and 2–8 kHz holds
    under a quarter of it (28 % before)."""
    music = night_music(RATE, 30.0, seed=3)
    total = band_energy(music, RATE, 20, RATE / 2)
    octaves = [band_energy(music, RATE, f / np.sqrt(2), min(f * np.sqrt(2), RATE / 2)) / total
               for f in (63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000)]
    deviations = [10 * np.log10(share * len(octaves)) for share in octaves]
    assert all(abs(d) <= 3.0 for d in deviations), [round(d, 1) for d in deviations]
    assert band_energy(music, RATE, 2000, 8000) / total < 0.25


def test_a_clubs_track_is_brought_to_the_music_loudness(tmp_path: Path) -> None:
    import soundfile

    t = np.arange(RATE * 4) / RATE
    loud = (0.45 * np.sin(2 * np.pi * 220 * t) + 0.45 * np.sin(2 * np.pi * 330 * t)).astype(np.float32)
    soundfile.write(tmp_path / "loud.wav", loud, RATE)
    feed = MusicFeed(RATE, tmp_path, block=4800, ahead=8, seed=1)
    try:
        out = np.zeros(4800 * 8, dtype=np.float32)
        for _ in range(200):
            if len(feed.blocks) >= 8:
                break
            import time
            time.sleep(0.05)
        feed.read(out)
    finally:
        feed.close()
    assert loudness(loud, RATE) > MUSIC_LUFS + 5
    assert loudness(out, RATE) == pytest.approx(MUSIC_LUFS, abs=0.5)


def test_the_masking_model_hears_a_tap_in_silence_and_not_in_loud_noise() -> None:
    offset = 90.0
    tap = masking.tap(RATE) * masking.tap_gain(offset)
    assert masking.a_weighted_db(tap, RATE, masking.FAST_S) + offset == pytest.approx(masking.TAP_DBA, abs=0.01)
    quiet = np.zeros(int(masking.WINDOW_S * RATE))
    assert masking.margin(quiet, tap, RATE, offset) < -30
    noise = np.random.default_rng(2).standard_normal(len(quiet)) * 10 ** ((82 - offset) / 20)   # white noise, 82 dB SPL
    assert masking.margin(noise, tap, RATE, offset) > 0


def test_canonicals_vote_correction_is_filled_with_a_seat_number() -> None:
    """The console passes a seat number to «…против игрока номер {target}»: every_line filled
    it with names («…против игрока номер Александра»)."""
    from every_line import ROSTER, lines

    from voicehost.language.phrasebook import load_phrasebook

    filled = [line for ruleset, key, line in lines(load_phrasebook())
              if ruleset == "canonical" and key == "vote_corrected"]
    assert filled and not [line for line in filled if any(name in line for name in ROSTER)]


@pytest.fixture(scope="module")
def sport_night() -> dict[str, float]:
    from voicehost.bench.mix import bench_mix

    return bench_mix("sport")


def test_the_sample_game_breathes_before_each_count(sport_night: dict[str, float]) -> None:
    assert 0.9 <= sport_night["count_pause_s_min"] <= sport_night["count_pause_s_max"] <= 1.1


def test_the_sample_games_numbers_stand_10_db_over_the_music_in_the_speech_band(
        sport_night: dict[str, float]) -> None:
    assert sport_night["count_over_music_speech_band_db_min"] >= 10.0


def test_the_sample_games_music_hides_a_55_dba_tap(sport_night: dict[str, float]) -> None:
    """The median tap, through the counts and through the rest of the night, stays under the
    masked threshold at the reference level (docs/voice.md, «The night's loudness plan»)."""
    assert sport_night["tap_margin_db_count_median"] >= 0.0
    assert sport_night["tap_margin_db_outside_median"] >= 0.0


def test_the_sample_games_three_band_night_hides_nine_taps_in_ten_outside_the_count(
        sport_night: dict[str, float]) -> None:
    """A line ducks only the music under 2 kHz, and not through the pause before it: outside
    the count even the worst tenth of taps is hidden (−3.7 dB with the two-band mix)."""
    assert sport_night["tap_margin_db_outside_p10"] >= 0.0


def test_the_sample_games_count_leaves_fewer_taps_heard(sport_night: dict[str, float]) -> None:
    """The worst tenth of taps through the count (−7.8 dB with the two-band mix)."""
    assert sport_night["tap_margin_db_count_p10"] >= COUNT_P10_DB


def test_the_sample_games_mix_stays_under_the_true_peak_ceiling(sport_night: dict[str, float]) -> None:
    """The look-ahead limiter: −3 dBTP like every line (−2.3 dBTP, the treble over a line's
    peak, with the two-band mix)."""
    assert sport_night["true_peak_dbtp"] <= -2.95


def test_voice_night_measures_a_count_with_taps_and_writes_it(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The room check: the figures at the night level asked for, and the count with its taps."""
    import soundfile

    from voicehost.cli.main import main

    out = tmp_path / "night.wav"
    assert main(["--lang", "en", "voice", "night", "--level", "0.3", "--audio", f"file:{out}"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("night level 0.30: the quietest number ")
    quiet = float(printed.split("anywhere in the count: ")[1].split(" dB")[0])
    assert main(["--lang", "en", "voice", "night", "--audio", f"file:{out}"]) == 0
    loud = float(capsys.readouterr().out.split("anywhere in the count: ")[1].split(" dB")[0])
    assert quiet < 0 <= loud   # at 0.3 the taps stick out; at the default night level they are hidden
    samples, rate = soundfile.read(out)
    assert rate == 48000 and len(samples) / rate > 12


def test_voice_night_refuses_a_level_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["voice", "night", "--level", "2"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--level" in err


def test_the_two_band_callback_allocates_nothing_new() -> None:
    import tracemalloc

    mixer = Mixer(MixSettings(samplerate=RATE), _Bands())
    mixer.night(True)
    mixer.hold(True)
    mixer.say(np.full(RATE * 5, 0.1, dtype=np.float32))
    out = np.zeros(BLOCK, dtype=np.float32)
    for k in range(50):
        mixer.render(out, k / 100)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for k in range(200):
        mixer.render(out, 1 + k / 100)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    mixer.close()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename") if stat.size_diff > 0)
    assert grown < 4096


def test_a_long_track_is_split_in_chunks_without_a_seam() -> None:
    """A club's file longer than a chunk: the same bands as one split of the whole (away from
    the file's own two ends, where the whole's FFT wraps around)."""
    from audio.music import SPLIT_CHUNK_S, SPLIT_PAD_S, _low_band

    rng = np.random.default_rng(4)
    track = rng.standard_normal(int(RATE * SPLIT_CHUNK_S * 2.5)).astype(np.float32) * 0.1
    low, high = split_bands(track, RATE, 3400.0)
    whole = _low_band(track, RATE, 3400.0)
    assert np.max(np.abs(low + high - track)) < 1e-6
    inside = slice(int(SPLIT_PAD_S * RATE), -int(SPLIT_PAD_S * RATE))
    assert np.max(np.abs(low - whole)[inside]) < 1e-5 * np.max(np.abs(whole))
