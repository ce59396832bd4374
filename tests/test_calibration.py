"""``voicehost ears test``: the measurements, pure, on synthetic levels and vosk results; the
session's waiting; the command's bad input. The whole command at a null-sink table, with the
Korean model, is in test_listener.py with the other tests that need PulseAudio.
"""

from __future__ import annotations

import json
import queue
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from audio.listener import RATE, Heard
from voicehost.cli.main import main
from voicehost.host.calibration import (
    QUIET_DBFS,
    READ_SETTLE_S,
    Attempt,
    CalibrationRun,
    LevelMeter,
    NoiseFloor,
    Word,
    assign,
    build_report,
    dbfs,
    echo_tail,
    longest_pause,
    lowest_confidence,
    noise_floor,
    phrases_to_try,
    rates,
    rounds,
    same_meaning,
    speech_level,
    suggest_endpoint,
    suggest_hold_off,
    suggest_min_confidence,
    words_of,
)


def pcm(samples: npt.NDArray[np.float64]) -> bytes:
    return (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()


def noise(seconds: float, rms_dbfs: float, seed: int = 1) -> npt.NDArray[np.float64]:
    samples = np.random.default_rng(seed).standard_normal(int(RATE * seconds))
    return samples * 10 ** (rms_dbfs / 20)


def feed(meter: LevelMeter, samples: npt.NDArray[np.float64], t0: float) -> None:
    """Into the meter in the listener's 0.1 s blocks, stamped from ``t0``."""
    block = RATE // 10
    for k in range(0, len(samples), block):
        chunk = samples[k:k + block]
        meter.add(pcm(chunk), t0 + (k + len(chunk)) / RATE)


def result(t_end: float, *words: tuple[str, float, float, float]) -> Heard:
    """A vosk final result with ``SetWords``: (word, start, end, conf), times from the stream's start."""
    return Heard(" ".join(w[0] for w in words), t_end, "mic",
                 {"text": " ".join(w[0] for w in words),
                  "result": [{"word": w, "start": s, "end": e, "conf": c} for w, s, e, c in words]})


# ---- levels ---------------------------------------------------------------------------------------

def test_the_noise_floor_is_the_rms_of_the_quiet_seconds_in_dbfs() -> None:
    meter = LevelMeter()
    feed(meter, noise(3.0, -45.0), t0=100.0)
    floor = noise_floor(meter.span(100.0, 103.0))
    assert abs(floor.rms_dbfs - (-45.0)) < 0.3 and floor.seconds == pytest.approx(3.0)
    assert floor.rms_dbfs < floor.peaks_dbfs < floor.rms_dbfs + 3   # steady noise: few peaks
    assert floor.verdict == "fine" and floor.quiet_below == max(floor.peaks_dbfs + 6, QUIET_DBFS)


def test_digital_silence_is_a_number_not_minus_infinity() -> None:
    meter = LevelMeter()
    feed(meter, np.zeros(RATE), t0=0.0)
    floor = noise_floor(meter.span(0.0, 1.0))
    assert floor.rms_dbfs == dbfs(0.0) == -120.0 and floor.quiet_below == QUIET_DBFS
    assert noise_floor([]).seconds == 0.0


def test_the_echo_tail_is_measured_from_the_end_of_the_line_to_the_last_loud_window() -> None:
    meter = LevelMeter()
    tone = 0.3 * np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE)            # the line: 1 s
    echo = 0.3 * np.exp(-np.arange(RATE) / RATE / 0.05) * np.sin(2 * np.pi * 440 * np.arange(RATE) / RATE)
    feed(meter, np.concatenate([tone, echo, np.zeros(RATE)]), t0=10.0)     # rings down: -6 dB every 35 ms
    floor = NoiseFloor(-120.0, -120.0, 3.0)
    tail = echo_tail(meter.windows(10.0, 13.0), line_end=11.0, quiet_below=floor.quiet_below)
    assert tail is not None
    assert 0.25 < tail < 0.35   # 0.3 × e^(-t/0.05) reaches -60 dBFS after about 0.29 s
    assert echo_tail(meter.windows(12.5, 13.0), 12.0, -60.0) is None      # never heard
    early = echo_tail(meter.windows(10.0, 13.0), line_end=11.5, quiet_below=-60.0)
    assert early is not None
    assert early < 0   # the line's own trailing silence was already quiet
    assert speech_level(meter.span(10.0, 11.0), -60.0) == pytest.approx(dbfs(0.3 ** 2 / 2), abs=0.2)


def test_stream_time_maps_to_the_microphones_clock_across_late_blocks() -> None:
    """A stream that has just started delivers late and loses audio: the recognizer's seconds
    of audio are not seconds of the clock, the blocks' stamps are."""
    meter = LevelMeter()
    block = np.zeros(RATE // 10)
    meter.add(pcm(block), 10.1)
    meter.add(pcm(block), 10.7)        # 0.5 s lost before this block
    meter.add(pcm(block), 10.8)
    assert meter.clock(0.05) == pytest.approx(10.05) and meter.clock(0.15) == pytest.approx(10.65)
    assert meter.clock(0.3) == pytest.approx(10.8) and meter.clock(0.5) == pytest.approx(11.0)
    assert not meter.steady(now=11.1)
    for k in range(12):
        meter.add(pcm(block), 10.9 + k / 10)
    assert meter.steady(now=12.3)


# ---- what vosk returned -------------------------------------------------------------------------------

def test_words_are_put_on_the_microphones_clock_with_their_confidence() -> None:
    heard = result(105.0, ("выставляю", 1.0, 1.6, 1.0), ("седьмого", 1.7, 2.3, 0.6))
    words = words_of(heard, lambda s: 100.0 + s)
    assert words == [Word("выставляю", 101.0, 101.6, 1.0), Word("седьмого", 101.7, 102.3, 0.6)]
    best = Heard("пас", 9.0, "mic", {"alternatives": [{"text": "пас", "result": [{"word": "пас", "start": 1.0,
                                                                                   "end": 1.3}]}]})
    assert words_of(best, lambda s: s) == [Word("пас", 1.0, 1.3, None)]
    assert words_of(Heard("пас", 1.0, "console"), lambda s: s) == []


def test_a_late_result_belongs_to_the_phrase_whose_words_it_holds() -> None:
    first = result(4.2, ("один", 1.0, 1.5, 1.0))      # its endpoint came after the second phrase began
    second = result(6.0, ("два", 4.5, 5.0, 1.0))
    early = result(0.5, ("три", 0.1, 0.3, 1.0))        # during the quiet seconds: nobody's
    assert assign([early, first, second], [0.9, 4.0], lambda s: s) == [[first], [second]]


def test_the_host_understood_a_phrase_when_it_means_the_same() -> None:
    assert same_meaning("я выставляю игрока номер семь", "выставляю игрока номер семь")
    assert same_meaning("выставляю седьмого", "выставляю игрока номер семь")
    assert not same_meaning("выставляю седьмого", "выставляю семнадцатого")
    assert not same_meaning("спасибо", "")
    assert same_meaning("감사합니다", "감사합니다") and not same_meaning("감사합니다", "감사합니다 여러분")


def test_the_confidence_of_a_phrase_is_its_least_sure_number_word() -> None:
    words = [Word("выставляю", 0, 1, 0.4), Word("седьмого", 1, 2, 0.8)]
    assert lowest_confidence(words) == 0.8                        # the number is what the host doubts
    assert lowest_confidence([Word("спасибо", 0, 1, 0.7), Word("всё", 1, 2, 0.9)]) == 0.7
    assert lowest_confidence([Word("пас", 0, 1, None)]) is None


def test_the_longest_pause_spans_the_parts_of_a_split_phrase() -> None:
    first = words_of(result(3.0, ("выставляю", 0.0, 0.6, 1.0), ("игрока", 0.7, 1.1, 1.0)), lambda s: s)
    second = words_of(result(5.0, ("номер", 2.0, 2.3, 1.0), ("семь", 2.35, 2.6, 1.0)), lambda s: s)
    assert longest_pause(first + second) == pytest.approx(0.9)


# ---- rates and suggestions -----------------------------------------------------------------------------

def test_phrases_cover_every_seat_in_both_forms_and_rounds_never_repeat_back_to_back() -> None:
    phrases = phrases_to_try(range(1, 11))
    assert "выставляю игрока номер семь" in phrases and "выставляю седьмого" in phrases
    assert "отзываю игрока номер десять" in phrases and {"спасибо", "пас"} <= set(phrases)
    assert len(phrases) == 23 and len(phrases_to_try(range(1, 11), every=True)) > 100
    twice = rounds(["a", "b", "c"], 2)
    assert twice == ["a", "b", "c", "a", "b", "c"]


def test_the_echo_sets_the_hold_off_with_a_margin() -> None:
    hold = suggest_hold_off([0.05, 0.12, 0.31, 0.08, -0.02], current=0.4)
    assert hold.value == 0.5 and hold.current == 0.4 and "0.31 s" in hold.why   # 0.31 + 0.15, up to 0.05
    assert suggest_hold_off([-0.2, -0.1], 0.4).value == 0.15                  # at least the margin
    assert suggest_hold_off([], 0.4).value is None


def test_the_endpoint_outlasts_the_pauses_inside_a_phrase() -> None:
    current = {"rule2_s": 0.5, "rule3_s": 1.0, "rule4_s": 2.0}
    clean = {s.key: s.value for s in suggest_endpoint([0.05, 0.1], splits=0, current=current)}
    assert clean == {"rule2_s": 0.5, "rule3_s": 1.0, "rule4_s": 2.0}        # vosk's own, never shorter
    slow = suggest_endpoint([0.2, 0.9, 0.4], splits=2, current=current)
    assert [s.value for s in slow] == [1.2, 2.4, 3.4] and "2 phrase(s) came in two parts" in slow[0].why
    assert suggest_endpoint([4.0], 0, current)[0].value == 1.5                # capped


def test_min_confidence_keeps_nineteen_right_phrases_in_twenty() -> None:
    right = [1.0] * 18 + [0.9, 0.72]
    found = suggest_min_confidence(right, wrong=[0.5, 0.8], current=0.75)
    assert found.value == 0.65 and "1 of 2 misheard" in found.why            # 0.72 - 0.05, down to 0.05
    assert suggest_min_confidence([1.0] * 20, [], None).value == 0.9            # never stricter than 0.9
    assert suggest_min_confidence([0.1], [], None).value == 0.3
    assert suggest_min_confidence([], [0.4], None).value is None


def test_a_report_from_synthetic_levels_and_results(english: None) -> None:
    """A session as the command records it: 2 s of quiet, two host lines, the first followed by
    0.15 s of echo, and vosk's results; the second phrase misheard."""
    meter = LevelMeter()
    line = 0.2 * np.sin(2 * np.pi * 300 * np.arange(RATE) / RATE)
    room = noise(8.0, -55.0)
    room[2 * RATE:3 * RATE] += line                                           # line 1: 2..3 s
    room[3 * RATE:int(3.15 * RATE)] += 0.01 * np.sin(np.arange(int(0.15 * RATE)))   # its echo
    room[5 * RATE:6 * RATE] += line                                           # line 2: 5..6 s
    feed(meter, room, t0=50.0)
    attempts = [Attempt("выставляю седьмого", 52.0, 54.5, 53.0),
                Attempt("выставляю игрока номер шесть", 55.0, 57.5, 56.0)]
    results = [result(53.7, ("выставляю", 2.0, 2.5, 1.0), ("седьмого", 2.55, 3.0, 0.93)),
               result(56.8, ("выставляю", 5.0, 5.3, 1.0), ("игрока", 5.3, 5.5, 1.0), ("номер", 5.5, 5.7, 1.0),
                      ("семь", 5.7, 5.9, 0.6))]
    report = build_report("voice", "ko", "default", meter, (50.0, 52.0), attempts, [], results,
                          {"hold_off_s": 0.4, "rule2_s": 0.5, "min_confidence": None})
    assert abs(report.floor.rms_dbfs + 55) < 0.5 and report.rate == 0.5 and not report.passed
    first, second = report.outcomes
    assert second.echo_tail_s is not None and first.speech_dbfs is not None
    assert first.right and first.confidence == 0.93 and first.endpoint_s == pytest.approx((0.7,))
    assert first.echo_tail_s == pytest.approx(0.15, abs=0.015) and abs(second.echo_tail_s) <= 0.015
    assert second.heard == "выставляю игрока номер семь" and not second.right and first.speech_dbfs > -20
    assert [r.rate for r in rates(report.outcomes)] == [1.0, 0.0]
    data = json.loads(json.dumps(report.to_dict(), ensure_ascii=False))
    suggested = data["suggestions"]
    assert 0.3 <= suggested["hold_off_s"]["value"] <= 0.35 and suggested["rule3_s"]["current"] == 1.0
    assert suggested["min_confidence"]["value"] == 0.85 and suggested["min_confidence"]["current"] is None
    assert "1 of 1 misheard" in suggested["min_confidence"]["why"]
    assert data["tries"] == 2 and data["phrases"][1]["heard"] == ["выставляю игрока номер семь"]
    text = report.text()
    assert "Noise floor: -55" in text and "1 of 2 (50%)" in text and "heard: выставляю игрока номер семь" in text
    assert "min_confidence = 0.85" in text and "[0.4]" in text and "[unset]" in text


# ---- the session's waiting -----------------------------------------------------------------------------

class Table:
    """The session's clock and its queue of results in one: ``get`` moves the clock on to the
    next result if it comes within ``timeout``, else by ``timeout`` (then ``queue.Empty``), as
    a real queue would, without waiting."""

    def __init__(self, *said: tuple[float, str]) -> None:
        self.now = 0.0
        self.coming = list(said)

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def get(self, timeout: float) -> Heard:
        if self.coming and self.coming[0][0] <= self.now + timeout:
            t_end, text = self.coming.pop(0)
            self.now = max(self.now, t_end)
            return Heard(text, t_end, "mic")
        self.now += timeout
        raise queue.Empty


def test_a_reader_gets_time_for_the_second_half_of_a_split_phrase() -> None:
    table = Table((0.2, "выставляю игрока"), (1.0, "номер семь"))
    shown: list[str] = []
    # (Table is no queue.Queue, the type CalibrationRun asks for: it has the one method the run calls, get(timeout=))
    session = CalibrationRun(table, say=lambda text: (0.0, 0.0), show=shown.append, clock=table.clock,  # type: ignore[arg-type]
                             sleep=table.sleep)
    attempt = session.player_reads("выставляю игрока номер семь", timeout=5.0, number="[1/1] ")
    assert [h.text for h in session.results] == ["выставляю игрока", "номер семь"]
    assert shown == ["[1/1] say: «выставляю игрока номер семь»"]
    assert attempt.end == pytest.approx(1.0 + READ_SETTLE_S)   # settled after the second half, not the timeout


def test_a_reader_who_says_nothing_is_waited_for_until_the_timeout() -> None:
    table = Table((9.0, "пас"))
    # (Table is no queue.Queue, the type CalibrationRun asks for: it has the one method the run calls, get(timeout=))
    session = CalibrationRun(table, say=lambda text: (0.0, 0.0), show=lambda line: None, clock=table.clock,  # type: ignore[arg-type]
                             sleep=table.sleep)
    attempt = session.player_reads("пас", timeout=5.0)
    assert session.results == [] and attempt.end == pytest.approx(5.0)


# ---- the command's bad input ----------------------------------------------------------------------------

@pytest.mark.usefixtures("english")
def test_a_missing_phrase_file_or_model_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["ears", "test", "--phrases", str(tmp_path / "none.txt")]) == 2
    assert capsys.readouterr().err.strip() == f"voicehost: error: {tmp_path / 'none.txt'}: no such file"
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    assert main(["ears", "test", "--phrases", str(empty)]) == 2
    assert "no phrases" in capsys.readouterr().err
    monkeypatch.setenv("VOICEHOST_VOSK_MODEL", str(tmp_path / "no-model"))
    assert main(["ears", "test"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("voicehost: error: model:") and "no such model folder" in err and err.count("\n") == 1
