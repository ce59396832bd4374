"""A refusal in the judge's Russian: the one renderer the terminal, the web and the log use.

Each :class:`~voicehost.rules.Refusal` kind has its sentence in ``config/phrases/ru.toml``
``[refusals]`` under its kind (``seat_not_at_table = "Игрок {seat} уже не за столом."``), with the
kind's fields as placeholders, so a club rewords it in one place; its English sentence is the
kind's ``english`` (``str(refusal)``), said under ``--lang en``. A few fields are codes, not
words; they are worded by a line of their own before they are filled in (:data:`WORDED`; a
role by its record word, :func:`~voicehost.language.record_words.record_word`).
Numbers stay digits: this is read, not said.
"""

from __future__ import annotations

from voicehost.i18n import language
from voicehost.language.phrasebook import Phrasebook
from voicehost.language.record_words import record_word
from voicehost.rules import Refusal

# A field whose value is a code → (section, key prefix) of the line that words it.
WORDED: dict[str, tuple[str, str]] = {
    "waiting": ("refusals", "waiting_"),       # NotNow: what the game waits for
    "reason": ("refusals", "nomination_"),     # NominationNotTaken: why the game would not take it
}


def refusal_text(refusal: Refusal, book: Phrasebook) -> str:
    """The refusal's sentence in the language in use, its fields filled in."""
    if language() == "en":
        return str(refusal)
    fields = refusal.fields()
    plain = {name: record_word(value) if name == "role" else _plain(value)
             for name, value in fields.items() if name not in WORDED}
    values = dict(plain)
    for name, value in fields.items():
        if name in WORDED:
            section, prefix = WORDED[name]
            values[name] = book.line(section, f"{prefix}{value}", **plain)
    return book.line("refusals", refusal.kind(), **values)


def _plain(value: object) -> object:
    """A seat list as «1, 2»; an unknown seat as «?»."""
    if isinstance(value, tuple):
        return ", ".join(str(item) for item in value)
    return "?" if value is None else value
