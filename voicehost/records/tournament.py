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
- Exports: the standings as CSV and a printable HTML page; the rating sites' formats are
  :mod:`voicehost.records.sites`' (see docs/records.md for the sources and each field).

The schedule file (``voicehost tournament create --schedule FILE``) is JSON::

    {"players": ["Анна", …],            # optional: the schedule's names are added anyway
     "rounds": [{"round": 1, "tables": [{"table": 1, "seats": {"1": "Анна", "2": "Борис", …}}]}]}

``seats`` may also be a list of names (seat 1 first) or of ``{"seat": 1, "player": "Анна"}``;
``round`` and ``table`` default to their position (1, 2, …). The planner's
``voicehost tournament plan --json`` writes this shape.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.i18n import _, language, ngettext
from voicehost.records.places import MAX_NUMBER as MAX_NUMBER
from voicehost.records.places import NAME_LIMIT as NAME_LIMIT
from voicehost.records.places import PlaceTaken as PlaceTaken
from voicehost.records.places import TournamentPlace, check_name, check_number
from voicehost.records.places import place_of as place_of
from voicehost.rules import InputError
from voicehost.rules.scoring import (
    COLUMNS,
    FIIM_TIE_BREAKS,
    Column,
    GameFacts,
    SeatFacts,
    SeatScore,
    Standing,
    ci_eligible,
    ci_points,
    rank,
    score_game,
)
from voicehost.rules.scoring import TIE_BREAKS as TIE_BREAKS

if TYPE_CHECKING:
    import uuid

    from voicehost.records.games import GameRecord, SeatRecord
    from voicehost.records.reader import Readable
    from voicehost.records.store import Records

Schedule = dict[int, dict[int, dict[int, str]]]   # round → table → seat → player


# ---- the tournament -----------------------------------------------------------------------

DEFAULT_TIE_BREAKS = FIIM_TIE_BREAKS   # mafiaratings' order (docs/rules.md "Tournament scoring")


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
    standings_hidden: bool = False
    """The organiser keeps the standings off the public screen (``tournament hide``/``open``)."""

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


def load_tournament(records: Readable, name: str) -> Tournament:
    """The tournament of that name (plain SQL: :mod:`voicehost.records.reader`); an unknown name
    is refused with the known ones."""
    found = records.rows("SELECT id, name, scoring, tie_breaks, created_at, standings_hidden FROM tournaments "
                         "WHERE name = :name", {"name": name})
    if not found:
        known = ", ".join(repr(row["name"]) for row in records.rows("SELECT name FROM tournaments ORDER BY name"))
        raise InputError(name, _("no such tournament (known: {known})").format(known=known or "-"))
    row, tid = found[0], {"tid": found[0]["id"]}
    players = [p["nickname"] for p in records.rows("SELECT nickname FROM tournament_players "
                                                   "WHERE tournament_id = :tid ORDER BY position", tid)]
    schedule: Schedule = {}
    for seat in records.rows("SELECT round_no, table_no, seat, nickname FROM tournament_seats WHERE tournament_id = "
                             ":tid ORDER BY round_no, table_no, seat", tid):
        schedule.setdefault(seat["round_no"], {}).setdefault(seat["table_no"], {})[seat["seat"]] = seat["nickname"]
    return Tournament(row["name"], row["scoring"], tuple(row["tie_breaks"]), tuple(players), schedule,
                      row["created_at"], bool(row["standings_hidden"]))


def show_standings(records: Records, name: str, shown: bool) -> None:
    """Open the tournament's standings to the public screen, or hide them (only the seating
    is shown then); the organiser's own ``tournament standings`` always has them."""
    import sqlalchemy as sa

    from voicehost.records.schema import tournaments

    load_tournament(records, name)   # an unknown name is refused with the known ones
    with records.engine.begin() as connection:
        connection.execute(sa.update(tournaments).where(tournaments.c.name == name)
                           .values(standings_hidden=not shown))


def tournament_names(records: Readable) -> list[str]:
    return [row["name"] for row in records.rows("SELECT name FROM tournaments ORDER BY created_at")]


@dataclass(frozen=True)
class PlayedGame:
    """A tournament's stored game: its place, its protocol, and the best-player vote stored
    beside it (the vote may come after the protocol: ``voicehost records best``)."""

    id: uuid.UUID
    place: TournamentPlace
    protocol: dict[str, Any]
    best_player: int | None = None


def played_games(records: Readable, name: str) -> list[PlayedGame]:
    """The tournament's games as stored, by round and table (plain SQL: :mod:`voicehost.records.reader`)."""
    at = {"name": name}
    rows = records.rows("SELECT g.id AS game_id, g.round_no, g.table_no, g.protocol FROM games g "
                        "WHERE g.tournament = :name ORDER BY g.round_no, g.table_no", at)
    votes = {row["game_id"]: row["seat"] for row in records.rows(
        "SELECT s.game_id, s.seat FROM game_seats s JOIN games g ON g.id = s.game_id "
        "WHERE g.tournament = :name AND s.best_player", at)} if rows else {}
    return [PlayedGame(row["game_id"], TournamentPlace(name, row["round_no"], row["table_no"]), dict(row["protocol"]),
                       votes.get(row["game_id"])) for row in rows]


# ---- the standings -----------------------------------------------------------------------------

@dataclass
class Standings:
    tournament: Tournament
    rows: list[Standing]
    games: int
    warnings: list[str] = field(default_factory=list)
    columns: tuple[Column, ...] = COLUMNS

    def as_dict(self) -> dict[str, Any]:
        return {"tournament": self.tournament.name, "scoring": self.tournament.scoring,
                "tie_breaks": list(self.tournament.tie_breaks), "games": self.games,
                "columns": [column.key for column in self.columns],
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


@dataclass(frozen=True)
class ScoredGame:
    """A tournament game scored under the tournament's scheme: its seats (as the records keep
    them), what it decided, and each seat's points."""

    game: PlayedGame
    seats: list[SeatRecord]
    facts: GameFacts
    scores: dict[int, SeatScore]


def scored_games(tournament: Tournament, games: Iterable[PlayedGame]) -> tuple[list[ScoredGame], list[str]]:
    """Each game's points per seat under the tournament's scheme (one function:
    :func:`voicehost.rules.scoring.score_game`), and the warnings of games it cannot score."""
    from voicehost.records.figures import game_facts, seat_facts
    from voicehost.records.ratings import schemes_of

    scored, warnings = [], []
    for game in games:
        seats = game_seats(game)
        ruleset = str(game.protocol.get("ruleset"))
        scheme = schemes_of(ruleset).get(tournament.scoring, {})   # only the rulesets played are read
        if not _has_scheme(ruleset, tournament.scoring):
            warnings.append(_("{at}: the {ruleset} ruleset has no scheme {scheme}: no points").format(
                at=game.place, ruleset=ruleset, scheme=tournament.scoring))
        facts = game_facts(game.protocol.get("winner") if game.protocol.get("result") is None else None,
                           [seat_facts(seat) for seat in seats], game.protocol)
        scored.append(ScoredGame(game, seats, facts, score_game(scheme, facts)))
        warnings.extend(_schedule_warnings(tournament, game.place, [(s.seat, s.player) for s in seats]))
    return scored, warnings


def _has_scheme(ruleset: str, scheme: str) -> bool:
    from voicehost.records.ratings import schemes_of

    return scheme in schemes_of(ruleset)


def bonus_points(protocol: Mapping[str, Any], seat: int) -> float:
    """The judge's bonus (or, negative, penalty) points of a seat: the protocol's
    ``judge_points`` (``bonus N P`` / ``penalty N P`` at the console), where the game has them:
    the ``bonus`` column, and what the rating sites list apart."""
    from voicehost.records.figures import judge_totals

    return round(judge_totals(protocol.get("judge_points")).get(seat, 0.0), 2)


def standings(tournament: Tournament, games: Iterable[PlayedGame]) -> Standings:
    """The standings from the games' protocols alone: each seat's points under the tournament's
    scheme, summed per player, then each player's compensation points (Ci: over all his games
    of the tournament so far, so they change as games arrive), ordered by the tie-breaks;
    players tied on all share a place. A game whose seats differ from the schedule counts as
    played, with a warning. (:func:`tournament_standings` reads the same from the stored figures.)"""
    scored, warnings = scored_games(tournament, games)
    rulesets = {str(game.game.protocol.get("ruleset")) for game in scored}
    return _ranked(tournament, [(game.game.place.round, [(s.seat, str(s.player)) for s in game.seats],
                                 game.facts, game.scores) for game in scored], warnings, _scheme(tournament, rulesets))


Played = tuple[int, list[tuple[int, str]], GameFacts, dict[int, SeatScore]]   # round, (seat, player)s, facts, scores


def _ranked(tournament: Tournament, scored: Sequence[Played], warnings: list[str],
            points: Mapping[str, float]) -> Standings:
    """The players' rows summed over the scored games, Ci added (``points``: the scheme), ranked by the tie-breaks."""

    rows = {name: Standing(name) for name in tournament.players}
    for round_no, players, facts, scores in scored:
        for seat, player in players:
            row = rows.get(player) or rows.setdefault(player, Standing(player))
            row.add(facts.seats[seat - 1], scores[seat], round_no)
    for round_no, players, facts, _scores in scored:
        for seat, player in players:
            if ci_eligible(facts, facts.seats[seat - 1]):
                row = rows[player]
                row.add_ci(ci_points(points, row.games, row.killed_first), round_no)
    return Standings(tournament, rank(list(rows.values()), tournament.tie_breaks), len(scored), warnings)


def _schedule_warnings(tournament: Tournament, at: TournamentPlace,
                       seats: Sequence[tuple[int, str | None]]) -> list[str]:
    """``seats``: (seat, player) as the game had them."""
    if not tournament.schedule:
        return []
    planned = tournament.scheduled(at.round, at.table)
    if planned is None:
        return [_("{at}: not in the schedule").format(at=at)]
    return [_("{at} seat {seat}: the schedule seats {planned}, the game had {played}").format(
        at=at, seat=seat, planned=planned.get(seat, "-"), played=player)
        for seat, player in seats if planned.get(seat) != player]


def tournament_standings(records: Readable, name: str, upto_round: int | None = None) -> Standings:
    """The standings of the games stored so far, or of the rounds up to ``upto_round`` (the
    standings "as of round N"): the compensation points too are worked out over those games.
    Read set-wise from the figures stored at import (:mod:`voicehost.records.reading`), scored
    by the one function, :func:`voicehost.rules.scoring.score_game`: no protocol read again."""
    from voicehost.records.reading import tournament_seats

    tournament = load_tournament(records, name)
    return standings_of_rows(tournament, tournament_seats(records, name, upto_round))


Alike = tuple[SeatFacts, SeatScore, float, bool]   # a kind of seat: its facts, score, total, whether it earns Ci


def standings_of_rows(tournament: Tournament, rows: Sequence[Sequence[Any]]) -> Standings:
    """The standings from :func:`~voicehost.records.reading.tournament_seats`' rows. Seats alike
    (the same scoring columns) are scored once, by :func:`score_game` through
    :func:`~voicehost.records.figures.one_seat`, and a player's seats alike are added at once;
    the points of each round and the Ci games are kept seat by seat."""
    points = _scheme(tournament, {row[4] for row in rows})
    kinds: dict[tuple[Any, ...], Alike] = {}
    alike: dict[tuple[str, tuple[Any, ...]], int] = {}
    by_round: dict[tuple[str, int], float] = {}
    eligible: list[tuple[str, int]] = []
    warnings: list[str] = []
    games, last, ruleset = 0, None, ""
    table: list[tuple[int, str]] = []
    schemes = {name: points if _has_scheme(name, tournament.scoring) else {} for name in {row[4] for row in rows}}
    scheduled = bool(tournament.schedule)
    for row in rows:
        round_no, player, key = row[0], str(row[3] or f"#{row[2]}"), tuple(row[4:])
        if (round_no, row[1]) != last:
            warnings.extend(_game_warnings(tournament, last, ruleset, table))
            games, last, ruleset, table = games + 1, (round_no, row[1]), row[4], []
        if scheduled:
            table.append((row[2], player))
        kind = kinds.get(key) or kinds.setdefault(key, _kind(schemes[key[0]], key))
        alike[player, key] = alike.get((player, key), 0) + 1
        by_round[player, round_no] = by_round.get((player, round_no), 0.0) + kind[2]
        if kind[3]:
            eligible.append((player, round_no))
    warnings.extend(_game_warnings(tournament, last, ruleset, table))
    standing = {name: Standing(name) for name in tournament.players}
    for (player, key), count in alike.items():
        seat, score, _total, _ci = kinds[key]
        (standing.get(player) or standing.setdefault(player, Standing(player))).add(seat, score, None, count)
    for (player, round_no), total in by_round.items():
        standing[player].by_round[round_no] = total
    for player, round_no in eligible:
        line = standing[player]
        line.add_ci(ci_points(points, line.games, line.killed_first), round_no)
    return Standings(tournament, rank(list(standing.values()), tournament.tie_breaks), games, warnings)


def _scheme(tournament: Tournament, rulesets: Iterable[str]) -> Mapping[str, float]:
    """The tournament's scheme as the rulesets played define it (only those rulesets are read)."""
    from voicehost.records.ratings import schemes_of

    return next((found for ruleset in sorted(rulesets) if (found := schemes_of(ruleset).get(tournament.scoring))), {})


def _kind(points: Mapping[str, float], key: Sequence[Any]) -> Alike:
    """A kind of seat (``key``: ruleset, then :func:`~voicehost.records.figures.one_seat`'s columns) scored."""
    from voicehost.records.figures import one_seat

    seat, facts = one_seat(*key[1:])
    score = score_game(points, facts)[seat.seat]
    return seat, score, score.total, ci_eligible(facts, seat)


def _game_warnings(tournament: Tournament, at: tuple[int, int] | None, ruleset: str,
                   seats: Sequence[tuple[int, str]]) -> list[str]:
    """A game's warnings: a ruleset without the tournament's scheme, seats off the schedule."""
    if at is None:
        return []
    place = TournamentPlace(tournament.name, *at)
    warnings = [] if _has_scheme(ruleset, tournament.scoring) else [
        _("{at}: the {ruleset} ruleset has no scheme {scheme}: no points").format(
            at=place, ruleset=ruleset, scheme=tournament.scoring)]
    return warnings + _schedule_warnings(tournament, place, seats)


# ---- printing and export -------------------------------------------------------------------------

def column_titles() -> dict[str, str]:
    """The standings' headings (Russian by default, through the catalog), by column key: every
    column of :data:`~voicehost.rules.scoring.COLUMNS` and every tie-break's figure."""
    return {"place": _("Place"), "player": _("Player"), "games": _("Games"), "points": _("Points"),
            "wins": _("Wins"), "best_move": _("Best move"), "bonus": _("Bonus"), "penalty": _("Penalty"),
            "ci": _("Ci"), "extras": _("Extras"), "best_player": _("Best player"),
            "sheriff_games": _("As sheriff"), "fouls": _("Fouls"), "special_wins": _("Wins as sheriff or don"),
            "killed_first": _("Killed first night"), "sheriff_wins": _("Wins as sheriff"),
            "don_wins": _("Wins as don"), "red_wins": _("Wins for the red"), "black_wins": _("Wins for the black")}


def tie_break_names(order: Sequence[str]) -> str:
    """The tie-breaks as the club reads them («Баллы, Сумма доп., Победы, …»); the machine keys
    stay in the JSON export and the tournament's own record."""
    titles = column_titles()
    return ", ".join(titles.get(key, key) for key in order)


def decimal_mark() -> str:
    """The club language's decimal mark: «1,25» in Russian, 1.25 in English."""
    return "," if language() == "ru" else "."


def standings_lines(result: Standings) -> list[str]:
    """The standings as a terminal table."""
    titles, mark = column_titles(), decimal_mark()
    width = max([len(titles["player"]), *(len(row.player) for row in result.rows)])
    widths = {c.key: width if c.key == "player" else max(5, len(titles[c.key])) for c in result.columns}
    lines = ["  ".join(_cell(c, titles[c.key], widths[c.key]) for c in result.columns)]
    for row in result.rows:
        data = row.as_dict()
        lines.append("  ".join(_cell(c, c.shown(data[c.key], mark), widths[c.key]) for c in result.columns))
    lines.append(ngettext("{games} game; tie-breaks: {order}", "{games} games; tie-breaks: {order}",
                          result.games).format(games=result.games, order=tie_break_names(result.tournament.tie_breaks)))
    lines.extend(_("warning: {line}").format(line=line) for line in result.warnings)
    return lines


def _cell(column: Column, text: str, width: int) -> str:
    return f"{text:<{width}}" if column.kind == "text" else f"{text:>{width}}"


def standings_csv(result: Standings) -> str:
    """The standings for a spreadsheet: headings in the club's language (the JSON export keeps the
    machine keys), numbers as numbers (a point for the decimals, so any spreadsheet reads them)."""
    titles = column_titles()
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([titles[column.key] for column in result.columns])
    for row in result.rows:
        data = row.as_dict()
        writer.writerow([data[column.key] for column in result.columns])
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
    import html  # its entities table loads for the page only, not for every standings

    titles, mark = column_titles(), decimal_mark()
    esc = html.escape
    head = "".join(f'<th class="{c.key}">{esc(titles[c.key])}</th>' for c in result.columns)
    body = "\n".join("<tr>" + "".join(f'<td class="{c.key}">{esc(c.shown(row.as_dict()[c.key], mark))}</td>'
                                      for c in result.columns) + "</tr>" for row in result.rows)
    t = result.tournament
    meta = ngettext("{games} game; scoring {scheme}; tie-breaks: {order}",
                    "{games} games; scoring {scheme}; tie-breaks: {order}", result.games).format(
        games=result.games, scheme=t.scoring, order=tie_break_names(t.tie_breaks))
    warnings = "".join(f"<li>{esc(line)}</li>" for line in result.warnings)
    title = esc(_("Standings"))   # not inside the f-string: Babel extracts no call from one
    return (f'<!DOCTYPE html>\n<html lang="{esc(language())}">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{title}: {esc(t.name)}</title>\n<style>{PRINT_CSS}</style>\n</head>\n<body>\n"
            f"<h1>{title}: {esc(t.name)}</h1>\n<p class=\"meta\">{esc(meta)}</p>\n"
            f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>\n"
            + (f'<ul class="warnings">{warnings}</ul>\n' if warnings else "") + "</body>\n</html>\n")


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
