"""The journal: every input (with its time and source) and decision is appended to a file
and fsynced before anything follows from it (a word said, an LED lit), so a crash or a
power cut loses nothing anyone saw.

One JSON object per line. The first is the game's header (ruleset, options, seats, the
script it plays, if any); then one line per input, and a ``splice`` line wherever the human
host undid an input or corrected a vote (the inputs it replaced and what came instead), so
a resume rebuilds the game the host corrected, not the one the buttons first recorded. After
the game, an ``award`` line keeps the table's best-player vote (seed 001), which is no input
of the game: :func:`read_journal` gives the last one as the header's ``best_player``. A
torn last line — the power went off in the middle of writing it — was never acted on, so
reading stops there.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.rules import InputError
from voicehost.rules.inputs import Input, input_from_dict


@dataclass
class JournalEntry:
    index: int
    t: float
    source: str
    input: Input


class Journal:
    """Append-only, fsynced per record."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self._file = self.path.open("a", encoding="utf-8")
        if self.path.stat().st_size == 0:
            self._write({"type": "game", **header})
        self.count = 0

    def append(self, index: int, t: float, source: str, item: Input) -> None:
        """Written and on disk before the caller lets the input take effect."""
        self._write({"type": "input", "i": index, "t": round(t, 6), "source": source, "input": item.to_dict()})
        self.count += 1
        crash_point(self.count)

    def splice(self, t: float, source: str, at: int, remove: int, insert: list[Input], why: str) -> None:
        """The game's inputs ``[at, at+remove)`` were replaced by ``insert`` (undo, a vote corrected)."""
        self._write({"type": "splice", "t": round(t, 6), "source": source, "at": at, "remove": remove,
                     "insert": [item.to_dict() for item in insert], "why": why})
        self.count += 1
        crash_point(self.count)

    def award(self, t: float, source: str, best_player: int) -> None:
        """The table's best-player vote after the game (the last one counts)."""
        self._write({"type": "award", "t": round(t, 6), "source": source, "best_player": best_player})

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def write_results(journal: Path, protocol: dict[str, Any], log: list[str]) -> Path:
    """At the end of a game: the protocol (JSON) and the readable Russian log next to the journal."""
    path = journal.with_suffix(".protocol.json")
    path.write_text(json.dumps(protocol, ensure_ascii=False, indent=2) + "\n")
    journal.with_suffix(".log.txt").write_text("\n".join(log) + "\n")
    return path


def read_journal(path: str | Path) -> tuple[dict[str, Any], list[JournalEntry]]:
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise InputError(str(path), "no such journal") from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(str(path), f"cannot read it ({err})") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if number >= len(lines) - 1:
                break  # the torn last line of a power cut
            raise InputError(f"{path}:{number}", "not a journal record") from None
    if not records or records[0].get("type") != "game":
        raise InputError(str(path), "not a voicehost journal (no game header)")
    entries: list[JournalEntry] = []
    header = dict(records[0])
    for number, record in enumerate(records[1:], start=2):
        try:
            if record.get("type") == "award":
                header["best_player"] = int(record["best_player"])
            elif record.get("type") == "splice":
                at, remove = int(record["at"]), int(record["remove"])
                if not 0 <= at <= at + remove <= len(entries):
                    raise ValueError(f"splice {at}+{remove} outside the {len(entries)} inputs")
                inserted = [JournalEntry(at + k, record["t"], record["source"], input_from_dict(d))
                            for k, d in enumerate(record["insert"])]
                entries[at:at + remove] = inserted
                for k, entry in enumerate(entries):
                    entry.index = k
            else:
                entries.append(JournalEntry(record["i"], record["t"], record["source"],
                                            input_from_dict(record["input"])))
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise InputError(f"{path}: record {number}", f"not a valid record ({err})") from None
    return header, entries


def crash_point(count: int) -> None:
    """For the crash test: ``VOICEHOST_CRASH_AFTER=N`` kills the process (SIGKILL, no cleanup)
    right after the N-th record is on disk — as a power cut would."""
    after = os.environ.get("VOICEHOST_CRASH_AFTER")
    if after and after.isdigit() and count == int(after):
        import signal
        os.kill(os.getpid(), signal.SIGKILL)
