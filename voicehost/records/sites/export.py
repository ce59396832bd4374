"""A tournament's games for the rating sites (``voicehost tournament export --format …``):

- ``mafiaratings``: one JSON line per game, each exactly what mafiaratings' ``create`` takes
  (the file ``tournament upload`` sends line by line);
- ``mafiaratings-json``: the same games with the standings, for people
  (``{"format", "tournament", "games", "standings", "left_out"}``);
- ``polemica``: ``{"format", "tournament", "games", "left_out"}``, each game in Polemica's shape.

Annulled and stopped games are left out (``left_out`` lists their ids): neither site has a
result for them. The tournament's site ids are checked first (:mod:`.settings`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from voicehost.i18n import _
from voicehost.records.sites import mafiaratings, polemica
from voicehost.records.sites.common import SiteGame, exportable, site_game
from voicehost.records.sites.settings import required_settings
from voicehost.records.tournament import (
    games_csv,
    load_tournament,
    played_games,
    schedule_json,
    standings,
    standings_csv,
    standings_html,
)
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.records.store import Records
    from voicehost.records.tournament import PlayedGame, Standings

FORMATS = ("mafiaratings", "mafiaratings-json", "polemica")


def site_games(games: Sequence[PlayedGame]) -> list[SiteGame]:
    """The exportable games, numbered in the tournament's order (by round, then table)."""
    return [site_game(game, number) for number, game in enumerate(exportable(games), start=1)]


def left_out(games: Sequence[PlayedGame]) -> list[str]:
    kept = {g.id for g in exportable(games)}
    return [str(g.id) for g in games if g.id not in kept]


def mafiaratings_games(records: Records, name: str, games: Sequence[PlayedGame]) -> list[dict[str, Any]]:
    settings = required_settings(records, name, mafiaratings.SITE)
    return [mafiaratings.export_game(game, settings) for game in site_games(games)]


def polemica_games(records: Records, name: str, games: Sequence[PlayedGame]) -> list[dict[str, Any]]:
    settings = required_settings(records, name, polemica.SITE)
    return [polemica.export_game(game, settings, name) for game in site_games(games)]


def export_site(records: Records, result: Standings, games: Sequence[PlayedGame], form: str) -> str:
    """The text of one of :data:`FORMATS`."""
    name = result.tournament.name
    if form == "mafiaratings":
        return "".join(json.dumps(game, ensure_ascii=False) + "\n" for game in mafiaratings_games(records, name, games))
    if form == "mafiaratings-json":
        bundle = {"format": "mafiaratings-games", "tournament": name,
                  "games": mafiaratings_games(records, name, games),
                  "standings": [row.as_dict() for row in result.rows], "left_out": left_out(games)}
    else:
        bundle = {"format": "polemica-games", "tournament": name, "games": polemica_games(records, name, games),
                  "left_out": left_out(games)}
    return json.dumps(bundle, ensure_ascii=False, indent=2) + "\n"
EXPORT_FORMATS = ("mafiaratings", "mafiaratings-json", "polemica", "json", "csv", "games-csv", "html")


def export_text(records: Records, name: str, form: str) -> str:
    """The tournament in one of :data:`EXPORT_FORMATS`: the rating sites' here, the club's own
    (JSON, CSV, the printable page) from :mod:`voicehost.records.tournament`, which imports no
    site module (so the records and the sites import each other in one direction only)."""
    tournament = load_tournament(records, name)
    games = played_games(records, name)
    result = standings(tournament, games)
    if form in ("mafiaratings", "mafiaratings-json", "polemica"):
        return export_site(records, result, games, form)
    if form == "json":
        data = {**result.as_dict(), "players": list(tournament.players), **schedule_json(tournament.schedule),
                "games": [{"id": str(g.id), **g.place.as_json(), "protocol": g.protocol} for g in games]}
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if form == "csv":
        return standings_csv(result)
    if form == "games-csv":
        return games_csv(games)
    if form == "html":
        return standings_html(result)
    raise InputError("--format", _("unknown format {form!r} (known: {known})").format(
        form=form, known=", ".join(EXPORT_FORMATS)))
