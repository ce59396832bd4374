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

from voicehost.i18n import _
from voicehost.language.record_words import record_word
from voicehost.rules import Refusal, Role


def refusal_text(refusal: Refusal) -> str:
    """The refusal's sentence in the language in use, its fields filled in."""
    return refusal.worded_in(_, _shown)


def _shown(name: str, value: object) -> object:
    """A role as its word; a seat list as «1, 2»; an unknown seat as «?»."""
    if isinstance(value, Role):
        return record_word(value)
    if isinstance(value, tuple):
        return ", ".join(str(item) for item in value)
    return "?" if value is None else value
