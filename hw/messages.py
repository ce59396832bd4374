"""The messages hw says to a person (a pin map's mistakes, the wiring diagram), in the program's
language: English ids, translated by voicehost's catalog (``voicehost.i18n``) when voicehost
is the program running. hw never imports voicehost (an adapter): it looks whether it is loaded."""

from __future__ import annotations

import sys


def _(message: str) -> str:
    """``message`` in the language in use, or as it is when hw runs on its own."""
    i18n = sys.modules.get("voicehost.i18n")
    return message if i18n is None else str(i18n._(message))


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form for ``count`` in the language in use (Russian has three), or English's two."""
    i18n = sys.modules.get("voicehost.i18n")
    if i18n is None:
        return singular if count == 1 else plural
    return str(i18n.ngettext(singular, plural, count))


def N_(message: str) -> str:
    """Marks a module-level message for extraction; it is translated where it is used, with ``_``."""
    return message


def toml_error(err: ValueError) -> str:
    """tomllib's error (a pin map that is not TOML), its line, column and reason in the language in
    use when voicehost runs (voicehost's ``toml_error`` knows tomllib's reasons), else as it came."""
    i18n = sys.modules.get("voicehost.i18n")
    if i18n is None:
        return _("not valid TOML ({err})").format(err=err)
    message = i18n.toml_error(str(err))
    return str(i18n.said(message.template, message.values))
