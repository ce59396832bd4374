"""Pronunciation: every lexicon word is stressed where a Russian reader expects it, in every
fixed line of every ruleset, as espeak-ng itself reports it (``espeak-ng -v ru -x``)."""

from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pytest

from voicehost.config import load_ruleset, ruleset_names
from voicehost.host.voice import fixed_lines
from voicehost.language.lexicon import (
    Entry,
    Lexicon,
    lexicon_from_mapping,
    load_lexicon,
    phoneme_stresses,
    stress_positions,
    vowel_count,
)
from voicehost.language.phrasebook import load_phrasebook
from voicehost.rules import InputError

if TYPE_CHECKING:
    from audio.tts import SpeechRenderer

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")

# The words the club's reader found wrong (issue 12), each as the phrasebook writes it.
REPORTED = ["мафию", "глаза", "игры", "голоса", "принята", "города", "стола", "договорку", "переголосование",
            "номера", "тюрьму", "по-прежнему"]


@lru_cache(maxsize=None)
def said(text: str) -> str:
    from audio.tts import phonemes
    return _READ.get(text) or phonemes(text)


_READ: dict[str, str] = {}


def read_ahead(texts: list[str]) -> None:
    """espeak-ng reads many texts in one run, each a paragraph of its own (it starts afresh at
    a blank line), in a second where a run per text takes ten. The first and the last are read
    on their own too, and must come out the same; where anything does not pair up, each text is
    read on its own after all (by :func:`said`)."""
    from audio.tts import phonemes
    texts = [text for text in dict.fromkeys(texts) if text not in _READ]
    done = subprocess.run(["espeak-ng", "-v", "ru", "-x", "-q"], input="\n\n".join(texts) + "\n",
                          capture_output=True, text=True, timeout=120)
    paragraphs = [" ".join(paragraph.split()) for paragraph in done.stdout.split("\n\n")]
    if done.returncode == 0 and len(paragraphs) == len(texts) and texts and all(
            paragraphs[i] == phonemes(texts[i]) for i in (0, -1)):
        _READ.update(zip(texts, paragraphs, strict=True))


def every_fixed_line() -> list[str]:
    book = load_phrasebook()
    lines: list[str] = []
    for name in ruleset_names():
        lines += fixed_lines(book, name, range(1, max(load_ruleset(name).seats) + 1))
    return list(dict.fromkeys(lines))


def test_every_reported_word_is_in_the_lexicon() -> None:
    lexicon = load_lexicon()
    for word in REPORTED:
        assert lexicon.found_in(f"… {word} …"), word
    assert lexicon.apply("приступает к голосованию") != "приступает к голосованию"


@needs_espeak
@pytest.mark.parametrize("entry", load_lexicon().entries.values(), ids=lambda e: e.written)
def test_each_entry_is_stressed_as_marked_and_has_no_extra_vowel(entry: Entry) -> None:
    words = said(entry.say).split()
    wanted = stress_positions(entry.stress)
    assert len(words) == len(wanted), (entry.say, words)
    for word, phonemes, stress in zip(entry.stress.split(), words, wanted, strict=True):
        if stress is None:
            continue
        assert phoneme_stresses(phonemes) == [(stress,)], (word, phonemes)
        assert vowel_count(phonemes) == sum(c in "аеёиоуыэюя" for c in word.lower()), (word, phonemes)


@needs_espeak
def test_every_fixed_line_says_each_lexicon_word_as_the_lexicon_does() -> None:
    lexicon = load_lexicon()
    checked = 0
    read_ahead([lexicon.apply(line) for line in every_fixed_line()] + [e.say for e in lexicon.entries.values()])
    for line in every_fixed_line():
        spelled = said(lexicon.apply(line))
        assert " k'A " not in f" {spelled} ", f"«к» read as a letter in {line!r}: {spelled}"
        for entry in lexicon.found_in(line):
            assert said(entry.say) in spelled, (line, entry.written, spelled)
            checked += 1
    assert checked >= 20  # the lexicon's words do occur in the lines it is for


@needs_espeak
def test_without_the_lexicon_espeak_gets_these_words_wrong() -> None:
    """The entries are needed: espeak-ng's own reading puts the stress elsewhere."""
    lexicon = load_lexicon()
    wrong = [e.written for e in lexicon.entries.values()
             if phoneme_stresses(said(e.written)) != phoneme_stresses(said(e.say))]
    assert set(wrong) >= {"мафию", "принята", "глаза", "тюрьму", "по-прежнему", "против номера"}


def test_entries_apply_to_whole_words_in_any_case_longest_first() -> None:
    lexicon = load_lexicon()
    assert lexicon.apply("Кто голосует против номера семь?") == "Кто голосует против [[n'om;ira#]] семь?"
    assert lexicon.apply("Проснулись номера пять и семь.") == "Проснулись [[nVm;ir'A]] пять и семь."
    assert lexicon.apply("Мафию.") == "[[m'Af;iju]]."
    assert lexicon.apply("Номерами") == "Номерами"  # not a part of a longer word
    assert lexicon.apply("к") == "к"  # a proclitic needs a next word


@pytest.mark.usefixtures("english")
def test_a_bad_lexicon_entry_is_one_clear_error() -> None:
    with pytest.raises(InputError, match="words.мафию.*not the same words"):
        lexicon_from_mapping({"words": {"мафию": {"stress": "ма́фия", "say": "[[m'Af;ija]]"}}}, "lex")
    with pytest.raises(InputError, match="stress marks no vowel"):
        lexicon_from_mapping({"words": {"мафию": {"stress": "мафию", "say": "x"}}}, "lex")
    with pytest.raises(InputError, match="unbalanced"):
        lexicon_from_mapping({"words": {"мафию": {"stress": "ма́фию", "say": "[[m'Af"}}}, "lex")
    with pytest.raises(InputError, match="unknown section"):
        lexicon_from_mapping({"word": {}}, "lex")


def test_stress_helpers_count_syllables() -> None:
    assert stress_positions("про́тив но́мера со") == [0, 0, None]
    assert stress_positions("переголосова́ние") == [5]
    assert phoneme_stresses("p@-r'ot;if n'om;ira#") == [(0,), (0,)]  # «@-» is not a syllable
    assert phoneme_stresses("p'op@-r;'eZn;imu") == [(0, 1)]
    assert vowel_count("t;u\"rI^m'u") == 3  # espeak-ng's extra vowel in «тюрьму»


def test_the_renderer_reads_phonemes_not_their_letters(renderer: SpeechRenderer) -> None:
    """pyttsx3 does not pass espeak's phoneme flag on its own: without the wrapper the
    brackets would be spelled out letter by letter, several times longer."""
    spelled = renderer.clip("[[m'Af;iju]]")
    plain = renderer.clip("мафию")
    assert 0.7 < len(spelled) / len(plain) < 1.4
    assert np.sqrt(np.mean(spelled ** 2)) > 0.01


def test_an_empty_lexicon_changes_nothing() -> None:
    assert Lexicon([], {}).apply("к голосованию") == "к голосованию"
