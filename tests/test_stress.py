"""Stress checked against a dictionary, not by ear: every word of every line the host can say
(:mod:`every_line`: about 9,600 lines, each key of each ruleset filled every way it can be,
roster names too) is stressed by espeak-ng — through the lexicon — on the vowel Wiktionary's
word forms put it on (the ``tsnorm`` package ships them: 843,000 forms with their stress).

A word the dictionary reads two ways (голоса́ «voices» and го́лоса «of a voice») is read by
:data:`READINGS`, which picks one of the dictionary's own readings by the words around it.
A word the dictionary does not know must be in the lexicon (the club's override); otherwise
the test names it instead of passing it. Words of one syllable carry no stress to check.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pickle
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from every_line import lines

from voicehost.language.lexicon import load_lexicon, phoneme_stresses, stress_positions
from voicehost.language.phrasebook import load_phrasebook

VOWELS = "аеёиоуыэюя"
TOKEN = re.compile(r"\[\[[^\]]*\]\]|[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*")
COUNTED = r"(?:два|три|четыре)"

# word → (pattern around it, the vowel stressed): the first pattern that matches the line wins;
# each reading must be one the dictionary gives for the word.
READINGS: dict[str, list[tuple[str, int]]] = {
    "голоса": [(rf"\b{COUNTED} голоса\b", 0), ("", 2)],        # четыре го́лоса; голоса́ разделились
    "номера": [(r"против номера\b", 0), ("", 2)],               # против но́мера; проснулись номера́
    "города": [("", 0)],        # суд го́рода (genitive singular)
    "глаза": [("", 1)],         # откройте глаза́
    "игры": [("", 1)],          # из игры́
    "принята": [("", 2)],       # принята́
    "уже": [("", 1)],           # уже́ выставлен (not у́же, «narrower»)
    "сорок": [("", 0)],         # со́рок секунд (not соро́к, «magpies»)
    "посмотрите": [("", 2)],    # посмотри́те на лампу (imperative)
    "отозвана": [("", 1)],      # ото́звана
    "слова": [("", 0)],         # последнего сло́ва
    "первым": [("", 0)], "первое": [("", 0)], "после": [("", 0)], "минут": [("", 1)], "места": [("", 0)],
    "готов": [("", 1)], "выходит": [("", 1)], "она": [("", 1)], "руки": [("", 0)], "путана": [("", 1)],
    "казни": [("", 0)], "нулевое": [("", 2)], "грома": [("", 0)], "тени": [("", 0)],
    "ночи": [("", 0)],          # два дня и но́чи (genitive singular; not ночи́, «at nights»)
}

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")


def _tsnorm_forms_file() -> Path | None:
    spec = importlib.util.find_spec("tsnorm")  # not imported: its normalizer needs spaCy, the data does not
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "dictionary" / "wordforms.dat"
    return path if path.exists() else None


def _keys(word: str) -> list[str]:
    return list(dict.fromkeys([word, word.lower(), word.replace("ё", "е"), word.lower().replace("ё", "е"),
                               word.lower().capitalize()]))


@lru_cache(maxsize=1)
def dictionary(words: frozenset[str]) -> dict[str, list[dict[str, Any]]]:
    """The dictionary's entries for ``words``. The whole pickle takes 15 s and 1 GB to load, so
    the entries a word list needs are kept in the cache folder, by the list and the data file."""
    forms = _tsnorm_forms_file()
    if forms is None:
        pytest.skip("the stress dictionary (tsnorm, installed by ./setup.sh test) is not installed")
    digest = hashlib.sha256(json.dumps(sorted(words)).encode() + str(forms.stat().st_size).encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "voicehost" / f"stress-{digest}.json"
    if cache.exists():
        return dict(json.loads(cache.read_text()))
    with forms.open("rb") as file:
        every = pickle.load(file)  # noqa: S301 (the package's own data)
    found = {key: every[key] for word in words for key in _keys(word) if key in every}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(found, ensure_ascii=False))
    return found


def readings(word: str, entries: dict[str, list[dict[str, Any]]]) -> set[int] | None:
    """The vowels (0 = first) the dictionary stresses in ``word``, or None for an unknown word."""
    for key in _keys(word):
        if key in entries:
            return {sum(c in VOWELS for c in e["word_form"].lower()[:p]) for e in entries[key] for p in e["stress_pos"]}
    return None


def wanted(word: str, line: str, known: set[int]) -> set[int]:
    for pattern, vowel in READINGS.get(word.lower(), []):
        if re.search(pattern, line.lower()):
            assert vowel in known, f"READINGS gives {word} a stress the dictionary does not know ({sorted(known)})"
            return {vowel}
    return known


def espeak_read(texts: list[str]) -> list[str]:
    """espeak-ng's phonemes of many texts in one run (a blank line starts each afresh)."""
    done = subprocess.run(["espeak-ng", "-v", "ru", "-x", "-q"], input="\n\n".join(texts) + "\n",
                          capture_output=True, text=True, timeout=300, check=True)
    read = [" ".join(paragraph.split()) for paragraph in done.stdout.split("\n\n")]
    assert len(read) == len(texts), "espeak-ng's paragraphs do not pair up with the lines"
    return read


def syllables(word: str) -> int:
    return sum(c in VOWELS for c in word.lower())


@needs_espeak
def test_every_word_of_every_line_is_stressed_as_the_dictionary_says() -> None:
    lexicon = load_lexicon()
    texts = list(dict.fromkeys(line for _, _, line in lines(load_phrasebook())))
    assert len(texts) > 3500   # canonical's seat-number targets are seats (12), not roster names (32)
    words = frozenset(w for text in texts for w in TOKEN.findall(text) if syllables(w) > 1)
    entries = dictionary(words)
    overridden = {word for entry in lexicon.entries.values() for word in entry.written.lower().split()}
    spelled = [lexicon.apply(text) for text in texts]
    wrong: dict[str, str] = {}
    unknown: dict[str, str] = {}
    checked = 0
    for text, applied, phonemes in zip(texts, spelled, espeak_read(spelled), strict=True):
        original, given, said = TOKEN.findall(text), TOKEN.findall(applied), phonemes.split()
        assert len(original) == len(given) == len(said), (text, applied, phonemes)
        for word, said_word in zip(original, said, strict=True):
            if syllables(word) < 2:
                continue
            known = readings(word, entries)
            if known is None:
                if word.lower() not in overridden:
                    unknown.setdefault(word, text)
                continue
            stressed = set(phoneme_stresses(said_word)[0])
            if stressed != wanted(word, text, known):
                wrong.setdefault(f"{word} ({said_word}, wanted vowel {sorted(wanted(word, text, known))})", text)
            checked += 1
    assert not unknown, f"words the dictionary does not know and the lexicon does not stress: {unknown}"
    assert not wrong, f"{len(wrong)} words stressed wrong: {wrong}"
    assert checked > 15000   # canonical's seat-number targets: 12 seats, not 32 names


def test_every_homograph_reading_is_the_dictionarys_own() -> None:
    entries = dictionary(frozenset(READINGS))
    for word, choices in READINGS.items():
        known = readings(word, entries)
        assert known is not None and len(known) > 1, f"{word} is no homograph in the dictionary: drop it"
        assert {vowel for _, vowel in choices} <= known, word


def test_lexicon_words_the_dictionary_knows_are_stressed_as_it_says() -> None:
    """The lexicon is the club's override, but where the dictionary knows a word, the two agree."""
    lexicon = load_lexicon()
    pairs = [(w, s) for e in lexicon.entries.values() for w, s in zip(e.written.split(), e.stress.split(), strict=True)]
    entries = dictionary(frozenset(w for w, _ in pairs))
    for word, stressed in pairs:
        known = readings(word, entries)
        position = stress_positions(stressed)[0]
        if known is None or position is None:
            continue
        assert position in known, (word, stressed, sorted(known))
