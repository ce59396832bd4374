"""One text source for what a club reads (issue 40, item 2): the read lines are gettext's
(voicehost/language/read_lines.py), so ``--lang en`` reads English from frame to reason — the
console's answers and refusals, the written log, setup errors, standings, ``rules show`` — and the
Russian default reads Russian, the club screen's reasons for a bad report included."""

from __future__ import annotations

import ast
import asyncio
import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from test_console import console_at, day_one
from test_i18n import assert_no_english, run_main

from voicehost import i18n
from voicehost.config import load_ruleset
from voicehost.language.read_lines import LINES, SECTIONS, read_line, section_lines
from voicehost.web import club
from voicehost.web.club import BadReport, ClubScreen, read_report

ROOT = Path(__file__).resolve().parent.parent
CYRILLIC = re.compile("[А-Яа-яЁё]")


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# ---- the catalog ---------------------------------------------------------------------------------------------

@pytest.mark.usefixtures("russian")
def test_every_read_line_is_russian_with_the_english_ids_placeholders() -> None:
    """Each key has one English id and one Russian text; the Russian fills the same values."""
    assert {dotted.split(".")[0] for dotted in LINES} == set(SECTIONS)
    for dotted, english in LINES.items():
        russian = i18n._(english)
        assert fields(russian) == fields(english), dotted
        if re.search("[A-Za-z]{2,}", re.sub(r"\{\w+\}|SHOWTIME", "", english)):
            assert CYRILLIC.search(russian), f"{dotted} has no Russian in voicehost.po: {english!r}"


@pytest.mark.usefixtures("english")
def test_under_english_no_read_line_carries_cyrillic() -> None:
    for section in SECTIONS:
        for key, text in section_lines(section).items():
            assert not CYRILLIC.search(text), f"{section}.{key}: {text}"


@pytest.mark.usefixtures("russian")
def test_the_russian_is_the_wording_the_phrasebook_had() -> None:
    """The move changed no Russian a club reads (a few lines, as ru.toml worded them)."""
    assert read_line("web", "phase_night", night=2) == "Ночь 2"
    assert read_line("answers", "foul", seat=3, n=2) == "Игроку 3 — замечание (всего: 2)."
    assert read_line("log", "nominated", by=1, target=5) == "Игрок номер 1 выставляет игрока номер 5. Принято."
    assert section_lines("club")["decimal_mark"] == "," and section_lines("overlay")["role_citizen"] == "мирный"


# ---- --lang en: English from frame to reason -----------------------------------------------------------------

@pytest.mark.usefixtures("english")
def test_under_english_the_consoles_answers_and_refusals_are_english() -> None:
    director, said, printed = console_at(day_one(), ["foul 3", "foul 99", "nominate 1 99", "time 1 x"])
    assert len(printed) == 4, printed
    assert printed[0] == "console: «foul 3»: A foul to player 3 (1 in all).", printed
    for line in printed:
        assert not CYRILLIC.search(line), line


def test_under_english_the_written_log_and_the_setup_errors_carry_no_cyrillic(
        russian: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "--lang", "en", "simulate", str(ROOT / "examples" / "sport-sample.json"))
    names = json.loads((ROOT / "examples" / "sport-sample.json").read_text(encoding="utf-8")).get("names", {})
    shown = out
    for name in sorted(names.values(), key=len, reverse=True):
        shown = shown.replace(name, "")
    assert code == 0 and "The game is over: " in out, out + err
    assert not CYRILLIC.search(shown + err), out
    for argv in (["--option", "nomination=sometimes"], ["--rules", "poker"], ["--deal", "1" * 25]):
        code, out, err = run_main(capsys, "--lang", "en", "run", "--mock", "--no-ears", *argv)
        assert code == 2 and err.startswith("voicehost: error: ") and err.count("\n") == 1, err
        assert not CYRILLIC.search(err), err


def test_under_english_standings_and_rules_show_carry_no_cyrillic_outside_names(
        russian: None, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from test_tournament_records import NAME, PLAYERS, create, schedule, tournament_protocols

    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    plan = schedule()
    create(capsys, db, tmp_path, plan)
    run_main(capsys, "records", "import", *map(str, tournament_protocols(tmp_path / "games", plan)), "--db", db)
    code, out, err = run_main(capsys, "--lang", "en", "tournament", "standings", NAME, "--db", db)
    shown = out.replace(NAME, "")
    for player in PLAYERS:
        shown = shown.replace(player, "")
    assert code == 0 and out.strip(), err
    assert not CYRILLIC.search(shown + err), out
    code, out, err = run_main(capsys, "--lang", "en", "rules", "show", "sport")
    title = load_ruleset("sport").title   # the club's own name for its rules, as it wrote it
    assert code == 0 and not CYRILLIC.search(re.sub(r"«[^»]*»", "", out.replace(title, "")) + err), out


# ---- the Russian default: no English sentence fragment ------------------------------------------------------

def test_the_russian_default_has_no_english_in_argparse_and_option_errors(
        russian: None, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["demo", "--speed", "x"], ["run", "--mock", "--no-ears", "--option", "nomination=sometimes"],
                 ["run", "--mock", "--no-ears", "--option", "last_word_s=x"], ["records"], []):
        code, out, err = run_main(capsys, *argv)
        assert code == 2 and err.count("\n") == 1, err
        assert_no_english(err, " ".join(argv) or "voicehost", {"nomination", "sometimes", "first", "last",
                                                              "last_word_s", "speed"})


# ---- the club screen's reasons for a bad report --------------------------------------------------------------

def report(**changes: Any) -> str:
    base = {"type": "report", "tournament": "Кубок", "table": "1", "seq": 1, "t": 1.0, "state": {}}
    return json.dumps({**base, **changes}, ensure_ascii=False)


BAD_REPORTS = {
    "not JSON": "{",
    "not a number": '{"type": "report", "seq": NaN}',
    "out of range": '{"type": "report", "seq": 1e999}',
    "too deep": "[" * 40 + "]" * 40,
    "not a report": report(type="hello"),
    "no tournament": report(tournament=5),
    "not a table": report(table="/etc"),
    "not a records table": report(records_table="/etc"),
    "no state": report(state=[]),
    "bad seq": report(seq=-1),
    "bad t": report(t="now"),
    "bad seat": report(state={"seats": [{"seat": -1}]}),
}


@pytest.mark.parametrize("text", BAD_REPORTS.values(), ids=list(BAD_REPORTS))
def test_a_bad_reports_reason_is_russian(russian: None, text: str) -> None:
    with pytest.raises(BadReport) as refused:
        read_report(text)
    reason = str(refused.value)
    assert CYRILLIC.search(reason), reason
    assert not re.search(r"\b(?!JSON\b|NaN\b|seq\b)[A-Za-z]{3,}", reason), reason


def test_a_table_the_screen_cannot_take_is_refused_in_russian(russian: None) -> None:
    """Over the screen's count, a second connection for a table, a seq that jumps."""
    async def evening() -> list[str]:
        screen = ClubScreen(max_tables=1)
        screen.heard(read_report(report(table="1")), "one")
        reasons = []
        for text, source in ((report(table="2"), "two"), (report(table="1", seq=2), "three"),
                             (report(table="1", seq=2_000_002), "one")):
            with pytest.raises(BadReport) as refused:
                screen.heard(read_report(text), source)
            reasons.append(str(refused.value))
        return reasons

    reasons = asyncio.run(evening())
    assert len(reasons) == 3 and all(CYRILLIC.search(reason) for reason in reasons), reasons


def test_every_reason_the_club_screen_gives_comes_from_the_catalog() -> None:
    """A new ``raise BadReport("…")`` in English would slip past the tests above: each reason is ``_()``'s."""
    tree = ast.parse(Path(club.__file__).read_text(encoding="utf-8"))
    raised = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
              and getattr(node.func, "id", None) == "BadReport"]
    assert len(raised) >= 15
    for call in raised:
        reason = ast.unparse(call.args[0])
        assert reason.startswith("_(") or reason == "str(err) if isinstance(err, BadReport) else _('not JSON')", \
            reason
