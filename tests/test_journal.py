"""Journal and resume: a game killed at random points and resumed each time ends with the
same protocol as one never interrupted; a torn last line (a power cut) is not lost."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from voicehost.host.journal import Journal, read_journal
from voicehost.rules import InputError
from voicehost.rules.inputs import Dawn, Vote

ROOT = Path(__file__).resolve().parent.parent


def voicehost(*argv: str, crash_after: int | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("VOICEHOST_CRASH_AFTER", None)
    if crash_after is not None:
        env["VOICEHOST_CRASH_AFTER"] = str(crash_after)
    return subprocess.run([sys.executable, "-m", "voicehost", *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=False)


@pytest.mark.parametrize(("script", "crashes", "level"), [("examples/sport-sample.json", 20, "engine"),
                                                          ("examples/classic-sample.json", 8, "engine"),
                                                          ("examples/sport-sample.json", 20, "table"),
                                                          ("examples/club-sample.json", 20, "table")])
def test_a_game_killed_at_random_points_and_resumed_gives_the_same_protocol(tmp_path, script, crashes, level) -> None:
    whole = json.loads(voicehost("simulate", script, "--json").stdout)
    inputs = len(read_journal_of(tmp_path, script))
    points = sorted(random.Random(7).sample(range(1, inputs), crashes))
    journal = tmp_path / "game.jsonl"
    done = voicehost("simulate", script, "--level", level, "--journal", str(journal), "--json",
                     crash_after=points[0])
    assert done.returncode == -9  # SIGKILL: no cleanup, as a power cut
    for before, point in zip(points, points[1:], strict=False):
        done = voicehost("resume", str(journal), "--json", crash_after=point - before)
        assert done.returncode == -9, done.stderr
    final = voicehost("resume", str(journal), "--json")
    assert final.returncode == 0, final.stderr
    assert json.loads(final.stdout) == whole
    assert len(read_journal(journal)[1]) == inputs  # every input once, none twice
    assert json.loads((tmp_path / "game.protocol.json").read_text()) == whole
    assert (tmp_path / "game.log.txt").read_text().startswith("Карты розданы.")


def read_journal_of(tmp_path: Path, script: str) -> list:
    path = tmp_path / "uninterrupted.jsonl"
    assert voicehost("simulate", script, "--journal", str(path), "--json").returncode == 0
    return read_journal(path)[1]


def test_a_torn_last_line_is_ignored(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})
    journal.append(0, 1.5, "console", Dawn())
    journal.close()
    with path.open("a") as handle:
        handle.write('{"type": "input", "i": 1, "t": 2.0, "sou')  # the power went off here
    header, entries = read_journal(path)
    assert header["ruleset"] == "sport" and [e.input for e in entries] == [Dawn()]


def test_journal_records_time_source_and_input(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})
    journal.append(0, 12.25, "seats", Vote(3, 5))
    journal.close()
    record = json.loads(path.read_text().splitlines()[1])
    assert record == {"type": "input", "i": 0, "t": 12.25, "source": "seats",
                      "input": {"type": "vote", "voter": 3, "candidate": 5}}


def test_a_splice_record_replays_the_hosts_correction(tmp_path) -> None:
    """Undo and a corrected vote are journaled as splices; reading applies them in order."""
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})
    for i, item in enumerate([Dawn(), Vote(3, 5), Vote(4, 5)]):
        journal.append(i, float(i), "seats", item)
    journal.splice(3.0, "console", 1, 1, [Vote(3, 7)], "vote 3 7")
    journal.splice(4.0, "console", 2, 1, [], "undo vote")
    journal.append(2, 5.0, "seats", Vote(6, 5))
    journal.close()
    entries = read_journal(path)[1]
    assert [e.input for e in entries] == [Dawn(), Vote(3, 7), Vote(6, 5)]
    assert [e.index for e in entries] == [0, 1, 2] and entries[1].source == "console"


def test_a_splice_outside_the_inputs_is_one_clear_error(tmp_path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})
    journal.splice(1.0, "console", 3, 1, [], "undo")
    journal.close()
    with pytest.raises(InputError, match=r"j.jsonl:2: splice.*outside"):
        read_journal(path)


def test_broken_journals_are_one_clear_error(tmp_path) -> None:
    with pytest.raises(InputError, match="no such journal"):
        read_journal(tmp_path / "none.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "input"}\n')
    with pytest.raises(InputError, match="not a voicehost journal"):
        read_journal(bad)


@pytest.mark.parametrize("level", ["engine", "table"])
def test_resume_refuses_a_journal_of_another_game(tmp_path, level) -> None:
    journal = tmp_path / "j.jsonl"
    assert voicehost("simulate", "examples/sport-sample.json", "--level", level, "--journal",
                     str(journal)).returncode == 0
    header = json.loads(journal.read_text().splitlines()[0])
    other = tmp_path / "other.json"
    data = json.loads((ROOT / "examples/sport-sample.json").read_text())
    data["days"][0]["speeches"]["1"] = "выставляю девятого"
    other.write_text(json.dumps(data, ensure_ascii=False))
    lines = journal.read_text().splitlines()
    header["script"] = str(other)
    journal.write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n")
    done = voicehost("resume", str(journal))
    assert done.returncode == 2 and "not the same game" in done.stderr and done.stderr.count("\n") == 1


def test_simulate_will_not_overwrite_a_journal(tmp_path) -> None:
    journal = tmp_path / "j.jsonl"
    journal.write_text('{"type": "game"}\n')
    done = voicehost("simulate", "examples/sport-sample.json", "--journal", str(journal))
    assert done.returncode == 2 and "already exists" in done.stderr


@pytest.mark.parametrize("level", ["engine", "table"])
def test_a_refused_foul_is_not_journaled_and_the_game_resumes(tmp_path, level) -> None:
    """The judge's foul for a seat already out is refused (reported under «ignored»); it never
    reaches the journal, so resuming from the journal lines up input by input."""
    from voicehost.host.vclock import run_virtual
    from voicehost.rules.protocol import build_protocol
    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.table_level import play_table

    data = json.loads((ROOT / "examples" / "sport-sample.json").read_text())
    data["days"][1].setdefault("fouls", []).append({"seat": 1, "at": "morning"})  # seat 1 died on night 2
    script = script_from_data(data)
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})

    def play(journal=None, replayed=None):
        if level == "engine":
            return simulate(script, journal=journal, replayed=replayed)
        return run_virtual(play_table(script, journal, replayed))

    whole = play(journal)
    journal.close()
    assert whole.ignored == [{"at": "days[1].fouls[1]", "why": "seat 1 is not at the table"}]
    entries = read_journal(path)[1]
    assert [e.input for e in entries] == whole.game.inputs
    resumed = play(None, entries[:len(entries) // 2 + 7])
    assert build_protocol(resumed.game, resumed.ignored) == build_protocol(whole.game, whole.ignored)
