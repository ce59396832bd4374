"""Config files are validated on load: every mistake is one line naming the file and key."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from voicehost import config
from voicehost.cli.main import main
from voicehost.config import load_ruleset
from voicehost.language.phrasebook import phrasebook_from_mapping
from voicehost.rules import GAMES, InputError
from voicehost.rules.ruleset import ruleset_from_mapping

ROOT = Path(__file__).resolve().parent.parent
GOOD = {"cast": {"10": {"don": 1, "mafia": 2, "sheriff": 1}},
        "timers": {t: 1 for t in GAMES["sport"].required_timers},
        "options": {"nomination": {"kind": "choice", "values": ["first", "last"], "default": "first", "source": "x"}}}


def broken(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(GOOD))
    for dotted, value in changes.items():
        *path, last = dotted.split("__")
        node = data
        for key in path:
            node = node.setdefault(key, {})
        if value is None:
            node.pop(last)
        else:
            node[last] = value
    return data


@pytest.mark.parametrize(("changes", "message"), [
    ({"colour": "red"}, "sport.toml: colour: unknown key"),
    ({"cast__10__vampire": 1}, "sport.toml: cast.10.vampire: unknown role 'vampire'"),
    ({"cast__10__mafia": -1}, "sport.toml: cast.10.mafia: must be a whole number >= 0"),
    ({"cast__10__mafia": 20}, "sport.toml: cast.10: 22 roles do not fit 10 seats"),
    ({"cast__two": {}}, "sport.toml: cast.two: a table size must be a number from 3 to 30"),
    ({"timers__speech_s": None}, "sport.toml: timers.speech_s: is required"),
    ({"timers__speech_s": "long"}, "sport.toml: timers.speech_s: must be a whole number of seconds >= 0"),
    ({"options__nomination__default": "middle"}, "sport.toml: options.nomination.default: 'middle' is not one of"),
    ({"options__nomination__kind": "colour"}, "sport.toml: options.nomination.kind: must be choice, as the game"),
    ({"options__nomination__kind": "bool"}, "sport.toml: options.nomination.kind: must be choice, as the game"),
    ({"options__colour": {"kind": "bool", "default": True, "source": "x"}},
     "sport.toml: options.colour: the game has no such option (known: nomination, self_nomination,"),
    ({"options__nomination__values": []}, "sport.toml: options.nomination.values: a choice needs a list"),
    ({"options__nomination__default": None}, "sport.toml: options.nomination.default: is required"),
    ({"name": "club"}, "sport.toml: name: the file says 'club' but is named 'sport'"),
    ({"seats": [12, 6]}, "sport.toml: seats: must be [smallest, largest]"),
])
def test_ruleset_file_errors_name_the_key(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as caught:
        ruleset_from_mapping("sport", broken(**changes), "sport.toml")
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_shipped_ruleset_loads_and_every_option_has_a_source(name: str) -> None:
    ruleset = load_ruleset(name)
    assert ruleset.options and all(spec.source for spec in ruleset.options.values())


@pytest.mark.usefixtures("english")
def test_phrasebook_errors_name_the_line() -> None:
    with pytest.raises(InputError, match="ru.toml: judge.x: must be a string"):
        phrasebook_from_mapping({"judge": {"x": 5}}, "ru.toml")
    with pytest.raises(InputError, match=r"ru.toml: judge.y: bad placeholder"):
        phrasebook_from_mapping({"judge": {"y": "игрок {seat"}}, "ru.toml")


@pytest.mark.parametrize("section", ["log", "answers", "web", "club", "overlay", "setup"])
def test_a_phrases_file_with_a_read_section_is_one_russian_line_and_exit_2(
        section: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a club reads moved to the gettext catalog: an old club file that still rewords it
    is refused by name, not silently ignored."""
    (tmp_path / "phrases").mkdir()
    (tmp_path / "phrases" / "ru.toml").write_text(f'[{section}]\ndone = "Сделано."\n', encoding="utf-8")
    assert main(["config", "check", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    assert f"ru.toml: [{section}]: этот раздел больше не читается из файла фраз" in captured.err
    assert not re.search(r"[A-Za-z]{4,}", captured.err.split("]: ")[1].replace("voicehost/locale", "")), captured.err


def test_a_broken_config_folder_is_one_line_and_exit_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(ROOT / "config", tmp_path / "config")
    (tmp_path / "config" / "rules" / "sport.toml").write_text("name = 'sport'\n[timers\n")
    monkeypatch.setenv("VOICEHOST_CONFIG", str(tmp_path / "config"))
    config.load_ruleset.cache_clear()
    try:
        code = main(["simulate", str(ROOT / "examples" / "sport-sample.json")])
    finally:
        config.load_ruleset.cache_clear()
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "sport.toml: not valid TOML" in err


def test_config_init_copies_the_lexicon_the_voice_then_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The pronunciation lexicon a club is sent to edit is in its folder, and once that folder
    is the user's layer the voice reads the club's copy, not the packaged one."""
    from voicehost.language.lexicon import load_lexicon

    monkeypatch.delenv("VOICEHOST_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert main(["config", "init"]) == 0
    club = tmp_path / "xdg" / "voicehost"
    assert "Папка уже действует для этого пользователя." in capsys.readouterr().out
    lexicon = club / "lexicon" / "ru.toml"
    assert lexicon.read_bytes() == (ROOT / "config" / "lexicon" / "ru.toml").read_bytes()
    lexicon.write_text('[words]\n"Ильдар" = { stress = "Ильда́р", say = "[[il;d\'Ar]]" }\n', encoding="utf-8")
    load_lexicon.cache_clear()
    try:
        assert load_lexicon().apply("Ильдар") == "[[il;d'Ar]]"
    finally:
        load_lexicon.cache_clear()


def test_config_init_says_how_to_make_another_folder_the_active_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("VOICEHOST_CONFIG", raising=False)
    assert main(["config", "init", str(tmp_path / "club")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith(f"Чтобы voicehost читал эту папку, задайте перед командами: "
                             f"export VOICEHOST_CONFIG={tmp_path / 'club'} ")
    monkeypatch.setenv("VOICEHOST_CONFIG", str(tmp_path / "club"))
    assert main(["config", "init", str(tmp_path / "club")]) == 0
    assert "Папка уже действует: на неё указывает VOICEHOST_CONFIG." in capsys.readouterr().out


@pytest.mark.usefixtures("english")
def test_config_check_reads_the_club_lexicon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    club = tmp_path / "club"
    main(["config", "init", str(club)])
    (club / "lexicon" / "ru.toml").write_text('[words]\n"мафию" = { stress = "мафию", say = "x" }\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["config", "check", str(club)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lexicon/ru.toml: words.мафию: stress marks no vowel" in err, err


@pytest.mark.parametrize("xdg", [None, "", "  ", "/srv/club"])
def test_the_user_folders_are_where_platformdirs_puts_them_on_linux(
        monkeypatch: pytest.MonkeyPatch, xdg: str | None) -> None:
    """config, data and cache folders by the XDG variables, without importing platformdirs
    (3 ms of every command); the same answers as platformdirs gives, set or unset."""
    platformdirs = pytest.importorskip("platformdirs")
    if not sys.platform.startswith("linux"):
        pytest.skip("the XDG folders are Linux's; elsewhere voicehost asks platformdirs")
    monkeypatch.delenv("VOICEHOST_DATA", raising=False)
    monkeypatch.delenv("VOICEHOST_CACHE", raising=False)
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        if xdg is None:
            monkeypatch.delenv(variable, raising=False)
        else:
            monkeypatch.setenv(variable, xdg if not xdg.startswith("/") else f"{xdg}/{variable}")
    assert config.user_config_dir() == platformdirs.user_config_path("voicehost")
    assert config.data_dir() == platformdirs.user_data_path("voicehost")
    assert config.cache_dir() == platformdirs.user_cache_path("voicehost")
