"""``voicehost records import --from mafiaratings|polemica FILE``: the sites' game records stored
as protocols.

A file holds one game (a JSON object in the site's shape), a list of them, an object with a
``games`` list (mafiaratings' ``api/get/games.php`` answer, voicehost's bundles), or one game a
line (``tournament export --format mafiaratings``). Each game becomes a sport protocol
(:mod:`.mafiaratings`, :mod:`.polemica_import`) that passes every check a native protocol gets
(:func:`voicehost.records.games.record_from_protocol`); the first game that does not is one line
naming the file and the game, and nothing of the file is stored.

The same game is not stored twice, whichever side it came from: a game is the one already stored
when it started at the same second with the same deal (each seat's card) and the same winner.
(A game's id is made from its facts, among them why it ended, which neither site keeps.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.i18n import _
from voicehost.records.sites import mafiaratings, polemica_import
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.records.games import GameRecord
    from voicehost.records.store import Records

READERS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "mafiaratings": mafiaratings.protocol_from_game, "polemica": polemica_import.protocol_from_game}


@dataclass(frozen=True)
class ImportReport:
    read: int
    stored: int
    known: int   # already in the records (from voicehost or either site)


def site_games(path: Path) -> list[Any]:
    """The games a file holds, in any of the shapes the module's docstring lists."""
    from voicehost.files import loads_json, read_text

    text = read_text(path, "file")
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and all(line.lstrip().startswith("{") and line.rstrip().endswith("}") for line in lines):
        return [loads_json(line, f"{path}:{k}") for k, line in enumerate(lines, start=1)]
    data = loads_json(text, str(path))
    if isinstance(data, Mapping) and isinstance(data.get("games"), list):
        return list(data["games"])
    return data if isinstance(data, list) else [data]


def site_records(site: str, path: Path) -> list[GameRecord]:
    """Every game of the file as a checked record; the first bad one refuses the file."""
    from voicehost.records.games import record_from_protocol
    from voicehost.records.sites.schema import iso_time

    read = READERS[site]
    found = []
    for k, game in enumerate(site_games(path)):
        place = f"{path}: game {k + 1}"
        if not isinstance(game, Mapping):
            raise InputError(place, _("not a game of {site} (not a JSON object)").format(site=site))
        try:
            protocol = read(game)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise InputError(place, _("not a game of {site} ({err})").format(site=site, err=str(err)[:120])) from None
        started = iso_time(protocol["started"].replace("Z", ""))
        assert started is not None   # the reader wrote it
        record = record_from_protocol(protocol, path.name, started, None, place)
        found.append(_scored(record))
    return found


def _scored(record: GameRecord) -> GameRecord:
    """The record with its seats' points under the sport ruleset's default scheme (as the host
    writes ``scores``), so the ratings count an imported game as a native one."""
    import dataclasses

    from voicehost.config import load_ruleset
    from voicehost.records.games import record_from_protocol
    from voicehost.records.ratings import scores_by_scheme

    scheme = str(load_ruleset(record.ruleset).resolve(record.options).get("scoring", "seed001"))
    points = scores_by_scheme(record.ruleset, record.winner, record.seats, record.protocol).get(scheme, {})
    protocol = {**record.protocol, "scores": points}
    return dataclasses.replace(record_from_protocol(protocol, "site", record.played_at), table=record.table)


def import_site(records: Records, site: str, paths: Sequence[Path]) -> ImportReport:
    """Read every file first (all checked before anything is stored), then store the new games."""
    found = [record for path in paths for record in site_records(site, path)]
    fresh = [record for record in found if not stored_already(records, record)]
    unique = list({_fingerprint(r): r for r in fresh}.values())
    stored = records.add(unique)
    return ImportReport(len(found), stored, len(found) - stored)


def _fingerprint(record: GameRecord) -> tuple[Any, ...]:
    return (record.played_at.replace(microsecond=0), tuple(s.role for s in record.seats), record.winner)


def stored_already(records: Records, record: GameRecord) -> bool:
    """The same game is in the records: see the module's docstring."""
    import sqlalchemy as sa

    from voicehost.records.schema import game_seats, games

    query = sa.select(games.c.id, games.c.winner).where(games.c.played_at == record.played_at.replace(microsecond=0))
    with records.engine.connect() as connection:
        for game, winner in connection.execute(query).all():
            seats = connection.execute(sa.select(game_seats.c.role).where(game_seats.c.game_id == game)
                                       .order_by(game_seats.c.seat)).scalars().all()
            if tuple(seats) == tuple(s.role for s in record.seats) and winner == record.winner:
                return True
    return False

