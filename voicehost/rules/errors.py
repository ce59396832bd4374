"""Errors the rules core raises. Both carry enough to print one clear line."""

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


class IllegalInput(Exception):
    """An input the game is not asking for now (a vote during a speech, anything after the end).

    The game is left exactly as it was; the caller decides whether that is a bug or a
    human's mistake to report.
    """
