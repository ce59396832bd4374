"""One checked game setup (voicehost.host.setup): the command line, the web setup page, a table
file, ``config check`` and a journal's header accept and refuse the same setups, a bad argument
is refused before any audio work, and nothing is journaled that a resume would refuse."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from voicehost.cli.config import check_folder
from voicehost.cli.main import main
from voicehost.cli.service import table_setup
from voicehost.config import packaged_config
from voicehost.host import Journal, SetupRefused, SetupRequest, check_setup, resume_game, table_game
from voicehost.host.journal import load_journal
from voicehost.host.setup import setup_from_header
from voicehost.rules import InputError
from voicehost.rules.ruleset import INT_OPTION_MAX
from voicehost.web.setup import SetupError, read_choice

TABLE = packaged_config() / "tables" / "ten-seats.toml"


@pytest.fixture(autouse=True)
def _own_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VOICEHOST_DATA", str(tmp_path / "data"))


def table_file(folder: Path, edit: Any) -> Path:
    """The packaged ten-seat table, edited, as ``FOLDER/tables/t.toml``."""
    path = folder / "tables" / "t.toml"
    path.parent.mkdir(parents=True)
    path.write_text(edit(TABLE.read_text()))
    return path


ONE_SEAT = 'name = "one"\n[[seat]]\nbutton = 4\nled = 17\n[game]\nruleset = "sport"\n'
BOOT_REFUSES = {
    "nomination middle": (lambda text: text.replace("options = {}", 'options = { nomination = "middle" }', 1),
                          "game.options.nomination"),
    "records not postgresql": (lambda text: text + '\n[records]\nurl = "mysql://club/games"\n', "records.url"),
    "unknown ruleset": (lambda text: text.replace('ruleset = "sport"', 'ruleset = "poker"', 1), "game.ruleset"),
    "one-seat sport table": (lambda text: ONE_SEAT, "the table has 1 seats"),
    "huge option": (lambda text: text.replace("options = {}", "options = { last_word_s = 9999999999999999999 }", 1),
                    "game.options.last_word_s"),
}


@pytest.mark.parametrize("case", sorted(BOOT_REFUSES))
@pytest.mark.usefixtures("english")
def test_config_check_refuses_what_serve_refuses_at_boot(tmp_path: Path, case: str) -> None:
    """These table files passed ``config check``; then ``serve`` refused them at boot."""
    edit, says = BOOT_REFUSES[case]
    path = table_file(tmp_path, edit)
    with pytest.raises(InputError, match=says):
        table_setup(str(path))                      # serve, before it opens anything
    with pytest.raises(InputError, match=says):
        check_folder(tmp_path)                      # config check


def test_config_check_exits_2_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table_file(tmp_path, BOOT_REFUSES["nomination middle"][0])
    assert main(["config", "check", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "game.options.nomination: параметр «nomination» не принят: нужно одно из: first, last" in err


def test_the_packaged_tables_pass_both() -> None:
    for path in sorted((packaged_config() / "tables").glob("*.toml")):
        table_setup(str(path))
        table_game(path)
    assert check_folder(packaged_config()) > 0


class AudioStarted(AssertionError):
    pass


BAD_RUNS = [
    (["--journal", "/dev/null"], "/dev/null: is not a regular file"),
    (["--journal", "{tmp}/no/such/folder/game.jsonl"], "there is no folder"),
    (["--journal", "{tmp}/full.jsonl"], "the journal already exists"),
    (["--option", "last_word_s=99999999999999999999"], "--option.last_word_s"),
    (["--option", f"last_word_s={INT_OPTION_MAX + 1}"], "it takes a whole number from 0 to 86400"),
    (["--option", "nomination=middle"], "--option.nomination"),
    (["--rules", "poker"], "there are no rules «poker»"),
    (["--names", "11=Лев"], "--names 11"),
    (["--roles", "3=don"], "--roles"),
    (["--audio", "speakers"], "--audio"),
    (["--deal", "1" * 25], "--deal"),
]


@pytest.mark.parametrize("extra, says", BAD_RUNS, ids=lambda v: str(v))
@pytest.mark.usefixtures("english")
def test_run_refuses_a_bad_argument_before_any_audio_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str], extra: list[str],
                                                          says: str) -> None:
    """``--journal /dev/null`` used to be refused only after the voice warm-up (100 s cold)."""
    import voicehost.host.live as live

    def no_audio(*args: Any, **kwargs: Any) -> Any:
        raise AudioStarted("the voice warm-up started before the arguments were checked")
    monkeypatch.setattr(live, "open_live_voice", no_audio)
    (tmp_path / "full.jsonl").write_text('{"type": "game"}\n')
    argv = ["run", "--mock", "--no-ears", "--table", str(TABLE)] + [a.replace("{tmp}", str(tmp_path)) for a in extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err, err
    assert not list((tmp_path / "data").glob("journals/*.jsonl"))


# ---- every path accepts and refuses alike ---------------------------------------------------------

OPTION_CASES = [
    ({"last_word_s": 9999999999999999999}, False),
    ({"last_word_s": int("9" * 3000)}, False),
    ({"last_word_s": INT_OPTION_MAX + 1}, False),
    ({"last_word_s": -1}, False),
    ({"nomination": "middle"}, False),
    ({"colour": "red"}, False),
    ({"last_word_s": INT_OPTION_MAX}, True),
    ({"last_word_s": 30, "nomination": "last"}, True),
]


def accepted_by_each_path(tmp_path: Path, options: dict[str, Any]) -> dict[str, bool]:
    """Whether the web page, the command line, a table file and a journal header take ``options``."""
    results: dict[str, bool] = {}

    def attempt(name: str, how: Any) -> None:
        try:
            how()
            results[name] = True
        except (SetupError, InputError):
            results[name] = False

    attempt("web", lambda: read_choice({"ruleset": "sport", "options": options}, 10))
    attempt("command line", lambda: check_setup(SetupRequest(
        ruleset="sport", options={k: str(v) for k, v in options.items()}, table=TABLE)))
    toml = "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in options.items()) + " }"
    folder = tmp_path / f"t{len(list(tmp_path.iterdir()))}"
    path = table_file(folder, lambda text: text.replace("options = {}", f"options = {toml}", 1))
    attempt("table file", lambda: table_game(path))
    attempt("config check", lambda: check_folder(folder))
    attempt("journal header", lambda: setup_from_header(
        {"ruleset": "sport", "options": options, "seats": 10}, "game.jsonl:1"))
    return results


@pytest.mark.parametrize("options, ok", OPTION_CASES, ids=lambda v: str(v)[:40])
def test_every_path_accepts_what_every_other_path_accepts(tmp_path: Path, options: dict[str, Any], ok: bool) -> None:
    results = accepted_by_each_path(tmp_path, options)
    assert results == dict.fromkeys(results, ok), results


def test_a_web_game_at_the_largest_option_resumes_after_a_power_cut(tmp_path: Path) -> None:
    """What the web page takes is journaled as a resume reads it (the 19-digit value was journaled
    and the journal set aside as unreadable)."""
    choice = read_choice({"ruleset": "sport", "options": {"last_word_s": INT_OPTION_MAX},
                          "names": {"1": "Анна"}}, 10)
    journal = Journal(tmp_path / "game.jsonl", choice.header())
    deal = choice.first_deal(7)
    assert deal is not None
    journal.append(0, 0.0, "deal", deal)
    journal.close()
    game, resumed = resume_game(load_journal(tmp_path / "game.jsonl"), 10)
    resumed.close()
    assert game.options["last_word_s"] == INT_OPTION_MAX and game.names == {1: "Анна"} and game.inputs == [deal]


def test_a_refusal_names_its_place_and_what_would_be_taken() -> None:
    with pytest.raises(SetupRefused) as caught:
        check_setup(SetupRequest(ruleset="sport", options={"last_word_s": 10 ** 30}, seats=10))
    assert caught.value.place == "options.last_word_s"
    assert "not taken: it takes a whole number from 0 to 86400" in str(caught.value)


def test_the_journal_header_is_the_setup(tmp_path: Path) -> None:
    setup = check_setup(SetupRequest(ruleset="club", names=[("2", "Анна")], table=TABLE,
                                     journal=tmp_path / "g.jsonl", deal="typed",
                                     cards="1=don,2=mafia,3=mafia,4=sheriff,5=doctor,6=maniac"))
    header = setup.header()
    assert header == {"ruleset": "club", "options": dict(setup.options), "seats": 10, "level": "live",
                      "names": {"2": "Анна"}, "table": str(TABLE.resolve())}
    again = setup_from_header(header, "g.jsonl:1")
    assert again.options == setup.options and again.names == setup.names and again.seats == 10
    assert setup.first_deal(1) == setup.cards and setup.journal == tmp_path / "g.jsonl"


def test_an_unusable_table_file_is_refused_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    shutil.copyfile(TABLE, path)
    path.write_text(path.read_text().replace("\nrate = ", "\nrate = 9000 #", 1))
    with pytest.raises(SetupRefused, match="audio.rate"):
        check_setup(SetupRequest(ruleset="sport", table=path))


def test_a_lower_checks_whole_message_is_said_as_it_is_inside_a_refusal() -> None:
    """A message given whole (a table file's, a TOML reason quoting a brace) is no template: its
    braces are text, not placeholders to fill, when a setup refusal says it."""
    from voicehost.host.setup import _refused, _said, setup_refusal_text

    refusal = _refused("journal", "{message} (a resume could not read it back)",
                       message=_said(InputError("x", "bad {brace}")))
    assert setup_refusal_text(refusal).startswith("Bad {brace} (")
