"""The compiled engine (voicehost.native): the same games as the Python one, and never stale."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from voicehost import native
from voicehost.native.build import build, swap_in

ROOT = Path(__file__).resolve().parent.parent

# Random games of every ruleset, and the bundled scripts' protocols, digested: what a process
# running one engine or the other produced, input by input.
PLAY = r"""
import hashlib, json, random, sys
from pathlib import Path
from voicehost import native
from voicehost.config import load_ruleset
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.random_games import random_game
from voicehost.simulation.script import load_script

digests = {}
for name in ("sport", "club", "classic", "canonical"):
    ruleset, rng, digest = load_ruleset(name), random.Random(18), hashlib.sha256()
    for _ in range(60):
        game = random_game(ruleset, ruleset.resolve({}), rng)
        for record in (*game.inputs, *game.events):
            digest.update(repr(record).encode())
        digest.update(repr((game.outcome(), game.scores(), sorted(game.state().items()))).encode())
    digests[name] = digest.hexdigest()
for path in sorted(path for folder in sys.argv[1:] for path in Path(folder).glob("*.json")
                   if not path.name.endswith(".expect.json")):
    result = simulate(load_script(path))
    digests[path.name] = hashlib.sha256(
        json.dumps(build_protocol(result.game, result.ignored), sort_keys=True).encode()).hexdigest()
print(json.dumps({"compiled": native.active(), "digests": digests}))
"""


def _play(**env: str) -> dict[str, Any]:
    folders = [str(ROOT / "examples"), str(ROOT / "tests" / "scripts")]
    done = subprocess.run([sys.executable, "-c", PLAY, *folders], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300, check=True)
    return dict(json.loads(done.stdout))


def test_the_compiled_engine_plays_the_same_games_as_the_python_one() -> None:
    if native.state() != "compiled":
        pytest.skip(f"no current compiled engine here: {native.state()}")
    compiled, python = _play(), _play(**{native.SWITCH: "python"})
    assert compiled["compiled"] is True and python["compiled"] is False
    assert compiled["digests"] == python["digests"]
    assert len(compiled["digests"]) == 4 + 4 + 15  # the rulesets' games, the bundled and the tests' scripts


@pytest.fixture
def build_folder(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the sources and a build folder that claims to be made from them."""
    sources = tmp_path / "src"
    for package in native.PACKAGES:
        shutil.copytree(native.SOURCES / package, sources / package, ignore=shutil.ignore_patterns("__pycache__"))
    folder = tmp_path / "native"
    folder.mkdir()
    (folder / native.FINGERPRINT).write_text(native.fingerprint(sources) + "\n")
    return folder, sources


@pytest.mark.parametrize("edited", ["voicehost/rules/game.py", "voicehost/language/parser.py", "audio/tts.py"])
def test_a_build_is_used_only_while_its_sources_are_unchanged(build_folder: tuple[Path, Path], edited: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled module's source, or one it imports: mypyc compiled the types of both in."""
    folder, sources = build_folder
    monkeypatch.delenv(native.SWITCH, raising=False)
    assert native.state(folder, sources) == "compiled"
    source = sources / edited
    source.write_text(source.read_text() + "\n# a club's edit\n")
    assert "older than the sources" in native.state(folder, sources)
    finders = list(sys.meta_path)
    assert native.install(folder, sources) is False and sys.meta_path == finders


def test_sources_as_the_build_saw_them_are_not_read_again(build_folder: tuple[Path, Path],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The build's record of the sources' sizes and times spares every command hashing them;
    a touched file with the same content falls back to the content, an edited one is stale."""
    folder, sources = build_folder
    monkeypatch.delenv(native.SWITCH, raising=False)
    (folder / native.SOURCES_SEEN).write_text(native.sources_seen(sources) + "\n")
    real_fingerprint = native.fingerprint
    monkeypatch.setattr(native, "fingerprint", lambda *_: pytest.fail("the sources were read again"))
    assert native.state(folder, sources) == "compiled"
    source = sources / "voicehost" / "rules" / "game.py"
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))  # a checkout's rewrite
    monkeypatch.setattr(native, "fingerprint", real_fingerprint)
    assert native.state(folder, sources) == "compiled"
    source.write_text(source.read_text() + "\n# a club's edit\n")
    assert "older than the sources" in native.state(folder, sources)
    (sources / "hw" / "new.py").write_text("")   # a new module counts too
    source.write_text(source.read_text().removesuffix("\n# a club's edit\n"))
    assert "older than the sources" in native.state(folder, sources)


def test_a_build_missing_a_file_is_not_loaded(build_folder: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    folder, sources = build_folder
    monkeypatch.delenv(native.SWITCH, raising=False)
    for path in native.library_files(folder)[1:]:  # all but the first
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    finders = list(sys.meta_path)
    assert native.state(folder, sources) == "compiled"
    assert native.install(folder, sources) is False and sys.meta_path == finders


def test_no_build_or_the_switch_means_plain_python(build_folder: tuple[Path, Path],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    folder, sources = build_folder
    monkeypatch.setenv(native.SWITCH, "python")
    assert native.state(folder, sources) == f"plain Python ({native.SWITCH}=python)"
    monkeypatch.delenv(native.SWITCH)
    (folder / native.FINGERPRINT).unlink()
    assert "not compiled" in native.state(folder, sources)


def test_a_build_that_fails_keeps_the_build_before_it(build_folder: tuple[Path, Path],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A type error stops mypyc before any C is written; the build in use stays as it was."""
    pytest.importorskip("mypyc.build", reason="the native extra (mypy) is not installed")
    folder, sources = build_folder
    roster = sources / "voicehost" / "rules" / "roster.py"  # a small module: mypy has little to read
    roster.write_text(roster.read_text() + "\n\ndef broken(seats: int) -> int:\n    return seats + ''\n")
    before = (folder / native.FINGERPRINT).read_text()
    with pytest.raises(SystemExit):
        build(folder, sources, ["voicehost.rules.roster"])
    assert 'Unsupported operand types for + ("int" and "str")' in capsys.readouterr().out
    assert (folder / native.FINGERPRINT).read_text() == before
    assert sorted(path.name for path in folder.iterdir()) == [native.FINGERPRINT]
    assert sorted(path.name for path in folder.parent.iterdir()) == ["native", "native-lock", "src"]


def test_a_build_made_before_is_swapped_in_without_compiling(build_folder: tuple[Path, Path],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Two setup.sh at once, or a branch checked out again: the build is there already."""
    folder, sources = build_folder
    made = folder.with_name(f"{folder.name}.{native.fingerprint(sources)[:16]}")
    shutil.copytree(folder, made)
    monkeypatch.setattr("voicehost.native.build._compile", lambda *_: pytest.fail("compiled again"))
    assert build(folder, sources) == made
    assert folder.is_symlink() and folder.resolve() == made


def test_a_new_build_is_swapped_in_at_once_and_the_one_before_is_kept(tmp_path: Path) -> None:
    """A process that started on the build before may still be importing from it."""
    folder = tmp_path / "voicehost-native"
    builds = [tmp_path / f"voicehost-native.{n}" for n in "abc"]
    folder.mkdir()  # a build written in place goes
    for build_folder in builds:
        build_folder.mkdir()
        (build_folder / native.FINGERPRINT).write_text(build_folder.name)
        swap_in(folder, build_folder)
        assert (folder / native.FINGERPRINT).read_text() == build_folder.name
    assert sorted(path.name for path in tmp_path.iterdir()) == [folder.name, builds[1].name, builds[2].name]
    assert folder.is_symlink() and folder.resolve() == builds[2]


def test_the_build_is_checked_at_the_first_import_of_an_engine_module(build_folder: tuple[Path, Path],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``import voicehost`` defers the check (hashing every source) to the engine's first import;
    the deferred finder then steps aside, with the build in place or not."""
    folder, sources = build_folder
    (sources / "voicehost" / "rules" / "roster.py").write_text("# edited\n", encoding="utf-8")
    monkeypatch.delenv(native.SWITCH, raising=False)
    deferred = native.DeferredInstall(folder, sources)
    # This process may itself run a current build (CI compiles one): the test stands in its place.
    others = [finder for finder in sys.meta_path if not isinstance(finder, native.CompiledModules)]
    monkeypatch.setattr(sys, "meta_path", [deferred, *others])
    assert deferred.find_spec("voicehost.cli.main") is None and sys.meta_path[0] is deferred  # not an engine module
    assert deferred.find_spec(native.MODULES[0]) is None  # a stale build: the plain Python module
    assert deferred not in sys.meta_path and not any(isinstance(f, native.CompiledModules) for f in sys.meta_path)


def test_voicehost_native_build_names_a_build_elsewhere(tmp_path: Path) -> None:
    """VOICEHOST_NATIVE_BUILD: where an import looks for the build (and a build is made), e.g. a
    benchmark's build of another checkout; an empty folder there means plain Python."""
    code = "from voicehost import native; print(native.FOLDER); print(native.state())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, native.BUILD_SWITCH: str(tmp_path / "build")}, cwd=ROOT)
    folder, state = done.stdout.splitlines()
    assert folder == str(tmp_path / "build")
    assert state.startswith("plain Python (not compiled")
