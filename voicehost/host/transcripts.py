"""Transcript sources behind one interface, all going through the same phrase parser: the
live microphone, a replay of recorded vosk output and the console. (The simulator's scripts
give their speeches to the same parser directly.)
"""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

from audio.listener import Heard, replay
from voicehost.files import decode, read_bytes
from voicehost.i18n import _
from voicehost.language.intents import Intent
from voicehost.language.parser import parse
from voicehost.rules import InputError


@dataclass(frozen=True)
class Understood:
    """An intent, when its utterance ended, who had the floor, and where the words came from."""

    intent: Intent
    t: float
    speaker: int | None
    source: str


def understand(heard: Heard, speaker: int | None) -> list[Understood]:
    """Parse one final result; the intents belong to whoever has the floor."""
    return [Understood(intent, heard.t_end, speaker, heard.source) for intent in parse(heard.text)]


def replay_source(path: str) -> Iterator[Heard]:
    """Recorded vosk results (JSONL of vosk's own result JSON), for bug reports and tests;
    the file passes the gate for outside files first (a regular file of UTF-8 text)."""
    decode(read_bytes(path, "replay"), path)
    try:
        yield from replay(path)
    except RecursionError:
        raise InputError(path, _("nested too deeply to read")) from None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
        raise InputError("replay", _("not a vosk result ({kind}: {err})").format(
                                       kind=type(err).__name__, err=err)) from None


def console_source(lines: TextIO) -> Iterator[Heard]:
    """What a human host types, as if heard."""
    for line in lines:
        if line.strip():
            yield Heard(line.strip().lower(), time.monotonic(), "console")


def queue_source(heard: queue.Queue[Heard | None]) -> Iterator[Heard]:
    """The live microphone: the listener thread puts final results here; None ends it."""
    while (item := heard.get()) is not None:
        yield item
