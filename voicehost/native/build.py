"""Building the compiled engine: ``python -m voicehost.native build`` (what ``setup.sh`` runs).

Kept apart from :mod:`voicehost.native`, which every ``import voicehost`` reads: only a build
needs mypy, setuptools and a C compiler with the Python headers.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from voicehost.native import FINGERPRINT, FOLDER, GROUP, MODULES, SOURCES, built_from, fingerprint, state


def build(folder: Path = FOLDER, sources: Path = SOURCES) -> None:
    """Compile :data:`MODULES` with mypyc into ``folder``, replacing the build there at once
    (a build that fails leaves the old one, and a half-written one is never loaded).
    Needs mypy, setuptools and a C compiler with the Python headers."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    made_from = fingerprint(sources)  # before compiling: an edit during the build makes it stale
    files = [os.path.join(*name.split(".")) + ".py" for name in MODULES]
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="voicehost-native-", dir=folder.parent) as work:
        with contextlib.chdir(sources):  # mypy names the modules by their paths from here, and reads pyproject.toml
            # Only the compiled modules must pass mypy's strict check; what they import is read for its types.
            options = ["--cache-dir", os.path.join(work, "mypy"), "--follow-imports=silent"]
            extensions = mypycify([*options, *files], group_name=GROUP,
                                  opt_level="3", target_dir=os.path.join(work, "c"))
            dist = Distribution({"name": "voicehost-native", "ext_modules": extensions})
            command = dist.get_command_obj("build_ext")
            command.build_lib = os.path.join(work, "new")
            command.build_temp = os.path.join(work, "objects")
            dist.run_command("build_ext")
        built = Path(work) / "new"
        (built / FINGERPRINT).write_text(made_from + "\n")
        if folder.exists():
            folder.rename(Path(work) / "old")  # removed with the rest of work
        built.rename(folder)


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
