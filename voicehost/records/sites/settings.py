"""A tournament's ids on the rating sites, kept in the records (table ``tournament_sites``,
migration 0005) and checked before any export or upload: a game the site cannot
file under its club, event and moderator is a game it refuses (mafiaratings' ``Game::create``
stores nothing without an event).

Each key is set with ``voicehost tournament create|set NAME --mafiaratings-club N …``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from voicehost.i18n import _
from voicehost.rules import InputError
from voicehost.tournament.site_ids import site_keys

if TYPE_CHECKING:
    from voicehost.records.store import Records

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
