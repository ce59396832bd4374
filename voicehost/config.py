"""Where voicehost finds its data files and where it keeps what it writes.

The data (rulesets, phrases, tables, the lexicon …) is looked up file by file in layers, the
first that has the file wins:

1. ``$VOICEHOST_CONFIG`` — a folder given for this run (tests, a second table on one machine);
2. the user's config folder (``$XDG_CONFIG_HOME/voicehost``, ``~/.config/voicehost`` by default);
3. ``/etc/voicehost`` — the machine's, where ``voicehost service install`` points a club;
4. the defaults shipped inside the package (``voicehost/defaults/config``, found next to this
   module, so a wheel installed anywhere finds them: pip installs packages unzipped).

So a club's folder holds only what it changes — its own table file, a reworded phrase file —
and everything else comes from the layers below. What voicehost writes (journals, protocols)
goes to the platform's data folder and the TTS cache to its cache folder, never to the
current directory unless a command is given a path: ``$VOICEHOST_DATA`` and
``$VOICEHOST_CACHE`` override them (the systemd unit sets them to /var/lib and /var/cache).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.files import read_toml as read_checked_toml
from voicehost.i18n import N_
from voicehost.rules import InputError, catalog

if TYPE_CHECKING:  # a command that reads no ruleset does not pay for the rules core (issue 30)
    from voicehost.rules import Ruleset

APP = "voicehost"
PACKAGE = Path(__file__).parent  # the voicehost package's folder
SYSTEM_CONFIG = Path("/etc/voicehost")
# The folders of the layers a club may fill; each one mirrors the packaged config/ folder.
CONFIG_FOLDERS = ("rules", "phrases", "tables", "lexicon")


def packaged_config() -> Path:
    """The defaults shipped in the package (a real folder: pip installs packages unzipped, so
    the package's own folder is what importlib.resources would give, without its import)."""
    return PACKAGE / "defaults" / "config"


def packaged_examples() -> Path:
    """The sample table scripts shipped in the package."""
    return PACKAGE / "defaults" / "examples"


def user_config_dir() -> Path:
    """The user's own layer: ``~/.config/voicehost`` on Linux."""
    return _user_folder("XDG_CONFIG_HOME", "~/.config", "user_config_path")


def _user_folder(variable: str, default: str, elsewhere: str) -> Path:
    """voicehost's folder of one kind in the user's home: on Linux the XDG base directories, as
    platformdirs gives them there (the variable when set, else the default), without its 3 ms
    import in every command that reads a file; elsewhere platformdirs' ``elsewhere`` function."""
    if sys.platform.startswith("linux"):
        base = os.environ.get(variable, "")
        return Path(base if base.strip() else os.path.expanduser(default)) / APP
    import platformdirs

    folder: Path = getattr(platformdirs, elsewhere)(APP)
    return folder


def config_layers() -> list[Path]:
    """The folders a data file is looked for in, first wins (see the module's docstring)."""
    layers = []
    override = os.environ.get("VOICEHOST_CONFIG")
    if override:
        layers.append(Path(override))
    layers += [user_config_dir(), SYSTEM_CONFIG, packaged_config()]
    return layers


def config_file(relative: str | Path) -> Path:
    """The first layer's copy of ``relative`` (e.g. ``rules/sport.toml``); the packaged path
    when no layer has it, so the error names where the default should have been."""
    for layer in config_layers():
        candidate = layer / relative
        if candidate.is_file():
            return candidate
    return packaged_config() / relative


def config_files(folder: str, suffix: str = ".toml") -> Iterator[Path]:
    """Every file of ``folder`` across the layers, each name once (the first layer's copy)."""
    seen: set[str] = set()
    for layer in config_layers():
        for path in sorted((layer / folder).glob(f"*{suffix}")) if (layer / folder).is_dir() else ():
            if path.name not in seen:
                seen.add(path.name)
                yield path


def config_dir() -> Path:
    """The top layer's folder (``$VOICEHOST_CONFIG`` or the packaged defaults): kept for
    callers that name a whole folder; single files should use :func:`config_file`."""
    override = os.environ.get("VOICEHOST_CONFIG")
    return Path(override) if override else packaged_config()


def data_dir() -> Path:
    """Journals and protocols: ``$VOICEHOST_DATA``, else the platform's user data folder."""
    override = os.environ.get("VOICEHOST_DATA")
    return Path(override) if override else _user_folder("XDG_DATA_HOME", "~/.local/share", "user_data_path")


def journals_dir() -> Path:
    path = data_dir() / "journals"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """The TTS cache: ``$VOICEHOST_CACHE``, else the platform's user cache folder."""
    override = os.environ.get("VOICEHOST_CACHE")
    return Path(override) if override else _user_folder("XDG_CACHE_HOME", "~/.cache", "user_cache_path")


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file as a dict, through the one gate for outside files (:mod:`voicehost.files`):
    a syntax error, a FIFO, bad UTF-8 or absurd nesting becomes one line naming the file."""
    return read_checked_toml(path)


def ruleset_names() -> list[str]:
    """The rulesets there are, without importing their games (a command's choices, --help)."""
    return catalog.names()


@lru_cache(maxsize=None)
def load_ruleset(name: str) -> Ruleset:
    """The named ruleset from ``rules/NAME.toml`` of the first layer that has it, validated."""
    if name not in catalog.names():
        raise InputError("ruleset", N_("unknown ruleset {name} (known: {known})"),
                         {"name": repr(name), "known": ", ".join(ruleset_names())})
    return ruleset_from_file(name, config_file(f"rules/{name}.toml"))


def ruleset_from_file(name: str, path: Path) -> Ruleset:
    from voicehost.rules import ruleset_from_mapping

    ruleset = ruleset_from_mapping(name, read_toml(path), str(path))
    _same_options_as_bundled(ruleset, path)
    scoring = ruleset.options.get("scoring")  # the file's spec: the schemes its club offers
    for scheme in scoring.values if scoring else ():
        if scheme not in ruleset.scoring:
            raise InputError(f"{path}: scoring.{scheme}", N_("the scoring option names a scheme that is not defined"))
    return ruleset


def _same_options_as_bundled(ruleset: Ruleset, path: Path) -> None:
    """A club's own ruleset file may change any default, but the game's code asks for every
    option the bundled file defines, and a timer that runs a turn needs time: refused here,
    not mid-game."""
    from voicehost.rules import ruleset_from_mapping

    bundled = packaged_config() / "rules" / path.name
    if not bundled.is_file() or bundled.resolve() == path.resolve():
        return
    reference = ruleset_from_mapping(ruleset.name, read_toml(bundled), str(bundled))
    for name in reference.options:
        if name not in ruleset.options:
            raise InputError(f"{path}: options.{name}", N_("the option is missing ({ruleset} needs it)"),
                               {"ruleset": ruleset.name})
    for name, seconds in reference.timers.items():
        if seconds > 0 and ruleset.timers.get(name, 1) < 1:
            raise InputError(f"{path}: timers.{name}",
                             N_("must be at least 1 second (a turn of no time cannot be run)"))
