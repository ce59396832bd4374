"""A tournament in the club records: its players, its schedule (round → table → seat → player),
its scoring scheme and its tie-breaks; the games its tables push, each tagged with its place
(``"tournament": {"name", "round", "table"}`` in the protocol, from the journal's header); and
the standings, worked out from the stored protocols alone.

- One game per place: a second, different game at a round and table already played is refused
  (:class:`PlaceTaken`, one line) and nothing stored changes. The same game pushed again is no
  second game (its id is the game's own, :func:`voicehost.records.games.game_id`).
- Points are the ratings' (:func:`voicehost.records.ratings.scores_by_scheme`) under the
  tournament's scheme, so whatever that function adds (best move, bonus and penalty points)
  reaches the standings by itself. The tie-breaks are an ordered list of :data:`TIE_BREAKS`.
- Exports: the standings as CSV, a printable HTML page, and the games as mafiaratings'
  game JSON or Polemica's (see docs/records.md for the sources and how each field is filled).

The schedule file (``voicehost tournament create --schedule FILE``) is JSON::

    {"players": ["Анна", …],            # optional: the schedule's names are added anyway
     "rounds": [{"round": 1, "tables": [{"table": 1, "seats": {"1": "Анна", "2": "Борис", …}}]}]}

``seats`` may also be a list of names (seat 1 first) or of ``{"seat": 1, "player": "Анна"}``;
``round`` and ``table`` default to their position (1, 2, …). The planner's
``voicehost tournament plan --json`` writes this shape.
"""

from __future__ import annotations

import csv
import html
import io
import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.language.i18n import _, language, ngettext
from voicehost.rules import InputError, Role

if TYPE_CHECKING:
    from voicehost.records.games import GameRecord, SeatRecord
    from voicehost.records.store import Records

NAME_LIMIT = 80
MAX_NUMBER = 999   # rounds, tables and seats

Schedule = dict[int, dict[int, dict[int, str]]]   # round → table → seat → player


# ---- a game's place in a tournament -------------------------------------------------------

@dataclass(frozen=True)
class TournamentPlace:
    name: str
    round: int
    table: int

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "round": self.round, "table": self.table}

    def __str__(self) -> str:
        return _("tournament {name!r} round {round} table {table}").format(name=self.name, round=self.round,
                                                                            table=self.table)


def check_name(value: object, place: str) -> str:
    """A tournament's or a player's name: text of 1 to 80 characters."""
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > NAME_LIMIT:
        raise InputError(place, _("must be a name (text, 1 to {limit} characters)").format(limit=NAME_LIMIT))
    if not value.strip().isprintable():      # a control character, or a bidi override that reverses the screen
        raise InputError(place, _("the name holds a control or direction character"))
    return value.strip()


def check_number(value: object, place: str) -> int:
    """A round, table or seat number (1 … 999); digits as text are taken too (a JSON key)."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 3:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_NUMBER:
        raise InputError(place, _("{value!r} is not a number from 1 to {top}").format(value=str(value)[:24],
                                                                                     top=MAX_NUMBER))
    return value


def place_of(protocol: Mapping[str, Any], where: str = "tournament") -> TournamentPlace | None:
    """The protocol's ``tournament`` (None: a game outside any tournament); a malformed one is refused."""
    tag = protocol.get("tournament")
    if tag is None:
        return None
    if not isinstance(tag, Mapping):
        raise InputError(where, _("must be an object (name, round, table)"))
    return TournamentPlace(check_name(tag.get("name"), f"{where}.name"), check_number(tag.get("round"),
                           f"{where}.round"), check_number(tag.get("table"), f"{where}.table"))


class PlaceTaken(InputError):
    """A second game at a tournament's round and table: refused, whatever was stored stays."""

    def __init__(self, at: TournamentPlace, stored: uuid.UUID, refused: uuid.UUID) -> None:
        super().__init__(str(at), _("already has game {stored}; game {refused} is not stored (one game per "
                                    "round and table; nothing recorded changed)").format(stored=str(stored)[:8],
                                                                                        refused=str(refused)[:8]))
        self.at = at


# ---- the tournament -----------------------------------------------------------------------

@dataclass(frozen=True)
class TieBreak:
    """One criterion of the standings: a figure of a player's row, bigger first (or smaller)."""

    key: str
    smaller_first: bool = False


TIE_BREAKS: dict[str, TieBreak] = {key: TieBreak(key, key == "fouls") for key in (
    "points", "bonus", "wins", "best_player", "sheriff_games", "sheriff_wins", "don_wins", "red_wins",
    "black_wins", "fouls")}
DEFAULT_TIE_BREAKS = ("points", "bonus", "wins", "sheriff_games")


def parse_tie_breaks(text: str | Sequence[str], place: str = "--tie-breaks") -> tuple[str, ...]:
    """``points,bonus,wins,…`` → the order; each known, none twice."""
    keys = [key.strip() for key in text.split(",")] if isinstance(text, str) else [str(key) for key in text]
    keys = [key for key in keys if key]
    if not keys:
        raise InputError(place, _("name at least one tie-break (known: {known})").format(known=", ".join(TIE_BREAKS)))
    for key in keys:
        if key not in TIE_BREAKS:
            raise InputError(place, _("unknown tie-break {key!r} (known: {known})").format(
                key=key[:24], known=", ".join(TIE_BREAKS)))
    if len(set(keys)) != len(keys):
        raise InputError(place, _("a tie-break is named twice"))
    return tuple(keys)


@dataclass(frozen=True)
class Tournament:
    name: str
    scoring: str
    tie_breaks: tuple[str, ...] = DEFAULT_TIE_BREAKS
    players: tuple[str, ...] = ()
    schedule: Schedule = field(default_factory=dict)
    created_at: datetime | None = None

    def scheduled(self, round_no: int, table: int) -> dict[int, str] | None:
        return self.schedule.get(round_no, {}).get(table)


def new_tournament(name: str, scoring: str, tie_breaks: Sequence[str] = DEFAULT_TIE_BREAKS,
                   schedule: Schedule | None = None, players: Iterable[str] = ()) -> Tournament:
    """A tournament checked whole: its name, a scheme the rulesets define, its tie-breaks, and
    its players (the list given, then everyone the schedule seats)."""
    from voicehost.records.ratings import check_scoring

    check_scoring(scoring)
    roster = list(dict.fromkeys(check_name(p, "players") for p in players))
    schedule = schedule or {}
    for tables in schedule.values():
        for seats in tables.values():
            roster.extend(n for n in seats.values() if n not in roster)
    return Tournament(check_name(name, "NAME"), scoring, parse_tie_breaks(tie_breaks), tuple(roster), schedule)


def read_schedule(path: Path) -> tuple[Schedule, list[str]]:
    """A schedule file (see the module's docstring): the schedule and its ``players`` list."""
    from voicehost.files import read_json

    data = read_json(path, "schedule")
    return parse_schedule(data, str(path)), _players(data, str(path))


def _players(data: Any, place: str) -> list[str]:
    listed = data.get("players", []) if isinstance(data, Mapping) else []
    if not isinstance(listed, list):
        raise InputError(f"{place}: players", _("must be a list of names"))
    return [check_name(name, f"{place}: players[{k}]") for k, name in enumerate(listed)]


def parse_schedule(data: Any, place: str = "schedule") -> Schedule:
    """The schedule as round → table → seat → player; nobody twice in one round. ``tournament
    plan --json`` writes its rounds under ``schedule`` (beside its balance figures): read as is."""
    planned = isinstance(data, Mapping) and isinstance(data.get("schedule"), list) and not isinstance(
        data.get("rounds"), list)   # the planner's "rounds" is their count
    key = "schedule" if planned else "rounds"
    rounds = data.get(key) if isinstance(data, Mapping) else data
    if not isinstance(rounds, list):
        raise InputError(f"{place}: {key}", _("must be a list of rounds"))
    schedule: Schedule = {}
    for k, entry in enumerate(rounds):
        where = f"{place}: {key}[{k}]"
        if not isinstance(entry, Mapping):
            raise InputError(where, _("must be an object (round, tables)"))
        number = check_number(entry.get("round", k + 1), f"{where}.round")
        if number in schedule:
            raise InputError(f"{where}.round", _("round {number} is listed twice").format(number=number))
        schedule[number] = _tables(entry.get("tables"), f"{where}.tables")
    return schedule


def _tables(raw: Any, place: str) -> dict[int, dict[int, str]]:
    if not isinstance(raw, list):
        raise InputError(place, _("must be a list of tables"))
    tables: dict[int, dict[int, str]] = {}
    seated: dict[str, str] = {}
    for k, entry in enumerate(raw):
        where = f"{place}[{k}]"
        if not isinstance(entry, Mapping):
            raise InputError(where, _("must be an object (table, seats)"))
        number = check_number(entry.get("table", k + 1), f"{where}.table")
        if number in tables:
            raise InputError(f"{where}.table", _("table {number} is listed twice").format(number=number))
        tables[number] = _seats(entry.get("seats"), f"{where}.seats")
        for seat, name in tables[number].items():
            if name.casefold() in seated:
                raise InputError(f"{where}.seats.{seat}", _("{name!r} already plays this round at {other}").format(
                    name=name, other=seated[name.casefold()]))
            seated[name.casefold()] = f"{where}.seats.{seat}"
    return tables


def _seats(raw: Any, place: str) -> dict[int, str]:
    pairs: list[tuple[object, object]]
    if isinstance(raw, Mapping):
        pairs = list(raw.items())
    elif isinstance(raw, list) and all(isinstance(item, Mapping) for item in raw):
        pairs = [(item.get("seat"), item.get("player", item.get("name"))) for item in raw]
    elif isinstance(raw, list):
        pairs = [(k, name) for k, name in enumerate(raw, start=1)]
    else:
        raise InputError(place, _("must be an object of seat: player (or a list of names)"))
    seats = {check_number(seat, f"{place}.{seat}"): check_name(name, f"{place}.{seat}") for seat, name in pairs}
    if len(seats) != len(pairs) or not seats:
        raise InputError(place, _("every seat once, at least one"))
    return dict(sorted(seats.items()))


def schedule_json(schedule: Schedule) -> dict[str, Any]:
    """The schedule in the file's shape (what ``read_schedule`` reads back)."""
    return {"rounds": [{"round": r, "tables": [{"table": t, "seats": {str(s): n for s, n in seats.items()}}
                                               for t, seats in tables.items()]}
                       for r, tables in sorted(schedule.items())]}


# ---- in the database ------------------------------------------------------------------------

def create_tournament(records: Records, tournament: Tournament) -> None:
    """Store a new tournament; a name already used is refused."""
    import sqlalchemy as sa

    from voicehost.records.schema import tournament_players, tournament_seats, tournaments

    with records.engine.begin() as connection:
        taken = connection.execute(sa.select(tournaments.c.id).where(tournaments.c.name == tournament.name)).first()
        if taken is not None:
            raise InputError(tournament.name, _("a tournament of this name exists already"))
        created = datetime.now(timezone.utc).replace(tzinfo=None)
        tid = connection.execute(tournaments.insert().values(
            name=tournament.name, scoring=tournament.scoring, tie_breaks=list(tournament.tie_breaks),
            created_at=created).returning(tournaments.c.id)).scalar_one()
        if tournament.players:
            connection.execute(tournament_players.insert(), [{"tournament_id": tid, "position": k, "nickname": n}
                                                             for k, n in enumerate(tournament.players, start=1)])
        seats = [{"tournament_id": tid, "round_no": r, "table_no": t, "seat": s, "nickname": n}
                 for r, tables in tournament.schedule.items() for t, row in tables.items() for s, n in row.items()]
        if seats:
            connection.execute(tournament_seats.insert(), seats)


def load_tournament(records: Records, name: str) -> Tournament:
    import sqlalchemy as sa

    from voicehost.records.schema import tournament_players, tournament_seats, tournaments

    with records.engine.connect() as connection:
        row = connection.execute(sa.select(tournaments).where(tournaments.c.name == name)).mappings().first()
        if row is None:
            known = ", ".join(repr(n) for n in connection.execute(sa.select(tournaments.c.name)
                                                                  .order_by(tournaments.c.name)).scalars())
            raise InputError(name, _("no such tournament (known: {known})").format(known=known or "-"))
        players = connection.execute(sa.select(tournament_players.c.nickname)
                                     .where(tournament_players.c.tournament_id == row["id"])
                                     .order_by(tournament_players.c.position)).scalars().all()
        schedule: Schedule = {}
        for r, t, s, n in connection.execute(sa.select(tournament_seats.c.round_no, tournament_seats.c.table_no,
                                                       tournament_seats.c.seat, tournament_seats.c.nickname)
                                             .where(tournament_seats.c.tournament_id == row["id"])
                                             .order_by(tournament_seats.c.round_no, tournament_seats.c.table_no,
                                                       tournament_seats.c.seat)):
            schedule.setdefault(r, {}).setdefault(t, {})[s] = n
    return Tournament(row["name"], row["scoring"], tuple(row["tie_breaks"]), tuple(players), schedule,
                      row["created_at"])


def tournament_names(records: Records) -> list[str]:
    import sqlalchemy as sa

    from voicehost.records.schema import tournaments

    with records.engine.connect() as connection:
        return list(connection.execute(sa.select(tournaments.c.name).order_by(tournaments.c.created_at)).scalars())


@dataclass(frozen=True)
class PlayedGame:
    """A tournament's stored game: its place, its protocol, and the best-player vote stored
    beside it (the vote may come after the protocol: ``voicehost records best``)."""

    id: uuid.UUID
    place: TournamentPlace
    protocol: dict[str, Any]
    best_player: int | None = None


def played_games(records: Records, name: str) -> list[PlayedGame]:
    """The tournament's games as stored, by round and table."""
    import sqlalchemy as sa

    from voicehost.records.schema import game_seats, games

    query = (sa.select(games.c.id, games.c.round_no, games.c.table_no, games.c.protocol)
             .where(games.c.tournament == name).order_by(games.c.round_no, games.c.table_no))
    voted = sa.select(game_seats.c.game_id, game_seats.c.seat).where(game_seats.c.best_player)
    with records.engine.connect() as connection:
        rows = connection.execute(query).all()
        votes = {uuid.UUID(str(g)): s for g, s in connection.execute(voted.where(game_seats.c.game_id.in_(
            [row.id for row in rows])))} if rows else {}
    found = []
    for row in rows:
        protocol = json.loads(row.protocol) if isinstance(row.protocol, str) else dict(row.protocol)
        game = uuid.UUID(str(row.id))
        found.append(PlayedGame(game, TournamentPlace(name, row.round_no, row.table_no), protocol, votes.get(game)))
    return found


# ---- the standings -----------------------------------------------------------------------------

@dataclass
class Standing:
    player: str
    place: int = 0
    games: int = 0
    points: float = 0.0
    bonus: float = 0.0
    wins: int = 0
    best_player: int = 0
    sheriff_games: int = 0
    sheriff_wins: int = 0
    don_wins: int = 0
    red_wins: int = 0
    black_wins: int = 0
    fouls: int = 0
    by_round: dict[int, float] = field(default_factory=dict)

    def figure(self, key: str) -> float:
        value = float(getattr(self, key))
        return value if TIE_BREAKS[key].smaller_first else -value

    def as_dict(self) -> dict[str, Any]:
        return {"place": self.place, "player": self.player, "games": self.games, "points": round(self.points, 2),
                "bonus": round(self.bonus, 2), "wins": self.wins, "best_player": self.best_player,
                "sheriff_games": self.sheriff_games, "sheriff_wins": self.sheriff_wins, "don_wins": self.don_wins,
                "red_wins": self.red_wins, "black_wins": self.black_wins, "fouls": self.fouls,
                "by_round": {str(r): round(p, 2) for r, p in sorted(self.by_round.items())}}


@dataclass
class Standings:
    tournament: Tournament
    rows: list[Standing]
    games: int
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"tournament": self.tournament.name, "scoring": self.tournament.scoring,
                "tie_breaks": list(self.tournament.tie_breaks), "games": self.games,
                "standings": [row.as_dict() for row in self.rows], "warnings": self.warnings}


def game_seats(game: PlayedGame) -> list[SeatRecord]:
    """The game's seats from its protocol (checked again, as an import checks it); the stored
    best-player vote counts where the protocol has none."""
    import dataclasses

    from voicehost.records.games import record_from_protocol

    protocol = game.protocol
    if protocol.get("best_player") is None and game.best_player is not None:
        protocol = {**protocol, "best_player": game.best_player}
    record: GameRecord = record_from_protocol(protocol, "stored", datetime(2000, 1, 1), place=str(game.place))
    return [seat if seat.player else dataclasses.replace(seat, player=f"#{seat.seat}") for seat in record.seats]


def bonus_points(protocol: Mapping[str, Any], seat: int) -> float:
    """The judge's bonus (or, negative, penalty) points of a seat: the protocol's
    ``judge_points`` (``bonus N P`` / ``penalty N P`` at the console), where the game has them.
    Its total points already hold them (and the best move's, and a forfeit's), under the
    tournament's scheme; this is the ``bonus`` tie-break and what the rating sites list apart."""
    from voicehost.records.ratings import tournament_extras

    return tournament_extras(seat, None, False, None, protocol.get("judge_points"))[2]


def standings(tournament: Tournament, games: Iterable[PlayedGame]) -> Standings:
    """The standings from the games' protocols alone: each seat's points under the tournament's
    scheme, summed per player, ordered by the tie-breaks; players tied on all share a place.
    A game whose seats differ from the schedule counts as played, with a warning."""
    from voicehost.records.ratings import scores_by_scheme

    rows = {name: Standing(name) for name in tournament.players}
    warnings: list[str] = []
    count = 0
    for game in games:
        count += 1
        seats = game_seats(game)
        winner = game.protocol.get("winner")
        ruleset = str(game.protocol.get("ruleset"))
        scheme = scores_by_scheme(ruleset, winner, seats, game.protocol).get(tournament.scoring)
        if scheme is None:
            warnings.append(_("{at}: the {ruleset} ruleset has no scheme {scheme}: no points").format(
                at=game.place, ruleset=ruleset, scheme=tournament.scoring))
        warnings.extend(_schedule_warnings(tournament, game.place, seats))
        for seat in seats:
            row = rows.setdefault(str(seat.player), Standing(str(seat.player)))
            points = (scheme or {}).get(str(seat.seat), 0.0)
            _add(row, seat, points, bonus_points(game.protocol, seat.seat), game.place.round)
    ordered = sorted(rows.values(), key=lambda r: (_key(r, tournament.tie_breaks), r.player.casefold()))
    for k, row in enumerate(ordered):
        tied = k > 0 and _key(ordered[k - 1], tournament.tie_breaks) == _key(row, tournament.tie_breaks)
        row.place = ordered[k - 1].place if tied else k + 1
    return Standings(tournament, ordered, count, warnings)


def _key(row: Standing, tie_breaks: Sequence[str]) -> tuple[float, ...]:
    return tuple(round(row.figure(key), 6) for key in tie_breaks)


def _add(row: Standing, seat: SeatRecord, points: float, bonus: float, round_no: int) -> None:
    row.games += 1
    row.points += points
    row.bonus += bonus
    row.wins += seat.won
    row.best_player += seat.best_player
    row.fouls += seat.fouls
    row.sheriff_games += seat.role == Role.SHERIFF.value
    row.sheriff_wins += seat.role == Role.SHERIFF.value and seat.won
    row.don_wins += seat.role == Role.DON.value and seat.won
    row.red_wins += seat.team == "red" and seat.won
    row.black_wins += seat.team == "black" and seat.won
    row.by_round[round_no] = row.by_round.get(round_no, 0.0) + points


def _schedule_warnings(tournament: Tournament, at: TournamentPlace, seats: Sequence[SeatRecord]) -> list[str]:
    if not tournament.schedule:
        return []
    planned = tournament.scheduled(at.round, at.table)
    if planned is None:
        return [_("{at}: not in the schedule").format(at=at)]
    return [_("{at} seat {seat}: the schedule seats {planned}, the game had {played}").format(
        at=at, seat=seat.seat, planned=planned.get(seat.seat, "-"), played=seat.player)
        for seat in seats if planned.get(seat.seat) != seat.player]


def tournament_standings(records: Records, name: str) -> Standings:
    return standings(load_tournament(records, name), played_games(records, name))


# ---- printing and export -------------------------------------------------------------------------

COLUMNS = ("place", "player", "games", "points", "bonus", "wins", "best_player", "sheriff_games", "fouls")


def column_titles() -> dict[str, str]:
    """The standings' headings (Russian by default, through the catalog)."""
    return {"place": _("Place"), "player": _("Player"), "games": _("Games"), "points": _("Points"),
            "bonus": _("Bonus"), "wins": _("Wins"), "best_player": _("Best player"),
            "sheriff_games": _("As sheriff"), "fouls": _("Fouls")}


def standings_lines(result: Standings) -> list[str]:
    """The standings as a terminal table."""
    titles = column_titles()
    width = max([len(titles["player"]), *(len(row.player) for row in result.rows)])
    widths = {key: max(5, len(titles[key])) for key in COLUMNS}
    head = (f"{titles['place']:>{widths['place']}}  {titles['player']:<{width}}  " + "  ".join(
        f"{titles[key]:>{widths[key]}}" for key in COLUMNS[2:]))
    lines = [head]
    for row in result.rows:
        data = row.as_dict()
        lines.append(f"{row.place:>{widths['place']}}  {row.player:<{width}}  " + "  ".join(
            f"{_shown(data[key]):>{widths[key]}}" for key in COLUMNS[2:]))
    lines.append(ngettext("{games} game; tie-breaks: {order}", "{games} games; tie-breaks: {order}",
                          result.games).format(games=result.games, order=", ".join(result.tournament.tie_breaks)))
    lines.extend(_("warning: {line}").format(line=line) for line in result.warnings)
    return lines


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def standings_csv(result: Standings) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(COLUMNS)
    for row in result.rows:
        data = row.as_dict()
        writer.writerow([data[key] for key in COLUMNS])
    return buffer.getvalue()


PRINT_CSS = """
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 2em; color: #000; }
h1 { font-size: 1.6em; margin: 0 0 .2em; }
p.meta { margin: 0 0 1em; color: #333; }
table { border-collapse: collapse; width: 100%; font-size: 1.05em; }
th, td { border: 1px solid #444; padding: .3em .5em; text-align: right; }
th { background: #e8e8e8; }
td.player, th.player { text-align: left; }
tr:nth-child(even) td { background: #f6f6f6; }
@media print {
  @page { size: A4 portrait; margin: 12mm; }
  body { margin: 0; font-size: 11pt; }
  thead { display: table-header-group; }
  tr { page-break-inside: avoid; }
  tr:nth-child(even) td { background: none; }
  .warnings { display: none; }
}
"""


def standings_html(result: Standings) -> str:
    """A page to print: the standings table with its headings in the club's language."""
    titles = column_titles()
    esc = html.escape
    head = "".join(f'<th class="{key}">{esc(titles[key])}</th>' for key in COLUMNS)
    body = "\n".join("<tr>" + "".join(f'<td class="{key}">{esc(_shown(row.as_dict()[key]))}</td>' for key in COLUMNS)
                     + "</tr>" for row in result.rows)
    t = result.tournament
    meta = ngettext("{games} game; scoring {scheme}; tie-breaks: {order}",
                    "{games} games; scoring {scheme}; tie-breaks: {order}", result.games).format(
        games=result.games, scheme=t.scoring, order=", ".join(t.tie_breaks))
    warnings = "".join(f"<li>{esc(line)}</li>" for line in result.warnings)
    title = esc(_("Standings"))   # not inside the f-string: Babel extracts no call from one
    return (f'<!DOCTYPE html>\n<html lang="{esc(language())}">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{title}: {esc(t.name)}</title>\n<style>{PRINT_CSS}</style>\n</head>\n<body>\n"
            f"<h1>{title}: {esc(t.name)}</h1>\n<p class=\"meta\">{esc(meta)}</p>\n"
            f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>\n"
            + (f'<ul class="warnings">{warnings}</ul>\n' if warnings else "") + "</body>\n</html>\n")


MAFIARATINGS_ROLES = {"citizen": "civ", "mafia": "maf", "sheriff": "sheriff", "don": "don"}
MAFIARATINGS_WINNERS = {"red": "civ", "black": "maf", "nobody": "tie"}
POLEMICA_ROLES = {"don": 0, "mafia": 1, "citizen": 2, "sheriff": 3}
POLEMICA_RESULTS = {"red": 0, "black": 1}


def export_mafiaratings(result: Standings, games: Sequence[PlayedGame]) -> dict[str, Any]:
    """The games in the shape of mafiaratings' game records (``/api/get/games.php``): rounds
    counted from 0 (night 0 is the mafia's arrangement, day 0 the first day), roles
    civ/maf/sheriff/don, winner civ/maf/tie; plus the tournament's standings."""
    exported: list[dict[str, Any]] = []
    for number, game in enumerate(games, start=1):
        protocol = game.protocol
        seats = game_seats(game)
        players = []
        for seat in seats:
            entry: dict[str, Any] = {"name": seat.player, "role": _mr_role(seat)}
            death = _mr_death(seat)
            if death is not None:
                entry["death"] = death
            if seat.fouls:
                entry["warnings"] = seat.fouls
            bonus: list[Any] = (["bestPlayer"] if seat.best_player else [])
            extra = bonus_points(protocol, seat.seat)
            if extra:
                bonus.append(extra)
            if bonus:
                entry["bonus"] = bonus[0] if len(bonus) == 1 else bonus
            players.append(entry)
        exported.append({"id": number, "voicehostId": str(game.id), "tournament": result.tournament.name,
                         "round": game.place.round, "table": game.place.table,
                         "startTime": protocol.get("started"), "language": "ru",
                         "winner": MAFIARATINGS_WINNERS.get(str(protocol.get("winner")), "tie"),
                         "features": "dutw", "players": players})
    return {"format": "mafiaratings-games", "tournament": result.tournament.name, "games": exported,
            "standings": [row.as_dict() for row in result.rows]}


def _mr_role(seat: SeatRecord) -> str:
    return MAFIARATINGS_ROLES.get(seat.role, "maf" if seat.team == "black" else "civ")


def _mr_death(seat: SeatRecord) -> dict[str, Any] | None:
    """voicehost's night 1 and day 1 are mafiaratings' round 0."""
    if seat.out_cause is None:
        return None
    moment = seat.out_day if seat.out_day is not None else seat.out_night
    kind = {"voted": "day", "killed": "night"}.get(seat.out_cause, "warnings" if seat.fouls >= 4 else "kickOut")
    return {"round": (moment or 1) - 1, "type": kind}


def export_polemica(result: Standings, games: Sequence[PlayedGame]) -> dict[str, Any]:
    """The games in the shape Polemica's game JSON has (as its API gives it, read by the
    third-party polemica-library): ``num``, ``table``, ``started``, ``players`` with
    ``position``, ``username``, ``role`` (0 don, 1 mafia, 2 citizen, 3 sheriff) and one
    ``fouls`` entry per foul, ``result`` (0 red, 1 black), ``bonuses``."""
    exported: list[dict[str, Any]] = []
    for number, game in enumerate(games, start=1):
        protocol = game.protocol
        seats = game_seats(game)
        bonuses = [{"position": s.seat, "text": "best_player", "scores": 0.0, "basic": False}
                   for s in seats if s.best_player]
        bonuses += [{"position": s.seat, "text": "bonus", "scores": bonus_points(protocol, s.seat), "basic": False}
                    for s in seats if bonus_points(protocol, s.seat)]
        exported.append({
            "num": number, "table": game.place.table, "phase": game.place.round,
            "started": (protocol.get("started") or "").removesuffix("Z") or None,
            "players": [{"position": s.seat, "username": s.player,
                         "role": POLEMICA_ROLES.get(s.role, 1 if s.team == "black" else 2),
                         "fouls": [{} for _k in range(s.fouls)], "techs": [],
                         **({"disqual": {"type": "removed"}} if s.out_cause == "removed" else {})} for s in seats],
            "result": POLEMICA_RESULTS.get(str(protocol.get("winner"))), "bonuses": bonuses,
            "voicehostId": str(game.id)})
    return {"format": "polemica-games", "tournament": result.tournament.name, "games": exported}


def games_csv(games: Sequence[PlayedGame]) -> str:
    """Every seat of every game, one row each: round, table, seat, player, role, result."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["round", "table", "game_id", "started", "winner", "seat", "player", "role", "team", "won",
                     "alive", "fouls", "out_cause", "best_player", "bonus"])
    for game in games:
        for s in game_seats(game):
            writer.writerow([game.place.round, game.place.table, game.id, game.protocol.get("started", ""),
                             game.protocol.get("winner"), s.seat, s.player, s.role, s.team, int(s.won), int(s.alive),
                             s.fouls, s.out_cause or "", int(s.best_player), bonus_points(game.protocol, s.seat)])
    return buffer.getvalue()


EXPORT_FORMATS = ("mafiaratings", "polemica", "json", "csv", "games-csv", "html")


def export_text(records: Records, name: str, form: str) -> str:
    """The tournament in one of :data:`EXPORT_FORMATS`."""
    tournament = load_tournament(records, name)
    games = played_games(records, name)
    result = standings(tournament, games)
    if form == "mafiaratings":
        return json.dumps(export_mafiaratings(result, games), ensure_ascii=False, indent=2) + "\n"
    if form == "polemica":
        return json.dumps(export_polemica(result, games), ensure_ascii=False, indent=2) + "\n"
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
