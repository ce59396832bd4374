"""A tournament's ids on the rating sites, kept in the records (table ``tournament_sites``,
migration 0005) and checked before any export or upload: a game the site cannot
file under its club, event and moderator is a game it refuses (mafiaratings' ``Game::create``
stores nothing without an event).

Each key is set with ``voicehost tournament create|set NAME --mafiaratings-club N …``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from voicehost.language.i18n import N_, _
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.records.store import Records

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


def store_settings(records: Records, tournament: str, settings: Mapping[str, Mapping[str, int | str]]) -> None:
    """Add (or replace) settings of an existing tournament; the others stay."""
    import sqlalchemy as sa

    from voicehost.records.schema import tournament_sites

    current = load_settings(records, tournament)
    with records.engine.begin() as connection:
        tid = _tournament_id(connection, tournament)
        for site, values in settings.items():
            merged = {**current.get(site, {}), **values}
            connection.execute(sa.delete(tournament_sites).where(tournament_sites.c.tournament_id == tid,
                                                                  tournament_sites.c.site == site))
            connection.execute(tournament_sites.insert().values(tournament_id=tid, site=site, settings=merged))


def load_settings(records: Records, tournament: str) -> dict[str, dict[str, Any]]:
    import sqlalchemy as sa

    from voicehost.records.schema import tournament_sites

    with records.engine.connect() as connection:
        tid = _tournament_id(connection, tournament)
        rows = connection.execute(sa.select(tournament_sites.c.site, tournament_sites.c.settings)
                                  .where(tournament_sites.c.tournament_id == tid)).all()
    return {site: dict(values) for site, values in rows}


def _tournament_id(connection: Any, name: str) -> int:
    import sqlalchemy as sa

    from voicehost.records.schema import tournaments

    tid = connection.execute(sa.select(tournaments.c.id).where(tournaments.c.name == name)).scalar()
    if tid is None:
        raise InputError(name, _("no such tournament"))
    return int(tid)


def required_settings(records: Records, tournament: str, site: str) -> dict[str, Any]:
    """The tournament's settings for ``site``, every required one present; else one line that
    names the missing options and the command that sets them."""
    values = load_settings(records, tournament).get(site, {})
    missing = [key.option for key in site_keys(site) if key.required and key.name not in values]
    if missing:
        raise InputError(tournament, _("the {site} export needs {missing}: voicehost tournament set {name!r} "
                                       "{missing} …").format(site=site, missing=" ".join(missing), name=tournament))
    return values
