"""Where the mix goes: the sound card (sounddevice), a WAV file, or nowhere.

``--audio`` takes ``default`` (the default device), ``device:NAME``, ``file:OUT.wav``
(the whole session rendered to a file, subtitles printed as lines start) or ``null``.
No audio device, or one lost mid-game, falls back to ``null`` with one line in the log:
the game goes on, timed exactly as if it were heard.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

from .messages import N_, _
from .mixer import Mixer

Log = Callable[[str], None]


class AudioSpecError(ValueError):
    pass


def parse_spec(spec: str) -> tuple[str, str]:
    """``default`` | ``null`` | ``device:NAME`` | ``file:PATH`` → (kind, argument)."""
    if spec in ("default", "null"):
        return spec, ""
    kind, _colon, argument = spec.partition(":")
    if kind in ("device", "file") and argument:
        return kind, argument
    raise AudioSpecError(_("--audio {spec}: use default, null, device:NAME or file:OUT.wav").format(spec=repr(spec)))


class PacedOutput:
    """Renders the mix block by block on its own thread at real-time pace; the time each
    block is due is exact, so onsets are too. Used for ``null`` and ``file:``.

    Without a sink (``null``) nobody hears the silence, so while the mixer is idle the pump
    renders none: it sleeps until a line or the night music is asked for, then takes its
    block clock up again at the first block due from that moment, the skipped silence counted
    by the mixer (the pause after a line). The idle table's pump then costs nothing instead of
    a hundred blocks a second, and the next line's onset is the same block boundary it was."""

    kind = "null"

    def __init__(self, mixer: Mixer, block: int = 480, sink: Callable[[np.ndarray], None] | None = None) -> None:
        self.mixer = mixer
        self.block = block
        self.sink = sink
        self._buffer = np.zeros(block, dtype=np.float32)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="voicehost-audio", daemon=True)
        self.start_time = 0.0

    def start(self) -> None:
        self.start_time = time.monotonic()
        self._thread.start()

    def _pump(self) -> None:
        rate = self.mixer.settings.samplerate
        blocks = 0
        while not self._stop.is_set():
            if self.sink is None and self.mixer.idle():
                blocks = self._sleep_while_idle(blocks, rate)
                continue
            due = self.start_time + blocks * self.block / rate
            self.mixer.render(self._buffer, due)
            if self.sink is not None:
                self.sink(self._buffer)
            blocks += 1
            delay = due - time.monotonic()
            if delay > 0:
                self._stop.wait(delay)

    def _sleep_while_idle(self, blocks: int, rate: int) -> int:
        """Wait for the mixer's next say() or night() (or a while: IDLE_WAKE_S), then return the
        first block due from now, the blocks slept through skipped as silence."""
        woken = self.mixer.woken
        woken.clear()
        if self.mixer.idle() and not self._stop.is_set():  # checked after clear(): a say() now still wakes it
            woken.wait(IDLE_WAKE_S)
        now = math.ceil((time.monotonic() - self.start_time) * rate / self.block)
        if now > blocks:
            self.mixer.skip((now - blocks) * self.block)
            blocks = now
        return blocks

    def close(self) -> None:
        self._stop.set()
        self.mixer.woken.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)


IDLE_WAKE_S = 1.0  # an idle null output looks again this often, whatever it was told


class FileOutput(PacedOutput):
    kind = "file"

    def __init__(self, mixer: Mixer, path: str, subtitles: TextIO | None = None) -> None:
        import soundfile
        try:
            self.file = soundfile.SoundFile(path, "w", samplerate=mixer.settings.samplerate, channels=1,
                                            subtype="PCM_16")
        except Exception as err:
            raise AudioSpecError(_("--audio file:{path}: cannot write it ({error})").format(
                path=path, error=err)) from None
        self.path = path
        self.out = subtitles or sys.stdout
        self._shown = 0
        super().__init__(mixer, sink=self._write)

    def _write(self, block: np.ndarray) -> None:
        self.file.write(block)
        self._print_subtitles()

    def _print_subtitles(self) -> None:
        lines = list(self.mixer.subtitles)
        for onset, text in lines[self._shown:]:
            if self.out is not None and text:
                print(f"[{_clock(onset - self.start_time)}] {text}", file=self.out, flush=True)
        self._shown = len(lines)

    def close(self) -> None:
        super().close()
        self.file.close()


class DeviceOutput:
    """A sounddevice OutputStream whose callback is the mixer's render."""

    kind = "device"

    def __init__(self, mixer: Mixer, device: str | int | None, on_lost: Callable[[str], None],
                 block: int = 480) -> None:
        import sounddevice
        self.mixer = mixer
        self.on_lost = on_lost
        self._closing = False
        self.stream = sounddevice.OutputStream(
            samplerate=mixer.settings.samplerate, blocksize=block, device=device, channels=1,
            dtype="float32", latency="low", callback=self._callback, finished_callback=self._finished)
        self.offset = 0.0
        self.underruns = 0   # callbacks PortAudio flagged as late (the device ran dry): a test's evidence of load

    def start(self) -> None:
        self.stream.start()
        self.offset = time.monotonic() - self.stream.time

    def _callback(self, outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if status.output_underflow:
            self.underruns += 1
        dac = time_info.outputBufferDacTime or (time_info.currentTime + self.stream.latency)
        self.mixer.render(outdata[:, 0], dac + self.offset)

    def _finished(self) -> None:
        if not self._closing:
            self.on_lost(_("the audio device stopped"))

    def close(self) -> None:
        self._closing = True
        self.stream.close()


class AudioOut:
    """The output a game uses, with its fallbacks. ``log`` gets one line per fallback."""

    def __init__(self, mixer: Mixer, spec: str = "default", log: Log | None = None,
                 subtitles: TextIO | None = None) -> None:
        self.mixer = mixer
        self.log = log or (lambda line: print(line, file=sys.stderr))
        self.no_device: str | None = None   # the line said when no sound card opened (in the language in use)
        kind, argument = parse_spec(spec)
        self.output: PacedOutput | DeviceOutput
        if kind == "file":
            self.output = FileOutput(mixer, argument, subtitles)
        elif kind == "null":
            self.output = PacedOutput(mixer)
        else:
            self.output = self._device(argument or None)
        self.output.start()

    @property
    def kind(self) -> str:
        return self.output.kind

    def _device(self, device: str | None) -> PacedOutput | DeviceOutput:
        try:
            return DeviceOutput(self.mixer, device, self._lost)
        except Exception as err:  # PortAudioError, OSError (no libportaudio), ValueError (no such device)
            self.no_device = _("voicehost: no audio device ({error}); the game goes on silently "
                               "(--audio file:OUT.wav records the voice instead)").format(error=_short(err))
            self.log(self.no_device)
            return PacedOutput(self.mixer)

    def _lost(self, reason: str) -> None:
        self.log(_("voicehost: {reason}; the game goes on silently").format(reason=reason))
        replacement = PacedOutput(self.mixer)
        replacement.start()
        self.output = replacement

    def close(self) -> None:
        self.output.close()


# What PortAudio (through sounddevice) says when no device opens, in the program's words: its own
# text is English, so a reason it gives here is said by our line alone; another keeps its words.
DEVICE_FAILURES = (
    ("Error querying device -1", N_("no sound card is connected or set as the default")),
    ("PortAudio library not found", N_("the PortAudio library is missing (apt-get install libportaudio2)")),
    ("No output device matching", N_("no output device has that name")),
)


def _short(err: Exception) -> str:
    """Why no device opened, in one line, in the language in use where the reason is a known one."""
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    for found, words in DEVICE_FAILURES:
        if found in text:
            return _(words)
    return text


def _clock(seconds: float) -> str:
    minutes, rest = divmod(max(seconds, 0.0), 60)
    return f"{int(minutes):02d}:{rest:06.3f}"

