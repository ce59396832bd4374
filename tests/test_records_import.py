"""The import's quick path (issue 47: what is checked at import is checked once, and cheaply): a
JSON text that plainly holds nothing the tree check refuses is not walked, and whatever a text
holds, loading it gives what the walk gives (the data, or the one refusal with its place and
words); the rows one driver executemany stores are those SQLAlchemy Core's insert stores, on
SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import sqlalchemy as sa
from test_club_records import db_url, pg_cluster  # noqa: F401  (the fixtures: SQLite and a PostgreSQL cluster)
from test_records_scale import season

from voicehost.files import MAX_DEPTH, MAX_STRING, _parsed, _plain, check_tree, loads_json
from voicehost.records.schema import game_seats, games
from voicehost.records.store import Records, game_row, open_records, seat_rows_of
from voicehost.rules import InputError

# Each refusal of the tree check, each near miss, and what may fool a look at the text alone.
HOSTILE = [
    *("[" * k + "]" * k for k in (MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 2000)),
    *('{"a":' * k + "1" + "}" * k for k in (MAX_DEPTH, MAX_DEPTH + 1)),
    "1" * 18, "1" * 19, "-" + "1" * 18, "[-" + "1" * 19 + "]", '{"a": 1' + "0" * 18 + "}", '"' + "1" * 30 + '"',
    "1e308", "[1e309]", "-1e400", "1.5e-400", "12345678901234567890.5", "NaN", "[Infinity]", "[-Infinity]",
    '"\\ud800"', '{"\\udc00": 1}', '"\\ud83d\\ude00"', '"\\\\ud800"', '"\\u0000"', '"\ud800"',
    '"' + "x" * MAX_STRING + '"', '"' + "x" * (MAX_STRING + 1) + '"', '"' + "\\n" * (MAX_STRING - 1) + '"',
    '["' + "x" * 6000 + '", "' + "y" * 6000 + '"]', '"' + "я" * MAX_STRING + '"',
    '{"a": "\\"' + "[" * 40 + '"}', '"' + "[" * 40 + '"', '["]]]]]", ' + "[" * 30 + "]" * 30 + "]",
    '{"a": [1, 2', "[1,]", "", "[1 2]", '{"a" 1}', '{"seats": {"1": {"role": "don"}}}',
]


def walked(text: str, place: str) -> Any:
    """The reference: parsed with every integer looked at, then every node walked."""
    data = _parsed(text, place)
    check_tree(data, place)
    return data


def outcome(load: Any, text: str) -> tuple[Any, ...]:
    try:
        return "data", load(text, "f.json")
    except InputError as err:
        return "refused", err.place, str(err)


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_a_text_loads_as_the_walk_loads_it(text: str) -> None:
    assert outcome(loads_json, text) == outcome(walked, text)


def test_random_texts_load_as_the_walk_loads_them() -> None:
    rng = random.Random(47)
    pieces = ["[", "]", "{", "}", '"', "\\", "u", "d", "8", "0", "1", "9", "e", "E+", "-", ".5", ",", ":", " ",
              "x", "NaN", '"a":', "я", "1234567890", "[[[[[[[[", "]]]]]]]]"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 60))) for _ in range(20_000)]
    differ = [text for text in texts if outcome(loads_json, text) != outcome(walked, text)]
    assert differ == []
    assert sum(map(_plain, texts)) > 1000   # the quick path was taken, and agreed


def test_a_protocol_as_the_host_writes_it_is_not_walked() -> None:
    protocol = season(1, rounds=1)[0].protocol
    for text in (json.dumps(protocol, ensure_ascii=False, indent=2), json.dumps(protocol)):
        assert _plain(text)
        assert loads_json(text, "p.json") == protocol


@pytest.mark.parametrize("text", ["[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "[" + "9" * 19 + "]",
                                  '"\\udfff"', '"' + "x" * (MAX_STRING + 1) + '"', '"\\"" ', '"\ud800"'])
def test_a_text_the_look_cannot_clear_is_walked(text: str) -> None:
    assert not _plain(text)


def dump(db: Records) -> list[tuple[Any, ...]]:
    return [*db.tuples("SELECT * FROM games ORDER BY id"),
            *db.tuples("SELECT * FROM game_seats ORDER BY game_id, seat")]


def test_the_driver_executemany_stores_what_core_stores(db_url: str) -> None:  # noqa: F811
    records = season(3, rounds=2)
    with open_records(db_url) as db:
        with db.engine.begin() as connection:
            ids = db.player_ids(connection, {s.player for r in records for s in r.seats if s.player})
            connection.execute(games.insert(), [game_row(r) for r in records])
            connection.execute(game_seats.insert(), [row for r in records for row in seat_rows_of(r, ids)])
        by_core = dump(db)
        with db.engine.begin() as connection:
            connection.execute(sa.delete(game_seats))
            connection.execute(sa.delete(games))
        assert db.add(records) == len(records)
        assert dump(db) == by_core
        assert db.add(records) == 0   # ON CONFLICT DO NOTHING: nothing twice
        assert dump(db) == by_core
