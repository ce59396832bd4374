"""Building the compiled engine: ``python -m voicehost.native build`` (what ``setup.sh`` runs).

Kept apart from :mod:`voicehost.native`, which every ``import voicehost`` reads: only a build
needs mypy, setuptools and a C compiler with the Python headers.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from voicehost.native import FINGERPRINT, FOLDER, GROUP, MODULES, SOURCES, built_from, fingerprint, state


def build(folder: Path = FOLDER, sources: Path = SOURCES) -> Path:
    """Compile :data:`MODULES` with mypyc into a new build, then point ``folder`` at it.

    A build that fails leaves the one in use; a half-written one is never named. The swap is
    one rename of a link, so a process starting meanwhile loads the old build or the new one;
    the build before stays on disk (a process that started on it may still be importing), older
    ones go. Needs mypy, setuptools and a C compiler with the Python headers."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]  # (no stubs of its own)

    made_from = fingerprint(sources)  # before compiling: an edit during the build makes it stale
    files = [os.path.join(*name.split(".")) + ".py" for name in MODULES]
    target = folder.with_name(f"{folder.name}.{made_from[:16]}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{folder.name}-build-", dir=folder.parent) as work:
        with contextlib.chdir(sources):  # mypy names the modules by their paths from here, and reads pyproject.toml
            # Only the compiled modules must pass mypy's strict check; what they import is read for its types.
            options = ["--cache-dir", os.path.join(work, "mypy"), "--follow-imports=silent"]
            extensions = mypycify([*options, *files], group_name=GROUP, opt_level="3",
                                  target_dir=os.path.join(work, "c"))
            dist = Distribution({"name": "voicehost-native", "ext_modules": extensions})
            command = dist.get_command_obj("build_ext")
            command.build_lib = os.path.join(work, "new")
            command.build_temp = os.path.join(work, "objects")
            dist.run_command("build_ext")
        built = Path(work) / "new"
        (built / FINGERPRINT).write_text(made_from + "\n")
        shutil.rmtree(target, ignore_errors=True)
        built.rename(target)
    swap_in(folder, target)
    return target


def swap_in(folder: Path, target: Path) -> None:
    """Make the link ``folder`` name the build ``target`` in one step (a rename over the old
    link); keep the build it named before, remove older ones."""
    previous = folder.resolve() if folder.is_symlink() else None
    fresh = folder.with_name(f"{folder.name}-link")
    fresh.unlink(missing_ok=True)
    fresh.symlink_to(target.name)
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)  # a build written in place (a test's, or by hand)
    os.replace(fresh, folder)
    for old in folder.parent.glob(f"{folder.name}.*"):
        if old not in (target, previous):
            shutil.rmtree(old, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m voicehost.native build|state``: build if out of date; say which engine runs."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args not in (["build"], ["state"]):
        print("usage: python -m voicehost.native build|state", file=sys.stderr)
        return 2
    if args == ["build"] and built_from() != fingerprint():
        try:
            build()
        except (Exception, SystemExit) as err:  # mypy's or the compiler's own report is printed above
            print(f"voicehost.native: the engine was not compiled ({type(err).__name__}: {err}); "
                  "it stays plain Python", file=sys.stderr)
            return 1
    print(f"engine: {state()}")
    return 0
