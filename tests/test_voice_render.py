"""A fresh appliance's voice: rendered by idle-priority children, in batches, into the cache the
table's renderer reads; the table's own process stays light and is ready before the render ends."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from audio.cues import cues_cached
from audio.tts import SpeechRenderer, VoiceSettings
from voicehost.bench.startup import _rss_mb, _serve, _stop, _wait_for_line, children_of
from voicehost.host import load_audio, table_path
from voicehost.service.voice_render import NICE, RENDERED_LINE, BackgroundRender, batches, start_cues

LINES = ["Один.", "Два.", "Три.", "Четыре.", "Пять."]


def nice_of(pid: int) -> int | None:
    """The niceness of a running process (None: it has ended)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    except (OSError, IndexError):
        return None


def rendering_nice(pid: int) -> int | None:
    """The niceness of a render child once it runs the render module; None before (the instant
    after the fork, still the table's image, and while ``nice`` itself runs, both at the table's
    priority until ``nice`` lowers it) and after it has ended."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    if Path(argv[0].decode(errors="replace")).name == "nice" or b"voicehost.service.voice_render" not in argv:
        return None
    return nice_of(pid)


def test_batches_keep_each_line_once_in_order() -> None:
    assert batches(["a", "b", "a", "c", "d"], 2) == [["a", "b"], ["c", "d"]]


def test_children_render_at_idle_priority_into_the_tables_cache(tmp_path: Path) -> None:
    """Two lines first (the table's idle lines), then batches of two: four children, each seen
    at nice 19; afterwards every line is on disk where the table's own renderer looks for it."""
    settings = VoiceSettings()
    render = BackgroundRender.of_missing(settings, tmp_path, LINES, print, batch=2, first=LINES[:2])
    assert render.batches == [LINES[:2], LINES[2:4], LINES[4:]]
    seen: dict[int, int | None] = {}

    async def watch() -> int:
        task = asyncio.create_task(render.run())
        while not task.done():
            for pid in render.children:
                if seen.get(pid) is None:
                    seen[pid] = rendering_nice(pid)
            await asyncio.sleep(0.005)
        return await task

    assert asyncio.run(watch()) == 3
    assert len(seen) == 3 and set(seen.values()) <= {NICE, None} and NICE in seen.values(), seen
    table = SpeechRenderer(settings, tmp_path)
    try:
        assert all(table.cache_file(line).stat().st_size > 0 for line in LINES)
    finally:
        table.close()
    assert BackgroundRender.of_missing(settings, tmp_path, LINES, print).batches == []   # warm: nothing left


def test_a_stopped_render_starts_no_more_children(tmp_path: Path) -> None:
    render = BackgroundRender(VoiceSettings(), tmp_path, LINES, print, batch=1)

    async def stopped_early() -> int:
        task = asyncio.create_task(render.run())
        while not render.children:
            await asyncio.sleep(0.005)
        render.stop()
        return await task

    assert asyncio.run(stopped_early()) == 1
    render.wait_for(LINES[0], timeout=0)   # nothing left to wait for


def test_the_cues_are_finished_in_a_child(tmp_path: Path) -> None:
    audio = load_audio(table_path(None))
    shape = (audio.mix.samplerate, dict(audio.cues), audio.voice.loudness_lufs, audio.voice.ceiling_dbtp)
    assert not cues_cached(*shape, tmp_path)
    child = start_cues(audio, tmp_path)
    assert child is not None and child.wait(timeout=120) == 0
    assert cues_cached(*shape, tmp_path)
    assert start_cues(audio, tmp_path) is None   # cached: no child


def test_a_fresh_table_is_ready_light_and_renders_in_low_priority_children(tmp_path: Path) -> None:
    """``voicehost serve`` on an empty cache: ready before the render is over; meanwhile its
    children run at nice 19, the table's own process stays as light as a warm one (nothing
    rendered in it), and the table and its children together stay within 150 MB of that."""
    process, _ = _serve(str(tmp_path / "journals"), cache=str(tmp_path / "cache"))
    finished = threading.Event()
    threading.Thread(target=_wait_for_line, args=(process, RENDERED_LINE, finished), daemon=True).start()
    try:
        assert not finished.is_set()
        table_mb, children_mb = 0.0, 0.0
        nices: dict[int, int] = {}   # each child's niceness, in the order they were seen
        began, deadline = time.monotonic(), time.monotonic() + 90   # a busy machine starts the children late
        while time.monotonic() < min(deadline, began + 20) and not finished.is_set():
            children = children_of(process.pid)
            if not nices and not children:
                began = time.monotonic()   # watch 20 s from the first child
            for child in children:
                if (nice := rendering_nice(child)) is not None:
                    nices.setdefault(child, nice)
            table_mb = max(table_mb, _rss_mb(process.pid))
            children_mb = max(children_mb, sum(map(_rss_mb, children)))
            time.sleep(0.05)
    finally:
        _stop(process, patience_s=60)   # a busy machine: its children at idle priority are slow to go
    # the cues' child comes first, at the table's own priority (the table is not ready without
    # them); a slow machine catches it at work. Every child after it renders lines at nice 19.
    order = list(nices.values())
    cue_child = order[:1] if order and order[0] != NICE else []
    assert order[len(cue_child):] and set(order[len(cue_child):]) == {NICE}, nices
    assert table_mb < 100, f"the table's own process grew to {table_mb:.0f} MB"   # a warm idle table: ~75 MB
    assert children_mb <= 150, f"the render's children took {children_mb:.0f} MB"
    assert process.returncode == 0


def test_the_child_is_a_module_that_reads_its_job_on_stdin(tmp_path: Path) -> None:
    """A broken job fails the child alone (the table logs it and renders those lines itself)."""
    done = subprocess.run([sys.executable, "-m", "voicehost.service.voice_render"], input=b"{}",
                          capture_output=True, env={**os.environ, "VOICEHOST_CACHE": str(tmp_path)}, timeout=120)
    assert done.returncode != 0
