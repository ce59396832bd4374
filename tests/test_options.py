"""Each ruleset's options are declared once, as a typed value (voicehost.rules.options): the
bundled ruleset files agree with the declarations, a protocol lists only what differs from the
declared defaults, and an option added later changes no protocol written before it (issue 40)."""

from __future__ import annotations

import json
import random
import shutil
import tomllib
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from voicehost import config
from voicehost.config import load_ruleset, packaged_config
from voicehost.host.dealing import shuffled_deal
from voicehost.language.read_lines import has_line
from voicehost.rules import Options, new_game, options
from voicehost.rules.catalog import VARIANTS, names, options_class
from voicehost.rules.inputs import Deal
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.script import load_script

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.mark.parametrize("name", names())
def test_the_bundled_ruleset_file_has_every_declared_option_as_declared(name: str) -> None:
    """The file says what a club reads (doc, source); kind, default, choices and bound are the
    declaration's, and the read lines have each option's label under its text key."""
    data = tomllib.loads((packaged_config() / "rules" / f"{name}.toml").read_text(encoding="utf-8"))["options"]
    declared = options_class(name).declared()
    assert list(data) == list(declared)
    for option, item in declared.items():
        spec = data[option]
        assert (spec["kind"], spec["default"]) == (item.kind, item.default), option
        assert tuple(spec.get("values", ())) == item.values, option
        assert spec.get("min", 0) == item.minimum, option
        assert spec["source"] and spec["doc"], option
        assert has_line("setup", item.text_key), option


def test_the_code_reads_options_as_attributes_of_their_type() -> None:
    sport = load_ruleset("sport")
    chosen = sport.resolve({"nomination": "last", "misses_to_lose": "5", "best_move": "yes"})
    assert isinstance(chosen, options.SportOptions)
    assert (chosen.nomination, chosen.misses_to_lose, chosen.best_move) == ("last", 5, True)
    assert chosen["nomination"] == "last" and len(chosen) == len(fields(options.SportOptions))
    with pytest.raises(KeyError):
        chosen["colour"]


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_a_protocol_lists_only_the_options_that_differ_from_the_declared_defaults(variant: Any) -> None:
    ruleset = load_ruleset(variant.name)
    seats = max(ruleset.seats)

    def dealt(chosen: Options) -> Any:
        game = new_game(ruleset, chosen, seats)
        game.push(Deal(shuffled_deal(ruleset, chosen, seats, random.Random(1))))
        return game

    assert build_protocol(dealt(ruleset.resolve({})))["options"] == {}
    first = next(iter(ruleset.options_class.declared().values()))
    other: Any = (not first.default if first.kind == "bool" else int(first.default) + 1 if first.kind == "int"
                  else next(value for value in first.values if value != first.default))
    game = dealt(ruleset.resolve({first.name: other}))
    assert build_protocol(game)["options"] == {first.name: other}
    assert dict(ruleset.played(build_protocol(game)["options"])) == dict(game.options)


@dataclass(frozen=True, eq=False)
class _Sport(options.SportOptions):
    throwaway: bool = False


@dataclass(frozen=True, eq=False)
class _Club(options.ClubOptions):
    throwaway: bool = False


@dataclass(frozen=True, eq=False)
class _Classic(options.ClassicOptions):
    throwaway: bool = False


@dataclass(frozen=True, eq=False)
class _Canonical(options.CanonicalOptions):
    throwaway: bool = False


THROWAWAY = '\n[options.throwaway]\nkind = "bool"\ndefault = false\nsource = "a test"\ndoc = "nothing"\n'


def test_adding_an_option_changes_no_expected_protocol(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ruleset gets one more option, declared and in its file, as a developer adds one:
    every script still plays to its expected protocol, byte for byte."""
    for extended in (_Sport, _Club, _Classic, _Canonical):
        monkeypatch.setattr(options, extended.__mro__[1].__name__, extended)
    (tmp_path / "rules").mkdir()
    for name in names():
        bundled = (packaged_config() / "rules" / f"{name}.toml").read_text(encoding="utf-8")
        (tmp_path / "rules" / f"{name}.toml").write_text(bundled + THROWAWAY, encoding="utf-8")
    monkeypatch.setenv("VOICEHOST_CONFIG", str(tmp_path))
    load_ruleset.cache_clear()
    try:
        assert "throwaway" in load_ruleset("sport").options and "throwaway" in load_ruleset("sport").resolve({})
        scripts = sorted(p for p in SCRIPTS.glob("*.json") if not p.name.endswith(".expect.json"))
        assert len(scripts) > 10
        for script in scripts:
            result = simulate(load_script(script))
            assert "throwaway" in result.game.options
            protocol = build_protocol(result.game, result.ignored, result.script.names)
            expected = json.loads(script.with_name(script.stem + ".expect.json").read_text(encoding="utf-8"))
            assert protocol == expected, script.name
    finally:
        load_ruleset.cache_clear()


def test_a_protocol_that_lists_every_option_reads_as_the_one_that_lists_what_differed(tmp_path: Path) -> None:
    """Protocols written before (every option listed) stay readable, and the records keep every
    option of either, as their queries read them (``games.options["scoring"]``)."""
    from voicehost.records.games import record_from_protocol

    expected = json.loads((SCRIPTS / "sport-three-misses.expect.json").read_text(encoding="utf-8"))
    sport = load_ruleset("sport")
    old = {**expected, "options": dict(sport.resolve(expected["options"]))}
    assert len(old["options"]) > len(expected["options"])
    played_at = datetime(2026, 12, 4, 18, 0, tzinfo=timezone.utc)
    new_record = record_from_protocol(expected, "new.json", played_at)
    old_record = record_from_protocol(old, "old.json", played_at)
    assert new_record.options == old_record.options == {**sport.resolve({}), **expected["options"]}
    assert new_record.options["scoring"] == "seed001" and new_record.id == old_record.id


def test_a_clubs_file_changes_a_default_but_a_protocol_says_what_was_played(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A club's own sport.toml makes ``last`` the default: its games list ``nomination = last``
    (it differs from the declared default), so another club's records read them right."""
    (tmp_path / "rules").mkdir()
    bundled = (packaged_config() / "rules" / "sport.toml").read_text(encoding="utf-8")
    changed = bundled.replace('values = ["first", "last"]\ndefault = "first"\nsource = "seed 001 / seed 000',
                              'values = ["first", "last"]\ndefault = "last"\nsource = "seed 001 / seed 000', 1)
    assert changed != bundled
    (tmp_path / "rules" / "sport.toml").write_text(changed, encoding="utf-8")
    monkeypatch.setenv("VOICEHOST_CONFIG", str(tmp_path))
    load_ruleset.cache_clear()
    try:
        club = load_ruleset("sport")
        assert club.resolve({}).changed() == {"nomination": "last"}
        assert club.played({})["nomination"] == "first" and club.played({"nomination": "last"})["nomination"] == "last"
    finally:
        load_ruleset.cache_clear()


def test_copying_the_shipped_files_keeps_the_declarations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``config init`` copies the files: the copies load as the bundled ones do."""
    shutil.copytree(packaged_config() / "rules", tmp_path / "rules")
    monkeypatch.setenv("VOICEHOST_CONFIG", str(tmp_path))
    load_ruleset.cache_clear()
    try:
        assert all(dict(load_ruleset(name).resolve({})) == dict(options_class(name)()) for name in names())
        assert config.config_file("rules/sport.toml").parent == tmp_path / "rules"
    finally:
        load_ruleset.cache_clear()
