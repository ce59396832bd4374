"""Records at season scale (issue 47): each seat's scoring figures are stored once, at import,
and the standings and ratings read from them are the ones the stored protocols give, on SQLite
and PostgreSQL; migration 0006 fills the figures of games stored before it; a schema at its
head is not migrated again."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import pytest
import sqlalchemy as sa
from test_club_records import db_url, pg_cluster  # noqa: F401  (the fixtures: SQLite and a PostgreSQL cluster)
from test_fiim_scoring import NAME, PLAYERS, generated_protocol

from voicehost.records.figures import game_facts, one_seat, seat_facts
from voicehost.records.games import record_from_protocol
from voicehost.records.ratings import grouped_ratings, ratings, scoring_schemes
from voicehost.records.reader import SCHEMA_HEAD as HEAD
from voicehost.records.reading import rating_groups
from voicehost.records.store import Records, engine_for, open_records
from voicehost.records.tournament import (
    create_tournament,
    load_tournament,
    new_tournament,
    played_games,
    standings,
    tournament_standings,
)
from voicehost.rules.scoring import score_game

SCHEMES = ("fiim", "championship", "seed001")


def season(seed: int, rounds: int = 6) -> list[Any]:
    """Three tables a round of invented sport games: removals (4th fouls and the judge's), team
    removals, best moves, the judge's points, the removal_forfeits option in some."""
    rng = random.Random(seed)
    records = []
    for r in range(1, rounds + 1):
        order = rng.sample(PLAYERS, 30)
        for t in (1, 2, 3):
            protocol = generated_protocol(rng, order[10 * (t - 1):10 * t], (r, t))
            protocol["options"]["removal_forfeits"] = rng.random() < 0.5
            removed = [e["seat"] for e in protocol["eliminations"] if e["cause"] == "removed"]
            if removed and rng.random() < 0.5:
                protocol["team_removed"] = removed[0]
            records.append(record_from_protocol(protocol, "generated", datetime(2026, 12, 5, 10 + r, 10 * t)))
    return records


def stored_seats(db: Records) -> dict[tuple[str, int], tuple[Any, ...]]:
    with db.engine.connect() as connection:
        rows = connection.execute(sa.text(
            "SELECT g.id, s.seat, g.winner, g.removal_forfeits, s.role, s.team, s.alive, s.out_cause, s.fouls, "
            "s.best_player, s.killed_first, s.best_move_black, s.judge_points, s.team_removed "
            "FROM games g JOIN game_seats s ON s.game_id = g.id")).all()
    return {(str(row[0]).replace("-", ""), row[1]): tuple(row[2:]) for row in rows}


def test_stored_figures_score_as_the_protocols_do(db_url: str) -> None:  # noqa: F811
    records = season(3)
    assert any(r.protocol.get("team_removed") for r in records) and any(
        s.out_cause == "removed" for r in records for s in r.seats), "no removals: the case is not tested"
    with open_records(db_url) as db:
        db.add(records)
        stored = stored_seats(db)
    for record in records:
        facts = game_facts(record.winner, [seat_facts(s) for s in record.seats],
                           {"ruleset": record.ruleset, **record.protocol})
        for scheme in SCHEMES:
            points = scoring_schemes()[scheme]
            want = score_game(points, facts)
            for seat in record.seats:
                alone, alone_facts = one_seat(*stored[record.id.hex, seat.seat])
                got = score_game(points, alone_facts)[1]
                assert (got.total, got.won, got.best_move, got.bonus, got.penalty, got.killed_first_night) == (
                    want[seat.seat].total, want[seat.seat].won, want[seat.seat].best_move, want[seat.seat].bonus,
                    want[seat.seat].penalty, want[seat.seat].killed_first_night), (scheme, record.id, seat.seat)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_standings_and_ratings_from_the_figures_are_the_protocols(db_url: str, scheme: str) -> None:  # noqa: F811
    with open_records(db_url) as db:
        db.add(season(5))
        create_tournament(db, new_tournament(NAME, scheme, players=PLAYERS))
        from_protocols = standings(load_tournament(db, NAME), played_games(db, NAME))
        from_figures = tournament_standings(db, NAME)
        assert [row.as_dict() for row in from_figures.rows] == [row.as_dict() for row in from_protocols.rows]
        assert (from_figures.games, from_figures.warnings) == (from_protocols.games, from_protocols.warnings) == (
            18, [])
        assert tournament_standings(db, NAME, 2).games == 6
        grouped = grouped_ratings(rating_groups(db), scheme)
        as_played = grouped_ratings(rating_groups(db, rescored=False))
        rows = db.seat_rows()
    assert [_rounded(r.as_dict()) for r in grouped] == [_rounded(r.as_dict()) for r in ratings(rows, scheme)]
    assert [_rounded(r.as_dict()) for r in as_played] == [_rounded(r.as_dict()) for r in ratings(rows)]


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "points": round(row["points"], 6)}


def test_the_migration_fills_in_the_figures_of_stored_games(db_url: str) -> None:  # noqa: F811
    from alembic import command
    from alembic.config import Config

    from voicehost.records.store import MIGRATIONS

    records = season(11, rounds=3)
    engine = engine_for(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:   # the records as 0005 left them
        config.attributes["connection"] = connection
        command.upgrade(config, "0005")
    old = Records(engine, figures=False)
    old.add(records)
    old.close()
    with open_records(db_url) as db:   # the upgrade
        filled = stored_seats(db)
    with open_records(db_url) as db:
        with db.engine.begin() as connection:   # the same games imported now: their figures
            connection.execute(sa.text("DELETE FROM games"))
        db.add(records)
        imported = stored_seats(db)
    assert filled == imported
    assert any(row[-4] for row in filled.values()) and any(row[-3] for row in filled.values()), "nothing to fill"


def test_a_schema_at_its_head_is_not_migrated_again(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    import alembic.command

    with open_records(db_url):
        pass
    monkeypatch.setattr(alembic.command, "upgrade", lambda *a, **k: pytest.fail("migrated a schema at its head"))
    with open_records(db_url) as db, db.engine.connect() as connection:
        assert connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one() == HEAD
