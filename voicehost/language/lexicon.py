"""How the host pronounces words espeak-ng gets wrong: ``config/lexicon/ru.toml``.

espeak-ng ignores a stress mark (U+0301) in text and has no run-time user dictionary (its
own dictionaries are compiled from sources Debian does not ship), so a word is replaced by
espeak-ng phonemes in ``[[ ]]`` before rendering — the renderer turns phoneme input on.
Each entry also carries the word with its stress marked, which is what a Russian reader
checks and what :func:`stress_positions` / :func:`phoneme_stresses` let a test hold the
phonemes to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from voicehost.config import config_file, read_toml
from voicehost.i18n import _
from voicehost.rules import InputError

ACUTE = "\u0301"
RUSSIAN_VOWELS = "аеёиоуыэюя"
# espeak-ng's Russian vowel mnemonics; "@-" is a non-syllabic glide inside a consonant cluster.
PHONEME_VOWELS = "aAVeEiIoOuUyY@"


@dataclass(frozen=True)
class Entry:
    written: str   # as the phrasebook writes it («против номера»)
    stress: str    # with U+0301 after each stressed vowel («про́тив но́мера»)
    say: str       # what espeak-ng gets («против [[n'om;ira#]]»)


class Lexicon:
    """Word → how to say it, applied to whole lines (longest entries first, any case)."""

    def __init__(self, entries: list[Entry], proclitics: Mapping[str, str], place: str = "lexicon") -> None:
        self.entries = {entry.written.lower(): entry for entry in entries}
        self.proclitics = {word.lower(): say for word, say in proclitics.items()}
        self.place = place
        self._words = _alternation(self.entries)
        self._clitics = re.compile(rf"(?<![\w-])({'|'.join(map(re.escape, self.proclitics))})(?=\s+\w)",
                                   re.IGNORECASE) if self.proclitics else None

    def apply(self, text: str) -> str:
        """``text`` as espeak-ng should get it."""
        if self._words is not None:
            text = self._words.sub(lambda m: self.entries[_fold(m.group(0))].say, text)
        if self._clitics is not None:
            text = self._clitics.sub(lambda m: self.proclitics[m.group(1).lower()], text)
        return text

    def found_in(self, text: str) -> list[Entry]:
        """The entries a line uses (each once, in order)."""
        if self._words is None:
            return []
        return list(dict.fromkeys(self.entries[_fold(m.group(0))] for m in self._words.finditer(text)))


def _fold(words: str) -> str:
    return " ".join(words.lower().split())


def _alternation(entries: Mapping[str, Entry]) -> re.Pattern[str] | None:
    if not entries:
        return None
    keys = sorted(entries, key=len, reverse=True)
    body = "|".join(r"\s+".join(map(re.escape, key.split())) for key in keys)
    return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])", re.IGNORECASE)


# ---- stress: where the reader wants it, where espeak-ng puts it ------------------------------

def stress_positions(stressed: str) -> list[int | None]:
    """Per word, the index of the stressed vowel (0 = first) from its U+0301 mark; None for a
    word without a mark («со»)."""
    positions: list[int | None] = []
    for word in stressed.split():
        vowels = 0
        found = None
        for char in word:
            if char == ACUTE and vowels:
                found = vowels - 1
            elif char.lower() in RUSSIAN_VOWELS:
                vowels += 1
        positions.append(found)
    return positions


def phoneme_stresses(phonemes: str) -> list[tuple[int, ...]]:
    """Per word of espeak-ng's ``-x`` output, the indexes of the vowels after a primary stress
    mark ``'`` (one, if the word is right; espeak-ng says «по-прежнему» with two)."""
    return [_stressed_vowels(word) for word in phonemes.split()]


def _stressed_vowels(word: str) -> tuple[int, ...]:
    vowels = 0
    stressed = []
    for k, char in enumerate(word):
        if char == "'":
            stressed.append(vowels)
        elif char in PHONEME_VOWELS and not (char == "@" and word[k + 1:k + 2] == "-"):
            vowels += 1
    return tuple(stressed)


def vowel_count(phoneme_word: str) -> int:
    return sum(1 for k, c in enumerate(phoneme_word)
               if c in PHONEME_VOWELS and not (c == "@" and phoneme_word[k + 1:k + 2] == "-"))


# ---- the file ---------------------------------------------------------------------------------

def lexicon_from_mapping(data: Mapping[str, Any], place: str) -> Lexicon:
    known = {"words", "proclitics"}
    for key in data:
        if key not in known:
            raise InputError(f"{place}: {key}", _("unknown section (known: proclitics, words)"))
    proclitics = data.get("proclitics", {})
    if not isinstance(proclitics, Mapping) or not all(isinstance(v, str) for v in proclitics.values()):
        raise InputError(f"{place}: proclitics", _("must be a table of word = \"how to say it\""))
    words = data.get("words", {})
    if not isinstance(words, Mapping):
        raise InputError(f"{place}: words", _("must be a table"))
    return Lexicon([_entry(written, body, f"{place}: words.{written}") for written, body in words.items()],
                   dict(proclitics), place)


def _entry(written: str, body: Any, place: str) -> Entry:
    if not isinstance(body, Mapping) or set(body) != {"stress", "say"}:
        raise InputError(place, _("must be { stress = \"…\", say = \"…\" }"))
    stress, say = body["stress"], body["say"]
    if not isinstance(stress, str) or not isinstance(say, str):
        raise InputError(place, _("stress and say must be strings"))
    if stress.replace(ACUTE, "").lower().split() != written.lower().split():
        raise InputError(place, _("stress {stress!r} is not the same words with accents").format(
                                    stress=stress))
    if ACUTE not in stress:
        raise InputError(place, _("stress marks no vowel (put U+0301 after the stressed one)"))
    if say.count("[[") != say.count("]]"):
        raise InputError(place, _("unbalanced [[ ]] in {say!r}").format(say=say))
    return Entry(written, stress, say)


@lru_cache(maxsize=None)
def load_lexicon(language: str = "ru") -> Lexicon:
    path = config_file(f"lexicon/{language}.toml")  # a club's own lexicon, in any config layer
    if not path.exists():
        return Lexicon([], {}, str(path))
    return lexicon_from_mapping(read_toml(path), str(path))
