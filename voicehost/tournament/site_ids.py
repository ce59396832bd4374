"""A tournament's ids on the rating sites as the command line and the records take them: which
ids each site needs, their options, and the check of each value. Pure data and checks, apart
from the records (voicehost.records.sites.settings keeps them), so that building the command
line's parser imports no records.

Each key is set with ``voicehost tournament create|set NAME --mafiaratings-club N …``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from voicehost.i18n import N_, _
from voicehost.rules import InputError

SITES = ("mafiaratings", "polemica")
RULES_CODE = re.compile(r"[0-9]{13}")   # mafiaratings include/rules.php: RULE_OPTIONS_COUNT digits


@dataclass(frozen=True)
class Key:
    """One setting: its site, its name in the records, its command-line option, and whether an
    export needs it."""

    site: str
    name: str
    help: str
    required: bool = True
    kind: str = "id"   # id: a positive integer; rules: mafiaratings' rules code

    @property
    def option(self) -> str:
        return f"--{self.site}-{self.name.replace('_', '-')}"


KEYS = (
    Key("mafiaratings", "club", N_("the club's id on mafiaratings")),
    Key("mafiaratings", "event", N_("the event's id on mafiaratings")),
    Key("mafiaratings", "moderator", N_("the judge's user id on mafiaratings")),
    Key("mafiaratings", "rules", N_("the rules code on mafiaratings: 13 digits"), kind="rules"),
    Key("mafiaratings", "tournament", N_("the tournament's id on mafiaratings, if it has one"),
        required=False),
    Key("polemica", "master", N_("the judge's user id on Polemica")),
    Key("polemica", "scoring_type", N_("Polemica's scoring type, e.g. 1"), kind="count"),
    Key("polemica", "version", N_("Polemica's game format version, e.g. 4"), kind="count"),
)


def site_keys(site: str) -> tuple[Key, ...]:
    return tuple(key for key in KEYS if key.site == site)


def check_value(key: Key, value: object) -> int | str:
    """A setting as the site takes it: a positive id, a non-negative count, or a rules code."""
    text = str(value).strip()
    if key.kind == "rules":
        if not RULES_CODE.fullmatch(text):
            raise InputError(key.option, _("{value!r} is no rules code (13 digits)").format(value=text[:24]))
        return text
    if not (text.isascii() and text.isdigit()) or len(text) > 18 or (key.kind == "id" and int(text) == 0):
        raise InputError(key.option, _("{value!r} is not a number from {low} up").format(
            value=text[:24], low=1 if key.kind == "id" else 0))
    return int(text)


def given(options: Mapping[str, Any]) -> dict[str, dict[str, int | str]]:
    """The settings among parsed command-line options (``mafiaratings_club`` …), checked, by site."""
    found: dict[str, dict[str, int | str]] = {}
    for key in KEYS:
        value = options.get(f"{key.site}_{key.name}")
        if value is not None:
            found.setdefault(key.site, {})[key.name] = check_value(key, value)
    return found
