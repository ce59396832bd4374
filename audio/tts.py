"""The host's voice: pyttsx3 with its espeak-ng driver rendering Russian lines.

Why rendering and not ``say()``: on Linux the espeak driver plays ``say()`` through
``aplay`` (so it cannot be mixed under music), and of several queued utterances only the
last is rendered. So every line is one ``save_to_file`` + ``runAndWait()`` on one worker
thread (pyttsx3 engines are not thread-safe), cached on disk by text + voice + rate +
volume + sample rate, and resampled to the mixer's rate when read. The cache keeps espeak's
own 22,050 Hz as Ogg Vorbis (libsndfile, through soundfile): the fixed lines of all four
rulesets take about 17 MB instead of 217 MB as 48 kHz WAV, and a line decodes in a few ms.
Only the most recent clips stay in memory (:data:`MEMORY_CLIPS`): a game's fixed lines are
hundreds of seconds of audio (over 200 MB as float32 at 48 kHz).

Before it is cached a line is brought to one loudness (:mod:`audio.level`, at espeak's rate:
band-limited resampling keeps loudness and true peak). Pronunciation fixes arrive as
espeak-ng phonemes in ``[[ ]]`` (see ``voicehost.language.lexicon``, passed in as ``spell``;
the cache key is what espeak-ng was given). The espeak-ng command line reads phonemes, but
pyttsx3 calls ``espeak_Synth`` without the ``espeakPHONEMES`` flag, so the driver's binding is
wrapped to add it.
"""

from __future__ import annotations

import atexit
import hashlib
import itertools
import os
import queue
import subprocess
import tempfile
import threading
import time
import wave
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import soundfile

from .level import normalize
from .messages import _
from .resample import resample_poly

DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "voicehost" / "tts"
STOP, LIVE, WARM = -1, 0, 1   # the render queue's priorities: a close, a line the table waits for, a warm-up's
MEMORY_CLIPS = 48   # clips kept in memory, most recently used first (a few dozen MB)


class VoiceUnavailable(RuntimeError):
    """pyttsx3 or espeak-ng cannot speak here (not installed, no such voice)."""


# Bump when the processing of a rendered line changes, so old cache files are not reused.
CHAIN_VERSION = 4   # 4: espeak-ng's own leading and trailing silence trimmed


@dataclass(frozen=True)
class VoiceSettings:
    voice: str = "zle/ru"         # espeak-ng's Russian voice id as pyttsx3 lists it
    rate: int = 115               # espeak-ng words per minute; 115 ≈ 4.8 Russian syllables/s (measured)
    volume: float = 1.0           # 0..1
    samplerate: int = 48000       # the mixer's rate: every clip is resampled to it
    loudness_lufs: float = -20.0  # every line is brought to this integrated loudness (BS.1770)
    ceiling_dbtp: float = -3.0    # … and no line's true peak goes above this

    def key(self, text: str) -> str:
        raw = "\x00".join(str(part) for part in (text, self.voice, self.rate, self.volume, self.samplerate,
                                                  self.loudness_lufs, self.ceiling_dbtp, CHAIN_VERSION))
        return hashlib.sha1(raw.encode("utf-8")).hexdigest()

    @property
    def espeak_voice(self) -> str:
        """The voice as the espeak-ng command line names it («zle/ru» → «ru»)."""
        return self.voice.rsplit("/", 1)[-1]


class _PhonemeInput:
    """pyttsx3's espeak binding, with ``[[phonemes]]`` in the text turned on."""

    def __init__(self, binding: Any) -> None:
        self._binding = binding

    def __getattr__(self, name: str) -> Any:
        return getattr(self._binding, name)

    def Synth(self, text: bytes, *args: Any, flags: int = 0, **kwargs: Any) -> Any:  # noqa: N802 (espeak's name)
        return self._binding.Synth(text, *args, flags=flags | self._binding.PHONEMES, **kwargs)


def phonemes(text: str, voice: str = "ru") -> str:
    """espeak-ng's own phoneme string for ``text`` (``espeak-ng -v VOICE -x -q``)."""
    try:
        done = subprocess.run(["espeak-ng", "-v", voice, "-x", "-q", text], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise VoiceUnavailable(_("espeak-ng cannot run ({error}); install the espeak-ng package").format(
            error=err)) from None
    if done.returncode != 0:
        raise VoiceUnavailable(_("espeak-ng -v {voice} failed: {error}").format(voice=voice, error=done.stderr.strip()))
    return " ".join(done.stdout.split())


class SpeechRenderer:
    """Renders lines to float32 mono clips at ``settings.samplerate``, cached on disk."""

    def __init__(self, settings: VoiceSettings = VoiceSettings(), cache_dir: Path = DEFAULT_CACHE,
                 memory_clips: int = MEMORY_CLIPS, spell: Callable[[str], str] | None = None) -> None:
        self.settings = settings
        self.spell = spell or (lambda text: text)  # the lexicon: a line as espeak-ng should get it
        self.cache_dir = Path(cache_dir)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        # (priority, order, text, its future): a line the table waits for goes before the warm-up's
        # (a fresh table warms up in the background); the order keeps each priority first come, first served.
        self._jobs: queue.PriorityQueue[tuple[int, int, str, Future[np.ndarray] | None]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memory_clips = memory_clips
        self._memory_lock = threading.Lock()
        self._ready: Future[None] = Future()
        self._thread = threading.Thread(target=self._work, name="voicehost-tts", daemon=True)
        self._thread.start()
        self._ready.result()  # raises VoiceUnavailable from the worker

    def render(self, text: str, priority: int = LIVE) -> Future[np.ndarray]:
        """The clip for ``text`` (from memory, disk, or rendered on the worker: a line the table
        waits for before any line the warm-up asked for)."""
        text = self.spell(text)
        future: Future[np.ndarray] = Future()
        clip = self._recall(self.settings.key(text))
        if clip is not None:
            future.set_result(clip)
            return future
        self._jobs.put((priority, next(self._order), text, future))
        return future

    def clip(self, text: str) -> np.ndarray:
        return self.render(text).result()

    def warm(self, texts: list[str]) -> int:
        """Render every line not yet in the disk cache now (so none is rendered mid-game);
        returns how many distinct lines there were."""
        lines = list(dict.fromkeys(texts))
        futures = [self.render(text, WARM) for text in lines
                   if not self._on_disk(self.settings.key(self.spell(text)))]
        futures.reverse()
        while futures:   # each clip let go once it is on disk: hundreds of them are hundreds of MB
            try:
                futures.pop().result()
            except CancelledError:   # the voice closed meanwhile: nothing is left to warm for
                break
        return len(lines)

    def cache_file(self, text: str) -> Path:
        """Where the clip for ``text`` is (or will be) cached."""
        return self._cached(self.settings.key(self.spell(text)))

    def _cached(self, key: str) -> Path:
        return self.cache_dir / f"{key}.ogg"

    def _on_disk(self, key: str) -> bool:
        path = self._cached(key)
        return path.exists() and path.stat().st_size > 0

    def close(self) -> None:
        """Stop after the line being rendered; lines still waiting (a warm-up's) are cancelled."""
        self._jobs.put((STOP, next(self._order), "", None))
        self._thread.join(timeout=5)

    # ---- the worker thread --------------------------------------------------------------

    def _work(self) -> None:
        try:
            engine = self._engine()
        except VoiceUnavailable as err:
            self._ready.set_exception(err)
            return
        self._ready.set_result(None)
        while (future := (job := self._jobs.get())[3]) is not None:
            try:
                future.set_result(self._load_or_render(engine, job[2]))
            except Exception as err:  # a failed line must not stop the voice
                future.set_exception(err)
        while not self._jobs.empty():
            left = self._jobs.get_nowait()[3]
            if left is not None:
                left.cancel()

    def _engine(self) -> object:
        try:
            import pyttsx3
            import pyttsx3.drivers.espeak as espeak_driver
        except Exception as err:
            raise VoiceUnavailable(_("pyttsx3 with espeak-ng is not available ({error}); "
                                     "install the espeak-ng package").format(error=err)) from None
        # The driver prints «Audio saved to …» on stdout after each file; that must not reach
        # a user's terminal or a JSON output, so its module-level print is silenced.
        espeak_driver.print = lambda *args, **kwargs: None
        if not isinstance(espeak_driver._espeak, _PhonemeInput):
            espeak_driver._espeak = _PhonemeInput(espeak_driver._espeak)
        try:
            engine = _the_engine(pyttsx3)
        except Exception as err:
            raise VoiceUnavailable(_("espeak-ng does not start ({error}); install the espeak-ng package").format(
                error=err)) from None
        voices = {v.id for v in engine.getProperty("voices")}
        if self.settings.voice not in voices:
            russian = sorted(v for v in voices if "ru" in v)
            raise VoiceUnavailable(_("no voice {voice} in espeak-ng (Russian ones: {russian})").format(
                voice=repr(self.settings.voice), russian=russian))
        return engine

    def _speak_as_set(self, engine: object) -> None:
        engine.setProperty("voice", self.settings.voice)  # type: ignore[attr-defined]
        engine.setProperty("rate", self.settings.rate)  # type: ignore[attr-defined]
        engine.setProperty("volume", self.settings.volume)  # type: ignore[attr-defined]

    def _recall(self, key: str) -> np.ndarray | None:
        with self._memory_lock:
            clip = self._memory.get(key)
            if clip is not None:
                self._memory.move_to_end(key)
            return clip

    def _remember(self, key: str, clip: np.ndarray) -> None:
        with self._memory_lock:
            self._memory[key] = clip
            while len(self._memory) > self._memory_clips:
                self._memory.popitem(last=False)

    def _load_or_render(self, engine: object, text: str) -> np.ndarray:
        key = self.settings.key(text)
        if (known := self._recall(key)) is not None:
            return known
        path = self._cached(key)
        if not self._on_disk(key):
            level = normalize(trim_silence(self._synthesize(engine, text), ESPEAK_RATE), ESPEAK_RATE,
                              self.settings.loudness_lufs,
                              self.settings.ceiling_dbtp - CODEC_HEADROOM_DB)
            write_clip(path, level, ESPEAK_RATE)
        # as a later run reads it: the first writer's clip, when another process rendered it too
        clip = resample(read_clip(path, ESPEAK_RATE), ESPEAK_RATE, self.settings.samplerate)
        clip.setflags(write=False)
        self._remember(key, clip)
        return clip

    def _synthesize(self, engine: object, text: str) -> np.ndarray:
        """pyttsx3 2.99's espeak driver writes the file from espeak's callback, and under load
        ``runAndWait()`` can return before that file exists, or the file comes out empty. So
        the file is waited for, and an empty rendering is tried again.

        Every renderer of the process shares one espeak engine (``pyttsx3.init`` hands out the
        same one, and espeak-ng's voice is global anyway): a rendering holds the process's lock
        and sets its own voice, rate and volume first, or it would speak in whatever voice
        another renderer set last."""
        with _ESPEAK:
            _espeak_idle()
            self._speak_as_set(engine)
            _espeak_idle()
            for _attempt in range(RENDER_ATTEMPTS):
                with tempfile.TemporaryDirectory() as folder:
                    raw = Path(folder) / "line.wav"
                    engine.save_to_file(text, str(raw))  # type: ignore[attr-defined]
                    engine.runAndWait()  # type: ignore[attr-defined]
                    _espeak_idle()
                    samples = _read_when_written(raw)
                if samples is not None and len(samples):
                    return samples
        raise VoiceUnavailable(_("espeak-ng rendered nothing for {text} ({tries} tries)").format(
        text=repr(text), tries=RENDER_ATTEMPTS))


RENDER_ATTEMPTS = 4
# The cache's Ogg Vorbis and the resampling to the mixer's rate move inter-sample peaks by up
# to about half a decibel (one line came out at -2.44 dBTP under a -3 dBTP ceiling): the
# limiter leaves that much room, so what the mixer plays stays under the ceiling.
CODEC_HEADROOM_DB = 0.5
_ESPEAK = threading.Lock()   # the process's one espeak engine: one rendering at a time
_ENGINE: list[object] = []


def _the_engine(pyttsx3: Any) -> Any:
    """The process's espeak engine, kept until the process exits: a pyttsx3 engine that is
    dropped unhooks espeak-ng's one callback, whichever engine set it, and the renderers of
    the process share it anyway. Let go at exit, while pyttsx3's finalizer can still run."""
    with _ESPEAK:
        if not _ENGINE:
            _ENGINE.append(pyttsx3.init("espeak"))
            atexit.register(_ENGINE.clear)
        return _ENGINE[0]
ESPEAK_RATE = 22050   # what espeak-ng renders, and what the cache keeps


def _espeak_idle() -> None:
    """Wait until espeak-ng's own thread has done everything asked of it. pyttsx3 starts
    espeak-ng in its asynchronous retrieval mode: ``runAndWait()`` returns once the line is
    queued, and a rate or volume set is queued too, while a voice is set at once. Under load a
    line was rendered at the previous renderer's rate (a Russian line at a Korean renderer's
    165 wpm, 1 run in 20 with both cores busy): so nothing is set or read while it works."""
    import pyttsx3.drivers.espeak as espeak_driver

    espeak_driver._espeak.Synchronize()


def _read_when_written(path: Path, patience_s: float = 3.0) -> np.ndarray | None:
    """The driver's WAV at 22,050 Hz, once it is there (None if it never comes)."""
    deadline = time.monotonic() + patience_s
    while not path.exists():
        if time.monotonic() > deadline:
            return None
        time.sleep(0.005)
    for _attempt in range(100):
        try:
            with wave.open(str(path), "rb") as handle:
                frames = handle.readframes(handle.getnframes())
                rate = handle.getframerate()
            break
        except (EOFError, wave.Error):  # still being written
            time.sleep(0.01)
    else:
        return None
    samples = np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0
    return resample(samples, rate, 22050) if rate != 22050 else samples


def trim_silence(samples: np.ndarray, rate: int, floor_db: float = -40.0, lead_s: float = 0.02,
                 tail_s: float = 0.06) -> np.ndarray:
    """The line without espeak-ng's own silence around it (0.6–0.7 s after every clip): the
    mixer's ``pause_s`` is then the pause the table hears. What counts as sound is any 10 ms
    frame within ``floor_db`` of the loudest one; a little is kept either side (a consonant's
    onset, a word's decay) and the last ``tail_s`` fades out, so the cut never clicks."""
    frame = max(1, rate // 100)
    usable = len(samples) // frame * frame
    if usable == 0:
        return samples
    energy = np.sqrt(np.mean(np.square(samples[:usable].reshape(-1, frame), dtype=np.float64), axis=1))
    if energy.max() <= 0:
        return samples
    loud = np.flatnonzero(energy >= energy.max() * 10 ** (floor_db / 20))
    if len(loud) == 0:
        return samples
    start = max(0, int(loud[0]) * frame - int(lead_s * rate))
    end = min(len(samples), (int(loud[-1]) + 1) * frame + int(tail_s * rate))
    trimmed = np.array(samples[start:end], dtype=np.float32)
    fade = min(len(trimmed), int(tail_s * rate))
    trimmed[len(trimmed) - fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
    return trimmed


def resample(samples: np.ndarray, source: int, target: int) -> np.ndarray:
    """Polyphase resampling (no aliasing, no linear-interpolation images in the treble)."""
    if source == target or len(samples) == 0:
        return np.asarray(samples, dtype=np.float32)
    from math import gcd
    common = gcd(source, target)
    return np.asarray(resample_poly(samples, target // common, source // common), dtype=np.float32)


def write_clip(path: Path, clip: np.ndarray, rate: int) -> None:
    """A line into the cache as Ogg Vorbis, whole or not at all, and never over another's.

    Why the first writer's clip stays: espeak-ng's rendering of a line depends on what its
    process said before (two processes render one line as two different waveforms), and
    processes sharing a cold cache render the same line at once. Had the later one replaced
    the file, the earlier would go on playing a clip that is on disk no more, and the same
    line would come out differently in one game (a test comparing a track with the cache
    saw a judge's line correlate at 0.09). So every reader of a key gets one clip."""
    tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")  # writers may race
    soundfile.write(tmp, np.clip(clip, -1.0, 1.0), rate, format="OGG", subtype="VORBIS")
    try:
        os.link(tmp, path)   # whole (a crash mid-write never leaves a half line), and only if absent
    except FileExistsError:
        if path.stat().st_size == 0:   # nothing anyone can read: this one takes its place
            tmp.replace(path)
    except OSError:   # a file system without hard links: the atomic replace, as before
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def sweep_parts(cache_dir: Path) -> int:
    """Remove the half-written clips (``KEY.PID.THREAD.part``) of writers that are gone: a render
    child killed mid-line (a table stopped during a fresh appliance's render) leaves one, which
    nobody reads and nobody else would delete. A living writer's part is left alone. Returns how
    many went."""
    gone = 0
    for part in Path(cache_dir).glob("*.part"):
        try:
            pid = int(part.name.split(".")[-3])
            os.kill(pid, 0)
        except ProcessLookupError:
            part.unlink(missing_ok=True)
            gone += 1
        except (ValueError, IndexError, PermissionError):
            continue   # not ours to judge: a name we did not write, or another user's process
    return gone


def read_clip(path: Path, rate: int) -> np.ndarray:
    samples, found = soundfile.read(path, dtype="float32")
    if samples.ndim > 1:
        samples = samples.mean(axis=1)
    return samples if found == rate else resample(samples, found, rate)
