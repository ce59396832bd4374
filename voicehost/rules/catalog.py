"""Which rulesets there are: one line each in :data:`VARIANTS` (python-chess's ``VARIANTS`` and
``find_variant`` are the model).

A line names the ruleset (its TOML file under rules/), the module that plays it, its game class,
its options class (in :mod:`voicehost.rules.options`) and the timers its flow runs. Everything
else that lists rulesets reads this: the commands' ``--rules`` choices, ``rules show``, the
package's lazy names (:mod:`voicehost.rules`), the games' ``required_timers``, the compiled
engine's modules (:mod:`voicehost.native`).

Plain strings, nothing imported: listing the rulesets and loading one (``voicehost rules``,
every command's ``--rules`` check) must not import the games themselves, which cost more than
the interpreter's whole start (issue 30); :func:`options_class` loads only the options module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .options import Options


class Variant(NamedTuple):
    """One ruleset: what it is called and where its parts are."""

    name: str                   # its file: config/rules/NAME.toml
    module: str                 # voicehost.rules.MODULE holds its game class
    game: str                   # the game class's name
    options: str                # its options class's name in voicehost.rules.options
    timers: tuple[str, ...]     # the timers its flow runs: its TOML file must set every one


VARIANTS: tuple[Variant, ...] = (
    Variant("sport", "sport", "SportGame", "SportOptions",
            ("speech_s", "warning_s", "tie_speech_s", "short_speech_s", "silent_turn_s", "vote_window_s",
             "acquaintance_s")),
    Variant("club", "club", "ClubGame", "ClubOptions",
            ("intro_s", "speech_s", "warning_s", "extra_s", "defence_s", "testament_s", "mafia_agree_s",
             "raise_hand_s", "vote_window_s")),
    Variant("classic", "classic", "ClassicGame", "ClassicOptions",
            ("discussion_s", "speech_s", "defence_s", "blood_name_s", "warning_s", "vote_window_s")),
    Variant("canonical", "canonical", "CanonicalGame", "CanonicalOptions",
            ("discussion_s", "warning_s", "nominate_s", "vote_window_s")),
)


def find_variant(name: str) -> Variant:
    """The ruleset called ``name`` (KeyError if there is none: :func:`names` lists them)."""
    for variant in VARIANTS:
        if variant.name == name:
            return variant
    raise KeyError(name)


def names() -> list[str]:
    """The rulesets there are, sorted."""
    return sorted(variant.name for variant in VARIANTS)


def options_class(name: str) -> type[Options]:
    """The options class of the ruleset called ``name``."""
    found: type[Options] = getattr(importlib.import_module(f"{__package__}.options"), find_variant(name).options)
    return found
