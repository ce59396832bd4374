"""``voicehost`` as a process of its own that starts in milliseconds.

Tests about what a process does — its exit code, its one line on stderr, a journal left behind
by a SIGKILL, a console read from stdin — need a process each, and a fresh ``python -m
voicehost`` spends about 0.3 s starting and importing before it does anything (most of such a
test's time when it starts twenty). These processes are forked instead from one server that
has imported voicehost once (:mod:`multiprocessing`'s forkserver, preloaded).
Each is still a new process with its own environment, working folder, stdin, stdout, stderr
and exit status (killed by a signal: minus the signal, as with :mod:`subprocess`); what is
shared is the interpreter's start and the imports. The command as a user starts it (``python
-m voicehost``, the console script, an installed wheel) is spawned for real in test_cli.py,
test_appliance.py and test_service.py.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, overload

from machine import hang_guard

_FORKS = multiprocessing.get_context("forkserver")
# The command line, and what its commands import only once they run (the command line itself
# loads them lazily, issue 30): the host, the engine, the simulations, the loudness meter and
# scipy (a second), the seat panel and the records. Nothing that opens a device at import.
_FORKS.set_forkserver_preload(["voicehost.cli.main", "voicehost.rules.sport", "voicehost.rules.club",
                               "voicehost.rules.classic", "voicehost.rules.canonical", "voicehost.rules.protocol",
                               "voicehost.host", "voicehost.host.live", "voicehost.host.calibration",
                               "voicehost.simulation.table_level", "voicehost.simulation.engine_level",
                               "voicehost.simulation.random_games", "voicehost.service.table", "audio.listener",
                               "hw.panel", "pyloudnorm", "scipy.ndimage", "scipy.signal", "pyttsx3",
                               "gpiozero", "sqlalchemy", "alembic", "voicehost.records.store"])


@overload
def run_voicehost(argv: Sequence[str], *, input: str | bytes | None = None, env: Mapping[str, str] | None = None,
                  cwd: Path | str | None = None, timeout: float = 120,
                  text: Literal[True] = True) -> subprocess.CompletedProcess[str]: ...
@overload
def run_voicehost(argv: Sequence[str], *, input: str | bytes | None = None, env: Mapping[str, str] | None = None,
                  cwd: Path | str | None = None, timeout: float = 120,
                  text: Literal[False]) -> subprocess.CompletedProcess[bytes]: ...
def run_voicehost(argv: Sequence[str], *, input: str | bytes | None = None, env: Mapping[str, str] | None = None,
                  cwd: Path | str | None = None, timeout: float = 120,
                  text: bool = True) -> subprocess.CompletedProcess[Any]:
    """``voicehost ARGV`` as ``subprocess.run(…, capture_output=True)`` would run it: stdin is
    ``input`` (nothing: at its end at once), the environment ``env`` (default: this one).
    ``timeout`` guards against a hang only (stretched on an emulated CPU: tests/machine.py)."""
    with tempfile.TemporaryDirectory(prefix="voicehost-process-") as folder:
        stdin, stdout, stderr = (Path(folder) / name for name in ("stdin", "stdout", "stderr"))
        stdin.write_bytes(input.encode() if isinstance(input, str) else input or b"")
        process = _FORKS.Process(target=_voicehost, name="voicehost", args=(
            list(argv), dict(os.environ if env is None else env), str(cwd or os.getcwd()),
            str(stdin), str(stdout), str(stderr)))
        process.start()
        process.join(hang_guard(timeout))
        if process.exitcode is None:
            process.kill()
            process.join()
            raise subprocess.TimeoutExpired(["voicehost", *argv], timeout)
        out, err = stdout.read_bytes(), stderr.read_bytes()
    if text:
        return subprocess.CompletedProcess(["voicehost", *argv], process.exitcode, out.decode(), err.decode())
    return subprocess.CompletedProcess(["voicehost", *argv], process.exitcode, out, err)


def _voicehost(argv: list[str], env: dict[str, str], cwd: str, stdin: str, stdout: str, stderr: str) -> None:
    """In the forked process: its folder, environment and standard files, then the command."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.stdout.flush()
    sys.stderr.flush()
    written = os.O_WRONLY | os.O_CREAT
    for fd, path, flags in ((0, stdin, os.O_RDONLY), (1, stdout, written), (2, stderr, written)):
        opened = os.open(path, flags, 0o600)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = open(0, closefd=False)  # multiprocessing gave the child /dev/null
    sys.argv = ["voicehost", *argv]
    from voicehost.cli.main import main
    sys.exit(main())  # as the program runs it (from sys.argv)
