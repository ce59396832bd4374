"""The journal: every input (with its time and source) and decision is appended to a file
and fsynced before anything follows from it (a word said, an LED lit), so a crash or a
power cut loses nothing anyone saw.

One JSON object per line. The first is the game's header: the format version, ruleset,
options, seats, level, and whatever else rebuilds the game (the script it plays; a live
game's roster and table file). Then one line per input, and a ``splice`` line wherever the
human host undid an input or corrected a vote (the inputs it replaced and what came
instead), so a resume rebuilds the game the host corrected, not the one the buttons first
recorded. Before each vote's count, a ``ballots`` line keeps every press of that vote (who, for
whom, when, inside its window or not: :mod:`~voicehost.host.ballots`); a splice that corrected a
vote says which ballot it changed (its ``ballot``), and one that undid the vote drops its ballots.

Every record ends with a newline; bytes after the last newline are a record torn by a power
cut (or a full disk). It was never acted on, so reading ignores it, and a resume cuts it off
— keeping a copy next to the journal — before it appends anything. Any other damage (a line
that is not a record, inputs out of order, a version this program does not know) refuses
the whole journal with the line number: a journal either rebuilds the same game or none. After the game, an
``award`` line keeps the table's best-player vote (``seed001``: +2), which is no input of the game:
:func:`read_journal` gives the last one as the header's ``best_player``. A ``judge`` line keeps
what the judge did that is no input of the game either (:data:`JUDGE_RECORDS`: a speech's time
changed, restarted, given back or held; a note; the game annulled or stopped; and ``undo``, which
takes the last of them back): :attr:`JournalFile.judged` holds those still standing.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeGuard, get_args

from voicehost.files import NoSuchFile, decode, file_name, loads_json, read_bytes
from voicehost.host.ballots import VoteBallots
from voicehost.host.commands import judge_records
from voicehost.i18n import _
from voicehost.rules import GAMES, InputError
from voicehost.rules.inputs import Input, input_from_dict
from voicehost.rules.protocol import add_ballots

FORMAT = 1                      # the journal format this program writes and reads
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
LEVELS = ("engine", "table", "live")
# Who gave an input: ``seats`` (the buttons: taps, thumbs, hands, a veto), ``ears`` (heard in a
# speech), ``host`` (the host's own step: a speech's end, dawn, a closed vote; the judge's typed
# cards), ``console`` (typed by the judge), ``deal`` (the cards as dealt), ``script`` (a
# simulated game's script).
Source = Literal["seats", "ears", "host", "console", "deal", "script"]
SOURCES: tuple[Source, ...] = get_args(Source)
JUDGE_RECORDS = judge_records()
"""A judge record's action → its own fields (besides type, t, source, i: the game's input count
then), as the judge's commands declare them (:mod:`~voicehost.host.commands`)."""
VERDICTS = ("annulled", "stopped")


class JournalUnwritable(OSError):
    """The journal cannot be written (a full disk, a pulled USB stick). The game must stop:
    playing on would act on inputs a resume could not rebuild. An OSError (what callers that
    guard a journal expect), whose ``filename`` and ``strerror`` make the one line."""

    def __init__(self, place: str, message: str) -> None:
        super().__init__(0, message, place)
        self.place, self.message = place, message

    def __str__(self) -> str:
        return f"{self.place}: {self.message}"


@dataclass
class JournalEntry:
    index: int
    t: float
    source: Source
    input: Input
    record: int = 0   # the line of the journal that holds it (for messages)


@dataclass
class JournalFile:
    """A journal as read: its header, the inputs it rebuilds, and its torn tail, if any."""

    path: Path
    header: dict[str, Any]
    entries: list[JournalEntry]
    complete: int = 0      # bytes up to the end of the last complete record
    torn: bytes = b""      # what a power cut left after it
    judged: list[dict[str, Any]] = dataclasses.field(default_factory=list)   # the judge's records still standing
    ballots: list[VoteBallots] = dataclasses.field(default_factory=list)
    """The ballots of the votes the game as rebuilt still holds, corrections applied, in order."""


class Journal:
    """Append-only, fsynced per record. A new journal writes its header at once; a resumed one
    (:meth:`resume`) writes nothing — not even the cut of a torn tail — until its first record."""

    def __init__(self, path: str | Path, header: dict[str, Any], *, _resumed: JournalFile | None = None,
                 note: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.count = 0
        self._fd: int | None = None
        self._resumed = _resumed
        self._note = note or (lambda line: print(line, file=sys.stderr, flush=True))
        self.judged: list[dict[str, Any]] = list(_resumed.judged) if _resumed is not None else []
        """The judge's records still standing (:data:`JUDGE_RECORDS`), the resumed journal's first."""
        self.resumed_ballots: list[VoteBallots] = list(_resumed.ballots) if _resumed is not None else []
        """A resumed journal's ballots so far (the last vote's, for a correction's answer)."""
        if _resumed is None:
            self._open()
            if os.fstat(self._fd_now()).st_size == 0:  # when the game started: part of its id in the records
                self._write({"type": "game", "format": FORMAT, "started": started_now(), **header})

    @classmethod
    def resume(cls, read: JournalFile, note: Callable[[str], None] | None = None) -> Journal:
        return cls(read.path, read.header, _resumed=read, note=note)

    def append(self, index: int, t: float, source: Source, item: Input) -> None:
        """Written and on disk before the caller lets the input take effect."""
        self._write({"type": "input", "i": index, "t": round(t, 6), "source": source, "input": item.to_dict()})
        self.count += 1
        crash_point(self.count)

    def splice(self, t: float, source: Source, at: int, remove: int, insert: list[Input], why: str,
               ballot: dict[str, int] | None = None) -> None:
        """The game's inputs ``[at, at+remove)`` were replaced by ``insert`` (undo, a vote corrected).
        ``ballot``: a corrected vote's ballot, ``{"voter", "before", "after"}`` (0: no candidate)."""
        record: dict[str, Any] = {"type": "splice", "t": round(t, 6), "source": source, "at": at, "remove": remove,
                                  "insert": [item.to_dict() for item in insert], "why": why}
        if ballot is not None:
            record["ballot"] = dict(ballot)
        self._write(record)
        self.count += 1
        crash_point(self.count)

    def ballots(self, t: float, vote: VoteBallots) -> None:
        """A vote's ballots, written before its count is taken (a crash after it retakes the vote,
        and the retaken vote's ballots replace these)."""
        self._write({"type": "ballots", "t": round(t, 6), "source": "seats", **vote.record()})

    def _open(self) -> None:
        """Non-blocking, so a FIFO is refused at once instead of waiting for a reader."""
        file_name(self.path, "journal")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o644)
        except OSError as err:
            raise JournalUnwritable(str(self.path), f"cannot open the journal ({err.strerror or err})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise JournalUnwritable(str(self.path), "is not a regular file; a journal is a file of its own")
        self._fd = fd

    def _fd_now(self) -> int:
        if self._fd is None:
            if self._resumed is not None and self._resumed.torn:
                self._cut_torn_tail(self._resumed)
            self._open()
        assert self._fd is not None
        return self._fd

    def _cut_torn_tail(self, read: JournalFile) -> None:
        """Keep a copy of the torn bytes, then cut them off, so new records follow a complete one."""
        copy = self.path.with_name(f"{self.path.name}.torn-{time.strftime('%Y%m%dT%H%M%S')}")
        try:
            copy.write_bytes(read.torn)
            os.truncate(self.path, read.complete)
        except OSError as err:
            raise JournalUnwritable(str(self.path), f"cannot cut the torn last record ({err.strerror or err})") \
                from None
        self._note(f"voicehost: {self.path}: the last record was torn mid-write (a power cut?); "
                   f"cut {len(read.torn)} bytes off, kept in {copy.name}")
        read.torn = b""

    def award(self, t: float, source: Source, best_player: int) -> None:
        """The table's best-player vote after the game (the last one counts)."""
        self._write({"type": "award", "t": round(t, 6), "source": source, "best_player": best_player})

    def said(self, t: float, channel: str, key: str, text: str) -> None:
        """A line said on a channel other than the table's (``judge``: the judge's earpiece,
        :mod:`~voicehost.host.earpiece`): what the judge was told, and when (table seconds)."""
        self._write({"type": "said", "t": round(t, 3), "channel": channel, "key": key, "text": text})

    def judge(self, t: float, source: Source, at: int, action: str, **fields: Any) -> dict[str, Any]:
        """What the judge did that is no input (:data:`JUDGE_RECORDS`), ``at``: the game's input
        count then; ``undo`` takes the last record still standing back. Returns the record."""
        record = {"type": "judge", "t": round(t, 6), "source": source, "i": at, "action": action, **fields}
        self._write(record)
        judged_onto(record, self.judged, "judge")
        return record

    def _write(self, record: dict[str, Any]) -> None:
        """The whole line or nothing: a failed write is cut back, so the journal always ends
        with a complete record, and the game stops (:class:`JournalUnwritable`)."""
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        fd = self._fd_now()
        size = os.fstat(fd).st_size
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except OSError as err:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass  # then a resume finds a torn last record and cuts it
            raise JournalUnwritable(str(self.path), f"cannot write the journal ({err.strerror or err}); the game "
                                                    "stops here — the journal holds every input up to the last "
                                                    "complete record: resume it once the disk has room") from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def write_results(journal: Path, protocol: dict[str, Any], log: list[str]) -> Path:
    """At the end of a game: the protocol (JSON) and the readable Russian log next to the journal."""
    path = journal.with_suffix(".protocol.json")
    header, ballots = _header_and_ballots(journal)
    started = header.get("started")
    if isinstance(started, str):  # the file says when the game started, as its journal does (the records' game id)
        protocol = {**protocol, "started": started}
    if ballots:  # who pressed for whom, beside each day's counts
        protocol = add_ballots(protocol, [{"day": vote.day, **vote.entry()} for vote in ballots])
    tournament = header.get("tournament")
    if isinstance(tournament, dict):  # the game's tournament, round and table: where the records put it
        protocol = {**protocol, "tournament": dict(tournament)}
    try:
        path.write_text(json.dumps(protocol, ensure_ascii=False, indent=2) + "\n")
        journal.with_suffix(".log.txt").write_text("\n".join(log) + "\n")
    except OSError as err:
        raise InputError(str(path), _("cannot write the protocol ({value}); the journal is complete: voicehost "
                                      "resume rebuilds the game and writes it again").format(
                                        value=err.strerror or err)) from None
    return path


def started_now() -> str:
    """The wall-clock time a game starts, in UTC to the second (``2026-12-01T19:00:00Z``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _header_of(journal: Path) -> dict[str, Any]:
    try:
        with open(journal, "rb") as file:
            header = json.loads(file.readline(64 * 1024))
    except (OSError, ValueError):
        return {}
    return header if isinstance(header, dict) else {}


def _header_and_ballots(journal: Path) -> tuple[dict[str, Any], list[VoteBallots]]:
    """The header and the ballots of an existing journal, read once; a journal this program
    cannot read whole (none, or a broken record) still gives its first line's header."""
    try:
        read = load_journal(journal)
    except InputError:
        return _header_of(journal), []
    return read.header, read.ballots


def journal_ballots(journal: Path) -> list[VoteBallots]:
    """The ballots an existing journal keeps (none: no journal, or one from before ballots)."""
    try:
        return load_journal(journal).ballots
    except InputError:
        return []


def read_journal(path: str | Path) -> tuple[dict[str, Any], list[JournalEntry]]:
    read = load_journal(path)
    return read.header, read.entries


def load_journal(path: str | Path) -> JournalFile:
    """Read and check every record; the first problem is one :class:`InputError` with the line."""
    path = file_name(path, "journal")
    try:
        data = read_bytes(path, "journal", MAX_JOURNAL_BYTES)
    except NoSuchFile:
        raise InputError(str(path), _("no such journal")) from None
    complete = data.rfind(b"\n") + 1
    text = decode(data[:complete], str(path))
    lines = text.split("\n")[:-1]
    if not lines:
        raise InputError(str(path), _("not a voicehost journal (no complete game header)"))
    header = check_header(_record(lines[0], f"{path}:1"), f"{path}:1")
    entries: list[JournalEntry] = []
    judged: list[dict[str, Any]] = []
    ballots: list[VoteBallots] = []
    header = dict(header)
    for number, line in enumerate(lines[1:], start=2):
        place = f"{path}:{number}"
        if not line.strip():
            raise InputError(place, _("an empty line inside the journal: not a journal record"))
        record = _record(line, place)
        if record.get("type") == "award":
            header["best_player"] = _award(record, place)
            continue
        if record.get("type") == "judge":
            judged_onto(_judge_record(record, place), judged, place)
            continue
        if record.get("type") == "ballots":
            ballots = _ballots(record, ballots, len(entries), place)
            continue
        if record.get("type") == "said":
            _said(record, place)   # a line of the judge's channel: kept for a protest, nothing to replay
            continue
        _apply(record, entries, number, place)
        if record["type"] == "splice":
            ballots = _follow_splice(record, ballots, place)
    return JournalFile(path, header, entries, complete, data[complete:], judged, ballots)


def _said(record: dict[str, Any], place: str) -> None:
    """A ``said`` record: its time, channel, key and text, each of its type."""
    _only(record, {"type", "t", "channel", "key", "text"}, place)
    t = record.get("t")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) \
            or not all(isinstance(record.get(key), str) for key in ("channel", "key", "text")):
        raise InputError(place, _("not a valid said record (t, channel, key, text)"))


def _judge_record(record: dict[str, Any], place: str) -> dict[str, Any]:
    """A judge record with exactly its action's fields, each of its type."""
    action = record.get("action")
    if not isinstance(action, str) or action not in JUDGE_RECORDS:
        raise InputError(place, _("not a valid judge record (action {action})").format(action=repr(str(action)[:24])))
    declared = JUDGE_RECORDS[action]
    _only(record, {"type", "t", "source", "i", "action"} | declared.fields | declared.optional, place)
    missing = sorted(declared.fields - set(record))
    t, at = record.get("t"), record.get("i")
    if missing or isinstance(t, bool) or not isinstance(t, (int, float)) or not _count(at):
        raise InputError(place, _("not a valid judge record ({what})").format(
            what=", ".join(missing) or _("its time or input count")))
    for name in ("seat", "seconds", "left", "was"):
        value = record.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or (name == "seat" and not _count(value)):
            raise InputError(place, _("not a valid judge record ({what})").format(what=f"{name} {value!r}"))
    for name in ("text", "reason", "by", "undone"):
        if name in record and not isinstance(record[name], str):
            raise InputError(place, _("not a valid judge record ({name} is not a text)").format(name=name))
    if action == "verdict" and record.get("result") not in VERDICTS:
        raise InputError(place, _("not a valid judge record (result {result})").format(
            result=repr(str(record.get("result"))[:24])))
    return record


def judged_onto(record: dict[str, Any], judged: list[dict[str, Any]], place: str) -> None:
    """One judge record onto those standing: an ``undo`` takes the last one back."""
    if record["action"] != "undo":
        judged.append(record)
    elif not judged or judged[-1]["action"] != record["undone"]:
        raise InputError(place, _("an undo of {action} where no such judge record stands").format(
            action=repr(record["undone"])))
    else:
        judged.pop()


def _ballots(record: dict[str, Any], ballots: list[VoteBallots], inputs: int, place: str) -> list[VoteBallots]:
    """A vote's ballots, written before its count: they stand beside inputs ``[at, close]``
    (``close`` the count still to come). They replace those of a vote they cut short (one a
    crash interrupted, taken again)."""
    t, source = record.get("t"), record.get("source")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) \
            or not isinstance(source, str) or not _known_source(source):
        raise InputError(place, _("not a journal record (its time or source is missing or wrong)"))
    fields = {key: value for key, value in record.items() if key not in ("type", "t", "source")}
    _only(fields, {"day", "vote", "round", "at", "close", "windows", "ballots", "non_voters"}, place)
    vote = VoteBallots.from_record(fields, place)
    if not vote.at <= vote.close <= inputs:
        raise InputError(place, _("ballots beside inputs {at}–{close} of the {inputs} so far").format(
            at=vote.at, close=vote.close, inputs=inputs))
    return [kept for kept in ballots if kept.close < vote.at] + [vote]


def _follow_splice(record: dict[str, Any], ballots: list[VoteBallots], place: str) -> list[VoteBallots]:
    """The ballots after a splice: a corrected vote's ballot changed (the splice replaced that
    vote's inputs up to its count), the ballots of a vote whose inputs were undone dropped, and
    every later vote's moved with its inputs."""
    at, remove, insert = record["at"], record["remove"], len(record["insert"])
    change = record.get("ballot")
    if change is not None and not (isinstance(change, dict) and set(change) == {"voter", "before", "after"}
                                   and all(_count(v) for v in change.values())):
        raise InputError(place, _("not a valid splice (its ballot is {fields})").format(
            fields="{voter, before, after}"))
    moved = []
    for vote in ballots:
        if change is not None and vote.close == at + remove:
            vote = vote.corrected(change["voter"], change["before"], change["after"], record["source"], record["t"])
            moved.append(dataclasses.replace(vote, at=min(vote.at, at), close=vote.close + insert - remove))
        elif remove and at <= vote.close and at + remove > vote.at:
            continue  # the vote (or its count) was undone: whatever follows is another vote
        else:
            moved.append(vote.shifted(insert - remove) if vote.at >= at + remove else vote)
    return moved


def _award(record: dict[str, Any], place: str) -> int:
    """The best-player vote after the game: a seat."""
    _only(record, {"type", "t", "source", "best_player"}, place)
    seat = record.get("best_player")
    if not _count(seat) or not seat:
        raise InputError(place, _("not a valid award (best_player must be a seat number)"))
    return int(seat)


def _record(line: str, place: str) -> dict[str, Any]:
    try:
        record = loads_json(line, place)
    except InputError as err:
        raise InputError(err.place, _("not a journal record ({message})").format(
                                        message=err.message)) from None
    if not isinstance(record, dict):
        raise InputError(place, _("not a journal record (a JSON {kind}, not an object)").format(
                                    kind=type(record).__name__))
    return record


def check_header(header: dict[str, Any], place: str) -> dict[str, Any]:
    """The header's fields, each of the right type; the format version one this program reads."""
    if header.get("type") != "game":
        raise InputError(place, _("not a voicehost journal (no game header)"))
    version = header.get("format")
    if version is None:
        raise InputError(place, _("the journal has no format version (not written by this voicehost): refused"))
    if version != FORMAT or isinstance(version, bool):
        raise InputError(place, _("journal format {version!r} is not one this voicehost reads (it reads "
                                  "{format})").format(
                                    version=version, format=FORMAT))
    if not isinstance(header.get("ruleset"), str) or header["ruleset"] not in GAMES:
        raise InputError(f"{place}: ruleset", _("{value!r} is not a known ruleset").format(
                                                  value=header.get('ruleset')))
    kinds: dict[str, tuple[type, ...]] = {"seats": (int,), "options": (dict,), "level": (str,), "script": (str,),
                                          "names": (dict,), "table": (str,), "deal": (int,), "started": (str,),
                                          "tournament": (dict,)}
    for key, kind in kinds.items():
        value = header.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise InputError(f"{place}: {key}", _("must be a {kind}, not {given}").format(
                                                    kind=kind[0].__name__, given=type(value).__name__))
    if header.get("level", "live") not in LEVELS:  # a str by now (checked above)
        raise InputError(f"{place}: level", _("{level!r} is not one of {levels}").format(
                                                level=header['level'], levels=', '.join(LEVELS)))
    for name, value in header.get("options", {}).items():
        if not isinstance(value, (str, int, float)):
            raise InputError(f"{place}: options.{name}", _("must be a text, a number or true/false"))
    for seat, name in header.get("names", {}).items():
        if not isinstance(name, str):
            raise InputError(f"{place}: names.{seat}", _("must be a name"))
    return header


def _apply(record: dict[str, Any], entries: list[JournalEntry], number: int, place: str) -> None:
    """One record onto the inputs so far: an input appended (its index must be the next one),
    or a splice applied."""
    kind = record.get("type")
    t, source = record.get("t"), record.get("source")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or not isinstance(source, str):
        raise InputError(place, _("not a journal record (its time or source is missing or wrong)"))
    if not _known_source(source):
        raise InputError(place, _("unknown input source {source!r} (one of {sources})").format(
                                    source=source[:24], sources=', '.join(SOURCES)))
    if kind == "input":
        _only(record, {"type", "i", "t", "source", "input"}, place)
        if record.get("i") != len(entries) or isinstance(record.get("i"), bool):
            raise InputError(place, _("input {value!r} where input {count} was due: records are missing or out "
                                      "of order").format(
                                        value=record.get('i'), count=len(entries)))
        entries.append(JournalEntry(len(entries), float(t), source, checked_input(record.get("input"), place),
                                    number))
    elif kind == "splice":
        _only(record, {"type", "t", "source", "at", "remove", "insert", "why", "ballot"}, place)
        at, remove, insert = record.get("at"), record.get("remove"), record.get("insert")
        if not _count(at) or not _count(remove) or not isinstance(insert, list):
            raise InputError(place, _("not a valid splice (at, remove, insert)"))
        if not 0 <= at <= at + remove <= len(entries):
            raise InputError(place, _("splice {at}+{remove} outside the {count} inputs").format(
                                        at=at, remove=remove, count=len(entries)))
        entries[at:at + remove] = [JournalEntry(at + k, float(t), source, checked_input(item, f"{place}: insert[{k}]"),
                                                number) for k, item in enumerate(insert)]
        for k, entry in enumerate(entries):
            entry.index = k
    else:
        raise InputError(place, _("not a journal record (type {kind!r})").format(kind=kind))


def _known_source(source: str) -> TypeGuard[Source]:
    return source in SOURCES


def _count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _only(record: dict[str, Any], keys: set[str], place: str) -> None:
    extra = sorted(set(record) - keys)
    if extra:
        raise InputError(place, _("not a journal record (unknown field {extra!r})").format(
                                    extra=extra[0]))


def checked_input(data: Any, place: str) -> Input:
    """An input exactly as :meth:`Input.to_dict` writes it: known kind, every field of its type."""
    if not isinstance(data, dict):
        raise InputError(place, _("not a valid input (not an object)"))
    try:
        item = input_from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise InputError(place, _("not a valid input ({kind}: {err})").format(
                                    kind=type(err).__name__, err=err)) from None
    for field in dataclasses.fields(item):  # type: ignore[arg-type]
        value, hint = getattr(item, field.name), str(field.type)
        if hint.startswith("int") and not (type(value) is int or (value is None and "None" in hint)):
            raise InputError(place, _("not a valid input ({name} {value!r} is not a seat number)").format(
                                        name=field.name, value=value))
        if hint == "str" and not isinstance(value, str):
            raise InputError(place, _("not a valid input ({name} {value!r} is not a text)").format(
                                        name=field.name, value=value))
    if item.to_dict() != data:
        raise InputError(place, _("not a valid input (fields that {kind} does not have, or of the wrong type)").format(
                                    kind=item.kind))
    return item


def crash_point(count: int) -> None:
    """For the crash test: ``VOICEHOST_CRASH_AFTER=N`` kills the process (SIGKILL, no cleanup)
    right after the N-th record is on disk — as a power cut would."""
    after = os.environ.get("VOICEHOST_CRASH_AFTER")
    if after and after.isascii() and after.isdigit() and count == int(after):
        import signal
        os.kill(os.getpid(), signal.SIGKILL)
