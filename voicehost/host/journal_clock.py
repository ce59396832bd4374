"""When things happened, in wall-clock time, as far as a game's journal knows: the header's
``started`` (UTC, to the second, written as the journal is created) and each input's ``t`` (the
table's clock, in seconds) counted from the first input, the deal, which is written right after
the header. The protocol carries what this finds, for the rating sites (Polemica dates each foul;
mafiaratings needs the game's end): ``foul_times`` (each foul input: seat and time, in order)
and ``ended`` (the last input's time). A journal whose clock stood still (a simulated game at the
engine level writes ``t`` 0) gives the start for both.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from voicehost.host.journal import JournalFile, load_journal
from voicehost.rules import InputError
from voicehost.rules.inputs import Foul

STAMP = "%Y-%m-%dT%H:%M:%SZ"


def clock_facts(read: JournalFile) -> dict[str, Any]:
    """``{"ended", "foul_times"}`` of a journal as read; nothing when its header has no start."""
    try:
        started = datetime.strptime(str(read.header.get("started")), STAMP)
    except ValueError:
        return {}
    if not read.entries:
        return {}
    first = read.entries[0].t

    def at(t: float) -> str:
        return (started + timedelta(seconds=max(0.0, t - first))).strftime(STAMP)

    return {"ended": at(read.entries[-1].t),
            "foul_times": [{"seat": entry.input.seat, "at": at(entry.t)} for entry in read.entries
                           if isinstance(entry.input, Foul)]}


def journal_clock(journal: Path) -> dict[str, Any]:
    """:func:`clock_facts` of a journal file; nothing when it cannot be read (the protocol is
    written anyway: these facts are extras for the rating sites)."""
    try:
        return clock_facts(load_journal(journal))
    except (InputError, OSError):
        return {}
