"""Journal and resume: a game killed at random points and resumed each time ends with the
same protocol as one never interrupted; a torn last line (a power cut) is not lost."""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from processes import run_voicehost

from voicehost.host.journal import Journal, JournalEntry, read_journal
from voicehost.rules import Game, InputError
from voicehost.rules.inputs import Dawn, Vote

# These tests assert the English of the messages (their ids); the Russian is tests/test_i18n.py's.
pytestmark = pytest.mark.usefixtures("english_module")

ROOT = Path(__file__).resolve().parent.parent


def voicehost(*argv: str, crash_after: int | None = None) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own (forked ready to run, see processes.py), killed
    with SIGKILL right after record ``crash_after`` is on disk."""
    env = dict(os.environ)
    env.pop("VOICEHOST_CRASH_AFTER", None)
    if crash_after is not None:
        env["VOICEHOST_CRASH_AFTER"] = str(crash_after)
    return run_voicehost(argv, env=env, cwd=ROOT)


@pytest.mark.parametrize(("script", "crashes", "level"), [("examples/sport-sample.json", 20, "engine"),
                                                          ("examples/classic-sample.json", 8, "engine"),
                                                          ("examples/sport-sample.json", 20, "table"),
                                                          ("examples/club-sample.json", 20, "table")])
def test_a_game_killed_at_random_points_and_resumed_gives_the_same_protocol(tmp_path: Path, script: str, crashes: int,
                                                                            level: str) -> None:
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
    assert without_ballots(json.loads(final.stdout)) == whole
    assert len(read_journal(journal)[1]) == inputs  # every input once, none twice
    written = json.loads((tmp_path / "game.protocol.json").read_text())
    assert written.pop("started") == read_journal(journal)[0]["started"]  # the file says when the game started
    ballots = [day.pop("ballots", None) for day in written["days"]]  # the buttons' ballots: a table's only
    assert any(ballots) == (level == "table")
    assert written == whole
    assert (tmp_path / "game.log.txt").read_text().startswith("The cards are dealt.")   # the module is English


def without_ballots(protocol: dict[str, Any]) -> dict[str, Any]:
    """A table level's protocol as the engine level gives it: the buttons' ballots are the table's only."""
    return {**protocol, "days": [{k: v for k, v in day.items() if k != "ballots"} for day in protocol["days"]]}


def read_journal_of(tmp_path: Path, script: str) -> list[JournalEntry]:
    path = tmp_path / "uninterrupted.jsonl"
    assert voicehost("simulate", script, "--journal", str(path), "--json").returncode == 0
    return read_journal(path)[1]


def test_a_torn_last_line_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})
    journal.append(0, 1.5, "console", Dawn())
    journal.close()
    with path.open("a") as handle:
        handle.write('{"type": "input", "i": 1, "t": 2.0, "sou')  # the power went off here
    header, entries = read_journal(path)
    assert header["ruleset"] == "sport" and [e.input for e in entries] == [Dawn()]


def test_journal_records_time_source_and_input(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})
    journal.append(0, 12.25, "seats", Vote(3, 5))
    journal.close()
    record = json.loads(path.read_text().splitlines()[1])
    assert record == {"type": "input", "i": 0, "t": 12.25, "source": "seats",
                      "input": {"type": "vote", "voter": 3, "candidate": 5}}


def test_a_splice_record_replays_the_hosts_correction(tmp_path: Path) -> None:
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


def test_a_splice_outside_the_inputs_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})
    journal.splice(1.0, "console", 3, 1, [], "undo")
    journal.close()
    with pytest.raises(InputError, match=r"j.jsonl:2: splice.*outside"):
        read_journal(path)


def test_an_unknown_input_source_is_one_clear_error(tmp_path: Path) -> None:
    """A source is one of the closed set the host writes (journal.Source), checked on reading."""
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})
    journal.append(0, 1.0, "seats", Dawn())
    journal.splice(2.0, "console", 0, 1, [Vote(3, 5)], "vote 3 5")
    journal.close()
    good = path.read_text()
    for line, old, new in [(2, "seats", "mic"), (3, "console", "web")]:
        path.write_text(good.replace(f'"source": "{old}"', f'"source": "{new}"'))
        with pytest.raises(InputError, match=rf"j.jsonl:{line}: unknown input source '{new}' \(one of seats, "):
            read_journal(path)


def test_broken_journals_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such journal"):
        read_journal(tmp_path / "none.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "input"}\n')
    with pytest.raises(InputError, match="not a voicehost journal"):
        read_journal(bad)


@pytest.mark.parametrize("level", ["engine", "table"])
def test_resume_refuses_a_journal_of_another_game(tmp_path: Path, level: str) -> None:
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


def test_simulate_will_not_overwrite_a_journal(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    journal.write_text('{"type": "game"}\n')
    done = voicehost("simulate", "examples/sport-sample.json", "--journal", str(journal))
    assert done.returncode == 2 and "already exists" in done.stderr


@pytest.mark.parametrize("level", ["engine", "table"])
def test_a_refused_foul_is_not_journaled_and_the_game_resumes(tmp_path: Path, level: str) -> None:
    """The judge's foul for a seat already out is refused (reported under «ignored»); it never
    reaches the journal, so resuming from the journal lines up input by input."""
    from voicehost.host.vclock import run_virtual
    from voicehost.rules.protocol import build_protocol
    from voicehost.simulation.engine_level import Simulation, simulate
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.table_level import play_table

    data = json.loads((ROOT / "examples" / "sport-sample.json").read_text())
    data["days"][1].setdefault("fouls", []).append({"seat": 1, "at": "morning"})  # seat 1 died on night 2
    script = script_from_data(data)
    path = tmp_path / "j.jsonl"
    journal = Journal(path, {"ruleset": "sport"})

    def play(journal: Journal | None = None, replayed: list[JournalEntry] | None = None) -> Simulation:
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


# ---- issue 20: the journal never loses a game ------------------------------------------------------

VOTE_SCRIPT = "tests/scripts/sport-repeat-tie-four-vote.json"


@pytest.mark.parametrize("point", [30, 31, 32, 33])
def test_a_crash_in_the_all_leave_vote_at_the_table_resumes_twice_to_the_same_game(tmp_path: Path, point: int) -> None:
    """Points 30–33: the «все покидают?» (lift) vote just opened or partly cast; SIGKILLed."""
    whole = json.loads(voicehost("simulate", VOTE_SCRIPT, "--json").stdout)
    journal = tmp_path / "j.jsonl"
    crashed = voicehost("simulate", VOTE_SCRIPT, "--level", "table", "--journal", str(journal), crash_after=point)
    assert crashed.returncode == -9
    for _ in range(2):
        done = voicehost("resume", str(journal), "--json")
        assert done.returncode == 0, done.stderr
        assert without_ballots(json.loads(done.stdout)) == whole


def test_a_torn_journal_is_cut_with_a_copy_and_resumes_again_and_again(tmp_path: Path) -> None:
    whole_path = tmp_path / "full.jsonl"
    whole = json.loads(voicehost("simulate", VOTE_SCRIPT, "--journal", str(whole_path), "--json").stdout)
    journal = tmp_path / "j.jsonl"
    written = whole_path.read_bytes()
    line = written.rfind(b"\n", 0, 3000) + 1   # the record around byte 3000 (where it falls moves with the
    cut = (line + written.index(b"\n", line)) // 2   # script's path in the header): cut in its middle
    journal.write_bytes(written[:cut])  # a power cut mid-record
    first = voicehost("resume", str(journal), "--json")
    assert first.returncode == 0 and json.loads(first.stdout) == whole
    assert "the last record was torn" in first.stderr and first.stderr.count("\n") == 1
    (copy,) = tmp_path.glob("j.jsonl.torn-*")
    assert copy.read_bytes() == written[line:cut]
    second = voicehost("resume", str(journal), "--json")
    assert second.returncode == 0 and json.loads(second.stdout) == whole and second.stderr == ""
    assert read_journal(journal)[1] and journal.read_bytes().endswith(b"\n")


@pytest.mark.parametrize(("header", "message"), [
    ("123", "not a journal record"), ("null", "not a journal record"), ("[]", "not a journal record"),
    ('{"type": "game", "format": 1, "ruleset": "sport", "level": "engine", "script": 5}', "script: must be a str"),
    ('{"type": "game", "format": 1, "ruleset": "sport", "at": Infinity}', "Infinity is not a number"),
    ('{"type": "game", "ruleset": "sport", "level": "engine"}', "no format version"),
    ('{"type": "game", "format": 2, "ruleset": "sport", "level": "engine"}', "format 2 is not one"),
    ('{"type": "game", "format": 1, "ruleset": "poker"}', "not a known ruleset"),
    ("[" * 100_000 + "]" * 100_000, "nested"),
])
def test_a_bad_header_is_one_line(tmp_path: Path, header: str, message: str) -> None:
    journal = tmp_path / "j.jsonl"
    journal.write_text(header + "\n")
    before = journal.read_bytes()
    done = voicehost("resume", str(journal))
    assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"voicehost: error: {journal}:1")
    assert journal.read_bytes() == before  # refused journals are left untouched


def test_a_record_nested_deep_or_reordered_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    assert voicehost("simulate", "examples/sport-sample.json", "--journal", str(path)).returncode == 0
    lines = path.read_text().splitlines()
    for damaged, message in [
        ([*lines[:5], "[" * 100_000 + "]" * 100_000, *lines[6:]], ":6"),
        ([*lines[:5], lines[6], lines[5], *lines[7:]], ":6: input 5 where input 4 was due"),
        ([*lines[:5], *lines[6:]], ":6: input 5 where input 4 was due"),
        ([*lines[:5], lines[5].replace('"i": 4', '"i": 4, "x": 1'), *lines[6:]], ":6: not a journal record"),
        ([*lines[:5], lines[5].replace('"source": "', '"source": "x'), *lines[6:]], ":6: unknown input source 'x"),
    ]:
        path.write_text("\n".join(damaged) + "\n")
        done = voicehost("resume", str(path))
        assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr


def fail_writes_after(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    """A disk that fills up: the write layer raises ENOSPC after ``count`` writes (half a record
    lands first, as on a real full disk)."""
    import errno

    real_write, calls = os.write, [0]

    def write(fd: int, data: bytes) -> int:
        calls[0] += 1
        if calls[0] > count:
            real_write(fd, data[:len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)
    monkeypatch.setattr(os, "write", write)  # the os module voicehost.host.journal writes through


@pytest.mark.parametrize("level", ["engine", "table"])
def test_a_full_disk_is_one_line_and_the_journal_stays_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             level: str) -> None:
    """Made by an OSError injected at the journal's write layer (a tiny tmpfs does the same by hand)."""
    from fuzzing import run_cli

    whole = json.loads(voicehost("simulate", "examples/sport-sample.json", "--json").stdout)
    path = tmp_path / "j.jsonl"
    with monkeypatch.context() as patch:
        fail_writes_after(patch, 25)
        code, out, err = run_cli(["simulate", "examples/sport-sample.json", "--level", level, "--journal",
                                  str(path), "--json"], cwd=ROOT)
    assert code == 2 and "No space left on device" in err and err.count("\n") == 1, err
    assert path.read_bytes().endswith(b"\n") and len(path.read_text().splitlines()) == 25
    assert not path.with_suffix(".protocol.json").exists()  # the game stopped: nothing after the last record
    code, out, err = run_cli(["resume", str(path), "--json"])
    assert code == 0 and without_ballots(json.loads(out)) == whole, err


def test_a_live_director_stops_when_the_journal_cannot_be_written(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Live: the input the game took is not acted on further — the director ends with the one line."""
    from voicehost.host.journal import JournalUnwritable
    from voicehost.host.live import _new_game
    from voicehost.host.setup import SetupRequest, check_setup

    setup = check_setup(SetupRequest(ruleset="sport", seats=10, seed=3, journal=tmp_path / "live.jsonl"))
    game, open_journal = _new_game(setup)
    journal = open_journal()
    fail_writes_after(monkeypatch, 0)
    with pytest.raises(JournalUnwritable, match="the game stops here"):
        journal.append(1, 0.0, "host", Dawn())
    assert [e.input for e in read_journal(journal.path)[1]] == game.inputs  # the deal, whole


def live_journal(tmp_path: Path, names: dict[int, str] | None = None) -> tuple[Path, Game]:
    """A live game's journal: dealt, the first night over, the first speech ended."""
    from voicehost.host.live import _new_game
    from voicehost.host.setup import SetupRequest, check_setup
    from voicehost.rules.inputs import EndSpeech, Proceed
    from voicehost.rules.requests import AwaitMorning, AwaitSpeech

    path = tmp_path / "live.jsonl"
    setup = check_setup(SetupRequest(ruleset="sport", seats=10, seed=3, journal=path,
                                     names=(names or {}).items()))
    game, open_journal = _new_game(setup)
    journal = open_journal()
    while not isinstance(game.request, AwaitSpeech):
        step = Proceed() if isinstance(game.request, AwaitMorning) else Dawn()
        game.push(step)
        journal.append(len(game.inputs) - 1, 0.0, "host", step)
    for item in (EndSpeech(game.request.seat),):
        game.push(item)
        journal.append(len(game.inputs) - 1, 0.0, "ears", item)
    journal.close()
    return path, game


def test_run_resume_takes_the_roster_and_setup_from_the_header(tmp_path: Path) -> None:
    from voicehost.host.journal import load_journal
    from voicehost.host.live import resume_game

    path, game = live_journal(tmp_path, names={1: "Анна", 2: "Борис"})
    resumed, journal = resume_game(load_journal(path), 10)
    journal.close()
    assert resumed.inputs == game.inputs and resumed.names == {1: "Анна", 2: "Борис"}


@pytest.mark.parametrize(("edit", "message"), [
    (lambda lines: [*lines[:-1], lines[-1].replace('"seat": ', '"seat": 3')], "the game refuses"),
    (lambda lines: [*lines[:-1], lines[-1].replace('"seat": ', '"seat": "x", "s": ')], "not a valid input"),
    (lambda lines: [lines[0], lines[2], lines[1], *lines[3:]], "records are missing or out of order"),
    (lambda lines: [*lines[:2], *lines[3:]], "records are missing or out of order"),
])
def test_run_resume_refuses_a_journal_that_does_not_replay(tmp_path: Path, edit: Callable[[list[str]], list[str]],
                                                           message: str) -> None:
    from voicehost.host.journal import load_journal
    from voicehost.host.live import resume_game

    path, _ = live_journal(tmp_path)
    path.write_text("\n".join(edit(path.read_text().splitlines())) + "\n")
    before = path.read_bytes()
    with pytest.raises(InputError, match=message) as caught:
        resume_game(load_journal(path), 10)
    assert caught.value.place.startswith(f"{path}:")
    assert path.read_bytes() == before
