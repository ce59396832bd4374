"""The bad-input fuzzer: mutated scripts, configs, table files, journals and argument vectors,
each run through the ``voicehost`` command in-process; every case must end in exit 0 or in
exit 2 with one line ``voicehost…: error: <place>: <what>`` — never a traceback, never a hang.
Journals must also never resume into a different game: exit 0 means the protocol of the game
the journal's header names, uninterrupted.

Used by ``tests/test_fuzz.py`` (a few hundred cases under hypothesis, in CI) and by
``tests/fuzz.py`` (the big run: ``python tests/fuzz.py --runs 10000``). Every case is built
from one ``random.Random`` seed, so a failure is reproduced with its kind and seed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import signal
import stat
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "examples").glob("*.json")) + sorted(
    p for p in (ROOT / "tests" / "scripts").glob("*.json") if not p.name.endswith(".expect.json"))
HANG_S = 30


@dataclass
class FuzzOutcome:
    kind: str
    seed: int
    code: int | None
    err: str = ""
    problem: str = ""   # empty: the case kept the promise


@dataclass
class Tally:
    cases: int = 0
    exit0: int = 0
    exit2: int = 0
    failures: list[FuzzOutcome] = field(default_factory=list)

    def add(self, outcome: FuzzOutcome) -> None:
        self.cases += 1
        if outcome.problem:
            self.failures.append(outcome)
        elif outcome.code == 0:
            self.exit0 += 1
        else:
            self.exit2 += 1


class Hang(Exception):
    pass


def run_cli(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[int | None, str, str]:
    """``voicehost ARGV`` in this process: (exit code, stdout, stderr); a traceback is the
    exit code None and the traceback as stderr; more than HANG_S seconds is a hang."""
    from voicehost.cli.main import main
    from voicehost.config import load_ruleset
    from voicehost.language.phrasebook import load_phrasebook

    out, err = io.StringIO(), io.StringIO()
    saved_env = {key: os.environ.get(key) for key in (env or {})}
    saved_cwd = os.getcwd()
    os.environ.update(env or {})
    load_ruleset.cache_clear()
    load_phrasebook.cache_clear()

    def hang(signum: int, frame: Any) -> None:
        raise Hang()
    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_S)
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin_closed():
            try:
                code: int | None = main(argv)
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
    except Hang:
        return None, out.getvalue(), "HANG"
    except BaseException:  # noqa: BLE001 — a traceback is exactly what the fuzzer looks for
        return None, out.getvalue(), traceback.format_exc()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        os.chdir(saved_cwd)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        load_ruleset.cache_clear()
        load_phrasebook.cache_clear()
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin_closed() -> Any:
    import sys
    saved = sys.stdin
    sys.stdin = io.StringIO("")
    try:
        yield
    finally:
        sys.stdin = saved


def judge(kind: str, seed: int, code: int | None, err: str) -> FuzzOutcome:
    """The promise: exit 0, or exit 2 with one line naming a place."""
    outcome = FuzzOutcome(kind, seed, code, err)
    if code is None:
        outcome.problem = "hang" if err == "HANG" else "traceback"
    elif code not in (0, 2):
        outcome.problem = f"exit {code}"
    elif code == 2:
        lines = err.splitlines()
        line = lines[-1] if lines else ""
        extra = [x for x in lines[:-1] if not x.startswith("voicehost: ") or ": error: " in x]
        head, _, rest = line.partition(": error: ")
        if extra or not head.startswith("voicehost") or not rest or ": " not in rest:
            outcome.problem = "not one line naming a place"
    return outcome


# ---- values a careless or hostile file holds -------------------------------------------------

BIG = "__BIG_NUMBER__"
DEEP = "__DEEP__"


def evil_value(rng: random.Random) -> Any:
    return rng.choice([
        "²", "３", "٣", "5", "05", "-1", "", " ", "1e9", "\u202e7", "\ud800", "x" * rng.choice([10, 20_000]),
        -1, 0, 1, 3, 11, 99, 2 ** 63, 10 ** 30, BIG, DEEP, 1.5, float("nan"), float("inf"), True, False, None,
        [], {}, [1, 2], {"1": 2}, ["²"], {"²": 1}, [[[]]], "выставляю девятого", "mafia", "don", "black",
        {"seat": 1, "at": "voting"}, {"seat": "1", "after_speech": 2},
    ])


def mutate_tree(rng: random.Random, data: Any) -> Any:
    """Replace, delete or add one node somewhere in parsed JSON/TOML data."""
    nodes = list(_nodes(data))
    container, key = rng.choice(nodes) if nodes else (None, None)
    action = rng.random()
    if container is None:
        return evil_value(rng)
    if action < 0.6:
        container[key] = evil_value(rng)
    elif action < 0.8:
        if isinstance(container, dict):
            del container[key]
        else:
            container.pop(key)
    elif isinstance(container, dict):
        container[rng.choice(["²", "11", "0", "extra", "seats", "votes", "1", str(key) + "x"])] = evil_value(rng)
    else:
        container.insert(rng.randrange(len(container) + 1), evil_value(rng))
    return data


def _nodes(data: Any) -> Any:
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key in list(value):
                yield value, key
                stack.append(value[key])
        elif isinstance(value, list):
            for index in range(len(value)):
                yield value, index
                stack.append(value[index])


def dump_json(rng: random.Random, data: Any) -> bytes:
    text = json.dumps(data, ensure_ascii=rng.random() < 0.3)
    text = text.replace(json.dumps(BIG), "9" * rng.choice([25, 5000, 100_000]))
    text = text.replace(json.dumps(DEEP), "[" * rng.choice([40, 3000, 200_000]) + "]" * rng.choice([0, 40, 3000]))
    return text.encode("utf-8", "surrogatepass")


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """Byte-level damage: a flipped or inserted byte, a cut, a BOM, foreign encodings, deep brackets."""
    choice = rng.randrange(9)
    where = rng.randrange(len(data) + 1)
    if choice == 0:
        return data[:where]
    if choice == 1:
        return b"\xef\xbb\xbf" + data
    if choice == 2:
        return data[:where] + bytes([rng.randrange(256)]) + data[where + 1:]
    if choice == 3:
        return data[:where] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\r", b"\x1b[2J"]) + data[where:]
    if choice == 4:
        return data.decode("utf-8", "replace").encode("cp1251", "replace")
    if choice == 5:
        return data[:where] + b"[" * rng.choice([50, 5000, 100_000]) + data[where:]
    if choice == 6:
        return data.replace(b"1", "²".encode(), rng.randrange(1, 4))
    if choice == 7:
        return data.replace(b"1", b"1" + b"0" * rng.choice([20, 5000]), 1)
    return data + rng.choice([b"\n{", b"\n\n", b"}", b"\n[x]\n", b"\ny = 1\n"])


# ---- the kinds ------------------------------------------------------------------------------------

def script_case(rng: random.Random, tmp: Path) -> list[str]:
    source = rng.choice(SCRIPTS)
    if rng.random() < 0.7:
        raw = dump_json(rng, mutate_tree(rng, json.loads(source.read_text())))
        for _ in range(rng.randrange(3)):
            raw = dump_json(rng, mutate_tree(rng, json.loads(raw))) if _parses(raw) else raw
    else:
        raw = mutate_bytes(rng, source.read_bytes())
    path = tmp / ("script.json" if rng.random() < 0.9 else "script.toml")
    path.write_bytes(raw)
    level = "table" if rng.random() < 0.1 else "engine"
    return ["simulate", str(path), "--json", "--level", level]


def _parses(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return True


CONFIG_FILES = ["rules/sport.toml", "rules/classic.toml", "rules/club.toml", "rules/canonical.toml",
                "phrases/ru.toml", "tables/ten-seats.toml"]


def mutate_toml(rng: random.Random, text: str) -> bytes:
    """Damage one ``key = value`` line (or the bytes): another type, a huge number, a bad placeholder."""
    lines = text.split("\n")
    if rng.random() < 0.25:
        return mutate_bytes(rng, text.encode())
    values = [i for i, line in enumerate(lines) if "=" in line and not line.lstrip().startswith("#")]
    if not values:
        return text.encode()
    i = rng.choice(values)
    key = lines[i].split("=", 1)[0]
    value = rng.choice(['"x"', "1", "-5", "0", "[1, 2]", "{ a = 1 }", "true", "inf", "nan", "1e999", '"²"',
                        "9" * rng.choice([19, 5000]), '"{nonsense}"', '"{seat"', '"{0}"', "[" * 3000 + "]" * 3000,
                        "[[[[1]]]]", '"\\ud800"', '"' + "x" * 20_000 + '"', "[]", "{}", '"\\u0000"', "2024-01-01"])
    action = rng.random()
    if action < 0.7:
        lines[i] = f"{key}= {value}"
    elif action < 0.85:
        del lines[i]
    else:
        lines.insert(i, f"{rng.choice(['extra', 'seats', 'timers', '²'])} = {value}")
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def config_case(rng: random.Random, tmp: Path) -> tuple[list[str], dict[str, str]]:
    config = tmp / "config"
    shutil.copytree(ROOT / "config", config)
    target = config / rng.choice(CONFIG_FILES)
    target.write_bytes(mutate_toml(rng, target.read_text()))
    script = str(ROOT / "examples" / f"{rng.choice(['sport', 'classic', 'club', 'canonical'])}-sample.json")
    argv = rng.choice([["simulate", script, "--json"], ["rules", "show", rng.choice(["sport", "club"])],
                       ["simulate", script, "--level", "table"], ["parse", "выставляю номер пять"],
                       ["config", "check", str(config)]])
    return argv, {"VOICEHOST_CONFIG": str(config)}


def table_case(rng: random.Random, tmp: Path) -> Callable[[], None]:
    """A table file, read as ``run``, ``demo`` and ``hw test`` read it: pins, audio, ears."""
    path = tmp / "table.toml"
    path.write_bytes(mutate_toml(rng, (ROOT / "config" / "tables" / rng.choice(["ten-seats.toml",
                                                                               "twelve-seats.toml"])).read_text()))

    def read() -> None:
        from voicehost.host.ears import load_ears
        from voicehost.host.seats import open_pinmap
        from voicehost.host.table_file import load_audio
        open_pinmap(str(path), rng.choice(["sport", "club"]))
        load_audio(path)
        load_ears(path)
    return read


@dataclass
class JournalBase:
    script: Path
    level: str
    path: Path
    protocol: dict[str, Any]


def journal_bases(tmp: Path, scripts: list[Path] | None = None) -> list[JournalBase]:
    """Finished journals to damage, with the protocol each game ends in."""
    bases = []
    for script in scripts or SCRIPTS[:4]:
        protocol = json.loads(run_cli(["simulate", str(script), "--json"])[1])
        for level in ("engine", "table"):
            path = tmp / f"{script.stem}-{level}.jsonl"
            code, _, err = run_cli(["simulate", str(script), "--level", level, "--journal", str(path), "--json"])
            assert code == 0, err
            bases.append(JournalBase(script, level, path, protocol))
    return bases


def mutate_journal(rng: random.Random, base: JournalBase, others: list[JournalBase]) -> bytes:
    raw = base.path.read_bytes()
    lines = raw.split(b"\n")[:-1]
    choice = rng.randrange(10)
    if choice == 0:    # a crash after some record, then a torn record
        keep = rng.randrange(1, len(lines) + 1)
        tail = b"\n".join(lines[keep:keep + 1])
        return b"\n".join(lines[:keep]) + b"\n" + tail[:rng.randrange(len(tail) + 1)]
    if choice == 1:    # reordered
        i, j = rng.randrange(1, len(lines)), rng.randrange(1, len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif choice == 2:  # a record deleted or doubled
        i = rng.randrange(1, len(lines))
        lines[i:i + 1] = [] if rng.random() < 0.5 else [lines[i], lines[i]]
    elif choice in (3, 4):  # a record edited
        i = rng.randrange(len(lines))
        lines[i] = dump_json(rng, mutate_tree(rng, json.loads(lines[i])))
    elif choice == 5:  # foreign: another game's header
        other = rng.choice(others)
        lines[0] = other.path.read_bytes().split(b"\n")[0]
    elif choice == 6:  # versionless, or a future version
        header = json.loads(lines[0])
        if rng.random() < 0.5:
            header.pop("format", None)
        else:
            header["format"] = rng.choice([2, "1", 0, None, 1.0, True])
        lines[0] = json.dumps(header).encode()
    elif choice == 7:
        return mutate_bytes(rng, raw)
    elif choice == 8:  # a clean crash after record N
        lines = lines[:rng.randrange(1, len(lines) + 1)]
    else:              # a bad header
        lines[0] = rng.choice([b"123", b"null", b'{"type": "game", "format": 1, "script": 5}', b"[]",
                               b'{"type": "game", "format": 1, "ruleset": "sport", "at": Infinity}'])
    return b"\n".join(lines) + b"\n"


def journal_case(rng: random.Random, tmp: Path, bases: list[JournalBase]) -> tuple[list[str], Path]:
    base = rng.choice(bases)
    path = tmp / "j.jsonl"
    path.write_bytes(mutate_journal(rng, base, bases))
    return ["resume", str(path), "--json"], path


def judge_journal(outcome: FuzzOutcome, out: str, path: Path, bases: list[JournalBase]) -> FuzzOutcome:
    """Exit 0 must be the game the journal's header names, exactly as if never interrupted."""
    if outcome.problem or outcome.code != 0:
        return outcome
    header = json.loads(path.read_bytes().split(b"\n")[0])
    expected = next((b.protocol for b in bases if str(b.script.resolve()) == header.get("script")), None)
    resumed = json.loads(out)   # a table level's ballots are its buttons', no part of the game
    resumed["days"] = [{k: v for k, v in day.items() if k != "ballots"} for day in resumed.get("days", [])]
    if expected is None or resumed != expected:
        outcome.problem = "resumed into a different game"
    return outcome


def argv_case(rng: random.Random, tmp: Path) -> list[str]:
    """Random argument vectors over the commands that end without a table or a speaker."""
    fifo = tmp / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    (tmp / "dir").mkdir(exist_ok=True)
    paths = [str(fifo), str(tmp / "dir"), str(tmp / "missing.json"), "x" * 300 + ".json",
             str(tmp / ("y" * 300)), "a\udcff.json", "/dev/null", "/dev/zero", "/proc/self/mem",
             str(rng.choice(SCRIPTS)), str(ROOT / "config" / "tables" / "ten-seats.toml"), "", "-", "a\x00b"]
    words = ["²", "３", "-1", "0", "1e999", "nan", "9" * 5000, "\udcff", "sport", "club", "engine", "table",
             "выставляю номер пять", "\x1b[2J", "x" * 5000]
    unwritable = [str(fifo), str(tmp / "dir"), "x" * 300 + ".json", str(tmp / ("y" * 300)), "a\udcff.json",
                  "/dev/null", "a\x00b", str(tmp / "dir" / "no" / "j.jsonl")]
    path = rng.choice(paths)
    word = rng.choice(words + paths)
    command = rng.choice([
        ["simulate", path, *rng.choice([[], ["--level", word], ["--journal", rng.choice(unwritable + paths[2:3])],
                                        ["--json"]])],
        ["resume", path],
        ["parse", word, *rng.choice([[], ["--seats", word], ["--forbidden", word]])],
        ["rules", *rng.choice([[], ["show", word], [word]])],
        ["demo", "--audio", "off", "--pace", "0", *rng.choice([[path], ["--seed", word], ["--table", path],
                                                                 ["--speed", word], ["--seed", "3", "--rules", word]])],
        ["listen", "--replay", path, *rng.choice([[], ["--seats", word]])],
        ["run", "--resume", rng.choice(paths[:9])],
        ["run", "--mock", "--no-ears", "--journal", rng.choice(unwritable), "--rules", word],
        ["model", "check", "--model", path],
        [word], [word, word],
    ])
    if rng.random() < 0.2:
        command.insert(rng.randrange(len(command) + 1), rng.choice(words))
    return command


# ---- one case of a kind -----------------------------------------------------------------------------

KINDS = ("scripts", "configs", "tables", "journals", "arguments")


def one_case(kind: str, seed: int, tmp: Path, bases: list[JournalBase] | None = None) -> FuzzOutcome:
    rng = random.Random(seed)
    case = tmp / f"case-{kind}-{seed}"
    case.mkdir(parents=True)
    try:
        if kind == "scripts":
            code, _, err = run_cli(script_case(rng, case), cwd=case)
        elif kind == "configs":
            argv, env = config_case(rng, case)
            code, _, err = run_cli(argv, env, cwd=case)
        elif kind == "tables":
            code, err = _library_call(table_case(rng, case))
        elif kind == "journals":
            argv, path = journal_case(rng, case, bases or [])
            code, out, err = run_cli(argv, cwd=case)
            return judge_journal(judge(kind, seed, code, err), out, path, bases or [])
        else:
            code, _, err = run_cli(argv_case(rng, case), cwd=case)
        return judge(kind, seed, code, err)
    finally:
        _remove(case)


def _library_call(call: Callable[[], None]) -> tuple[int | None, str]:
    """A loader called as the commands call it: InputError is the one line, exit 2."""
    from voicehost.config import load_ruleset
    from voicehost.rules import InputError
    load_ruleset.cache_clear()
    try:
        call()
    except InputError as err:
        return 2, f"voicehost: error: {err.place}: {err.message}\n"
    except BaseException:  # noqa: BLE001
        return None, traceback.format_exc()
    return 0, ""


def _remove(path: Path) -> None:
    for item in path.rglob("*"):
        if stat.S_ISFIFO(item.lstat().st_mode):
            item.unlink()
    shutil.rmtree(path, ignore_errors=True)


def run_many(kind: str, seeds: range, report: Callable[[str], None] = print) -> Tally:
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix=f"voicehost-fuzz-{kind}-") as name:
        tmp = Path(name)
        bases: list[JournalBase] | None = None
        if kind == "journals":
            (tmp / "bases").mkdir()
            bases = journal_bases(tmp / "bases")
        for seed in seeds:
            outcome = one_case(kind, seed, tmp, bases)
            tally.add(outcome)
            if outcome.problem:
                report(f"{kind} seed {seed}: {outcome.problem}: {outcome.err.strip().splitlines()[-1:]}")
    return tally
