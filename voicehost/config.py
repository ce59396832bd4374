"""Reading the data in ``config/``: rulesets (and, later, phrases and tables).

The directory is ``$VOICEHOST_CONFIG`` when set, else the ``config/`` folder of this
checkout (the package is installed in editable mode by the setup command).
"""

from __future__ import annotations

import os
import tomllib
from functools import lru_cache
from pathlib import Path

from voicehost.rules import GAMES, InputError, Ruleset, ruleset_from_mapping


def config_dir() -> Path:
    override = os.environ.get("VOICEHOST_CONFIG")
    return Path(override) if override else Path(__file__).resolve().parent.parent / "config"


def read_toml(path: Path) -> dict[str, object]:
    """A TOML file as a dict; a syntax error becomes one line naming the file and line."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(str(path), f"not valid TOML ({err})") from None
    except OSError as err:
        raise InputError(str(path), err.strerror or str(err)) from None


def ruleset_names() -> list[str]:
    return sorted(GAMES)


@lru_cache(maxsize=None)
def load_ruleset(name: str) -> Ruleset:
    """The named ruleset from ``config/rules/NAME.toml``, validated."""
    if name not in GAMES:
        raise InputError("ruleset", f"unknown ruleset {name!r} (known: {', '.join(ruleset_names())})")
    path = config_dir() / "rules" / f"{name}.toml"
    ruleset = ruleset_from_mapping(name, read_toml(path), GAMES[name].required_timers, str(path))
    scoring = ruleset.options.get("scoring")
    for scheme in scoring.values if scoring else ():
        if scheme not in ruleset.scoring:
            raise InputError(f"{path}: scoring.{scheme}", "the scoring option names a scheme that is not defined")
    return ruleset
