"""The NumPy resampler is scipy's ``resample_poly`` (same filter, same alignment), and a table
that only plays cached lines and cues never loads scipy: the idle appliance's memory budget."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from audio.resample import resample_poly

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("length", "up", "down"), [
    (66150, 320, 147),   # espeak-ng's 22,050 Hz to the mix's 48 kHz
    (48000, 147, 320), (44100, 160, 147), (4410, 4, 1), (17, 320, 147), (5, 3, 2), (1, 320, 147), (3, 1, 4),
])
def test_it_gives_what_scipy_gives(length: int, up: int, down: int) -> None:
    scipy_signal = pytest.importorskip("scipy.signal")
    x = np.random.default_rng(length).standard_normal(length)
    ours, theirs = resample_poly(x, up, down), scipy_signal.resample_poly(x, up, down)
    assert ours.shape == theirs.shape
    assert np.max(np.abs(ours - theirs)) < 1e-12


def test_a_tone_keeps_its_pitch_and_level() -> None:
    rate, target, hz = 22050, 48000, 1000.0
    tone = np.sin(2 * np.pi * hz * np.arange(rate) / rate)
    out = resample_poly(tone, 320, 147)[2000:-2000]            # the filter's edges left out
    expected = np.sin(2 * np.pi * hz * (np.arange(len(out)) + 2000) / target)
    assert np.max(np.abs(out - expected)) < 5e-3   # the filter's passband ripple: 0.2 %


def test_no_rate_change_and_no_samples() -> None:
    assert resample_poly(np.array([0.5, -0.5]), 2, 2).tolist() == [0.5, -0.5]
    assert len(resample_poly(np.zeros(0), 320, 147)) == 0


def test_cached_lines_and_cues_are_read_without_scipy(tmp_path: Path) -> None:
    """A cue normalized once and a line in the cache, read again in a fresh process: scipy and
    pyloudnorm (75 MB of an idle table's memory) stay unloaded."""
    program = textwrap.dedent(f"""
        import sys
        import numpy as np
        from pathlib import Path
        from audio.cues import load_cues
        from audio.tts import read_clip, resample, write_clip
        cache = Path({str(tmp_path)!r})
        if sys.argv[1] == "fill":
            load_cues(48000, {{}}, -16.0, -1.0, cache=cache / "cues")
            write_clip(cache / "line.ogg", np.sin(np.arange(22050) / 9.0).astype(np.float32) * 0.3, 22050)
        else:
            cues = load_cues(48000, {{}}, -16.0, -1.0, cache=cache / "cues")
            clip = resample(read_clip(cache / "line.ogg", 22050), 22050, 48000)
            assert len(cues) == 5 and len(clip) > 47000
            print(sorted(m for m in sys.modules if m.split(".")[0] in ("scipy", "pyloudnorm")))
    """)
    def run(step: str) -> str:
        return subprocess.run([sys.executable, "-c", program, step], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    run("fill")
    assert run("read") == "[]"
