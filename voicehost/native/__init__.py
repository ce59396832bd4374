"""The engine compiled to C by mypyc, used when it was built from exactly the sources here.

The rules core is pure, fully typed Python, which is what mypyc compiles: built as C extension
modules, the same code runs about twice as fast (``voicehost bench engine``). Everything built on
the engine wants that speed — the property tests, the hearing benchmark's thousands of games,
the records import, a club studying its rules by simulation — while the live table does not
need it. So the compiled build is optional and never stale:

- ``python -m voicehost.native build`` (:mod:`~voicehost.native.build`; ``setup.sh`` runs it)
  compiles :data:`MODULES` into a build named by :data:`FOLDER`, inside the environment (or
  where ``VOICEHOST_NATIVE_BUILD`` says), next to a fingerprint of the sources it was compiled from;
- importing ``voicehost`` calls :func:`install`, which loads those modules from the build only
  when the fingerprint still matches the sources beside it. Any edited source, a missing
  compiler or ``VOICEHOST_ENGINE=python`` all mean the plain Python modules, which behave the
  same (``tests/test_native.py`` plays the same games both ways).

The fingerprint covers every Python file of voicehost, audio and hw, not only the compiled
ones: mypyc builds the types of what they import (a parser's return type, a journal entry's
fields) into its checks, so a change there can break a build whose own modules are unchanged.

The records (inputs, events, requests) stay Python: mypyc keeps no field types at run time,
and the journal rebuilds records from them. Compiled objects have no ``__dict__``, cannot be
copied or pickled field by field, and check their arguments' types at run time; nothing in
voicehost does any of that to them.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Iterator, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

from voicehost.rules.catalog import VARIANTS

# The hot path of every game, compiled together (one shared library, the GROUP): the rules with
# every ruleset's game (its module from the rules catalog), the script player with its reader
# (script → protocol), and the script inventor built on the player.
MODULES = (
    "voicehost.rules.game", "voicehost.rules.flow", "voicehost.rules.ruleset", "voicehost.rules.roster",
    *(f"voicehost.rules.{variant.module}" for variant in VARIANTS), "voicehost.rules.protocol",
    "voicehost.simulation.script", "voicehost.simulation.engine_level", "voicehost.simulation.scriptgen",
)
# The modules' shared library, a top-level module (mypyc gives the modules in it file names
# as if it sat at the top of the tree): <build>/voicehost_engine__mypyc.<suffix>.
GROUP = "voicehost_engine"
BUILD_SWITCH = "VOICEHOST_NATIVE_BUILD"  # a build elsewhere (a benchmark's, a branch's): used, and built, there
# Where the build is: in the environment, unless VOICEHOST_NATIVE_BUILD names another (one environment
# shared by several checkouts keeps one build per checkout, and a benchmark can build a branch aside).
FOLDER = Path(os.environ.get(BUILD_SWITCH) or Path(sys.prefix) / "lib" / "voicehost-native")
FINGERPRINT = "fingerprint"
SOURCES_SEEN = "sources-seen"  # the sources' names, sizes and modification times at the build
SWITCH = "VOICEHOST_ENGINE"  # "python": leave the compiled build alone
SOURCES = Path(__file__).resolve().parents[2]  # the folder that holds the voicehost package
PACKAGES = ("voicehost", "audio", "hw")  # what the fingerprint covers
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def fingerprint(sources: Path = SOURCES) -> str:
    """What a build must have been made from: every Python file of :data:`PACKAGES` (the
    compiled modules, what they import, this module and the build recipe) and the
    interpreter's extension ABI. About 10 ms here (:func:`sources_seen` spares it)."""
    import hashlib  # here: a command that never loads the engine skips it

    digest = hashlib.sha256(SUFFIX.encode())
    for name, _size, _modified in _sources(sources):
        digest.update(name.encode() + b"\0" + (sources / name).read_bytes() + b"\0")
    return digest.hexdigest()


def sources_seen(sources: Path = SOURCES) -> str:
    """The names, sizes and modification times of the files :func:`fingerprint` reads, hashed.

    Reading and hashing every source costs about 10 ms of each command that loads the engine
    (``voicehost rules`` among them), a third of a bare interpreter's start; their directory
    entries cost under 2 ms. While they are as the build saw them, the sources are the build's
    (as for make and git: an edit that keeps a file's size and time is not seen); when they
    are not (an edit, or a checkout that rewrote the same files), the content decides."""
    import hashlib

    digest = hashlib.sha256(SUFFIX.encode())
    for name, size, modified in _sources(sources):
        digest.update(f"{name}\0{size}\0{modified}\0".encode())
    return digest.hexdigest()


def _sources(sources: Path) -> list[tuple[str, int, int]]:
    """The files both :func:`fingerprint` and :func:`sources_seen` cover, one list so the two can
    never disagree on which (a file only the content hash read would go unseen): every Python
    file of :data:`PACKAGES` with its size and time, in the order of their paths."""
    return sorted((entry for package in PACKAGES for entry in _python_files(sources, package)),
                  key=lambda entry: entry[0].split("/"))   # as paths sort: folder by folder


def _python_files(sources: Path, folder: str) -> Iterator[tuple[str, int, int]]:
    with os.scandir(sources / folder) as entries:
        for entry in entries:
            name = f"{folder}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    yield from _python_files(sources, name)
            elif entry.name.endswith(".py"):
                seen = entry.stat()
                yield name, seen.st_size, seen.st_mtime_ns


# What a build serves: each compiled module, and the shared library their shims import.
LOADED = (*MODULES, f"{GROUP}__mypyc")


def library_file(build: Path, name: str) -> Path:
    """Where in ``build`` the module ``name`` is (a.b.c → a/b/c.<suffix>)."""
    *package, module = name.split(".")
    return build.joinpath(*package, module + SUFFIX)


def library_files(build: Path) -> list[Path]:
    """The files a build must hold: one for each of :data:`LOADED`."""
    return [library_file(build, name) for name in LOADED]


def state(folder: Path = FOLDER, sources: Path = SOURCES) -> str:
    """Which engine ``import voicehost`` gives, in words: "compiled", or why it is plain Python."""
    if os.environ.get(SWITCH) == "python":
        return f"plain Python ({SWITCH}=python)"
    built = built_from(folder)
    if built is None:
        return "plain Python (not compiled: run ./setup.sh, or python -m voicehost.native build)"
    if not _seen_as_built(folder, sources) and built != fingerprint(sources):
        return "plain Python (the compiled build is older than the sources: run ./setup.sh)"
    return "compiled"


def built_from(folder: Path = FOLDER) -> str | None:
    """The fingerprint of the sources the build in ``folder`` was made from (None: no build)."""
    try:
        return (folder / FINGERPRINT).read_text().strip()
    except OSError:
        return None


def _seen_as_built(folder: Path, sources: Path) -> bool:
    try:
        return (folder / SOURCES_SEEN).read_text().strip() == sources_seen(sources)
    except OSError:
        return False   # a build without it (made before it existed): the content decides


class CompiledModules:
    """An import finder that serves :data:`LOADED` from a build."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.names = frozenset(LOADED)

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name not in self.names:
            return None
        file = str(library_file(self.folder, name))
        import importlib.util

        loader = importlib.machinery.ExtensionFileLoader(name, file)
        return importlib.util.spec_from_file_location(name, file, loader=loader)


def install(folder: Path = FOLDER, sources: Path = SOURCES) -> bool:
    """Put the compiled modules ahead of the Python ones, if the build is current and whole.

    ``folder`` is a link to the build it names (:func:`~voicehost.native.build.build` swaps
    it in one step); the build it names now is the one this process keeps loading from.
    Whatever is wrong with it (unreadable, half deleted), ``import voicehost`` still works."""
    try:
        build = folder.resolve()
        if state(build, sources) != "compiled" or not all(path.is_file() for path in library_files(build)):
            return False
    except OSError:
        return False
    if not any(isinstance(finder, CompiledModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, CompiledModules(build))
    return True


class DeferredInstall:
    """An import finder that runs :func:`install` at the first import of an engine module.

    Checking the build means reading the sources' directory entries (:func:`sources_seen`,
    under 2 ms, and hashlib's import; hashing every source when they changed): a command that
    never loads the engine (``voicehost parse``, ``--help``) does not pay for it. It steps aside
    once it has run, whatever it found."""

    def __init__(self, folder: Path = FOLDER, sources: Path = SOURCES) -> None:
        self.folder, self.sources = folder, sources
        self.names = frozenset(LOADED)

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name not in self.names:
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:  # another thread's import got here first
            pass
        compiled = next((finder for finder in sys.meta_path if isinstance(finder, CompiledModules)), None)
        if compiled is None and install(self.folder, self.sources):
            compiled = next(finder for finder in sys.meta_path if isinstance(finder, CompiledModules))
        return compiled.find_spec(name, path, target) if compiled is not None else None


def install_when_needed(folder: Path = FOLDER, sources: Path = SOURCES) -> None:
    """:func:`install`, at the first import of an engine module (see :class:`DeferredInstall`)."""
    if os.environ.get(SWITCH) == "python":
        return
    if not any(isinstance(finder, (CompiledModules, DeferredInstall)) for finder in sys.meta_path):
        sys.meta_path.insert(0, DeferredInstall(folder, sources))


def running() -> str:
    """What this process runs, in words: "compiled", or why it is plain Python."""
    return "compiled" if active() else state()


def active() -> bool:
    """Whether the engine this process imported is the compiled one."""
    module = sys.modules.get(MODULES[0])
    spec = getattr(module, "__spec__", None)
    return spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)
