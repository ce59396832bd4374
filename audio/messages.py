"""The messages audio says to a person (a model folder it cannot use, a sound device it cannot
open), in the program's language: English ids, translated by voicehost's catalog
(``voicehost.i18n``) when voicehost is the program running, as hw's are (hw/messages.py).
audio never imports voicehost (an adapter): it looks whether it is loaded."""

from __future__ import annotations

import sys


def _(message: str) -> str:
    """``message`` in the language in use, or as it is when audio runs on its own."""
    i18n = sys.modules.get("voicehost.i18n")
    return message if i18n is None else str(i18n._(message))


def N_(message: str) -> str:
    """Marks a module-level message for extraction; it is translated where it is used, with ``_``."""
    return message
