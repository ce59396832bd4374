"""What a person reads that is not the host's voice — the command line's output and errors, the
console's replies, the records' tables and charts, the wiring diagram — goes through gettext:
English message ids in the code, a Russian catalog in ``voicehost/locale`` (Babel extracts and
compiles it: ``tools/translations``). The host's spoken lines and the refusal sentences stay in
``config/phrases``, where a club edits them per ruleset.

Russian is the default, because the users are Russian-speaking clubs: English only when asked
for, by ``--lang en``, ``VOICEHOST_LANG=en`` or an English locale (``LANG=en_GB.UTF-8``). A
machine with no locale set (``C``, ``POSIX``, nothing: a fresh Pi, a systemd unit) speaks Russian.

The compiled ``.mo`` files ship in the package and are read as they are (:class:`Catalog`): each
message is looked up when it is asked for, by a binary search of the file's sorted ids, instead
of decoding all of them first as :mod:`gettext` does (a command that prints one line pays for
reading one file, not for a thousand messages; :mod:`gettext` loads only for a plural's formula).
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Callable, Mapping
from pathlib import Path

DOMAIN = "voicehost"
LOCALES = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("ru", "en")
DEFAULT = "ru"
_LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")   # gettext's own order

_chosen: str | None = None
_MO_MAGIC = 0x950412DE


class Catalog:
    """A compiled catalog (GNU ``.mo``), looked up one message at a time: the file's ids are
    sorted (Babel and msgfmt write them so; tests/test_records_startup.py checks every message
    against :mod:`gettext`'s reading), so a lookup is a binary search. No file: every message
    is its own translation (English)."""

    def __init__(self, path: Path | None) -> None:
        self._data = path.read_bytes() if path is not None and path.is_file() else b""
        self._order, self._count, self._ids, self._texts = "<", 0, 0, 0
        if len(self._data) >= 20:
            self._order = "<" if struct.unpack("<I", self._data[:4])[0] == _MO_MAGIC else ">"
            _revision, self._count, self._ids, self._texts = struct.unpack(self._order + "4I", self._data[4:20])
        self._found: dict[str, str] = {}
        self._plural: Callable[[int], int] | None = None

    def _lookup(self, key: bytes) -> bytes | None:
        data, order, low, high = self._data, self._order + "2I", 0, self._count
        while low < high:
            middle = (low + high) // 2
            length, offset = struct.unpack_from(order, data, self._ids + 8 * middle)
            probe = data[offset:offset + length]
            if probe < key:
                low = middle + 1
            elif probe > key:
                high = middle
            else:
                length, offset = struct.unpack_from(order, data, self._texts + 8 * middle)
                return data[offset:offset + length]
        return None

    def gettext(self, message: str) -> str:
        found = self._found.get(message)
        if found is None:
            text = self._lookup(message.encode("utf-8"))
            found = self._found[message] = text.decode("utf-8") if text is not None else message
        return found

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        text = self._lookup(f"{singular}\0{plural}".encode())
        if text is None:
            return singular if count == 1 else plural
        forms = text.decode("utf-8").split("\0")
        index = self._plural_of(count)
        return forms[index] if 0 <= index < len(forms) else (singular if count == 1 else plural)

    def _plural_of(self, count: int) -> int:
        """The form for ``count`` by the header's ``Plural-Forms`` (gettext's own reading of it)."""
        if self._plural is None:
            import gettext

            header = (self._lookup(b"") or b"").decode("utf-8")
            forms = next((line.split(":", 1)[1] for line in header.splitlines()
                          if line.lower().startswith("plural-forms:")), "")
            expression = next((part.split("=", 1)[1] for part in forms.split(";")
                               if part.strip().startswith("plural=")), "n != 1")
            self._plural = gettext.c2py(expression.strip())
        return self._plural(count)


def catalog_path(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


_catalogs: dict[str, Catalog] = {}   # read once per language, when first used


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


def _translations() -> Catalog:
    """The catalog of the language in use now (the environment may change between two calls of
    ``main`` in one process: a test, a fuzzer), read once per language."""
    wanted = language()
    catalog = _catalogs.get(wanted)
    if catalog is None:
        catalog = _catalogs[wanted] = Catalog(catalog_path(wanted))
    return catalog


def _(message: str) -> str:
    """``message`` (an English id) in the language in use."""
    return _translations().gettext(message)


def in_russian(message: str) -> str:
    """``message`` in Russian whatever the language in use: what a Russian judge may type (a
    card's name) is understood under ``--lang en`` too."""
    catalog = _catalogs.get("ru")
    if catalog is None:
        catalog = _catalogs["ru"] = Catalog(catalog_path("ru"))
    return catalog.gettext(message)


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
    return _(template).format(**{key: _said_value(value) for key, value in values.items()})


def say(text: str) -> str:
    """A text in the language in use: a message that keeps its template and values (a
    :class:`Message`, the rules' ``Phrase``) said with them, any other text translated when
    the catalog holds it, else as it is (a club's own words)."""
    return str(_said_value(text))


def _said_value(value: object) -> object:
    # A Message, or the rules' Phrase (voicehost.rules.input_error): the same shape, two classes,
    # since this leaf imports only the standard library and the rules import no i18n.
    template, values = getattr(value, "template", None), getattr(value, "values", None)
    if isinstance(value, str) and isinstance(template, str) and isinstance(values, dict):
        return said(template, values)
    return _(value) if isinstance(value, str) and value else value


def N_(message: str) -> str:
    """Marks a module-level message for extraction; it is translated where it is used, with ``_``."""
    return message


class Message(str):
    """A message in English, filled from its template (marked with ``N_``), that keeps the template
    and its values: as a value of another message (tomllib's reason inside «not valid TOML …»),
    :func:`said` says it in the language in use too."""

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, values: Mapping[str, object] | None = None) -> Message:
        message = super().__new__(cls, template.format(**values) if values is not None else template)
        message.template, message.values = template, dict(values or {})
        return message


# ---- tomllib's reasons ---------------------------------------------------------------------------------------
# What tomllib says of a broken file is English: every reason its parser gives (Python 3.11's
# tomllib/_parser.py, each ``suffixed_err``, and int()'s digit limit), as it spells them, with
# their variable parts as fields. A reason not listed here (a later Python's) is quoted as it came.
TOML_REASONS = (
    N_("Invalid statement"),
    N_("Expected newline or end of document after a statement"),
    N_("Found invalid character {char}"),
    N_("Cannot declare {key} twice"),
    N_("Cannot overwrite a value"),
    N_("Expected ']' at the end of a table declaration"),
    N_("Cannot mutate immutable namespace {key}"),
    N_("Expected ']]' at the end of an array declaration"),
    N_("Cannot redefine namespace {key}"),
    N_("Expected '=' after a key in a key/value pair"),
    N_("Invalid initial character for a key part"),
    N_("Unclosed array"),
    N_("Duplicate inline table key {key}"),
    N_("Unclosed inline table"),
    N_("Unescaped '\\' in a string"),
    N_("Invalid hex value"),
    N_("Escaped character is not a Unicode scalar value"),
    N_("Unterminated string"),
    N_("Illegal character {char}"),
    N_("Invalid date or datetime"),
    N_("Invalid value"),
    N_("Exceeds the limit ({limit} digits) for integer string conversion: value has {digits} digits; "
       "use sys.set_int_max_str_digits() to increase the limit"),
    N_("Expected {expected}"),   # last: the ones above that start so are not this one
)
_toml_patterns: list[tuple[re.Pattern[str], str]] = []


def toml_error(why: str) -> Message:
    """tomllib's error (``str(TOMLDecodeError)``, or int()'s ``ValueError``) as a message: where
    (line and column, or the end of the file) and why, said in the language in use by
    :func:`said` — the reason quoted as it came when it is none of :data:`TOML_REASONS`."""
    place = re.fullmatch(r"(?s)(.*) \(at (?:line (\d+), column (\d+)|(end of document))\)", why)
    reason, at = (place[1], place) if place is not None else (why.splitlines()[0] if why else why, None)
    known = _toml_reason(reason)
    values: dict[str, object] = {"why": known or reason}
    if at is None:
        return Message(N_("not valid TOML: {why}") if known else N_("not valid TOML ({why})"), values)
    if at[4]:
        return Message(N_("not valid TOML at the end of the file: {why}") if known
                       else N_("not valid TOML at the end of the file ({why})"), values)
    values |= {"line": int(at[2]), "column": int(at[3])}
    return Message(N_("not valid TOML at line {line}, column {column}: {why}") if known
                   else N_("not valid TOML at line {line}, column {column} ({why})"), values)


def _toml_reason(reason: str) -> Message | None:
    if not _toml_patterns:
        _toml_patterns.extend((re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+)", re.escape(template))), template)
                              for template in TOML_REASONS)
    for pattern, template in _toml_patterns:
        found = pattern.fullmatch(reason)
        if found is not None:
            return Message(template, {name: _toml_key(text) if name == "key" else text
                                      for name, text in found.groupdict().items()})
    return None


def _toml_key(text: str) -> str:
    """A key as tomllib shows it (a tuple of its parts, or one part's repr) as the file writes it: a.b."""
    import ast

    try:
        key = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    parts = key if isinstance(key, tuple) else (key,)
    return ".".join(parts) if all(isinstance(part, str) for part in parts) else text
