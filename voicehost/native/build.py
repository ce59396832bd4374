"""Building the compiled engine: ``python -m voicehost.native build`` (what ``setup.sh`` runs).

Kept apart from :mod:`voicehost.native`, which every ``import voicehost`` reads: only a build
needs mypy, setuptools and a C compiler with the Python headers.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from voicehost.native import (
    FINGERPRINT,
    FOLDER,
    GROUP,
    MODULES,
    PACKAGES,
    SOURCES,
    SOURCES_SEEN,
    built_from,
    fingerprint,
    sources_seen,
    state,
)


def build(folder: Path = FOLDER, sources: Path = SOURCES, modules: Sequence[str] = MODULES) -> Path:
    """Compile ``modules`` with mypyc into a new build, then point ``folder`` at it.

    A build that fails leaves the one in use; a half-written one is never named. The swap is
    one rename of a link, so a process starting meanwhile loads the old build or the new one;
    the build before stays on disk (a process that started on it may still be importing), older
    ones go. Two builds at once (two ``setup.sh``) take turns; the second finds the work done.
    Needs mypy, setuptools and a C compiler with the Python headers."""
    seen = sources_seen(sources)      # before compiling: an edit during the build makes it stale
    made_from = fingerprint(sources)
    target = folder.with_name(f"{folder.name}.{made_from[:16]}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _taking_turns(folder.with_name(f"{folder.name}-lock")):
        if built_from(target) != made_from:  # not already built (another build, an earlier branch)
            for leftover in folder.parent.glob(f"{folder.name}-build-*"):
                shutil.rmtree(leftover, ignore_errors=True)  # from a build that was killed
            with tempfile.TemporaryDirectory(prefix=f"{folder.name}-build-", dir=folder.parent) as work:
                built = _compile(sources, Path(work), modules)
                (built / FINGERPRINT).write_text(made_from + "\n")
                shutil.rmtree(target, ignore_errors=True)
                built.rename(target)
        _note_sources_seen(target, seen)
        swap_in(folder, target)
    return target


def _note_sources_seen(build: Path, seen: str) -> None:
    """What the sources looked like for ``build`` (also one made before, for a branch checked
    out again): written aside and renamed, so a process starting meanwhile reads all or none."""
    aside = build / f"{SOURCES_SEEN}.{os.getpid()}"
    aside.write_text(seen + "\n")
    aside.replace(build / SOURCES_SEEN)


def _compile(sources: Path, work: Path, modules: Sequence[str]) -> Path:
    """mypyc's C for ``modules``, compiled into ``work``/new.

    mypy runs in a folder holding only links to :data:`PACKAGES`: from an installed wheel's
    site-packages it would refuse the other packages there (its own typing_extensions among
    them). Only the compiled modules must type-check; what they import is read for its types."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]  # (no stubs of its own)

    tree = work / "sources"
    tree.mkdir()
    for package in PACKAGES:
        (tree / package).symlink_to(sources / package, target_is_directory=True)
    files = [os.path.join(*name.split(".")) + ".py" for name in modules]
    with contextlib.chdir(tree):  # mypy names the modules by their paths from here
        options = ["--cache-dir", str(work / "mypy"), "--follow-imports=silent", "--python-version",
                   f"{sys.version_info.major}.{sys.version_info.minor}"]
        extensions = mypycify([*options, *files], group_name=GROUP, opt_level="3", target_dir=str(work / "c"))
        dist = Distribution({"name": "voicehost-native", "ext_modules": extensions})
        command = dist.get_command_obj("build_ext")
        command.build_lib = str(work / "new")
        command.build_temp = str(work / "objects")
        dist.run_command("build_ext")
    return work / "new"


@contextlib.contextmanager
def _taking_turns(lock: Path) -> Iterator[None]:
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


def swap_in(folder: Path, target: Path) -> None:
    """Make the link ``folder`` name the build ``target`` in one step (a rename over the old
    link); keep the build it named before, remove older ones."""
    previous = folder.resolve() if folder.is_symlink() else None
    fresh = folder.with_name(f"{folder.name}-link-{os.getpid()}")
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
        except SystemExit:  # how mypycify stops
            print("voicehost.native: not compiled: mypy or the C compiler reported errors (above)", file=sys.stderr)
            return 1
        except Exception as err:
            print(f"voicehost.native: not compiled: {type(err).__name__}: {err}", file=sys.stderr)
            return 1
    print(f"engine: {state()}")
    return 0
