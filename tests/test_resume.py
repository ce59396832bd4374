"""The journal never loses a game: a crash after any record of any bundled script, at both
levels and inside every kind of vote, resumes — twice in a row, and once more after the last
record is torn — to exactly the protocol of the game never interrupted. A crash after record
N leaves exactly the journal's first N lines on disk (each record is fsynced before anything
follows from it), so the crash is made by cutting the journal there; the real SIGKILL is
``test_journal.py``'s and the crash points 30–33 test below.

Every point is ``VOICEHOST_CRASH_EVERY=1``; by default a sample keeps CI within about a
minute: per script and level, the first point inside each kind of vote, the points around
it, and three random ones."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from fuzzing import SCRIPTS, run_cli

from voicehost.host.journal import read_journal
from voicehost.rules import new_game
from voicehost.rules.requests import AwaitLift, AwaitVotes
from voicehost.simulation.script import load_script

EVERY = os.environ.get("VOICEHOST_CRASH_EVERY") == "1"
VOTE_KINDS = {"main", "final", "revote", "acquittal", "prevote", "mayor", "lift"}


def vote_kind_at(script_path: Path, journal: Path) -> dict[int, str]:
    """Crash point (records on disk) → the kind of vote the game was in, where it was in one."""
    script = load_script(script_path)
    game = new_game(script.ruleset, script.options, script.seats)
    kinds: dict[int, str] = {}
    for records, entry in enumerate(read_journal(journal)[1], start=2):
        game.push(entry.input)
        request = game.request
        if isinstance(request, AwaitVotes):
            kinds[records] = request.round
        elif isinstance(request, AwaitLift):
            kinds[records] = "lift"
    return kinds


def crash_points(total: int, kinds: dict[int, str], rng: random.Random) -> list[int]:
    if EVERY:
        return list(range(1, total + 1))
    chosen = set(rng.sample(range(1, total + 1), min(3, total)))
    for kind in set(kinds.values()):
        first = min(n for n, k in kinds.items() if k == kind)
        chosen |= {n for n in (first, first + 1, first + 2) if n in kinds}  # a vote begun, and partly cast
    return sorted(chosen)


def resume(path: Path) -> dict[str, Any]:
    code, out, err = run_cli(["resume", str(path), "--json"])
    assert code == 0, err
    return timeless(json.loads(out))


def timeless(protocol: dict[str, Any]) -> dict[str, Any]:
    """A table level's ballots without their times: a resumed game's clock starts again, the
    presses (who, for whom, what they counted for) are the same."""
    times = {"t", "up", "opens", "closes"}

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in times}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return {**protocol, "days": [{**day, "ballots": strip(day["ballots"])} if "ballots" in day else day
                                 for day in protocol["days"]]}


def keep_lines(path: Path, count: int, torn: int = 0) -> None:
    """The journal as a crash after record ``count`` leaves it (``torn`` bytes of the next one too)."""
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:count]) + b"\n" + lines[count][:torn] if count < len(lines) else b"")


# (script, level) → the journal's records and the vote each crash point falls in, as the crash
# test found them (the coverage test makes those of crash tests run elsewhere).
PLANS: dict[tuple[str, str], tuple[int, dict[int, str]]] = {}


@pytest.mark.parametrize("level", ["engine", "table"])
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_a_crash_after_any_record_resumes_to_the_same_game(tmp_path: Path, script: Path, level: str) -> None:
    whole_path = tmp_path / "whole.jsonl"
    code, out, err = run_cli(["simulate", str(script), "--level", level, "--journal", str(whole_path), "--json"])
    assert code == 0, err
    whole = timeless(json.loads(out))
    lines = whole_path.read_bytes().split(b"\n")[:-1]
    kinds = vote_kind_at(script, whole_path)
    PLANS[(script.stem, level)] = (len(lines), kinds)
    rng = random.Random(f"{script.stem}-{level}")
    for point in crash_points(len(lines), kinds, rng):
        journal = tmp_path / f"crash-{point}.jsonl"
        journal.write_bytes(b"\n".join(lines[:point]) + b"\n")
        assert resume(journal) == whole, f"crash after record {point}"
        again = len(journal.read_bytes().split(b"\n")) - 1
        keep_lines(journal, rng.randrange(point, again + 1))           # the resumed game crashes too
        assert resume(journal) == whole, f"crash after record {point}, then again"
        after = journal.read_bytes().split(b"\n")[:-1]
        cut = rng.randrange(min(max(1, point), len(after) - 1), len(after))
        keep_lines(journal, cut, torn=rng.randrange(1, max(2, len(after[cut]))))  # a power cut mid-record
        assert resume(journal) == whole, f"crash after record {point}, then torn at {cut}"
        assert list(tmp_path.glob(f"crash-{point}.jsonl.torn-*")), "the torn bytes are kept"


def test_every_kind_of_vote_was_crashed_into(tmp_path: Path) -> None:
    """The points the crash test resumes from (the same journals, the same seeds) fall inside
    each kind of vote the bundled scripts hold — whichever xdist worker ran which crash test:
    the journals of those not run in this process are made here."""
    covered = {"(all points)": 0}
    for script in SCRIPTS:
        for level in ("engine", "table"):
            if (script.stem, level) not in PLANS:
                path = tmp_path / f"{script.stem}-{level}.jsonl"
                code, _, err = run_cli(["simulate", str(script), "--level", level, "--journal", str(path)])
                assert code == 0, err
                PLANS[(script.stem, level)] = (len(path.read_bytes().split(b"\n")) - 1, vote_kind_at(script, path))
            records, kinds = PLANS[(script.stem, level)]
            for point in crash_points(records, kinds, random.Random(f"{script.stem}-{level}")):
                covered["(all points)"] += 1
                if point in kinds:
                    covered[kinds[point]] = covered.get(kinds[point], 0) + 1
    assert {"main", "revote", "lift", "acquittal", "prevote", "mayor"} <= set(covered), covered
    print(f"crash points resumed (three times each): {covered}")
