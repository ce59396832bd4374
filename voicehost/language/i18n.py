"""What a person reads that is not the host's voice — the command line's output and errors, the
console's replies, the records' tables and charts, the wiring diagram — goes through gettext:
English message ids in the code, a Russian catalog in ``voicehost/locale`` (Babel extracts and
compiles it: ``tools/translations``). The host's spoken lines and the refusal sentences stay in
``config/phrases``, where a club edits them per ruleset.

Russian is the default, because the users are Russian-speaking clubs: English only when asked
for, by ``--lang en``, ``VOICEHOST_LANG=en`` or an English locale (``LANG=en_GB.UTF-8``). A
machine with no locale set (``C``, ``POSIX``, nothing: a fresh Pi, a systemd unit) speaks Russian.

Only the standard library's :mod:`gettext` is loaded at run time (compiled ``.mo`` files ship
in the package), so a command that prints one line pays no more than reading one small file.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from pathlib import Path

DOMAIN = "voicehost"
LOCALES = Path(__file__).resolve().parent.parent / "locale"
LANGUAGES = ("ru", "en")
DEFAULT = "ru"
_LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")   # gettext's own order

_chosen: str | None = None
_catalogs: dict[str, gettext.NullTranslations] = {}   # read once per language, when first used


def language_from(environ: Mapping[str, str]) -> str:
    """The language the environment asks for: ``VOICEHOST_LANG``, then the first locale
    variable set to a real locale; anything but English (or nothing) is Russian."""
    wanted = environ.get("VOICEHOST_LANG", "").strip().lower()
    if wanted in LANGUAGES:
        return wanted
    for variable in _LOCALE_VARIABLES:
        value = environ.get(variable, "").split(":")[0].strip()
        if value and value not in ("C", "POSIX") and not value.startswith("C."):
            return "en" if value.lower().startswith("en") else DEFAULT
    return DEFAULT


def set_language(language: str | None) -> None:
    """Choose the language for the rest of the process (``--lang``); None: from the environment."""
    global _chosen
    if language is not None and language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r} (one of {', '.join(LANGUAGES)})")
    _chosen = language


def language() -> str:
    """The language in use now."""
    return _chosen if _chosen is not None else language_from(os.environ)


def _translations() -> gettext.NullTranslations:
    """The catalog of the language in use now (the environment may change between two calls of
    ``main`` in one process: a test, a fuzzer), read once per language."""
    wanted = language()
    catalog = _catalogs.get(wanted)
    if catalog is None:
        catalog = _catalogs[wanted] = gettext.translation(DOMAIN, LOCALES, languages=[wanted], fallback=True)
    return catalog


def _(message: str) -> str:
    """``message`` (an English id) in the language in use."""
    return _translations().gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form for ``count`` (Russian has three: 1 игрок, 2 игрока, 5 игроков)."""
    return _translations().ngettext(singular, plural, count)


def said(template: str, values: Mapping[str, object] | None = None) -> str:
    """An error's English template (marked with ``N_`` where it was raised, below this layer:
    the rules, the file gate) in the language in use, filled with ``values``; a text value is
    translated too when the catalog holds it (the kind of file expected: a script, a ruleset)."""
    if not template:
        return template
    if values is None:
        return _(template)
    return _(template).format(**{key: _(value) if isinstance(value, str) and value else value
                                 for key, value in values.items()})


def N_(message: str) -> str:
    """Marks a module-level message for extraction; it is translated where it is used, with ``_``."""
    return message
