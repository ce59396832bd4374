"""The layout's promises: one package per concern, each importing only the layers below it.

rules → i18n → files → config → language → host → simulation, records, web → service → cli (the
tournament plan beside, on the rules alone); audio and hw are adapters that never import voicehost;
the web console, the records and the service use the host's public API only. voicehost.i18n, the
gettext switch, stands on the standard library alone, just above the rules (which keep their own
no-op ``N_``: voicehost.rules.input_error): nothing below it imports a layer above.
"""

from __future__ import annotations

import ast
import io
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IO_MODULES = {"os", "io", "sys", "pathlib", "socket", "threading", "asyncio", "time", "tomllib", "json",
              "subprocess", "random", "sounddevice", "gpiozero", "vosk", "pyttsx3", "audio", "hw", "datetime"}


# What each package of voicehost may import of voicehost (besides itself), in the order of the layers;
# a top-level module counts as a package of its own (``files``, ``config``; ``__init__`` the root,
# which only loads the compiled engine, and ``__main__``, ``python -m voicehost``). Every package
# under voicehost/ has its line: one this table does not know fails the layer test.
BELOW_CLI = {"rules", "i18n", "files", "config", "language", "host", "simulation", "records", "web", "service",
             "tournament", "bench", "native", "__init__"}
LAYERS = {
    "native": {"rules"},  # loaded by ``import voicehost`` before anything else: only the rules catalog (plain data)
    "__init__": {"native"},
    "rules": set(),
    "i18n": set(),        # gettext's switch (``_``, ``N_``): the standard library only (test below)
    "files": {"rules", "i18n"},
    "config": {"rules", "i18n", "files"},
    "language": {"rules", "i18n", "config", "files"},
    "host": {"rules", "i18n", "config", "language", "files"},
    "simulation": {"rules", "i18n", "config", "language", "host", "files"},
    "records": {"rules", "i18n", "config", "language", "host", "files", "tournament"},
    "web": {"rules", "i18n", "config", "language", "host", "files"},
    "service": {"rules", "i18n", "config", "language", "host", "files", "web"},
    "tournament": {"rules", "i18n", "language"},
    # The benchmarks measure the whole program from outside: everything but the command line.
    "bench": {"rules", "i18n", "files", "config", "language", "host", "simulation", "web", "records", "service",
              "tournament"},
    "cli": BELOW_CLI,
    "__main__": {"cli"},
}
# Packages that reach the live host only through ``voicehost.host`` itself (its __all__).
HOST_CLIENTS = ("web", "records", "service")


def voicehost_imports(path: Path) -> set[str]:
    """Every ``voicehost.…`` module ``path`` imports (absolute imports: the packages use no relative ones);
    ``from voicehost import native`` is ``voicehost.native``, ``from voicehost import __version__`` the root's."""
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("voicehost.")}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "voicehost":
            found |= {f"voicehost.{alias.name if (ROOT / 'voicehost' / alias.name).is_dir() else '__init__'}"
                      for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("voicehost."):
            found.add(str(node.module))
    return found


def package_of(path: Path) -> str:
    parts = path.relative_to(ROOT / "voicehost").with_suffix("").parts
    return parts[0]


VOICEHOST_MODULES = sorted((ROOT / "voicehost").rglob("*.py"))


@pytest.mark.parametrize("path", VOICEHOST_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_package_imports_only_the_layers_below(path: Path) -> None:
    package = package_of(path)
    assert package in LAYERS, f"{path.relative_to(ROOT)}: package {package!r} has no place in LAYERS"
    allowed = LAYERS[package] | {package}
    reached = {module.split(".")[1] for module in voicehost_imports(path) if module.count(".") >= 1}
    assert reached <= allowed, f"{path.relative_to(ROOT)} imports {sorted(reached - allowed)} of voicehost"


def test_every_package_under_voicehost_has_its_layer() -> None:
    """The layer test skipped a package it did not know: records, service and cli went unchecked."""
    packages = {path.stem for path in (ROOT / "voicehost").glob("*.py")}
    packages |= {path.parent.name for path in (ROOT / "voicehost").glob("*/__init__.py")}
    assert packages == set(LAYERS), f"unknown: {sorted(packages - set(LAYERS))}; gone: {sorted(set(LAYERS) - packages)}"


def test_the_layer_check_sees_an_import_that_runs_back_up(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from voicehost import native\nfrom voicehost.cli.main import main\nimport voicehost.web.view\n")
    assert voicehost_imports(sample) == {"voicehost.native", "voicehost.cli.main", "voicehost.web.view"}


def type_names(path: Path) -> set[str]:
    """The classes ``path`` defines at module level, and its named Literal types (``X = Literal[…]``)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript)
              and isinstance(node.value.value, ast.Name) and node.value.value.id == "Literal"):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


def test_no_type_name_is_defined_twice() -> None:
    """``Night`` was the live night's steps and a script's night; ``Outcome`` who won, a calibration
    phrase's result and the console's answer; ``Session`` a web login and a calibration run."""
    where: dict[str, list[str]] = {}
    for path in [*VOICEHOST_MODULES, *sorted((ROOT / "audio").rglob("*.py")), *sorted((ROOT / "hw").rglob("*.py"))]:
        for name in type_names(path):
            where.setdefault(name, []).append(str(path.relative_to(ROOT)))
    twice = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert not twice, twice


# A code comment cites what is in the repository (docs/rules.md, docs/scripts.md), never the sources
# the docs were written from: the numbered rule sheets, the shared rules and the script notes.
OUTSIDE_FILES = re.compile(r"RULES\.md|TABLE-SCRIPT\.md|NOTES-AUDIO-GPIO\.md|CODE-REVIEW\.md|\bseeds? 0\d\d\b")
CODE = [*VOICEHOST_MODULES, *sorted((ROOT / "audio").rglob("*.py")), *sorted((ROOT / "hw").rglob("*.py")),
        *sorted((ROOT / "tests").glob("*.py"))]


def cited_outside(path: Path) -> list[str]:
    """The comments and docstrings of ``path`` that cite a file the repository does not hold."""
    text = path.read_text(encoding="utf-8")
    found = [token.string for token in tokenize.generate_tokens(io.StringIO(text).readline)
             if token.type == tokenize.COMMENT and OUTSIDE_FILES.search(token.string)]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc and OUTSIDE_FILES.search(doc):
                found.append(doc.splitlines()[0])
    return found


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_comment_cites_a_file_outside_the_repository(path: Path) -> None:
    assert not cited_outside(path), f"{path.relative_to(ROOT)}: {cited_outside(path)} (cite docs/rules.md)"


def test_the_citation_check_sees_a_comment_and_a_docstring(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""The rules (RULES.md §1)."""\nLEAD = 2  # seed 004 decision\nTEXT = "seed 001"\n')
    assert cited_outside(sample) == ["# seed 004 decision", "The rules (RULES.md §1)."]


def test_the_gettext_switch_imports_only_the_standard_library() -> None:
    """voicehost.i18n sits just above the rules: the file gate and the config below the language
    layer mark their messages with it, so it may stand on nothing of voicehost's."""
    path = ROOT / "voicehost" / "i18n.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {str(node.module).split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.level == 0}
    outside = sorted(name for name in imported - {"__future__"} if name not in sys.stdlib_module_names)
    assert not outside, f"voicehost.i18n imports {outside}: it stands on the standard library only"


@pytest.mark.parametrize("path", VOICEHOST_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_web_records_and_service_use_the_hosts_public_api_only(path: Path) -> None:
    if package_of(path) not in HOST_CLIENTS:
        return
    deep = {module for module in voicehost_imports(path) if module.startswith("voicehost.host.")}
    assert not deep, f"{path.relative_to(ROOT)} reaches into {sorted(deep)}: import from voicehost.host"


# What the rest of the program may use of a live director: its game, its ports (the inputs go
# in there), its clock, and the methods below. Its parts and their state (the floor's timer, who
# is speaking, the pause, the refusals) reach everyone else as notices (voicehost.host.notices).
DIRECTOR_API = {"game", "ports", "clock", "log", "watch", "unwatch", "say", "push", "wait", "nightfall", "status",
                "run", "points_after_game", "close", "notes"}


def director_attributes(path: Path) -> set[tuple[int, str]]:
    """(line, attribute) for every ``director.X`` or ``….director.X`` read in ``path``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            if name == "director":
                found.add((node.lineno, node.attr))
    return found


@pytest.mark.parametrize("path", [p for p in VOICEHOST_MODULES if package_of(p) != "host"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_outside_the_host_reads_the_directors_state(path: Path) -> None:
    private = sorted((line, attr) for line, attr in director_attributes(path) if attr not in DIRECTOR_API)
    assert not private, f"{path.relative_to(ROOT)} reads the director's {private}: follow its notices instead"


def test_the_director_check_sees_a_read_of_its_state(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f(self, director):\n    return director.deadline, self.director.paused, director.game\n")
    assert {attr for _, attr in director_attributes(sample)} == {"deadline", "paused", "game"}


def test_only_the_command_line_imports_the_command_line() -> None:
    offenders = [str(path.relative_to(ROOT)) for path in VOICEHOST_MODULES
                 if package_of(path) != "cli" and path.name != "__main__.py"
                 and any(module.startswith("voicehost.cli") for module in voicehost_imports(path))]
    assert not offenders


@pytest.mark.parametrize("path", VOICEHOST_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_says_its_place_in_a_docstring(path: Path) -> None:
    assert ast.get_docstring(ast.parse(path.read_text())), f"{path.relative_to(ROOT)} has no module docstring"


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


def test_the_whole_tree_is_fully_typed() -> None:
    """``mypy --strict`` over every package and the tests: a seam is a type, checked, not a
    convention, and a test that calls it wrongly is caught before it runs. Only libraries that
    ship no types are taken as Any, at their import (pyproject's overrides)."""
    if shutil.which("mypy") is None and subprocess.run([sys.executable, "-m", "mypy", "--version"],
                                                       capture_output=True).returncode != 0:
        pytest.skip("mypy is not installed (it comes with the test extra)")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "voicehost", "audio", "hw", "tests"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_code_passes_the_linter() -> None:
    if subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True).returncode != 0:
        pytest.skip("ruff is not installed (it comes with the test extra)")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "voicehost", "audio", "hw", "tests"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
