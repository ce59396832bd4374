"""The records' bulk reads for standings, ratings and Elo: a few small functions, each one plain
SQL text over the stored figures (records 0006, :mod:`voicehost.records.figures`), the same on
SQLite and PostgreSQL, returning plain rows. No protocol is read, parsed or checked again: what
an import checked stays checked (docs/speed.md, "Records at season scale").

Python's garbage collector is held off while a read builds its rows (:func:`no_gc`): the rows
are many small tuples that form no cycles, and a full collection over them, several times
during one read, made a read grow faster than the number of games.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from voicehost.records.reader import Readable, no_gc

# Every column a seat's score needs, by round, table and seat. The scoring columns (from
# ``ruleset``) are what :func:`voicehost.records.figures.one_seat` takes: seats alike score alike.
TOURNAMENT_SEATS = """
SELECT g.round_no, g.table_no, s.seat, p.nickname,
       g.ruleset, g.winner, g.removal_forfeits, s.role, s.team, s.alive, s.out_cause, s.fouls, s.best_player,
       s.killed_first, s.best_move_black, s.judge_points, s.team_removed
FROM games g JOIN game_seats s ON s.game_id = g.id LEFT JOIN players p ON p.id = s.player_id
WHERE g.tournament = :name {upto}
ORDER BY g.round_no, g.table_no, s.seat"""

# A season's named seats in a rated game, grouped by all that makes a seat's points: one row per
# kind of seat a player had, with how many, their points as played and their fouls.
RATING_GROUPS = """
SELECT p.nickname, g.ruleset, g.scoring, g.winner, g.removal_forfeits, s.role, s.team, s.alive, s.won,
       s.fouls, s.best_player, s.out_cause, s.killed_first, s.best_move_black, s.judge_points, s.team_removed,
       count(*), sum(s.points)
FROM game_seats s JOIN players p ON p.id = s.player_id JOIN games g ON g.id = s.game_id
WHERE g.winner IS NOT NULL {season}
GROUP BY p.nickname, g.ruleset, g.scoring, g.winner, g.removal_forfeits, s.role, s.team, s.alive, s.won,
         s.fouls, s.best_player, s.out_cause, s.killed_first, s.best_move_black, s.judge_points, s.team_removed"""

# The same for the points as played (no other scheme), fewer groups and narrower: the points as
# stored need no scoring columns, so a player's seats are grouped by role and team (for the table
# by role) and by ruleset and scoring (for the best-player vote's points), the rest summed. Each
# sort key costs (docs/speed.md, "Records at season scale"): five, not eight.
PLAYED_GROUPS = """
SELECT p.nickname, g.ruleset, g.scoring, s.role, s.team, count(*), sum(CASE WHEN s.won THEN 1 ELSE 0 END),
       sum(s.fouls), sum(CASE WHEN s.best_player THEN 1 ELSE 0 END), sum(s.points)
FROM game_seats s JOIN players p ON p.id = s.player_id JOIN games g ON g.id = s.game_id
WHERE g.winner IS NOT NULL {season}
GROUP BY p.nickname, g.ruleset, g.scoring, s.role, s.team"""

# A season's named seats in a rated game, games in the order played: what Elo and OpenSkill read.
GAME_SEATS = """
SELECT g.id, p.nickname, s.team, s.won, g.winner
FROM game_seats s JOIN players p ON p.id = s.player_id JOIN games g ON g.id = s.game_id
WHERE g.winner IS NOT NULL {season}
ORDER BY g.played_at, g.id, s.seat"""

# A season's rated games without one named seat: nobody to rate (``records ratings`` says so).
UNNAMED = """
SELECT count(*) FROM games g
WHERE g.winner IS NOT NULL {season}
  AND NOT EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.player_id IS NOT NULL)"""


def tournament_seats(db: Readable, name: str, upto: int | None = None) -> list[Any]:
    """Each seat of a tournament's games (rounds up to ``upto``), by round, table and seat."""
    sql = TOURNAMENT_SEATS.format(upto="AND g.round_no <= :upto" if upto is not None else "")
    return db.tuples(sql, {"name": name, "upto": upto} if upto is not None else {"name": name})


def rating_groups(db: Readable, since: datetime | None = None, until: datetime | None = None,
                  rescored: bool = True) -> list[Any]:
    """The season's seats grouped for the ratings (:data:`RATING_GROUPS`; ``rescored`` False:
    for the points as played only, :data:`PLAYED_GROUPS`, read by
    :func:`voicehost.records.ratings.grouped_ratings` without a scheme)."""
    return db.tuples(*_season(db, RATING_GROUPS if rescored else PLAYED_GROUPS, since, until))


def game_seats(db: Readable, since: datetime | None = None,
               until: datetime | None = None) -> list[dict[str, Any]]:
    """The season's named seats in the order played, as the Elo and OpenSkill tables read them
    (``game_id``, ``nickname``, ``team``, ``won``, ``winner``)."""
    rows = db.tuples(*_season(db, GAME_SEATS, since, until))
    with no_gc():
        return [{"game_id": game, "nickname": nickname, "team": team, "won": bool(won), "winner": winner}
                for game, nickname, team, won, winner in rows]


def unnamed_games(db: Readable, since: datetime | None = None, until: datetime | None = None) -> int:
    return int(db.tuples(*_season(db, UNNAMED, since, until))[0][0])


def _season(db: Readable, sql: str, since: datetime | None,
            until: datetime | None) -> tuple[str, dict[str, Any]]:
    """``sql`` limited to the games played from ``since`` and before ``until`` (on SQLite, as
    SQLAlchemy writes a time there: text that sorts as the time does)."""
    where = ("AND g.played_at >= :since " if since is not None else "") + \
        ("AND g.played_at < :until" if until is not None else "")
    sqlite = db.dialect == "sqlite"
    bound = {name: value.strftime("%Y-%m-%d %H:%M:%S.%f") if sqlite else value
             for name, value in (("since", since), ("until", until)) if value is not None}
    return sql.format(season=where), bound
