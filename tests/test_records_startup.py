"""An instant records command (issue 47): the records' and the tournament's read commands read
in plain SQL (voicehost.records.reader) and import neither the live host, nor numpy, nor
SQLAlchemy or Alembic, as long as the schema is current; the catalog is read one message at a
time. Every import check runs in a fresh interpreter, as tests/test_startup.py's do."""

from __future__ import annotations

import gettext
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from voicehost.records.reader import SCHEMA_HEAD, shown_url

ROOT = Path(__file__).resolve().parent.parent

# What a read command must not load: the live host (and through it the audio stack and numpy),
# SQLAlchemy, Alembic, the PostgreSQL driver (an SQLite file needs none), matplotlib, the engine.
HEAVY = ("numpy", "sqlalchemy", "alembic", "psycopg", "matplotlib", "openskill", "voicehost.host", "audio",
         "voicehost.records.store", "voicehost.records.games", "voicehost.rules.sport", "voicehost.rules.flow",
         "shutil")

RUN = """
import contextlib, io, json, sys
from voicehost.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(json.loads(sys.argv[1]))
heavy = json.loads(sys.argv[2])
print(json.dumps({"code": code, "out": out.getvalue(),
                  "heavy": sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))}))
"""


def run_fresh(argv: list[str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(argv), json.dumps(HEAVY)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture
def empty_db(tmp_path: Path) -> str:
    """An empty records file at the current schema, with one tournament and no games."""
    from voicehost.records.store import open_records
    from voicehost.records.tournament import create_tournament, new_tournament

    url = f"sqlite:///{tmp_path / 'records.sqlite'}"
    with open_records(url) as db:
        create_tournament(db, new_tournament("Кубок", "seed001"))
    return url


def test_the_schema_head_is_alembics_head() -> None:
    """The plain reader reads only a schema at SCHEMA_HEAD: a new migration must move it."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from voicehost.records.store import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == SCHEMA_HEAD


@pytest.mark.parametrize("argv", [["records", "ratings"], ["records", "elo"], ["records", "games"],
                                  ["records", "rating"], ["tournament", "list"], ["tournament", "show", "Кубок"],
                                  ["tournament", "standings", "Кубок"]],
                         ids=["ratings", "elo", "games", "rating", "tournament list", "tournament show", "standings"])
def test_a_read_command_on_a_current_schema_loads_no_heavy_module(argv: list[str], empty_db: str) -> None:
    result = run_fresh(["--lang", "en", *argv, "--db", empty_db])
    assert result["code"] == 0 and result["heavy"] == []


def test_the_reads_say_what_the_writing_path_stored(empty_db: str) -> None:
    """Nothing lost on the way: the tournament and its (empty) standings as stored."""
    assert run_fresh(["--lang", "en", "tournament", "list", "--db", empty_db])["out"] == "Кубок\n1 tournament\n"
    shown = run_fresh(["--lang", "en", "tournament", "standings", "Кубок", "--json", "--db", empty_db])
    assert json.loads(str(shown["out"]))["scoring"] == "seed001"


def test_a_schema_behind_is_migrated_first_then_read_plainly(tmp_path: Path) -> None:
    """A fresh file has no schema: the first read migrates it (Alembic loads), the next one does not."""
    url = f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    first = run_fresh(["--lang", "en", "records", "games", "--db", url])
    assert first["code"] == 0 and "alembic" in first["heavy"]
    again = run_fresh(["--lang", "en", "records", "games", "--db", url])
    assert again["code"] == 0 and again["heavy"] == [] and again["out"] == "0 games\n"


def test_a_file_that_is_no_database_is_still_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli.main import main

    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    code = main(["--lang", "en", "records", "ratings", "--db", f"sqlite:///{junk}"])
    err = capsys.readouterr().err
    assert code == 2 and "is not a voicehost records database" in err and err.count("\n") == 1


def test_a_postgresql_url_is_shown_as_the_writing_path_shows_it() -> None:
    assert shown_url("anna:secret@db.club:5432/club") == "postgresql+psycopg://anna:***@db.club:5432/club"
    assert shown_url("nobody@127.0.0.1:9/club") == "postgresql+psycopg://nobody@127.0.0.1:9/club"


def test_every_message_of_the_catalog_reads_as_gettext_reads_it() -> None:
    """The one-message-at-a-time catalog (i18n.Catalog) finds every id, singular and plural, and
    gives the translation gettext would (its binary search relies on the ids being sorted)."""
    from babel.messages.pofile import read_po

    from voicehost.i18n import LOCALES, Catalog, catalog_path

    ours, theirs = Catalog(catalog_path("ru")), gettext.GNUTranslations(catalog_path("ru").open("rb"))
    with (LOCALES / "ru" / "LC_MESSAGES" / "voicehost.po").open("rb") as po:
        messages = [m for m in read_po(po) if m.id and m.string]
    singles = [str(m.id) for m in messages if not m.pluralizable]
    plurals = [(str(m.id[0]), str(m.id[1])) for m in messages if m.pluralizable]
    assert len(singles) > 500 and len(plurals) > 20
    assert [ours.gettext(i) for i in singles] == [theirs.gettext(i) for i in singles]
    assert all(ours.gettext(i) != i for i in singles if theirs.gettext(i) != i)
    assert [ours.ngettext(s, p, n) for s, p in plurals for n in range(25)] == [
        theirs.ngettext(s, p, n) for s, p in plurals for n in range(25)]
    assert Catalog(None).gettext("points") == "points" and Catalog(None).ngettext("a game", "games", 2) == "games"


def test_the_help_is_as_wide_as_the_terminal_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """The width shutil would give, without importing shutil: $COLUMNS first."""
    from voicehost.cli.args import Formatter, terminal_columns

    monkeypatch.setenv("COLUMNS", "61")
    assert terminal_columns() == 61 and Formatter("voicehost")._width == 59
    monkeypatch.setenv("COLUMNS", "junk")
    assert terminal_columns() > 0
