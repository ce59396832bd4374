"""The error for bad data from outside, in a module of its own: every command reports it, and
importing it must not cost the refusal kinds of :mod:`~voicehost.rules.errors` (each a
dataclass, together most of a bare interpreter's start; issue 30)."""

from __future__ import annotations


class InputError(ValueError):
    """Data from outside (a script, a config, an argument) that can never be valid.

    ``place`` says where it sits, e.g. ``days[1].votes.11`` or
    ``config/rules/sport.toml: options.nomination``, so the user can fix it
    without reading a traceback.
    """

    def __init__(self, place: str, message: str) -> None:
        super().__init__(f"{place}: {message}" if place else message)
        self.place = place
        self.message = message
