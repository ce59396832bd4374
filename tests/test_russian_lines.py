"""Every line a club reads or hears lives in config/phrases: no Russian string literal is left in
voicehost's code (a string constant that is not a docstring, an attribute's or a module's), except
the Russian language itself — the words the host listens for, number words and endings, the
invented speech of simulated players — and the few lines listed below, each with why."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "voicehost"
RUSSIAN = re.compile("[А-Яа-яЁё]")

LANGUAGE = {   # modules whose Russian is the language itself, not a line anyone is told
    "language/numbers.py": "number words and their endings",
    "language/parser.py": "the words a nomination is said with",
    "language/judge_speech.py": "the words the judge's spoken commands are said with",
    "language/russian.py": "endings, the conjunction, the minute and second forms",
    "language/lexicon.py": "the vowels",
    "host/ears.py": "the phrases the recognizer listens for",
    "simulation/mishearing.py": "words a recognizer confuses",
    "simulation/scriptgen.py": "invented players' names and speech",
    "simulation/table_level.py": "invented players' speech",
    "cli/bench.py": "the ready line the start benchmark waits for, in its help",
    "bench/voice.py": "a line the benchmark renders",
    "bench/ears.py": "utterances the benchmark feeds the recognizer",
    "bench/table.py": "speeches the benchmark's players say",
    "bench/records.py": "the benchmark's club roster",
    "bench/startup.py": "a phrase the parse benchmark parses",
}
ALLOWED = {   # single literals, by module
    "host/voice.py": {"и": "the conjunction a list is said with (a word, not a line)"},
    "cli/run.py": {"1=Анна,2=Борис,…: the roster": "an example of --names in the English help"},
}


def russian_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string constant with a Cyrillic letter that is not documentation
    (a string standing alone as a statement: a module's, class's, function's or attribute's docstring)."""
    tree = ast.parse(source)
    docs = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docs and RUSSIAN.search(node.value))


def test_no_russian_string_literal_is_left_in_the_code() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module in LANGUAGE:
            continue
        allowed = ALLOWED.get(module, {})
        found += [f"voicehost/{module}:{line}: {text!r}" for line, text in russian_literals(path.read_text())
                  if text not in allowed]
    assert not found, "Russian text belongs in config/phrases/ru.toml:\n" + "\n".join(found)


def test_the_check_sees_a_literal_and_not_a_docstring() -> None:
    source = '"""Модуль."""\nX = 1\n"""Атрибут «Стол готов»."""\ndef f():\n    """Функция."""\n    return "Готово."\n'
    assert russian_literals(source) == [(6, "Готово.")]
    assert russian_literals('log(f"игрок {n}")') == [(1, "игрок ")]
