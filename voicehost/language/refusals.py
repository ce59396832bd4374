"""A refusal in the judge's language: the one renderer the terminal, the web and the log use.

Each :class:`~voicehost.rules.Refusal` kind has one sentence, its ``english`` template (marked with
``N_`` beside the kind), its fields as placeholders; its Russian is in the gettext catalog
(``voicehost/locale``), like every other line a club reads, so ``--lang en`` reads it in English
and one tool (``tools/translations``) checks that none is left untranslated. A field that is a
code (what the game waits for, why a nomination was not taken) is worded by a template of its
own (the kind's ``worded``); a role by its record word
(:func:`~voicehost.language.record_words.record_word`). Numbers stay digits: this is read, not said.
"""

from __future__ import annotations

from collections.abc import Callable

from voicehost.i18n import _, in_russian
from voicehost.language.record_words import record_word
from voicehost.rules import Refusal, Role


def refusal_text(refusal: Refusal, translate: Callable[[str], str] = _) -> str:
    """The refusal's sentence in the language in use (``translate``: gettext's ``_``), its
    fields filled in."""
    return refusal.worded_in(translate, lambda name, value: _shown(value, translate))


def spoken_refusal(refusal: Refusal) -> str:
    """The refusal's sentence in Russian whatever is read under ``--lang``: the voice (the
    judge's earpiece) speaks only Russian lines, so an English reason would be read out by a
    Russian voice inside «Отказано: …»."""
    return refusal_text(refusal, in_russian)


def _shown(value: object, translate: Callable[[str], str]) -> object:
    """A role as its word; a seat list as «1, 2»; an unknown seat as «?»."""
    if isinstance(value, Role):
        return record_word(value, translate)
    if isinstance(value, tuple):
        return ", ".join(str(item) for item in value)
    return "?" if value is None else value
