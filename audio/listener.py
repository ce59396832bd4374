"""The host's ears: vosk on the microphone, final results only, gated against the host's
own voice.

A ``KaldiRecognizer`` built with a grammar (the phrases a player may say at this table)
turns 16 kHz mono int16 audio into text. Only **final** results at an endpoint are acted on
— partials change as the words come in («один» arrives before «одиннадцать»). While the
host speaks, and for a hold-off after, microphone frames are dropped and the recognizer is
reset, so the host never nominates on its own «Кандидатура номер семь принята».
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .messages import _

RATE = 16000
BLOCK_S = 0.1


class ModelUnavailable(RuntimeError):
    """No model, or a folder that vosk cannot load."""


class MicrophoneUnavailable(RuntimeError):
    pass


@dataclass(frozen=True)
class Heard:
    """A final recognition result: the words, when the utterance ended, and where it came from
    (``mic``, ``replay``, ``script``, ``console``). ``raw`` is vosk's own result JSON."""

    text: str
    t_end: float
    source: str
    raw: dict[str, Any] | None = None

    def word_confidences(self) -> list[tuple[str, float]]:
        """Each word with vosk's confidence (0–1), from ``SetWords`` results; empty when the
        result carries none (typed or replayed text, or an alternatives-only result)."""
        result = (self.raw or {}).get("result")
        if result is None:
            alternatives = (self.raw or {}).get("alternatives") or [{}]
            result = alternatives[0].get("result", [])
        return [(str(w.get("word", "")), float(w["conf"])) for w in result if isinstance(w, dict) and "conf" in w]

    def alternatives(self) -> list[str]:
        """The recognizer's other readings, best first (``SetMaxAlternatives``), without the text itself."""
        found = [str(a.get("text", "")).strip() for a in (self.raw or {}).get("alternatives", [])[1:]
                 if isinstance(a, dict)]
        return [text for text in found if text and text != self.text]


def _vosk() -> Any:
    try:
        import vosk
    except Exception as err:  # not installed, or libvosk fails to load
        raise ModelUnavailable(_("vosk is not available ({error})").format(error=err)) from None
    vosk.SetLogLevel(-1)
    return vosk


def check_model_folder(path: Path) -> None:
    """The files a vosk model folder must have, before asking vosk (which would abort)."""
    if not path.is_dir():
        raise ModelUnavailable(_("{path}: no such model folder").format(path=path))
    for part in ("am/final.mdl", "conf/model.conf"):
        if not (path / part).exists():
            raise ModelUnavailable(_("{path}: not a vosk model (no {part})").format(path=path, part=part))
    if not (path / "graph").is_dir():
        raise ModelUnavailable(_("{path}: not a vosk model (no {part})").format(path=path, part="graph/"))


class SpeechModel:
    """A loaded vosk model (seconds to load, hundreds of MB: load it once)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        check_model_folder(self.path)
        vosk = _vosk()
        try:
            self.model = vosk.Model(str(self.path))
        except Exception as err:
            raise ModelUnavailable(_("{path}: vosk cannot load it ({error})").format(
                path=self.path, error=err)) from None

    def recognizer(self, phrases: list[str]) -> Recognizer:
        return Recognizer(self, phrases)

    def missing_words(self, phrases: list[str]) -> list[str]:
        """Words of the grammar the model does not know. vosk drops them silently (it only
        logs a warning from C++), so they are read from that log."""
        vosk = _vosk()
        vosk.SetLogLevel(0)
        try:
            log = _stderr_of(lambda: vosk.KaldiRecognizer(self.model, RATE, json.dumps(phrases, ensure_ascii=False)))
        finally:
            vosk.SetLogLevel(-1)
        return sorted(set(re.findall(r"Ignoring word missing in vocabulary: '([^']*)'", log)))


def _stderr_of(action: Callable[[], object]) -> str:
    """What ``action`` wrote to file descriptor 2 (where Kaldi logs from C++)."""
    with tempfile.TemporaryFile(mode="w+b") as sink:
        saved = os.dup(2)
        try:
            os.dup2(sink.fileno(), 2)
            action()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        return sink.read().decode("utf-8", errors="replace")


class Recognizer:
    """One KaldiRecognizer with a grammar; final results only."""

    def __init__(self, model: SpeechModel, phrases: list[str]) -> None:
        self.grammar = json.dumps(phrases, ensure_ascii=False)
        self._vosk = _vosk()
        self._model = model
        self._rec = self._vosk.KaldiRecognizer(model.model, RATE, self.grammar)
        self._rec.SetWords(True)

    def accept(self, pcm: bytes, t_end: float, source: str = "mic") -> Heard | None:
        """Feed int16 mono 16 kHz audio ending at ``t_end``; a result only at an endpoint."""
        if self._rec.AcceptWaveform(pcm):
            return self._heard(self._rec.Result(), t_end, source)
        return None

    def flush(self, t_end: float, source: str = "mic") -> Heard | None:
        return self._heard(self._rec.FinalResult(), t_end, source)

    def reset(self) -> None:
        """Forget everything heard so far. vosk 0.3.45's ``Reset()`` alone keeps audio that was
        buffered but not yet decoded (it comes back in the next result), so the pending audio
        is finalized first and its result thrown away."""
        self._rec.FinalResult()
        self._rec.Reset()

    def consider_alternatives(self, count: int) -> None:
        """Ask vosk for ``count`` readings of each utterance (0: one, with word confidences)."""
        self._rec.SetMaxAlternatives(count)

    @staticmethod
    def _heard(result: str, t_end: float, source: str) -> Heard | None:
        data = json.loads(result)
        if "alternatives" in data:   # SetMaxAlternatives: the best reading is the text
            best = (data["alternatives"] or [{}])[0]
            text = str(best.get("text", "")).strip()
        else:
            text = data.get("text", "").strip()
        return Heard(text, t_end, source, data) if text else None


class Gate:
    """Closed while the host speaks and for ``hold_off_s`` after: those frames are dropped."""

    def __init__(self, hold_off_s: float = 0.4) -> None:
        self.hold_off_s = hold_off_s
        self._spans: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    def host_speaks(self, start: float, end: float) -> None:
        with self._lock:
            self._spans = [s for s in self._spans if s[1] > start - 60] + [(start, end + self.hold_off_s)]

    def closed(self, t0: float, t1: float) -> bool:
        """Does the host's voice (with its hold-off) touch the interval [t0, t1]?"""
        with self._lock:
            return any(start < t1 and t0 < end for start, end in self._spans)


class GatedRecognizer:
    """A recognizer behind the gate: blocks that touch the host's voice are dropped and the
    recognizer is reset, so half-heard host words never join a player's next words."""

    def __init__(self, recognizer: Recognizer, gate: Gate) -> None:
        self.recognizer = recognizer
        self.gate = gate
        self.dropped_blocks = 0
        self._closed = False

    def feed(self, pcm: bytes, t_end: float, source: str = "mic") -> Heard | None:
        t_start = t_end - len(pcm) / 2 / RATE
        if self.gate.closed(t_start, t_end):
            self.dropped_blocks += 1
            if not self._closed:
                self.recognizer.reset()
                self._closed = True
            return None
        self._closed = False
        return self.recognizer.accept(pcm, t_end, source)


class MicListener:
    """The live microphone → recognizer on a worker thread → ``on_heard`` for each final result.
    ``on_block`` (if given) sees every block first, with the time it ended: a level meter."""

    def __init__(self, recognizer: Recognizer, gate: Gate, on_heard: Callable[[Heard], None],
                 device: str | int | None = None, on_block: Callable[[bytes, float], None] | None = None) -> None:
        self.ears = GatedRecognizer(recognizer, gate)
        self.on_heard = on_heard
        self.on_block = on_block
        self._blocks: queue.SimpleQueue[tuple[bytes, float] | None] = queue.SimpleQueue()
        try:
            import sounddevice
            self.stream = sounddevice.RawInputStream(samplerate=RATE, blocksize=int(RATE * BLOCK_S), device=device,
                                                     channels=1, dtype="int16", callback=self._callback)
        except Exception as err:
            raise MicrophoneUnavailable(_("no microphone ({error})").format(
                error=str(err).splitlines()[0] if str(err) else err)) from None
        self.offset = 0.0
        self.overflows = 0   # blocks PortAudio flagged as lost (the callback came too late): a test's evidence of load
        self._thread = threading.Thread(target=self._work, name="voicehost-ears", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self.stream.start()
        self.offset = time.monotonic() - self.stream.time

    def _callback(self, indata: Any, frames: int, time_info: Any, status: Any) -> None:
        if status.input_overflow:
            self.overflows += 1
        self._blocks.put((bytes(indata), time_info.inputBufferAdcTime + self.offset + frames / RATE))

    def _work(self) -> None:
        while (item := self._blocks.get()) is not None:
            pcm, t_end = item
            if self.on_block is not None:
                self.on_block(pcm, t_end)
            heard = self.ears.feed(pcm, t_end)
            if heard is not None:
                self.on_heard(heard)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stream.close()
        self._blocks.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout=2)


def replay(path: str | Path) -> Iterator[Heard]:
    """A recording of vosk's own result JSON, one object per line (a bug report, a test): each
    final result becomes a :class:`Heard`. ``t`` (if present) or the last word's end is the time."""
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(_("{path}:{number}: not JSON ({error})").format(
                path=path, number=number, error=err.msg)) from None
        if not isinstance(data, dict) or not isinstance(data.get("text", ""), str):
            raise ValueError(_("{path}:{number}: not a vosk result (an object with \"text\")").format(
                path=path, number=number))
        words = data.get("result") or []
        t_end = float(data.get("t", words[-1]["end"] if words else 0.0))
        if data.get("text", "").strip():
            yield Heard(data["text"].strip(), t_end, "replay", data)


ENDPOINT_RULES = {f"rule{n}_s": f"--endpoint.rule{n}.min-trailing-silence" for n in (2, 3, 4)}


def read_endpoint(model_dir: str | Path) -> dict[str, float]:
    """The trailing-silence rules the model's ``conf/model.conf`` sets (those it leaves out
    are vosk's defaults)."""
    conf = Path(model_dir) / "conf" / "model.conf"
    lines = conf.read_text().splitlines() if conf.exists() else []
    found = {}
    for key, option in ENDPOINT_RULES.items():
        for line in lines:
            if line.startswith(option + "="):
                with contextlib.suppress(ValueError):
                    found[key] = float(line.split("=", 1)[1])
    return found


def apply_endpoint(model_dir: str | Path, settings: dict[str, float]) -> list[str]:
    """Write the trailing-silence rules into the model's ``conf/model.conf`` (vosk 0.3.45
    reads them there when the model loads). Returns the changed lines."""
    conf = Path(model_dir) / "conf" / "model.conf"
    lines = conf.read_text().splitlines()
    changed = []
    for key, value in settings.items():
        option = ENDPOINT_RULES[key]
        new = f"{option}={value:g}"
        lines = [line for line in lines if not line.startswith(option + "=")] + [new]
        changed.append(new)
    conf.write_text("\n".join(lines) + "\n")
    return changed
