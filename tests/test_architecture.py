"""The layout's promises: the rules core is pure and fully typed; adapters never import the host."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IO_MODULES = {"os", "io", "sys", "pathlib", "socket", "threading", "asyncio", "time", "tomllib", "json",
              "subprocess", "random", "sounddevice", "gpiozero", "vosk", "pyttsx3", "audio", "hw", "datetime"}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "voicehost" / "rules").glob("*.py")), ids=lambda p: p.name)
def test_rules_core_imports_no_io_clock_or_adapters(path: Path) -> None:
    assert not imports(path) & (IO_MODULES | {"voicehost"}), f"{path.name} imports {imports(path) & IO_MODULES}"


@pytest.mark.parametrize("path", sorted([*(ROOT / "audio").rglob("*.py"), *(ROOT / "hw").rglob("*.py")]),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_adapters_never_import_voicehost(path: Path) -> None:
    assert "voicehost" not in imports(path)


def test_rules_core_is_fully_typed() -> None:
    if shutil.which("mypy") is None and subprocess.run([sys.executable, "-m", "mypy", "--version"],
                                                       capture_output=True).returncode != 0:
        pytest.skip("mypy is not installed (it comes with the test extra)")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "voicehost/rules"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_code_passes_the_linter() -> None:
    if subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True).returncode != 0:
        pytest.skip("ruff is not installed (it comes with the test extra)")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "voicehost", "audio", "hw", "tests"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
