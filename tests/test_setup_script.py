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
