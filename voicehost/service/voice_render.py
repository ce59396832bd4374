"""A fresh appliance's voice, rendered in the background by idle-priority child processes.

On a fresh Pi the TTS cache is empty: the table's fixed lines take minutes of espeak-ng,
loudness normalizing and Vorbis encoding. Rendered in the table's own process they kept
that process at up to 481 MB (scipy, pyloudnorm, espeak-ng's buffers never given back) and
at a third to a half of a core for as long as it ran, under a table that calls itself idle.
So the table hands the lines it does not find on disk to a child process at a time, each
with :data:`BATCH_LINES` lines, at the lowest priority the kernel has (nice 19, and
``SCHED_IDLE`` where there is one): a child's memory goes back to the system when it exits,
so the peak is one child's, and the table's own process stays as light as a warm one. The
table does not wait for it: it is ready at once, and a line a game needs before its child
has rendered it is rendered by the table's own renderer, as before (the cache's writes are
whole or nothing, so the two never mix a file). ``python -m voicehost.service.voice_render``
is the child: the settings, the cache folder and the lines as JSON on its stdin.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.i18n import N_, _

if TYPE_CHECKING:
    from audio.tts import VoiceSettings

BATCH_LINES = 40
"""Lines a child renders before it exits: its memory is bounded by one batch's, and a
stop costs at most the line being rendered."""
FIRST_PATIENCE_S = 30.0
"""How long the table's idle line waits for the first child before the table renders it itself."""
NICE = 19
"""The child's niceness: the lowest priority an ordinary process can take."""

RENDERED_LINE = N_("voicehost: the voice is rendered ({lines} lines, {children} children at idle priority)")
"""Logged when the background render is over (not with a warm cache, where there is none)."""

Log = Callable[[str], None]


def lower_priority() -> None:
    """This process at nice 19 and, where the kernel has it, ``SCHED_IDLE``: it runs only
    when nothing else wants the core (the table, the mixer, the ears)."""
    os.nice(NICE - os.nice(0))
    if hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            pass  # not allowed here: nice 19 alone


def niced() -> list[str]:
    """``nice -n 19`` before the child's command, so it is never at the table's priority, not
    even while the interpreter starts (a child lowers itself further once it runs)."""
    command = shutil.which("nice")
    return [command, "-n", str(NICE)] if command else []


def batches(lines: Iterable[str], size: int = BATCH_LINES) -> list[list[str]]:
    """The lines, each once and in order, cut into batches of ``size``."""
    unique = list(dict.fromkeys(lines))
    return [unique[start:start + size] for start in range(0, len(unique), size)]


def job(settings: VoiceSettings, cache: Path, lines: list[str]) -> bytes:
    """What a child reads on its stdin: everything it needs to render ``lines`` as the table would."""
    return json.dumps({"settings": dataclasses.asdict(settings), "cache": str(cache), "lines": lines},
                      ensure_ascii=False).encode()


class BackgroundRender:
    """The lines missing from the cache, rendered one child at a time until done or stopped."""

    def __init__(self, settings: VoiceSettings, cache: Path, lines: Iterable[str], log: Log,
                 batch: int = BATCH_LINES, first: Iterable[str] = ()) -> None:
        """``lines``: as espeak-ng gets them (through the lexicon already), so the child keys
        them as the table's renderer does; ``first``: the table's own idle lines, a child of
        their own before the rest (the table waits for them rather than render them itself)."""
        self.settings, self.cache, self.log = settings, Path(cache), log
        self.first = list(dict.fromkeys(first))
        rest = [line for line in lines if line not in set(self.first)]
        self.batches = ([self.first] if self.first else []) + batches(rest, batch)
        self.children: list[int] = []
        """The pids of the children started so far (a test reads their priority)."""
        self._child: asyncio.subprocess.Process | None = None
        self._stopped = False
        self._first_done = threading.Event()
        if not self.first:
            self._first_done.set()

    @classmethod
    def of_missing(cls, settings: VoiceSettings, cache: Path, lines: Iterable[str], log: Log,
                   batch: int = BATCH_LINES, first: Iterable[str] = ()) -> BackgroundRender:
        """Only the lines that have no clip on disk yet (a warm cache: nothing to do); the parts
        a killed child left are swept first (:func:`audio.tts.sweep_parts`)."""
        from audio.tts import sweep_parts

        sweep_parts(cache)
        return cls(settings, cache, [line for line in lines if not cached(settings, cache, line)], log, batch,
                   [line for line in first if not cached(settings, cache, line)])

    async def run(self) -> int:
        """Every batch in its child, one after the other; returns how many children ran."""
        done = 0
        try:
            for lines in self.batches:
                if self._stopped:
                    break
                await self._render(lines)
                self._first_done.set()
                done += 1
        finally:
            self._first_done.set()
        if done and not self._stopped:   # a warm cache renders nothing, and says nothing
            self.log(_(RENDERED_LINE).format(lines=sum(map(len, self.batches)), children=done))
        return done

    def wait_for(self, line: str, timeout: float = FIRST_PATIENCE_S) -> None:
        """Before the table says one of its idle lines (from a thread, never the loop): until
        the first child has rendered them, so the table's process never loads what rendering
        costs (scipy, pyloudnorm, espeak-ng's buffers); after ``timeout`` it renders it itself."""
        if line in self.first:
            self._first_done.wait(timeout)

    async def _render(self, lines: list[str]) -> None:
        child = await asyncio.create_subprocess_exec(
            *niced(), sys.executable, "-m", "voicehost.service.voice_render", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        self._child = child
        self.children.append(child.pid)
        try:
            said = (await child.communicate(job(self.settings, self.cache, lines)))[1]
        finally:
            self._child = None
        if child.returncode and not self._stopped:
            why = said.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {child.returncode}"]
            self.log(_("voicehost: the background voice render failed ({error}); the table renders those lines "
                       "when it says them").format(error=why[0]))

    def stop(self) -> None:
        """No more children; the one at work ends now (its line being written is whole or absent)."""
        self._stopped = True
        self._first_done.set()
        if self._child is not None and self._child.returncode is None:
            try:
                self._child.terminate()
            except ProcessLookupError:
                pass


def cached(settings: VoiceSettings, cache: Path, line: str) -> bool:
    """Whether ``line`` (as espeak-ng gets it) has its clip on disk."""
    path = Path(cache) / f"{settings.key(line)}.ogg"
    return path.exists() and path.stat().st_size > 0


def start_cues(audio: Any, cache: Path) -> subprocess.Popen[bytes] | None:
    """A fresh cache's cues (``audio``: the table file's ``[audio]``, as ``load_audio`` reads
    it), finished by a child started as soon as the table file is read,
    beside the rest of the table's start-up; the table waits for it before it opens its voice,
    which then only loads them. Normalizing them in the table's own process would keep scipy
    and pyloudnorm there (60 MB) for its whole life. At the table's own priority: the table
    is not ready without its cues. None: they are cached already. If the child fails, the
    table normalizes them itself, as before."""
    from audio.cues import cues_cached

    shape = (audio.mix.samplerate, dict(audio.cues), audio.voice.loudness_lufs, audio.voice.ceiling_dbtp)
    if cues_cached(*shape, cache):
        return None
    child = subprocess.Popen([sys.executable, "-m", "voicehost.service.voice_render"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert child.stdin is not None
    with child.stdin:
        child.stdin.write(json.dumps({"cues": [*shape, str(cache)]}).encode())
    return child


def render_job(raw: bytes) -> int:
    """The child's work: every line of the job into the cache, or the cues; how many there were."""
    from audio.tts import SpeechRenderer, VoiceSettings

    order: dict[str, Any] = json.loads(raw)
    if "cues" in order:
        from audio.cues import load_cues

        samplerate, files, lufs, ceiling, cache = order["cues"]
        return len(load_cues(samplerate, files, lufs, ceiling, Path(cache)))
    renderer = SpeechRenderer(VoiceSettings(**order["settings"]), Path(order["cache"]), memory_clips=1)
    try:
        return renderer.warm(list(order["lines"]))
    finally:
        renderer.close()


def main() -> int:
    raw = sys.stdin.buffer.read()
    if b'"cues"' not in raw[:16]:   # the table waits for its cues: those keep its priority
        lower_priority()   # first, before the imports that cost a core
    render_job(raw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
