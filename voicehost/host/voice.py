"""The host's voice as one object: rendered lines (through the lexicon), cues, the mixer, the
night bed and the output."""

from __future__ import annotations

import asyncio
import hashlib
import string
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from audio.cues import CueUnavailable, load_cues
from audio.mixer import Mixer
from audio.music import MusicFeed, MusicUnavailable
from audio.output import AudioOut, AudioSpecError
from audio.recorded import RecordedVoice, RecordingsUnavailable, words
from audio.tts import SpeechRenderer, VoiceUnavailable
from voicehost.config import cache_dir
from voicehost.host.table_file import AudioConfig, WarningStyle, load_audio, table_path
from voicehost.i18n import _
from voicehost.language.host_lines import HOST_KEYS
from voicehost.language.lexicon import load_lexicon
from voicehost.language.phrasebook import Phrasebook, load_phrasebook
from voicehost.language.russian import CASES, cardinal, spell
from voicehost.rules import InputError

Log = Callable[[str], None]


class Speaking:
    """What every voice that plays sound speaks with (:func:`open_speech` sets it up): the two
    voices differ only in where the mix goes (a sound card, a file) and whose clock it keeps."""

    renderer: SpeechRenderer
    """The lines, rendered through the lexicon and cached."""
    cues: dict[str, np.ndarray]
    """The tones (``speech_start``, ``ten_seconds`` …), generated or the club's files."""
    recorded: RecordedVoice | None
    """A club's recorded host, said where it covers a line."""
    warning: WarningStyle
    """How the speaker's warning sounds: ``tone``, ``voice`` or ``both``."""
    cue_rate: int
    """The cues' sample rate (the mixer's)."""

    def close(self) -> None:
        raise NotImplementedError

    def cue_length(self, name: str) -> float:
        """How long the cue ``name`` sounds, in seconds."""
        return len(self.cues[name]) / self.cue_rate


class Voice(Speaking):
    """Speaks Russian lines through the mixer; ``say`` returns when the line has been heard."""

    def __init__(self, audio: AudioConfig, output: str | None = None, log: Log | None = None,
                 music: bool = True, place: str = "--audio") -> None:
        """``music`` False: a voice alone (the judge's earpiece: no bed, nothing to duck);
        ``place``: the option a bad output is blamed on."""
        self.log = log or (lambda line: print(line, file=sys.stderr))
        open_speech(self, audio)
        self.music = open_music(audio, self.log) if music else None
        self.mixer = Mixer(audio.mix, self.music)
        try:
            self.out = AudioOut(self.mixer, output or audio.output, log=self.log)
        except AudioSpecError as err:
            self.close()
            raise InputError(place, str(err)) from None
        self.book: Phrasebook = load_phrasebook()
        self.wanted = output or audio.output

    @property
    def speaker_missing(self) -> bool:
        """A sound card was asked for (``default``, ``device:NAME``) but none could be opened:
        the voice goes nowhere (the game would go on silently)."""
        return self.wanted.partition(":")[0] in ("default", "device") and self.out.kind == "null"

    def say(self, text: str, wait: bool = True) -> float:
        """Speak ``text``; returns its onset (monotonic). With ``wait``, returns after it ends.
        The club's recordings say it when they can; espeak-ng says the rest."""
        clip = self.recorded.clip(text) if self.recorded is not None else None
        if clip is None:
            clip = self.renderer.clip(text)
        onset = self.mixer.say(clip, text).result(timeout=30)
        if wait:
            remaining = onset + len(clip) / self.mixer.settings.samplerate - time.monotonic()
            if remaining > 0:
                time.sleep(remaining)
        return onset

    def night(self, on: bool) -> None:
        self.mixer.night(on)

    def cue(self, name: str) -> None:
        """Play a cue (``speech_start``, ``ten_seconds``, ``time_up``, ``vote_open``,
        ``vote_close``) without waiting for it."""
        self.mixer.say(self.cues[name], "", pause=False)

    def hold(self, on: bool) -> None:
        """The night count begins or ends: the bed is held at the count's ducking depth."""
        self.mixer.hold(on)

    def close(self) -> None:
        for part in ("out", "mixer", "music", "renderer"):
            thing = getattr(self, part, None)
            if thing is not None:
                thing.close()


def open_speech(voice: Speaking, audio: AudioConfig) -> None:
    """What every voice speaks with, set on ``voice``: the renderer (through the lexicon), the
    cues and a club's recordings. A bad cue or recording closes what is already open before
    its one line."""
    try:
        voice.renderer = SpeechRenderer(audio.voice, cache_dir() / "tts", spell=load_lexicon().apply)
    except VoiceUnavailable as err:
        raise InputError("voice", str(err)) from None
    voice.warning = audio.warning
    voice.cue_rate = audio.mix.samplerate
    try:
        voice.cues = load_cues(audio.mix.samplerate, audio.cues, audio.voice.loudness_lufs, audio.voice.ceiling_dbtp,
                               cache=cache_dir() / "cues")
        voice.recorded = recorded_voice(audio)
    except CueUnavailable as err:
        voice.close()
        raise InputError("cues", str(err)) from None
    except InputError:
        voice.close()
        raise


def open_music(audio: AudioConfig, log: Log, **feed: Any) -> MusicFeed:
    """The club's music folder, or the built-in bed when it cannot be played (said in one line)."""
    try:
        return MusicFeed(audio.mix.samplerate, audio.music_folder, split_hz=audio.mix.split_hz,
                         line_split_hz=audio.mix.line_split_hz, **feed)
    except MusicUnavailable as err:
        log(_("voicehost: {error}; playing the built-in ambient music").format(error=err))
        return MusicFeed(audio.mix.samplerate, split_hz=audio.mix.split_hz,
                         line_split_hz=audio.mix.line_split_hz, **feed)


def recorded_voice(audio: AudioConfig) -> RecordedVoice | None:
    """The club's recorded host (``voice_folder``), or None."""
    if not audio.voice_folder:
        return None
    try:
        return RecordedVoice(audio.voice_folder, audio.mix.samplerate, audio.voice.loudness_lufs,
                             audio.voice.ceiling_dbtp)
    except RecordingsUnavailable as err:
        raise InputError("voice_folder", str(err)) from None


def fixed_lines(book: Phrasebook, ruleset: str, seats: Iterable[int]) -> list[str]:
    """Every line a game of ``ruleset`` can say that is known before it starts: lines without
    placeholders, and the seat-numbered ones for every seat (rendered at start-up)."""
    texts = []
    seat_list = list(seats)
    for key in sorted(HOST_KEYS):
        template = book.lines[book.host_key(key, ruleset)]
        if "{" not in template:
            texts.append(book.say(key, ruleset))
        elif template.count("{") == 1 and "{seat}" in template:
            texts.extend(book.say(key, ruleset, seat=s) for s in seat_list)
    return texts


def open_voice(table: str | None, output: str | None, log: Log | None = None) -> Voice:
    """The voice of the table file ``table`` (default: the bundled one), to ``output`` or the table's."""
    return Voice(load_audio(table_path(table)), output, log)


MUSIC_AHEAD = 1024   # music blocks decoded ahead when rendering faster than real time


class Patient:
    """The music feed for a render faster than real time: each read waits (briefly) for the
    feed's worker to have decoded the block, instead of playing a gap of silence."""

    def __init__(self, feed: MusicFeed) -> None:
        self.feed = feed

    def read(self, out: np.ndarray) -> None:
        self._wait()
        self.feed.read(out)

    def read_bands(self, low: np.ndarray, mid: np.ndarray, high: np.ndarray) -> None:
        self._wait()
        self.feed.read_bands(low, mid, high)

    def _wait(self) -> None:
        waited = 0
        while len(self.feed.blocks) < 2 and waited < 2000:
            time.sleep(0.0005)
            waited += 1


class FileVoice(Speaking):
    """``--audio file:OUT.wav`` for a game on the virtual clock: the mix — the voice over the
    night music, ducked — is rendered block by block up to the game's own time, so a whole
    game goes to the file as fast as the machine renders it, timed exactly as it would be heard."""

    BLOCK = 480

    def __init__(self, audio: AudioConfig, path: str, log: Log | None = None, seed: int | None = None,
                 music: bool = True, place: str = "--audio") -> None:
        """``seed``: the built-in music's, for a render that must sound the same each time;
        ``music``: False for the judge's earpiece (a voice with no night music under it)."""
        import soundfile
        self.log = log or (lambda line: print(line, file=sys.stderr))
        open_speech(self, audio)
        self.music = open_music(audio, self.log, ahead=MUSIC_AHEAD, seed=seed) if music else None
        self.mixer = Mixer(audio.mix, Patient(self.music) if self.music is not None else None)
        self.rate = audio.mix.samplerate
        try:
            self.file = soundfile.SoundFile(path, "w", samplerate=self.rate, channels=1, subtype="PCM_16")
        except Exception as err:  # soundfile's LibsndfileError, OSError: a path it cannot write
            self.close()
            raise InputError(f"{place} file:{path}", _("cannot write it ({err})").format(err=err)) from None
        self.book: Phrasebook = load_phrasebook()
        self._block = np.zeros(self.BLOCK, dtype=np.float32)
        self.rendered = 0.0   # the game time the file has reached

    def _render_until(self, t: float) -> None:
        while self.rendered < t:
            self._render_block()

    def _render_block(self) -> None:
        self.mixer.render(self._block, self.rendered)
        self.file.write(self._block)
        self.rendered += self.BLOCK / self.rate

    async def speak(self, text: str) -> float:
        """The line into the mix at the game's present; returns its onset once it has been said."""
        loop = asyncio.get_running_loop()
        self._render_until(loop.time())
        clip = self.recorded.clip(text) if self.recorded is not None else None
        if clip is None:
            clip = self.renderer.clip(text)
        started = self.mixer.say(clip, text)
        limit = self.rendered + 10.0 + len(clip) / self.rate
        while not started.done() and self.rendered < limit:
            self._render_block()
            if not started.done():
                time.sleep(0.0005)  # the mixer's onset thread reports the first sample
        onset = started.result(timeout=5)
        self._render_until(onset + len(clip) / self.rate)
        await asyncio.sleep(max(0.0, self.rendered - loop.time()))
        return onset

    def night(self, on: bool) -> None:
        self._render_until(asyncio.get_running_loop().time())
        self.mixer.night(on)

    def cue(self, name: str) -> None:
        self._render_until(asyncio.get_running_loop().time())
        self.mixer.say(self.cues[name], "", pause=False)

    def hold(self, on: bool) -> None:
        self._render_until(asyncio.get_running_loop().time())
        self.mixer.hold(on)

    def close(self) -> None:
        for part in ("file", "mixer", "music", "renderer"):
            thing = getattr(self, part, None)
            if thing is not None:
                thing.close()


class TerminalVoice:
    """``--audio off`` at a live table: no sound at all — each line is printed for the
    organizer to read out, and takes the time it would take to say. Nothing is heard, so like
    the virtual voice (and unlike a sound card) it keeps to ``--speed`` as the timers do."""

    def __init__(self, log: Log, speed: float = 1.0) -> None:
        self.log = log
        self.speed = speed

    def say(self, text: str, wait: bool = True) -> float:
        onset = time.monotonic()
        self.log(_("host: {text}").format(text=text))
        if wait:
            time.sleep(spoken_length_s(text) / self.speed)
        return onset

    warning: WarningStyle = "voice"   # no tones here: the 10-second warning is printed as its line

    def night(self, on: bool) -> None:
        self.log(_("(night music on)") if on else _("(night music off)"))

    def cue(self, name: str) -> None:
        pass  # a tone has no text to print

    def cue_length(self, name: str) -> float:
        return 0.0

    def hold(self, on: bool) -> None:
        pass

    def close(self) -> None:
        pass


def spoken_length_s(text: str) -> float:
    """About how long a line takes to say aloud (the virtual voice of the table level too)."""
    return 0.3 + 0.065 * len(text)


AUDIO_CHOICES = "default, device:NAME, file:OUT.wav, null, or off (no voice)"


def open_live_voice(table: Path, output: str | None, game: Any, log: Log, speed: float = 1.0) -> Voice | TerminalVoice:
    """The voice for ``voicehost run``: the table's sound (every fixed line rendered up front,
    so no line waits for the synthesizer later), or ``off``: the lines on the terminal, each
    taking its time ``speed`` times faster."""
    if output == "off":
        return TerminalVoice(log, speed)
    voice = Voice(load_audio(table), output, log=log)
    voice.renderer.warm(fixed_lines(voice.book, game.ruleset.name, range(1, game.seats + 1)))
    return voice


def recording_script(book: Phrasebook, rulesets: Iterable[tuple[str, int, Iterable[int]]]) -> list[tuple[str, str]]:
    """``(name, text)`` for everything a club records to replace the synthesized voice:
    every fixed line whole, and the lines with numbers cut into their fixed parts and every
    number form they take («Кандидатура номер» + «семь» + «принята.»). ``rulesets``: (name,
    seats, timer values) each. Roster names are not in it (they come from espeak-ng)."""
    rows: dict[tuple[str, ...], tuple[str, str]] = {}

    def add(kind: str, text: str) -> None:
        text = text.strip(" ,:;—").lstrip(". ")
        if words(text) and words(text) not in rows:
            rows[words(text)] = (f"{kind}-{hashlib.sha1(' '.join(words(text)).encode()).hexdigest()[:8]}", text)

    for ruleset, seats, timers in rulesets:
        numbers = range(0, seats + 1)
        for key in sorted(HOST_KEYS):
            template = book.lines[book.host_key(key, ruleset)]
            if "{" not in template:
                add("line", book.say(key, ruleset))
                continue
            for literal, field, spec, _conversion in string.Formatter().parse(template):
                add("part", literal)
                for value in _field_forms(book, ruleset, field, spec or "", numbers, timers):
                    add("part", value)
    return sorted(rows.values(), key=lambda row: row[1])


def _field_forms(book: Phrasebook, ruleset: str, field: str | None, spec: str, numbers: range,
                 timers: Iterable[int]) -> list[str]:
    if field is None or field in ("name", "names") or spec in CASES or spec.startswith("gender:"):
        return []  # roster names (any field declined like one: «выдвигает {target:acc}») are said by espeak-ng
    if field == "role":
        return [book.say(key.removeprefix("host."), ruleset) for key in book.lines if key.startswith("host.role_")]
    if field == "list":
        return [cardinal(n) for n in numbers if n] + ["и"]
    if field == "seconds":
        return [spell(t, spec) for t in timers if t > 0]
    return [spell(n, spec) for n in numbers if n or spec.startswith(("count", "pick"))]


JUDGE_PLACE = "--judge-audio"


class JudgeVoice:
    """The judge's earpiece (``--judge-audio``): a voice of its own — the same renderer,
    lexicon and loudness as the table's, but its own mixer with no music (so it ducks nothing
    at the table) and its own output: a sound card or PulseAudio/PipeWire sink, a WAV file, or
    printed lines. ``speak`` is what :class:`~voicehost.host.earpiece.JudgeChannel` talks to.

    ``virtual``: the game runs on the virtual clock (``demo --audio file:``), so a file is
    rendered on the game's own time (:class:`FileVoice`); otherwise in real time."""

    def __init__(self, audio: AudioConfig, spec: str, log: Log, virtual: bool = False, speed: float = 1.0) -> None:
        self.spec = spec
        self.log = log
        self.speed = speed
        self.voice: Voice | FileVoice | None = None
        if spec == "print":   # no sound at all (demo --audio off): the lines are printed
            return
        if virtual and spec.startswith("file:"):
            self.voice = FileVoice(audio, spec.removeprefix("file:"), log, music=False, place=JUDGE_PLACE)
        else:
            self.voice = Voice(audio, spec, log, music=False, place=JUDGE_PLACE)

    async def speak(self, text: str) -> float:
        """The line in the judge's ear; returns its onset once it has been said."""
        if isinstance(self.voice, FileVoice):
            return await self.voice.speak(text)
        loop = asyncio.get_running_loop()
        if self.voice is None:   # printed: the line, and the time it would take
            onset = loop.time()
            self.log(_("judge's earpiece: {text}").format(text=text))
            await asyncio.sleep(spoken_length_s(text) / self.speed)
            return onset
        return await loop.run_in_executor(None, self.voice.say, text)   # the mixer's onset: monotonic, the loop's clock

    def close(self) -> None:
        if self.voice is not None:
            self.voice.close()


def open_judge_voice(audio: AudioConfig, spec: str | None, log: Log, virtual: bool = False,
                     speed: float = 1.0) -> JudgeVoice | None:
    """``--judge-audio`` (None: the table file's ``judge_output``); None when it is ``off``."""
    wanted = spec if spec is not None else audio.judge_output
    if wanted == "off":
        return None
    return JudgeVoice(audio, wanted, log, virtual, speed)
