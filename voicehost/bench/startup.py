"""``bench cli`` and ``bench start``: how quickly the quick commands and the appliance start,
what the idle table costs, and the TTS cache of every fixed line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
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


def bench_start(idle_s: float = 10.0, fresh_s: float = 20.0) -> dict[str, float]:
    """The appliance's budgets, a warm cache and a fresh one apart. Warm: ``voicehost serve``
    (mock pins, null audio, no model) from the process start to «Стол готов» with the user's
    TTS cache rendered to its end (a first run finishes it, untimed), then the idle table's
    RSS and CPU over ``idle_s``. Fresh: the same with an empty cache, as a Pi's first boot
    after an install, then over ``fresh_s`` of its background render (or to its end) the peak
    RSS of the table and its render children together and the table's own CPU. The start-up
    times are ratios to a bare interpreter's, measured in the same run (the machine may be busy)."""
    from voicehost.config import cache_dir
    from voicehost.service.voice_render import RENDERED_LINE

    bare_s = min(_wall_s([sys.executable, "-c", "pass"]) for _ in range(3))
    with tempfile.TemporaryDirectory() as journals, tempfile.TemporaryDirectory() as empty:
        _stop(_serve(journals, until=RENDERED_LINE)[0])   # untimed: the user's cache, rendered to its end
        warm = _warm_figures(*_serve(journals), idle_s)
        fresh, fresh_ready_s = _serve(journals, cache=empty)
        try:
            peak_mb, cpu_percent, finished = _watch_render(fresh, fresh_s)
        finally:
            _stop(fresh)
        rendered = len(list((Path(empty) / "tts").glob("*.ogg")))
    return {"reference_s": bare_s, "warm_ready_x": warm["ready_s"] / bare_s,
            "warm_idle_rss_mb": warm["rss_mb"], "warm_idle_cpu_percent": warm["cpu_percent"],
            "fresh_ready_x": fresh_ready_s / bare_s, "fresh_peak_rss_mb": peak_mb,
            "fresh_peak_above_idle_mb": peak_mb - warm["rss_mb"], "fresh_table_cpu_percent": cpu_percent,
            "fresh_lines_rendered": float(rendered), "fresh_render_finished": float(finished),
            **fixed_lines_cache(cache_dir() / "tts")}


def _warm_figures(process: subprocess.Popen[str], ready_s: float, idle_s: float) -> dict[str, float]:
    """The warm table: its start-up, then its RSS and CPU while idle."""
    try:
        time.sleep(1.0)  # past the start-up's last work
        before, began = _cpu_s_of(process.pid), time.perf_counter()
        time.sleep(idle_s)
        cpu_percent = 100 * (_cpu_s_of(process.pid) - before) / (time.perf_counter() - began)
        rss_mb = _rss_mb(process.pid)
    finally:
        _stop(process)
    return {"ready_s": ready_s, "rss_mb": rss_mb, "cpu_percent": cpu_percent}


def _watch_render(process: subprocess.Popen[str], seconds: float) -> tuple[float, float, bool]:
    """Over ``seconds`` of a fresh table's background render, or until it says it is done: the
    peak RSS of the table and its children together (MB), the table's own CPU (% of a core),
    and whether the render finished."""
    from voicehost.service.voice_render import RENDERED_LINE

    done = threading.Event()
    threading.Thread(target=_wait_for_line, args=(process, RENDERED_LINE, done), daemon=True).start()
    before, began, peak = _cpu_s_of(process.pid), time.perf_counter(), 0.0
    while time.perf_counter() - began < seconds and not done.is_set():
        peak = max(peak, _rss_mb(process.pid) + sum(_rss_mb(child) for child in children_of(process.pid)))
        time.sleep(0.05)
    return peak, 100 * (_cpu_s_of(process.pid) - before) / (time.perf_counter() - began), done.is_set()


def children_of(pid: int) -> list[int]:
    """The process's children now (from /proc; none once it has ended)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            found += [int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    except OSError:
        pass
    return found


def _rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` (0: it has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in status.split("\n") if line.startswith("VmRSS:")), 0.0)


def _wall_s(argv: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def _serve(journals: str, cache: str | None = None, until: str | None = None) -> tuple[subprocess.Popen[str], float]:
    """``voicehost serve`` started, once it has said ``until`` (default: the ready line); and
    how long that took. ``cache``: its TTS and cue cache (default: the user's)."""
    from voicehost.service.table import READY_LINE

    env = {**os.environ, "VOICEHOST_CACHE": cache} if cache is not None else None
    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "voicehost.cli.main", "serve", "--mock", "--audio", "null",
                                "--journals", journals], stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, text=True, env=env)
    if not _wait_for_line(process, until or READY_LINE):
        raise RuntimeError(f"voicehost serve ended before it was ready (exit {process.wait()})")
    return process, time.perf_counter() - began


def _wait_for_line(process: subprocess.Popen[str], wanted: str, seen: threading.Event | None = None) -> bool:
    """Read the table's log until a line that begins as ``wanted`` does (in English or in the
    language in use: the child speaks it); then, with ``seen``, set it and go on reading, so
    the table never blocks on a full pipe."""
    from voicehost.i18n import _

    heads = {_(wanted).split("{")[0].strip(), wanted.split("{")[0].strip()}
    assert process.stderr is not None
    for line in process.stderr:
        if any(line.strip().startswith(head) for head in heads):
            if seen is None:
                return True
            seen.set()
    return False


def _stop(process: subprocess.Popen[str], patience_s: float = 10.0) -> None:
    """SIGTERM, as systemd stops the table; SIGKILL after ``patience_s`` (the exit code says which)."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=patience_s)
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
