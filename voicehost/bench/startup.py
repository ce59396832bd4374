"""``bench cli`` and ``bench start``: how quickly the quick commands and the appliance start,
what the idle table costs, and the TTS cache of every fixed line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from voicehost.config import load_ruleset, ruleset_names

# What ``bench cli`` times, each in a fresh interpreter: the bare one first, then the commands
# that should cost no more than a few of it (issue 30), then the records' and the tournament's
# read commands on an empty database (issue 47: ≤ 3×), ``DB`` standing for its URL.
CLI_COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "voicehost --help": ["-m", "voicehost", "--help"],
    "voicehost rules": ["-m", "voicehost", "rules"],
    "voicehost parse": ["-m", "voicehost", "parse", "--seats", "10", "выставляю игрока номер пять"],
    "voicehost records ratings": ["-m", "voicehost", "records", "ratings", "--db", "DB"],
    "voicehost records elo": ["-m", "voicehost", "records", "elo", "--db", "DB"],
    "voicehost records games": ["-m", "voicehost", "records", "games", "--db", "DB"],
    "voicehost tournament list": ["-m", "voicehost", "tournament", "list", "--db", "DB"],
    "voicehost tournament standings": ["-m", "voicehost", "tournament", "standings", "bench", "--db", "DB"],
}


def bench_cli(repeat: int = 3) -> dict[str, list[float]]:
    """CPU time (user + system) of each of :data:`CLI_COMMANDS`, ``repeat`` runs each, read from
    the child's own resource usage (``os.wait4``): CPU time, not wall time, so a busy machine
    barely moves it. The bare interpreter comes first: the ratios are against it (min against
    min: the least disturbed run of each).

    The children cache their bytecode, as an installed voicehost does (pip compiles it), in a
    temporary folder (``PYTHONPYCACHEPREFIX``, even where ``PYTHONDONTWRITEBYTECODE`` is set),
    filled by one untimed run of each command first. The records commands read an empty SQLite
    file at the current schema, with one tournament (``bench``) and no games."""
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-pyc-") as cache:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        commands = {name: [_empty_records(cache) if arg == "DB" else arg for arg in argv]
                    for name, argv in CLI_COMMANDS.items()}
        for argv in commands.values():
            _cpu_s(argv, env)  # untimed: writes the bytecode cache
        return {name: [_cpu_s(argv, env) for _ in range(repeat)] for name, argv in commands.items()}


def _empty_records(folder: str) -> str:
    """An empty records file in ``folder`` at the current schema, with one tournament, «bench»."""
    url = f"sqlite:///{Path(folder) / 'records.sqlite'}"
    if not (Path(folder) / "records.sqlite").exists():
        from voicehost.records.store import open_records
        from voicehost.records.tournament import create_tournament, new_tournament

        with open_records(url) as db:
            create_tournament(db, new_tournament("bench", "seed001"))
    return url


def _cpu_s(argv: list[str], env: dict[str, str]) -> float:
    """The CPU time a fresh interpreter running ``argv`` used, from its own resource usage."""
    process = subprocess.Popen([sys.executable, *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} ended with exit code {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def bench_start(idle_s: float = 10.0) -> dict[str, float]:
    """The appliance's budgets: ``voicehost serve`` (mock pins, null audio, no model) from the
    process start to «Стол готов» with a warm TTS cache (a first run warms it, untimed); then
    the idle table's RSS and CPU over ``idle_s``; and the size of the TTS cache."""
    from voicehost.config import cache_dir

    with tempfile.TemporaryDirectory() as journals:
        warm, _ = _serve(journals)
        _stop(warm)
        process, ready_s = _serve(journals)
        try:
            time.sleep(1.0)  # past the start-up's last work
            before, began = _cpu_s_of(process.pid), time.perf_counter()
            time.sleep(idle_s)
            cpu_percent = 100 * (_cpu_s_of(process.pid) - before) / (time.perf_counter() - began)
            rss_kb = next(int(line.split()[1]) for line in Path(f"/proc/{process.pid}/status").read_text().split("\n")
                          if line.startswith("VmRSS:"))
        finally:
            _stop(process)
    return {"ready_s": ready_s, "idle_rss_mb": rss_kb / 1024, "idle_cpu_percent": cpu_percent,
            **fixed_lines_cache(cache_dir() / "tts")}


def _serve(journals: str) -> tuple[subprocess.Popen[str], float]:
    """``voicehost serve`` started, once it says it is ready; and how long that took."""
    from voicehost.i18n import _
    from voicehost.service.table import READY_LINE

    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "voicehost.cli.main", "serve", "--mock", "--audio", "null",
                                "--journals", journals], stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, text=True)
    assert process.stderr is not None
    for line in process.stderr:
        if line.strip() in (READY_LINE, _(READY_LINE)):   # the child speaks the language in use
            return process, time.perf_counter() - began
    raise RuntimeError(f"voicehost serve ended before it was ready (exit {process.wait()})")


def _stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _cpu_s_of(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fixed_lines_cache(cache: Path) -> dict[str, float]:
    """The disk cache of every fixed line of all four rulesets at their largest tables (the
    lines ``voicehost voice warm`` renders): how many, how many are cached, their size."""
    from voicehost.host import fixed_lines, load_audio, table_path
    from voicehost.language.phrasebook import load_phrasebook

    settings = load_audio(table_path(None)).voice
    book = load_phrasebook()
    texts = {text for name in ruleset_names()
             for text in fixed_lines(book, name, range(1, max(load_ruleset(name).seats) + 1))}
    files = [cache / f"{settings.key(text)}.ogg" for text in texts]
    cached = [path for path in files if path.exists()]
    return {"fixed_lines": float(len(texts)), "fixed_lines_cached": float(len(cached)),
            "fixed_lines_cache_mb": sum(path.stat().st_size for path in cached) / 2**20}
