"""The error for bad data from outside, in a module of its own: every command reports it, and
importing it must not cost the refusal kinds of :mod:`~voicehost.rules.errors` (each a
dataclass, together most of a bare interpreter's start; issue 30)."""

from __future__ import annotations

from collections.abc import Sequence


def N_(message: str) -> str:
    """Marks a message template for the catalog (tools/translations extracts ``N_``); the rules
    stay pure, so the command line translates it where it prints the error (``InputError.template``)."""
    return message


class Phrase(str):
    """A part of an error's message (a value of its template) in English, filled from its own
    template (marked with ``N_``) and keeping it and its values, so that the edge says it in the
    user's language too (``voicehost.i18n.said`` says any value that carries a
    ``template`` and ``values``, as its own ``Message``): «1 sheriff, 2 mafia» in a refused deal."""

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, values: dict[str, object] | None = None) -> Phrase:
        phrase = super().__new__(cls, template.format(**values) if values is not None else template)
        phrase.template, phrase.values = template, dict(values or {})
        return phrase

    @classmethod
    def listed(cls, phrases: Sequence[Phrase]) -> Phrase:
        """The phrases one after another, with commas (the template is punctuation only)."""
        return cls(", ".join(f"{{p{at}}}" for at in range(len(phrases))),
                   {f"p{at}": phrase for at, phrase in enumerate(phrases)})


class InputError(ValueError):
    """Data from outside (a script, a config, an argument) that can never be valid.

    ``place`` says where it sits, e.g. ``days[1].votes.11`` or
    ``config/rules/sport.toml: options.nomination``, so the user can fix it
    without reading a traceback.

    ``message`` is English. Raised with ``values``, it is a template (marked with ``N_``) filled
    with them; ``template`` and ``values`` stay on the error, so that the edge that prints it
    (the command line) can say it in the user's language: ``_(template).format(**values)``.
    """

    def __init__(self, place: str, message: str, values: dict[str, object] | None = None) -> None:
        text = message.format(**values) if values is not None else message
        super().__init__(f"{place}: {text}" if place else text)
        self.place = place
        self.message = text
        self.template = message
        self.values: dict[str, object] = {} if values is None else values
        self.filled = values is not None

    def moved_to(self, place: str) -> InputError:
        """The same error said of another place (a file's name put before a key), its template kept."""
        return InputError(place, self.template, self.values if self.filled else None)
