"""setup.sh, the front door: its own lines in the club's language, and a wrong job refused at once.

The script runs before there is a venv to read the catalog, so each of its lines carries both
languages (say/die: the English, then the Russian); these tests keep every line that way.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[1] / "setup.sh"
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
# A say/die call with its arguments: double-quoted strings, continued over backslash-newlines.
CALL = re.compile(r'\b(say|die) ((?:"(?:[^"\\]|\\.)*"[ \t]*)+)')
ARGUMENT = re.compile(r'"((?:[^"\\]|\\.)*)"')


def setup(*args: str, **environ: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "VOICEHOST_LANG")}
    return subprocess.run(["bash", str(SETUP), *args], capture_output=True, text=True, timeout=60,
                          env={**clean, **environ})


def test_every_line_setup_says_has_its_russian() -> None:
    script = SETUP.read_text(encoding="utf-8").replace("\\\n", " ")
    calls = [m for m in CALL.finditer(script) if not script[:m.start()].rstrip().endswith("()")]
    calls = [m for m in calls if not m.group(0).startswith(("say()", "die()"))]
    assert len(calls) >= 15, "the say/die calls were not found"
    for call in calls:
        said = ARGUMENT.findall(call.group(2))
        assert len(said) == 2, f"{call.group(0)[:80]!r}: an English and a Russian line expected"
        english, russian = said
        assert not CYRILLIC.search(english) and CYRILLIC.search(russian), call.group(0)[:80]


@pytest.mark.parametrize(("environ", "args", "expected"), [
    ({}, (), "setup.sh: неизвестная задача «bogus» (есть: demo, test)"),
    ({"LANG": "C.UTF-8"}, (), "setup.sh: неизвестная задача «bogus» (есть: demo, test)"),
    ({"LANG": "ru_RU.UTF-8"}, (), "setup.sh: неизвестная задача «bogus» (есть: demo, test)"),
    ({"LANG": "en_GB.UTF-8"}, (), "setup.sh: unknown job 'bogus' (use: demo, test)"),
    ({"LANG": "en_GB.UTF-8", "VOICEHOST_LANG": "ru"}, (), "setup.sh: неизвестная задача «bogus» (есть: demo, test)"),
    ({}, ("--lang", "en"), "setup.sh: unknown job 'bogus' (use: demo, test)"),
])
def test_a_wrong_job_is_one_line_in_the_clubs_language_before_anything_is_installed(
        environ: dict[str, str], args: tuple[str, ...], expected: str) -> None:
    done = setup("bogus", *args, **environ)
    assert done.returncode == 2
    assert done.stderr.strip() == expected   # nothing installed first: no "==>" line before it
    assert done.stdout == ""


def _function(name: str) -> str:
    """One function of setup.sh, from its ``name() {`` line to its closing brace."""
    found = re.search(rf"^{name}\(\) {{.*?^}}$", SETUP.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    assert found, f"setup.sh has no function {name}"
    return found.group(0)


def _update_beside(tmp_path: Path, apt_script: str) -> subprocess.CompletedProcess[str]:
    """setup.sh's update_package_lists with an ``apt-get`` of ours first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    apt = bin_dir / "apt-get"
    apt.write_text(f"#!/bin/bash\n{apt_script}\n", encoding="utf-8")
    apt.chmod(0o755)
    script = "\n".join([
        "set -euo pipefail", "say() { printf '==> %s\\n' \"$1\" >&2; }", "as_root() { \"$@\"; }",
        _function("update_package_lists"), "update_package_lists -o DPkg::Lock::Timeout=1", "echo updated"])
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "COUNT": str(tmp_path / "n"),
                               "APT_LOCK_TIMEOUT_S": "3", "APT_LOCK_POLL_S": "1", "VOICEHOST_LANG": "en"})


LOCKED = ("n=$(cat \"$COUNT\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$COUNT\"\n"
          "if [ \"$n\" -lt {busy} ]; then\n"
          "  echo 'E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1737 (apt-get)' >&2; exit 100\n"
          "fi")


def test_an_update_beside_another_apt_waits_for_the_lists_lock(tmp_path: Path) -> None:
    done = _update_beside(tmp_path, LOCKED.replace("{busy}", "2"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "updated\n"
    assert (tmp_path / "n").read_text().strip() == "3"   # two refusals, then the update itself
    assert done.stderr.count("another apt is running") == 1


def test_an_update_gives_up_after_the_timeout_and_says_what_apt_said(tmp_path: Path) -> None:
    done = _update_beside(tmp_path, LOCKED.replace("{busy}", "99"))
    assert done.returncode != 0 and "updated" not in done.stdout
    assert "Could not get lock /var/lib/apt/lists/lock" in done.stderr
    assert 3 <= int((tmp_path / "n").read_text()) <= 5


def test_an_update_that_fails_otherwise_is_not_retried(tmp_path: Path) -> None:
    done = _update_beside(tmp_path, "echo \"$(( $(cat \"$COUNT\" 2>/dev/null || echo 0) + 1 ))\" > \"$COUNT\"\n"
                                    "echo 'E: The repository is not signed.' >&2; exit 100")
    assert done.returncode != 0
    assert "The repository is not signed." in done.stderr and "another apt" not in done.stderr
    assert (tmp_path / "n").read_text().strip() == "1"
