"""One translation layer (issue 32): what a person reads that is not the host's voice is an
English id in the code, translated by the gettext catalog in voicehost/locale — Russian by
default, English when asked for. The catalog is complete and compiles to the committed .mo;
under the Russian default the main commands print no English words but the names a user types
(commands, options, files) and the record words of the protocol."""

from __future__ import annotations

import json
import re
import shutil
import string
import subprocess
from collections.abc import Set
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from voicehost import i18n

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "voicehost" / "locale" / "ru" / "LC_MESSAGES" / "voicehost.po"
COMPILED = CATALOG.with_suffix(".mo")
SOURCES = ("voicehost", "audio", "hw")
KEYWORDS = {"_": None, "ngettext": (1, 2), "N_": None}   # tools/translations' -k _ -k ngettext:1,2 -k N_
SAMPLE = ROOT / "examples" / "sport-sample.json"
TABLE = ROOT / "config" / "tables" / "ten-seats.toml"

babel = pytest.importorskip("babel", reason="Babel extracts the messages (pip install babel: the test extra)")


def extracted() -> dict[str, list[str]]:
    """Every message id the code marks (the singular of a plural), with the files it is in."""
    from babel.messages.extract import extract_from_dir

    found: dict[str, list[str]] = {}
    for source in SOURCES:
        for filename, _line, message, _comments, _context in extract_from_dir(
                ROOT / source, keywords=KEYWORDS, comment_tags=(), strip_comment_tags=True):
            key = message if isinstance(message, str) else message[0]
            found.setdefault(key, []).append(f"{source}/{filename}")
    return found


def catalog() -> Catalog:
    from babel.messages.pofile import read_po

    with CATALOG.open("rb") as file:
        return read_po(file, locale="ru")


def msgfmt() -> str:
    found = shutil.which("msgfmt")
    if found is None:
        pytest.skip("msgfmt is missing (Debian's gettext: setup.sh installs it for the tests)")
    return found


def test_every_message_the_code_marks_is_in_the_catalog_and_translated() -> None:
    book = catalog()
    missing = sorted(f"{message!r} ({', '.join(files)})" for message, files in extracted().items()
                     if book.get(message) is None)
    assert not missing, "not in the catalog (run tools/translations, then translate):\n" + "\n".join(missing)
    untranslated = [m.id for m in book if m.id and (not m.string or isinstance(m.string, tuple) and not all(m.string))]
    fuzzy = [m.id for m in book if m.id and m.fuzzy]
    assert not untranslated and not fuzzy, f"untranslated: {untranslated}; fuzzy: {fuzzy}"


def placeholders(text: str) -> set[str]:
    """The str.format fields of a message, or its %-fields (argparse's own messages)."""
    if re.search(r"%(\(\w+\))?[srd]", text) and "{" not in text:
        return set(re.findall(r"%(?:\((\w+)\))?[srd]", text))
    return {field for _literal, field, _spec, _conversion in string.Formatter().parse(text) if field is not None}


def test_each_translation_keeps_the_placeholders_of_its_message() -> None:
    wrong = []
    for message in catalog():
        if not message.id:
            continue
        assert isinstance(message.id, (str, tuple)), message.id   # a read catalog has no list ids or None strings
        assert isinstance(message.string, (str, tuple)), message.string
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = placeholders(ids[-1])
        # A translation may leave out a field that is English grammar only ({article}: a, an).
        wrong += [f"{ids[0]!r} → {text!r}" for text in strings if placeholders(text) - wanted]
    assert not wrong, "\n".join(wrong)


def test_the_catalog_passes_msgfmt_check_and_the_committed_mo_is_its_compilation(tmp_path: Path) -> None:
    """The .mo ships in the package (no compiler on a Pi): it must be exactly what msgfmt makes
    of the committed .po, so an edit of the .po without `tools/translations compile` fails here."""
    made = tmp_path / "voicehost.mo"
    done = subprocess.run([msgfmt(), "--check", "-o", str(made), str(CATALOG)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert made.read_bytes() == COMPILED.read_bytes(), "recompile: tools/translations compile"


def test_russian_is_the_default_and_english_is_asked_for() -> None:
    assert i18n.language_from({}) == "ru"
    assert i18n.language_from({"LANG": "C.UTF-8"}) == i18n.language_from({"LC_ALL": "POSIX"}) == "ru"
    assert i18n.language_from({"LANG": "de_DE.UTF-8"}) == "ru"   # a language we have no catalog for
    assert i18n.language_from({"LANG": "en_GB.UTF-8"}) == "en"
    assert i18n.language_from({"LANGUAGE": "en_US:ru", "LANG": "ru_RU.UTF-8"}) == "en"  # gettext's order
    assert i18n.language_from({"VOICEHOST_LANG": "ru", "LANG": "en_US.UTF-8"}) == "ru"
    assert i18n.language_from({"VOICEHOST_LANG": "en"}) == "en"


def test_a_translation_follows_the_language_asked_for(russian: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert i18n._("Season points") == "Очки за сезон"
    assert [i18n.ngettext("{count} game", "{count} games", n).format(count=n) for n in (1, 3, 5, 21)] == [
        "1 игра", "3 игры", "5 игр", "21 игра"]
    monkeypatch.setenv("VOICEHOST_LANG", "en")
    assert i18n._("Season points") == "Season points"
    i18n.set_language("ru")
    assert i18n._("Season points") == "Очки за сезон"
    with pytest.raises(ValueError):
        i18n.set_language("fr")


# ---- the commands under the Russian default print no English ----

# Latin words a Russian reader meets in the output that are not English text: what a user types
# or reads back in a file (commands, options, their choices and metavars come from the parser
# itself), the protocol's record words (roles, teams, causes, the console's commands and the
# inputs they journal), and names (Raspberry Pi, GPIO, UTF-8).
NAMES = {"voicehost", "GPIO", "Raspberry", "Pi", "Ctrl", "UTF", "UTC", "HAT", "LED", "GND", "BCM", "USB", "Bluetooth",
         "sqlite", "postgresql", "psycopg", "json", "jsonl", "toml", "png", "svg", "sudo", "systemctl", "export",
         "unset", "raspi", "config", "nonint", "do_serial_cons", "VOICEHOST_CONFIG", "VOICEHOST_LANG", "vosk"}


def typed_words() -> set[str]:
    """Every command, option word, choice and metavar of the command line, and the record words."""
    import argparse

    from voicehost.cli.main import build_parser
    from voicehost.host.commands import REGISTRY as COMMANDS
    from voicehost.records.tournament import TIE_BREAKS
    from voicehost.rules import GAMES, Role, Team
    from voicehost.rules.inputs import Input
    from voicehost.rules.records import family

    words: set[str] = set()

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            words.update(re.findall(r"[A-Za-z]+", " ".join(action.option_strings)))
            words.update(str(choice) for choice in action.choices or () if isinstance(choice, str))
            if isinstance(action.metavar, str):
                words.update(re.findall(r"[A-Za-z]+", action.metavar))
            if not action.option_strings:   # a positional's name, shown as its placeholder
                words.update(re.findall(r"[A-Za-z]+", action.dest))
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)

    walk(build_parser())
    words |= set(COMMANDS) | set(GAMES) | {role.value for role in Role} | {team.value for team in Team}
    words |= set(family(Input)) | {"nobody", "voted", "killed", "removed"}
    words |= set(TIE_BREAKS)   # what --tie-breaks takes, named back in the standings
    return words


def english_words(text: str, allowed: set[str]) -> list[str]:
    """The Latin words of ``text`` that are none of the allowed ones, outside paths, URLs,
    options, what the user typed (echoed in quotes) and record ids (snake_case, CAPITALS, hex)."""
    text = re.sub(r"'[^'\n]*'|«[^»\n]*»", " ", text)
    found = []
    for token in text.split():
        if ("/" in token or "://" in token or token.lstrip("«(\"'").startswith("-") or "=" in token
                or re.search(r"[A-Za-z0-9]\.[A-Za-z]", token)):   # a file name, a host
            continue
        for word in re.findall(r"[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*", token):   # digits glued on: an id
            if (word in allowed or word.lower() in allowed or "_" in word or word.isupper()
                    or any(c.isdigit() for c in word)):
                continue
            found.append(word)
    return found


def assert_no_english(text: str, what: str, also: Set[str] = frozenset()) -> None:
    words = english_words(text, typed_words() | NAMES | also)
    assert not words, f"{what} prints English under the Russian default: {sorted(set(words))}\n{text[-3000:]}"


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from voicehost.cli.main import main

    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_checker_sees_english_and_passes_what_a_user_types() -> None:
    allowed = {"voicehost", "demo", "audio", "off", "foul"}
    assert english_words("Итог игры: нет. Протокол: /tmp/x.json (voicehost demo --json), foul", allowed) == []
    assert english_words("records: game 1a2b stored in sqlite:///r.sqlite", allowed) == ["records", "game", "stored",
                                                                                       "in"]
    # A record id is hex: one that ends in letters (4204501b) is an id, not the word "b".
    assert english_words("игра 4204501b сохранена; лучший игрок: voicehost records best 42045bcd", allowed) == [
        "records", "best"]
    assert english_words("winner red (no_black_left), seat NICK|SEAT, 'typed words' «and these»", allowed) == [
        "winner", "red", "seat"]


def test_demo_simulate_records_and_config_check_speak_russian(russian: None, capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    code, out, err = run_main(capsys, "demo", "--audio", "off", "--pace", "0", "--speed", "1000")
    assert code == 0 and "Итог игры:" in out, out + err
    assert_no_english(out + err, "demo")
    protocol = re.search(r"Протокол: (\S+\.protocol\.json)", out)
    assert protocol is not None, out

    code, out, err = run_main(capsys, "simulate", str(SAMPLE))
    assert code == 0, err
    assert_no_english(out + err, "simulate")

    from test_club_records import protocol_files

    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    season = [str(path) for path in protocol_files(tmp_path / "games", 3)]
    for argv in (["import", protocol[1], *season], ["games"], ["ratings"], ["chart", str(tmp_path / "season.png")],
                 ["export", "--format", "csv", "--out", str(tmp_path / "games.csv")]):
        code, out, err = run_main(capsys, "records", *argv, "--db", db)
        assert code == 0, err
        assert_no_english(out + err, f"records {argv[0]}")

    code, out, err = run_main(capsys, "config", "check")
    assert code == 0 and out.startswith("ок: проверено"), out + err
    assert_no_english(out + err, "config check")


@pytest.mark.parametrize("argv", [
    [], ["demo", "--speed", "x"], ["demo", "--bogus"], ["simulate"], ["demo", "--seed", "1", "--rules", "poker"],
    ["records", "games", "--since", "yesterday"], ["frobnicate"],
    ["simulate", "/nonexistent.json"],
    ["hw", "test", "--table", str(TABLE), "--rules", "sport", "--timeout", "999"],
    ["demo", "--rules", "sport", "--option", "nomination=sometimes"],
], ids=["no command", "a bad number", "an unknown option", "a missing argument", "an unknown ruleset", "a bad date",
        "an unknown command", "no such file", "out of range", "a bad option value"])
def test_a_bad_argument_is_one_russian_line(russian: None, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run_main(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and "ошибка:" in err, err
    assert_no_english(err, " ".join(argv) or "voicehost")


@pytest.mark.parametrize(("file", "text", "said"), [
    ("rules/sport.toml", 'name = "sport"\n[bad\n', "ошибка в TOML: строка 2, столбец 5"),
    ("rules/sport.toml", 'name = "sport"\ntitle = 3\n', "title: должно быть строкой"),
    ("rules/sport.toml", 'name = "sport"\n[cast]\n10 = {don = 1, mafia = 12}\n', "больше, чем мест"),
    ("rules/sport.toml", b'name = "\xff"\n', "это не текст в UTF-8"),
], ids=["bad TOML", "a wrong type", "a cast that does not fit", "not UTF-8"])
def test_config_check_of_a_broken_file_is_one_russian_line(russian: None, capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path, file: str, text: str | bytes,
                                                           said: str) -> None:
    """The file gate's, the config's and the rules' errors (below the language layer) are said at
    the edge: their English template is translated where the line is printed."""
    broken = tmp_path / file
    broken.parent.mkdir(parents=True)
    broken.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    code, out, err = run_main(capsys, "config", "check", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and said in err and str(broken) in err, err
    assert_no_english(err, f"config check of {file}", {"title", "cast", "xff"})   # the file's keys, a byte in hex


# ---- tomllib's own reasons, said in the language in use ----

BROKEN_TOML = [
    ('name = "sport"\n[timers\n', 2, 8, "ожидается «]» в конце заголовка таблицы"),
    ('name = "sport"\nname = "classic"\n', 2, 17, "это значение уже задано выше"),
    ('name = "sport"\ntitle = Спорт\n', 2, 9, "непонятное значение (текст пишут в кавычках)"),
    ('name = "sport"\n[cast]\n[cast]\n', 3, 6, "таблица «cast» объявлена дважды"),
    ('name = "sport"\ntitle = "C:\\q"\n', 2, 14, "одиночная обратная косая черта «\\» в строке"),
    ('name = "sport"\ntitle = "Спорт\n', 2, 15, "недопустимый в строке символ"),
]


@pytest.mark.parametrize(("text", "line", "column", "said"), BROKEN_TOML,
                         ids=["a table header", "a key twice", "a bare word", "a table twice", "a backslash",
                              "an open string"])
def test_a_broken_toml_file_is_one_russian_line_with_its_line_and_column(russian: None,
                                                                         capsys: pytest.CaptureFixture[str],
                                                                         tmp_path: Path, text: str, line: int,
                                                                         column: int, said: str) -> None:
    broken = tmp_path / "rules" / "sport.toml"
    broken.parent.mkdir()
    broken.write_text(text, encoding="utf-8")
    code, out, err = run_main(capsys, "config", "check", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"voicehost: ошибка: {broken}: ошибка в TOML: строка {line}, столбец {column}: {said}"), err
    assert_no_english(err.replace(str(broken), " "), "a broken TOML file")


def test_a_broken_pin_map_is_one_russian_line_through_the_hw_path_too(russian: None, capsys: pytest.CaptureFixture[str],
                                                                      tmp_path: Path) -> None:
    """A table file read by ``hw test`` and ``config check`` (voicehost's file gate), and by hw's
    own :func:`~hw.pinmap.load_pinmap` (hw says it through voicehost's catalog when it runs)."""
    from hw.pinmap import PinMapError, load_pinmap

    table = tmp_path / "tables" / "broken.toml"
    table.parent.mkdir()
    table.write_text('name = "broken"\n[[seat]\nbutton = 5\n', encoding="utf-8")
    said = "ошибка в TOML: строка 2, столбец 7: ожидается «]]» в конце заголовка массива таблиц"
    for argv in (["hw", "test", "--mock", "--table", str(table)], ["config", "check", str(tmp_path)]):
        code, out, err = run_main(capsys, *argv)
        assert code == 2 and err == f"voicehost: ошибка: {table}: {said}\n", err
    with pytest.raises(PinMapError) as raised:
        load_pinmap(table)
    assert str(raised.value) == f"{table}: {said}"
    assert_no_english(str(raised.value).replace(str(table), " "), "load_pinmap")


def test_hw_on_its_own_says_tomllibs_reason_as_it_came(tmp_path: Path) -> None:
    import sys

    table = tmp_path / "broken.toml"
    table.write_text("[[seat]\n", encoding="utf-8")
    program = ("import sys\nfrom hw.pinmap import load_pinmap\ntry:\n"
               f"    load_pinmap({str(table)!r})\nexcept ValueError as err:\n    print(err)\n"
               "print('voicehost' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout == (f"{table}: not valid TOML (Expected ']]' at the end of an array declaration "
                           "(at line 1, column 7))\nFalse\n"), done.stdout + done.stderr


def tomllib_reasons() -> set[str]:
    """Every reason Python's own tomllib gives (each ``suffixed_err(src, pos, "…")`` of its
    parser), its fields blanked to {}."""
    import ast
    import tomllib

    source = (Path(tomllib.__file__).parent / "_parser.py").read_text(encoding="utf-8")
    found = re.findall(r'suffixed_err\(\s*src,\s*\w+,\s*f?("(?:[^"\\]|\\.)*")', source)
    return {re.sub(r"\{[^}]*\}", "{}", ast.literal_eval(text)) for text in found}


def test_every_reason_tomllib_gives_is_in_the_catalog() -> None:
    """A later Python that adds a reason fails here: add it to i18n.TOML_REASONS and translate it."""
    ours = {re.sub(r"\{[^}]*\}", "{}", reason) for reason in i18n.TOML_REASONS}
    assert len(tomllib_reasons()) >= 20
    assert not tomllib_reasons() - ours, "tomllib says these, voicehost does not translate them"


@pytest.mark.parametrize(("text", "said"), [
    ("a = 1\na = 2\n", "ошибка в TOML: строка 2, столбец 6: это значение уже задано выше"),
    ("s = '''abc", "ошибка в TOML: в конце файла: ожидается \"'''\""),
    ("a = {b = 1", "ошибка в TOML: в конце файла: встроенная таблица не закрыта фигурной скобкой"),
    ("a = {x = 1, x = 2}", "ошибка в TOML: строка 1, столбец 18: ключ «x» повторяется во встроенной таблице"),
    ("a = " + "1" * 5000, "ошибка в TOML: в целом числе 5000 цифр, это больше предела в 4300"),
    ("@ = 1", "ошибка в TOML: строка 1, столбец 1: непонятная строка: ожидается «ключ = значение», [таблица] "
              "или комментарий"),
], ids=["a value twice", "an open multi-line string", "an open inline table", "an inline key twice",
        "too many digits", "a bad statement"])
def test_tomllibs_reason_in_russian_and_as_it_came_in_english(russian: None, text: str, said: str) -> None:
    import tomllib

    with pytest.raises(ValueError) as raised:
        tomllib.loads(text)
    message = i18n.toml_error(str(raised.value))
    assert i18n.said(message.template, message.values) == said
    assert isinstance(message.values["why"], str)
    assert message.values["why"] in str(raised.value) or "«x»" in said   # the reason is kept (a key: unquoted)
    i18n.set_language("en")
    assert i18n.said(message.template, message.values) == str(message)
    assert str(message).startswith("not valid TOML")


def test_an_unknown_reason_is_quoted_as_it_came(russian: None) -> None:
    def said(why: str) -> str:
        message = i18n.toml_error(why)
        return i18n.said(message.template, message.values)

    assert said("Something new (at line 3, column 4)") == "ошибка в TOML: строка 3, столбец 4 (разбор: «Something new»)"
    assert said("Something new (at end of document)") == "ошибка в TOML: в конце файла (разбор: «Something new»)"
    assert said("no place at all") == "ошибка в TOML (разбор: «no place at all»)"


def test_an_error_below_the_language_layer_stays_english_in_the_code(russian: None) -> None:
    """The error object keeps the English (what other code matches, what a log in a bug report
    shows); only the edge that prints it translates."""
    from voicehost.files import read_bytes
    from voicehost.rules import InputError

    with pytest.raises(InputError) as raised:
        read_bytes("/nonexistent.json", "script")
    err = raised.value
    assert err.message == "no such file (a script was expected)"
    assert err.template == "no such file (a {what} was expected)"
    assert i18n.said(err.template, err.values) == "такого файла нет (ожидается: сценарий)"
    moved = err.moved_to("there")
    assert (moved.place, moved.message, moved.values) == ("there", err.message, err.values)


def test_tournament_plan_standings_and_records_elo_speak_russian(russian: None, capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    from test_tournament_records import NAME, create, schedule, tournament_protocols

    code, out, err = run_main(capsys, "tournament", "plan", "--players", "20", "--tables", "2", "--rounds", "3")
    assert code == 0, err
    assert_no_english(out + err, "tournament plan")
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    plan = schedule()
    create(capsys, db, tmp_path, plan)
    run_main(capsys, "records", "import", *map(str, tournament_protocols(tmp_path / "games", plan)), "--db", db)
    for argv in (["tournament", "standings", NAME], ["records", "elo"], ["records", "games"], ["records", "ratings"]):
        code, out, err = run_main(capsys, *argv, "--db", db)
        assert code == 0 and out.strip(), err
        assert_no_english(out + err, " ".join(argv[:2]))


def test_records_tables_say_the_record_words(russian: None, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A table a person reads names roles, winners and endings in Russian; the JSON keeps the protocol's words."""
    from test_club_records import protocol_files

    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    run_main(capsys, "records", "import", *map(str, protocol_files(tmp_path / "games", 2)), "--db", db)
    code, out, _err = run_main(capsys, "records", "games", "--db", db)
    assert code == 0 and ("красные" in out or "чёрные" in out) and "(мирный житель)" in out, out
    assert not re.search(r"\((citizen|sheriff|don|mafia)\)|\b(red|black) \(", out), out
    code, out, _err = run_main(capsys, "records", "games", "--json", "--db", db)
    assert json.loads(out)[0]["winner"] in ("red", "black")


def command_paths() -> list[list[str]]:
    """Every command and subcommand, found by walking the parser itself: a command added later
    is covered without touching this list."""
    import argparse

    from voicehost.cli.main import build_parser

    paths: list[list[str]] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        paths.append(path)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])

    walk(build_parser(), [])
    return paths


def test_the_walk_finds_every_command_group_and_their_subcommands() -> None:
    found = {" ".join(path) for path in command_paths()}
    assert {"", "demo", "run", "serve", "bench", "records", "records import", "tournament screen", "hw diagram",
            "ears test", "config check"} <= found


# Names in the help that are neither English text nor typed: the programs it names, a scoring scheme.
HELP_NAMES = {"espeak", "ng", "gpiozero", "systemd", "Elo", "showtime"}


@pytest.mark.parametrize("command", command_paths(), ids=lambda path: " ".join(path) or "voicehost")
def test_every_commands_help_is_russian(russian: None, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    """``--help`` of each command: past the usage (option names and placeholders the user
    types), the description, the headings and every option's help are Russian."""
    monkeypatch.setenv("COLUMNS", "1000")   # one line an option: a «quoted value» is never wrapped apart
    code, out, err = run_main(capsys, *command, "--help")
    assert code == 0 and out.startswith("использование: voicehost"), out + err
    _usage, _blank, shown = out.partition("\n\n")
    assert shown.strip(), out
    assert_no_english(shown, " ".join(["voicehost", *command, "--help"]), HELP_NAMES)


def test_the_help_stays_english_when_asked_for(russian: None, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "1000")
    code, out, _err = run_main(capsys, "--lang", "en", "--help")
    assert code == 0 and "host a game at the real table (seat panel, speaker, microphone)" in out, out
    code, out, _err = run_main(capsys, "--lang", "en", "records", "import", "--help")
    usage = "usage: voicehost records import [-h] [--db URL] [--table TABLE] [--from {mafiaratings,polemica}] FILE"
    assert code == 0 and usage + " [FILE ...]" in out
    assert "the table name the games carry" in out
    code, out, _err = run_main(capsys, "--lang", "en", "simulate")
    assert "the following arguments are required: script" in _err


def test_ears_tests_report_is_russian(russian: None) -> None:
    from voicehost.host.calibration import (
        NoiseFloor,
        Report,
        suggest_endpoint,
        suggest_hold_off,
        suggest_min_confidence,
    )

    floor = NoiseFloor(rms_dbfs=-45.0, peaks_dbfs=-38.0, seconds=3.0)
    suggestions = [suggest_hold_off([0.31, -0.2], 0.4), *suggest_endpoint([0.4], 2, {"rule2_s": 0.5, "rule3_s": 1.0,
                                                                                      "rule4_s": 2.0}),
                   suggest_min_confidence([0.8, 0.9], [0.5], None)]
    report = Report("voice", "/models/vosk-ru", "hw:1,0", floor, [], [], suggestions, ["шериф"],
                    ["the microphone delivered its audio late and in bursts: its figures are rough"])
    text = report.text()
    assert "Шум зала" in text and "нормально" in text and "Примечание: микрофон" in text, text
    assert_no_english(text.replace("dBFS", "").replace("RMS", ""), "ears test")
    assert "0.31 s after" in suggestions[0].why   # the JSON report keeps the English


def test_run_with_a_typed_console_speaks_russian(russian: None, tmp_path: Path) -> None:
    from processes import run_voicehost

    typed = b"status\nhelp\nfoul 3\nundo\nnominate 1\nremove 3\nremove 5\nremove 9\n"
    done = run_voicehost(["run", "--mock", "--no-ears", "--audio", "off", "--speed", "1000", "--table", str(TABLE),
                          "--roles", "3=don,5=mafia,9=mafia,7=sheriff", "--journal", "game.jsonl",
                          "--db", f"sqlite:///{tmp_path / 'records.sqlite'}"], input=typed, cwd=tmp_path)
    shown = done.stdout + done.stderr
    assert done.returncode == 0, shown
    assert "пульт: «undo»: Отменено замечание игроку 3." in shown and "отмена foul" not in shown \
        and "пульт: «help» отклонено:" in shown and "ведущий: " in shown, shown
    assert "game.protocol.json — красные (чёрных не осталось)" in shown, shown   # not (red, no_black_left)
    assert_no_english(shown, "run")


def test_the_appliances_protocol_line_says_who_won_and_why(russian: None, tmp_path: Path) -> None:
    """``serve``'s line for a finished game names the winner and the ending as the records tables
    do (voicehost.language.record_words), not in the protocol's words."""
    from voicehost.config import load_ruleset
    from voicehost.service.table import IdleTable, TableSetup
    from voicehost.simulation.engine_level import simulate
    from voicehost.simulation.script import load_script

    game = simulate(load_script(SAMPLE)).game
    outcome = game.outcome()
    assert outcome is not None
    ruleset = load_ruleset("sport")
    printed: list[str] = []
    table = IdleTable(TableSetup(ruleset, ruleset.resolve({}), 10, tmp_path),
                      ports=None,  # type: ignore[arg-type]  # writing a protocol uses no ports
                      log=printed.append)
    table._write_protocol(game, tmp_path / "game.jsonl")
    line = next(line for line in printed if line.startswith("протокол: "))
    words = {"red": "красные", "black": "чёрные"}[outcome.winner]
    assert line.startswith(f"протокол: {table.played[0]} — {words} (") and outcome.reason not in line, line
    assert_no_english(line.replace(str(table.played[0]), " "), "serve's protocol line", set())
    assert outcome.winner not in line.split(" — ")[1]
    i18n.set_language("en")
    printed.clear()
    table._write_protocol(game, tmp_path / "game.jsonl")
    assert printed[0].startswith(f"protocol: {table.played[1]} — {outcome.winner} (")


@pytest.mark.parametrize("how", ["--lang", "VOICEHOST_LANG", "LANG"])
def test_english_when_asked_for(russian: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                how: str) -> None:
    argv = ["--lang", "en"] if how == "--lang" else []
    if how != "--lang":
        monkeypatch.setenv(how, "en" if how == "VOICEHOST_LANG" else "en_GB.UTF-8")
    code, out, err = run_main(capsys, *argv, "demo", "--speed", "x")
    assert code == 2 and err == "voicehost demo: error: argument --speed: 'x' is not a number (see --help)\n"
    code, out, err = run_main(capsys, *argv)
    assert code == 2 and err == "voicehost: error: the following arguments are required: command (see --help)\n"
    code, out, err = run_main(capsys, *argv, "--help")
    assert code == 0 and out.startswith("usage: voicehost") and "show this help message and exit" in out
    code, out, err = run_main(capsys, *argv, "config", "check")
    assert code == 0 and out.startswith("ok: ") and out.rstrip().endswith("files checked")
    code, out, err = run_main(capsys, *argv, "demo", "--audio", "off", "--pace", "0", "--speed", "1000")
    assert code == 0 and "Result: " in out and "Club records: the game is not recorded" in out
    # The written log is read, not heard: English too (voicehost/language/read_lines.py).
    assert "The game is over: " in out and "Игра окончена" not in out


def test_the_language_of_one_call_does_not_leak_into_the_next(russian: None,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    run_main(capsys, "--lang", "en", "config", "check")
    code, out, _err = run_main(capsys, "config", "check")
    assert out.startswith("ок: проверено")


def test_the_russian_usage_and_help_headings(russian: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys)
    assert err == "voicehost: ошибка: не хватает обязательных аргументов: команда (см. --help)\n"
    code, out, err = run_main(capsys, "--help")
    assert code == 0 and out.startswith("использование: voicehost") and "параметры:" in out
    assert "показать эту справку и выйти" in out


def test_the_wiring_diagram_is_in_the_language_in_use(russian: None, capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    out_file = tmp_path / "wiring.svg"
    code, out, err = run_main(capsys, "hw", "diagram", "--table", str(TABLE), str(out_file))
    assert code == 0 and out.startswith(f"{out_file}: мест — 10"), out + err
    svg = out_file.read_text(encoding="utf-8")
    assert "Место 1" in svg and "кнопка: GPIO" in svg and "светодиод: GPIO" in svg
    texts = " ".join(re.findall(r">([^<>]+)</text>", svg))
    assert_no_english(texts.replace("GPIO", " GPIO "), "hw diagram")


def test_the_chart_is_titled_in_the_language_in_use(russian: None, capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    from test_club_records import protocol_files

    from voicehost.records.chart import season_figure
    from voicehost.records.store import open_records

    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    run_main(capsys, "records", "import", *map(str, protocol_files(tmp_path / "games", 2)), "--db", db)
    with open_records(db) as records:
        rows = records.seat_rows()
    import matplotlib.pyplot as plt

    figure, _leaders = season_figure(rows)
    try:
        axes = figure.axes[0]
        assert axes.get_title() == "Очки за сезон" and axes.get_ylabel() == "очки"
        assert axes.get_xlabel().startswith("игры сезона по порядку: №1 — ")
    finally:
        plt.close(figure)


def test_the_catalog_header_says_russian_plurals() -> None:
    book = catalog()
    assert str(book.locale) == "ru" and book.num_plurals == 3
    assert json.dumps(book.plural_expr)  # the three Russian forms (1 игра, 2 игры, 5 игр) are checked above


# ---- issue 32: what bypassed the catalog ----

def ruleset_words() -> set[str]:
    """What ``rules show`` quotes of a ruleset file: option names and values, timers (what a club
    types in ``--option`` or its own toml), and the seeds the sources cite (documents' names)."""
    import tomllib

    words = {"seed", "true", "false"}
    for path in (ROOT / "config" / "rules").glob("*.toml"):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for name, spec in data.get("options", {}).items():
            words.add(name)
            words.update(str(value) for value in spec.get("values", ()))
            words.add(str(spec.get("default")))
    return words


@pytest.mark.parametrize("name", ["sport", "classic", "club", "canonical"])
def test_rules_show_speaks_russian(russian: None, capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = run_main(capsys, "rules", "show", name)
    assert code == 0 and "  настройки:" in out, out + err
    assert_no_english(out + err, f"rules show {name}", ruleset_words() | {"companion"})   # mafia-companion: a tool


def test_every_option_text_of_the_shipped_rulesets_is_in_the_catalog() -> None:
    """The doc and source of each option reach the catalog through the extraction step
    (tools/babel.cfg: voicehost.language.rule_docs), so rules show can say them."""
    from voicehost.language.rule_docs import extract

    book = catalog()
    missing = []
    for path in sorted((ROOT / "config" / "rules").glob("*.toml")):
        with path.open("rb") as file:
            texts = [message for _line, _function, message, _comments in extract(file, (), (), {})]
        assert texts, path
        missing += [f"{path.name}: {text!r}" for text in texts
                    if (found := book.get(text)) is None or not found.string]
    assert not missing, "not in the catalog (run tools/translations, then translate):\n" + "\n".join(missing)


def test_records_best_with_a_bad_id_or_seat_is_one_russian_line(russian: None, capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    from test_club_records import protocol_files

    db = f"sqlite:///{tmp_path / 'records.sqlite'}"
    run_main(capsys, "records", "import", *map(str, protocol_files(tmp_path / "games", 1)), "--db", db)
    code, out, err = run_main(capsys, "records", "best", "ffffffff", "3", "--db", db)
    assert code == 2 and err == "voicehost: ошибка: ffffffff: такой игры нет\n", err
    code, out, _err = run_main(capsys, "records", "games", "--json", "--db", db)
    game = json.loads(out)[0]["id"][:8]
    code, out, err = run_main(capsys, "records", "best", game, "Никто", "--db", db)
    assert code == 2 and "в этой игре нет такого места или игрока" in err, err
    assert_no_english(err, "records best")
    code, out, err = run_main(capsys, "records", "games", "--db", f"sqlite:///{tmp_path / 'no' / 'r.sqlite'}")
    assert code == 2 and "нет папки" in err, err
    assert_no_english(err, "records with no such folder")


def test_a_deal_that_does_not_fit_is_said_in_russian(russian: None, capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    script = json.loads(SAMPLE.read_text(encoding="utf-8"))
    script["roles"] = {"3": "don"}
    broken = tmp_path / "deal.json"
    broken.write_text(json.dumps(script, ensure_ascii=False), encoding="utf-8")
    code, out, err = run_main(capsys, "simulate", str(broken))
    assert code == 2 and "столу нужны карты: шериф — 1, дон — 1, мафия — 2; в раздаче: дон — 1" in err, err
    assert_no_english(err.replace(str(broken), " "), "a deal that does not fit")
    i18n.set_language("en")
    code, out, err = run_main(capsys, "--lang", "en", "simulate", str(broken))
    assert "the table needs 1 sheriff, 1 don, 2 mafia; the deal has 1 don" in err, err


def test_model_check_without_a_model_is_russian(russian: None, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from voicehost.host import ears

    missing = tmp_path / "no-model"
    monkeypatch.setenv("VOICEHOST_VOSK_MODEL", str(missing))
    code, out, err = run_main(capsys, "model", "check")
    assert code == 2 and "нет такой папки модели" in err, err
    assert_no_english(err.replace(str(missing), " "), "model check with no such folder")
    (missing / "am").mkdir(parents=True)
    code, out, err = run_main(capsys, "model", "check")
    assert code == 2 and "не модель vosk" in err, err
    assert_no_english(err.replace(str(missing), " "), "model check of a folder that is no model")
    monkeypatch.delenv("VOICEHOST_VOSK_MODEL")
    monkeypatch.setattr(ears, "MODELS", tmp_path / "models")
    code, out, err = run_main(capsys, "model", "check")
    assert code == 2 and "модель не установлена" in err and "ПАПКА/" in err, err
    assert_no_english(err.replace(str(tmp_path), " "), "model check with nothing installed")


def test_the_install_hints_are_english_under_lang_en(russian: None) -> None:
    from voicehost.host.ears import install_hint, offline_install

    i18n.set_language("en")
    hint = install_hint()
    assert hint.startswith("no model installed: with internet, voicehost model install (downloads https://")
    assert hint.endswith("install it from the file: voicehost model install FOLDER/vosk-model-small-ru-0.22.zip")
    offline = offline_install("https://example.org/m.zip", "timed out")
    assert offline.startswith("cannot download https://example.org/m.zip (timed out).")
    assert not re.search("[А-Яа-яЁё]", hint + offline), hint + offline
    i18n.set_language("ru")
    assert "ПАПКА/m.zip" in offline_install("https://example.org/m.zip", "timed out")


def test_service_install_says_a_missing_group_in_russian(russian: None, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from voicehost.service import unit

    monkeypatch.setattr(unit, "_group_exists", lambda group: False)
    ran: list[list[str]] = []
    unit.install("ten-seats", "voicehost-test-nobody", unit_dir=tmp_path, run=ran.append)
    out = capsys.readouterr().out
    assert out.startswith("voicehost: групп gpio, audio") or out.startswith("voicehost: групп audio, gpio"), out
    assert_no_english(out, "service install", set(unit.GROUPS))
    monkeypatch.setattr(unit, "_group_exists", lambda group: group != "gpio")
    unit.install("ten-seats", "voicehost-test-nobody", unit_dir=tmp_path, run=ran.append)
    assert capsys.readouterr().out.startswith("voicehost: группы gpio на этой машине нет")


def test_hw_test_and_the_diagrams_title_speak_russian(russian: None, capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    code, out, err = run_main(capsys, "hw", "test", "--table", str(TABLE), "--mock", "--rules", "sport")
    assert code == 0 and "все места отвечают" in out, out + err
    assert_no_english(out + err, "hw test")
    out_file = tmp_path / "wiring.svg"
    run_main(capsys, "hw", "diagram", "--table", str(TABLE), str(out_file))
    title = re.search(r'font-size="16">([^<]+)</text>', out_file.read_text(encoding="utf-8"))
    assert title is not None and title[1].endswith(": 10 мест"), title
    from hw.diagram import diagram_svg
    from hw.pinmap import load_pinmap

    i18n.set_language("en")
    assert ": 10 seats</text>" in diagram_svg(load_pinmap(TABLE))


def test_no_audio_device_is_said_in_russian(russian: None, no_audio_device: None) -> None:
    from audio.mixer import Mixer
    from audio.output import AudioOut

    logged: list[str] = []
    mixer = Mixer()
    out = AudioOut(mixer, "default", log=logged.append)
    out.close()
    mixer.close()
    assert logged and logged[0].startswith("voicehost: нет звукового устройства (звуковая карта не подключена или не "
                                           "выбрана по умолчанию)"), logged
    assert_no_english(logged[0], "no audio device")   # PortAudio's «Error querying device -1» said in our words


def test_gpio_off_a_pi_is_said_in_russian(russian: None) -> None:
    """``hw test`` off a Pi ended in gpiozero's «BadPinFactory: Unable to load any default pin factory!»."""
    from gpiozero.exc import BadPinFactory

    from hw.panel import pins_refused

    line = pins_refused(BadPinFactory("Unable to load any default pin factory!"))
    assert line.startswith("не открыть выводы мест: на этой машине нет выводов GPIO") and "Unable" not in line, line
    assert_no_english(line, "a seat panel off a Pi", {"gpio", "gpiozero", "raspberry", "pi"})


def test_lang_is_taken_after_the_command_too(russian: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "config", "check", "--lang", "en")
    assert code == 0 and out.startswith("ok: "), out + err
    code, out, err = run_main(capsys, "demo", "--speed", "x", "--lang=en")
    assert code == 2 and err == "voicehost demo: error: argument --speed: 'x' is not a number (see --help)\n", err
    code, out, err = run_main(capsys, "demo", "--help", "--lang", "en")
    assert code == 0 and out.startswith("usage: voicehost demo"), out
    code, out, err = run_main(capsys, "config", "check")
    assert out.startswith("ок: проверено")   # the next call is Russian again
    code, out, err = run_main(capsys, "config", "check", "--lang", "fr")
    assert code == 2 and "--lang" in err and "fr" in err, err


def test_rules_show_counts_the_cards_as_a_refused_deal_does(russian: None, capsys: pytest.CaptureFixture[str]) -> None:
    """«мафия — 2», not «2 мафия»: the role words are not declined, so the count follows them."""
    code, out, err = run_main(capsys, "rules", "show", "classic")
    assert code == 0 and "  состав при 11: мафия — 3, комиссар — 1, доктор — 1, путана — 1\n" in out, out + err
    code, out, err = run_main(capsys, "--lang", "en", "rules", "show", "classic")
    assert "  cast at 11: 3 mafia, 1 commissar, 1 doctor, 1 putana\n" in out, out + err


# ---- one text per refusal: the Russian default says no English, --lang en no Russian (issue 40) ---------------

def test_the_russian_default_says_no_english_fragment_in_the_command_lines_refusals(
        russian: None, capsys: pytest.CaptureFixture[str]) -> None:
    """«не хватает обязательных аргументов: records_command» and «--option.nomination: 'sometimes' is not
    one of first, last» (the option checker's English inside the setup refusal) under the Russian default."""
    from voicehost.config import load_ruleset

    code, out, err = run_main(capsys, "records")
    assert code == 2 and err == "voicehost records: ошибка: не хватает обязательных аргументов: команда (см. --help)\n"
    code, out, err = run_main(capsys, "run", "--mock", "--no-ears", "--option", "nomination=sometimes")
    assert code == 2 and err == ("voicehost: ошибка: --option.nomination: параметр «nomination» не принят: "
                                 "нужно одно из: first, last\n"), err
    for argv in (["--option", "last_word_s=x"], ["--option", "colour=red"], ["--rules", "poker"],
                 ["--names", "11=Лев"], ["--roles", "3=don"], ["--deal", "1" * 25]):
        code, out, err = run_main(capsys, "run", "--mock", "--no-ears", *argv)
        assert code == 2 and err.count("\n") == 1, err
        assert_no_english(err, f"run {' '.join(argv)}", set(load_ruleset("sport").options))


ENGLISH_RUNS = [["--option", "nomination=sometimes"], ["--option", "last_word_s=x"], ["--option", "colour=red"],
                ["--rules", "poker"], ["--names", "11=Лев"], ["--names", "1=Лев,2=лев"], ["--roles", "3=don"],
                ["--table", str(TABLE), "--roles", "3=don"], ["--deal", "1" * 25], ["--journal", "/dev/null"]]


@pytest.mark.parametrize("argv", ENGLISH_RUNS, ids=lambda argv: " ".join(argv)[:40])
@pytest.mark.usefixtures("english")
def test_under_english_a_setup_refusal_carries_no_russian_outside_names(
        capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run_main(capsys, "run", "--mock", "--no-ears", *argv)
    assert code == 2 and err.startswith("voicehost: error: ") and err.count("\n") == 1, err
    assert not re.search("[А-Яа-яЁё]", re.sub("[Лл]ев", "", err)), err


@pytest.mark.usefixtures("english")
def test_under_english_rules_show_and_the_groups_refusals_carry_no_russian(capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.config import load_ruleset, ruleset_names

    for name in ruleset_names():
        code, out, err = run_main(capsys, "rules", "show", name)
        title = load_ruleset(name).title   # the club's own name for its rules, as it wrote it
        quoted = re.sub(r"«[^»]*»", "", out.replace(title, ""))   # a source's section, by its own title
        assert code == 0 and not re.search("[А-Яа-яЁё]", quoted + err), out
    for group in ("records", "config", "hw", "ears", "tournament"):
        code, out, err = run_main(capsys, group)
        assert code == 2 and err == f"voicehost {group}: error: the following arguments are required: command " \
                                    "(see --help)\n", err


def test_the_judges_keypad_off_a_pi_is_said_in_russian(russian: None) -> None:
    """The keypad wrapped gpiozero's English as the seat panel once did («… (BadPinFactory: Unable …)»):
    it gives the same reasons as the seats, in the program's words."""
    from gpiozero.exc import BadPinFactory

    from hw.keypad import KEYPAD_PINS
    from hw.panel import pins_refused

    line = pins_refused(BadPinFactory("Unable to load any default pin factory!"), KEYPAD_PINS)
    assert line.startswith("не открывается пульт судьи: на этой машине нет выводов GPIO") and "Unable" not in line, line
    assert_no_english(line, "the judge's keypad off a Pi", {"gpio", "gpiozero", "raspberry", "pi"})
