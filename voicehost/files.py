"""Reading files from outside: the one gate every script, protocol, journal, ruleset,
phrasebook and table file passes before its contents are looked at.

The program is run by club owners on files they edit by hand, copy from USB sticks and
receive from each other; whatever those files hold must end in one line naming the file
and the place — never a traceback, never a hang. This module checks what is common to
every file: the name is a name, the file is a regular file (a FIFO or a directory would
block or crash a plain ``open``), it is not huge, it is UTF-8 (a BOM is fine), and the
JSON or TOML in it is neither nested absurdly deep nor holds numbers or characters no
reader could use. What the contents *mean* is checked by each loader, with key paths.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from voicehost.i18n import N_, toml_error
from voicehost.rules import InputError

MAX_BYTES = 4 * 1024 * 1024     # the largest file any loader reads (a long journal is ~100 kB)
MAX_DEPTH = 32                  # the deepest nesting of lists and tables any format uses is 5
MAX_DIGITS = 18                 # seat numbers, timers, seeds: anything longer is a typo or an attack
MAX_STRING = 10_000             # a name, a phrase, a speech
# The kinds of file (``what``) the loaders name in their errors: the command line translates them with the message.
KINDS = (N_("file"), N_("journal"), N_("player list"), N_("protocol"), N_("replay"), N_("schedule"),
         N_("script"), N_("number"), N_("ruleset"), N_("phrasebook"), N_("table file"))


class NoSuchFile(InputError):
    """A file that is not there: its own type, so that a caller that names the file better
    («no such journal») catches exactly this, not every unreadable file, and never by its words."""


def file_name(path: str | os.PathLike[str], what: str = "file") -> Path:
    """A path given by a user, refused in one line if it cannot name a file at all."""
    text = os.fspath(path)
    if "\x00" in text:
        raise InputError(repr(text), N_("not a file name (it holds a NUL character)"))
    if not is_text(text):
        raise InputError(ascii(text), N_("not a file name (it is not valid UTF-8)"))
    if len(os.fsencode(text)) > 4096 or any(len(part) > 255 for part in os.fsencode(text).split(b"/")):
        raise InputError(text[:60] + "…", N_("the {what} name is longer than the system allows"), {"what": what})
    return Path(text)


def is_text(text: str) -> bool:
    """No lone surrogates (what Python makes of bytes that are not UTF-8 in a file name or an argument)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_bytes(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them. Opened non-blocking, so a FIFO
    is refused instead of waiting forever for a writer."""
    path = file_name(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise NoSuchFile(str(path), N_("no such file (a {what} was expected)"), {"what": what}) from None
    except OSError as err:
        raise InputError(str(path), N_("cannot open it ({why})"), {"why": err.strerror or str(err)}) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = N_("a directory") if stat.S_ISDIR(info.st_mode) else N_("not a regular file")
            raise InputError(str(path), N_("is {kind}; a {what} is expected"), {"kind": kind, "what": what})
        if info.st_size > limit:
            raise InputError(str(path), N_("is {size:,} bytes; a {what} is at most {limit:,}"),
                             {"size": info.st_size, "what": what, "limit": limit})
        data = _read_all(fd, limit + 1)
    except OSError as err:
        raise InputError(str(path), N_("cannot read it ({why})"), {"why": err.strerror or str(err)}) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(str(path), N_("is over {limit:,} bytes; a {what} is at most {limit:,}"),
                         {"what": what, "limit": limit})
    return data


def _read_all(fd: int, most: int) -> bytes:
    """Up to ``most`` bytes of ``fd`` by plain reads (no buffered file object for a file read once)."""
    chunks: list[bytes] = []
    while most > 0:
        chunk = os.read(fd, most)
        if not chunk:
            break
        chunks.append(chunk)
        most -= len(chunk)
    return b"".join(chunks)


def decode(data: bytes, place: str) -> str:
    """UTF-8 (with or without a BOM), or one line saying where it is not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise InputError(f"{place}:{line}", N_("not UTF-8 text (byte 0x{byte:02x}); save it as UTF-8"),
                         {"byte": data[err.start]}) from None


def read_text(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_BYTES) -> str:
    return decode(read_bytes(path, what, limit), os.fspath(path))


def read_json(path: str | os.PathLike[str], what: str = "file") -> Any:
    """One JSON document, checked (see :func:`check_tree`)."""
    text = read_text(path, what)
    return loads_json(text, os.fspath(path))


def loads_json(text: str, place: str) -> Any:
    """One JSON document from ``text``, checked (see :func:`check_tree`). A text that plainly
    holds nothing the tree check refuses (:func:`_plain`: nearly every file, and thousands of
    them in one ``records import``) is not walked again: its numbers are checked as they are
    parsed; any other is parsed and walked as before, so what is refused, and how, is the same."""
    if _plain(text):
        try:
            return _parsed(text, place, _finite_float)
        except _Infinite:
            pass   # a float too large: the walk says where
    data = _parsed(text, place)
    check_tree(data, place)
    return data


def _parsed(text: str, place: str, parse_float: Callable[[str], float] | None = None) -> Any:
    """Parsed; ``parse_float``: the plain text's (its integers need no look: :func:`_plain`)."""
    try:
        if parse_float is not None:
            return json.loads(text, parse_float=parse_float, parse_constant=_no_constant)
        return json.loads(text, parse_int=_json_int, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise InputError(f"{place}:{err.lineno}:{err.colno}", N_("not valid JSON ({why})"), {"why": err.msg}) from None
    except _Refused as err:
        raise InputError(place, err.template, err.values) from None
    except RecursionError:
        raise InputError(place, N_("nested more than {depth} levels deep"), {"depth": MAX_DEPTH}) from None


def read_toml(path: str | os.PathLike[str], what: str = "file") -> dict[str, Any]:
    """One TOML document, checked (see :func:`check_tree`)."""
    import tomllib  # here: the commands that read no TOML skip its import

    text = read_text(path, what)
    place = os.fspath(path)
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise InputError(place, N_("nested more than {depth} levels deep"), {"depth": MAX_DEPTH}) from None
    except ValueError as err:  # a TOMLDecodeError, or an integer beyond Python's int-string limit
        raise _toml_error(place, err) from None
    check_tree(data, place)
    return data


def _toml_error(place: str, err: ValueError) -> InputError:
    """tomllib's error with its line and column apart; its reason (the parser's, in English) kept
    as a message that the command line says in the user's language (:func:`toml_error`)."""
    message = toml_error(str(err))
    return InputError(place, message.template, message.values)


class _Refused(ValueError):
    """A number JSON may write but no file of ours holds: an error template and its values."""

    def __init__(self, template: str, values: dict[str, object]) -> None:
        super().__init__(template.format(**values))
        self.template = template
        self.values = values


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(N_("a number of {count} digits ({start}…); numbers have at most {most}"),
                       {"count": len(text), "start": text[:12], "most": MAX_DIGITS})
    return int(text)


def _no_constant(name: str) -> float:
    raise _Refused(N_("{name} is not a number a file may hold"), {"name": name})


class _Infinite(ValueError):
    """A float that overflows to infinity in a text taken as plain: it is walked after all."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Infinite(text[:12])
    return value


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_DIGITS = bytes(ord("0") if chr(k) in "0123456789" else ord(" ") for k in range(256))   # each digit a 0, else a space
_LONG_NUMBER = b"0" * (MAX_DIGITS + 1)
_NOT_BRACKETS = bytes(k for k in range(256) if k not in b"[]{}")


def _plain(text: str) -> bool:
    """Whether the JSON ``text`` (if it parses) holds no integer, string, key or nesting that
    :func:`check_tree` refuses, seen from its UTF-8 bytes by C code: no lone surrogate (they do
    not encode) nor the escape of one; no escaped quote (so the pieces between quotes are the
    strings and keys as written: escapes only make one longer than it is); none longer than
    :data:`MAX_STRING`; outside them, no run of more than :data:`MAX_DIGITS` digits, and brackets
    that nest at most :data:`MAX_DEPTH` deep (innermost pairs removed once per level). Floats
    are checked as they are parsed (:func:`_finite_float`). False: the tree is walked."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    if b'\\"' in data or (b"\\u" in data and _SURROGATE_ESCAPE.search(data)):
        return False
    pieces = data.split(b'"')
    if len(pieces) > 1 and max(map(len, pieces[1::2])) > MAX_STRING:
        return False
    outside = b"".join(pieces[::2])
    if _LONG_NUMBER in outside.translate(_DIGITS):
        return False
    brackets = outside.translate(None, _NOT_BRACKETS)
    for _ in range(MAX_DEPTH):
        if not brackets:
            return True
        brackets = brackets.replace(b"[]", b"").replace(b"{}", b"")
    return not brackets


def check_tree(data: Any, place: str) -> None:
    """Depth, integer size, string length and lone surrogates (a JSON ``"\\ud800"``), with the key path.
    A quick pass first, which builds no key paths (a file that passes, nearly every one, costs a
    third of what the paths did: records import reads thousands); the paths only to say where."""
    if _passes(data):
        return
    for path, depth, value in _walk(data):
        where = f"{place}: {path}" if path else place
        if depth > MAX_DEPTH:
            raise InputError(where, N_("nested more than {depth} levels deep"), {"depth": MAX_DEPTH})
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** MAX_DIGITS:
            raise InputError(where, N_("the number {start}… is too large"), {"start": str(value)[:12]})
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(where, N_("not a finite number"))
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                raise InputError(where, N_("a text of {count:,} characters; at most {most:,}"),
                                 {"count": len(value), "most": MAX_STRING})
            if not is_text(value):
                raise InputError(where, N_("holds a lone surrogate escape (\\ud800…), not a character"))


def _passes(data: Any) -> bool:
    """Whether nothing in ``data`` breaks :func:`check_tree`'s rules (no paths, no messages):
    containers are walked, scalars checked where they are met."""
    if not _scalar_passes(data):
        return False
    stack: list[tuple[int, Any]] = [(0, data)] if type(data) in (dict, list) else []
    while stack:
        depth, value = stack.pop()
        if depth >= MAX_DEPTH:
            return False
        if type(value) is dict:
            if not all(type(key) is str and (key.isascii() or is_text(key)) for key in value):
                return False
            value = value.values()
        for item in value:
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((depth + 1, item))
            elif not _scalar_passes(item):
                return False
    return True


def _scalar_passes(value: Any) -> bool:
    kind = type(value)
    if kind is str:
        return len(value) <= MAX_STRING and (value.isascii() or is_text(value))
    if kind is int:
        return bool(abs(value) < _INT_LIMIT)
    if kind is float:
        return math.isfinite(value)
    return kind is bool or value is None or kind is dict or kind is list   # anything else: the full check


_INT_LIMIT = 10 ** MAX_DIGITS


def _walk(data: Any) -> Iterator[tuple[str, int, Any]]:
    """Every node with its key path and depth, iteratively (no recursion to overflow)."""
    stack: list[tuple[str, int, Any]] = [("", 0, data)]
    while stack:
        path, depth, value = stack.pop()
        yield path, depth, value
        if depth > MAX_DEPTH:
            continue
        if isinstance(value, dict):
            for key, item in value.items():
                if not is_text(str(key)):
                    raise InputError(path or "(top)", N_("a key holds a lone surrogate escape, not a character"))
                stack.append((f"{path}.{key}" if path else str(key), depth + 1, item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", depth + 1, item) for i, item in enumerate(value))


def ascii_number(text: str, place: str, what: str = "number", digits: int = 4) -> int:
    """A number typed or written as text: ASCII digits only (``"²"`` and ``"３"`` are digits to
    ``str.isdigit`` but not to a judge), and short."""
    if not (text.isascii() and text.isdigit()) or len(text) > digits:
        raise InputError(place, N_("{text} is not a {what}"), {"text": repr(text[:20]), "what": what})
    return int(text)
