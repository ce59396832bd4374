"""The spoken transcript (``--transcript FILE.jsonl``): every line the host says and every
change of the night music, one JSON object a line, timed on the table's clock.

It is the subtitle track for hard-of-hearing players and how tests check the flow. ``t`` is
in seconds as the game's timers count them — a 60-second speech spans 60 of ``t`` whatever
``--speed`` the timers run at — from the moment the host took the table::

    {"t": 0.0, "key": "night_falls", "text": "Наступает ночь."}
    {"t": 1.2, "music": "on"}

A line said on the judge's private channel (``--judge-audio``) says so:
``{"t": 3.4, "key": "judge.deal", "text": "Раздача.", "channel": "judge"}``; a line without a
``channel`` was said at the table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

from voicehost.host.notices import LineSaid, MusicChanged, Notice
from voicehost.i18n import _
from voicehost.rules import InputError


class Transcript:
    """An open ``--transcript`` file; each record is flushed as it is written, so a game cut
    off keeps its subtitles up to the last line."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.file: IO[str] = self.path.open("w", encoding="utf-8")
        except OSError as err:
            raise InputError(f"--transcript {path}", _("cannot write it ({strerror})").format(
                                                         strerror=err.strerror)) from None

    def notice(self, notice: Notice) -> None:
        """A director watcher (:mod:`~voicehost.host.notices`): the lines and the music."""
        if isinstance(notice, LineSaid):
            self.line(notice.t, notice.key, notice.text)
        elif isinstance(notice, MusicChanged):
            self.music(notice.t, notice.on)

    def line(self, t: float, key: str, text: str, channel: str | None = None) -> None:
        self._write({"t": round(t, 3), "key": key, "text": text, **({"channel": channel} if channel else {})})

    def music(self, t: float, on: bool) -> None:
        self._write({"t": round(t, 3), "music": "on" if on else "off"})

    def _write(self, record: dict[str, object]) -> None:
        self.file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()
