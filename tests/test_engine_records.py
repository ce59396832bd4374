"""The records the engine builds for every input: equal by value, unequal across kinds, and
the hot ones interned — one shared record per distinct set of fields, in a bounded cache."""

from __future__ import annotations

from typing import Any

from voicehost.rules.events import SpeechEnded, foul_given, speech_began, speech_ended
from voicehost.rules.inputs import ACTIONS, Check, EndSpeech, Foul, end_speech, foul, vote
from voicehost.rules.records import interned
from voicehost.rules.requests import AwaitDawn, AwaitMorning, AwaitSpeech, await_speech


def test_an_interned_record_is_the_record_its_class_builds() -> None:
    assert speech_ended(3) == SpeechEnded(3)
    assert speech_ended(3) is speech_ended(3)
    assert speech_ended(3) is not speech_ended(4)
    assert await_speech(5, 60, "speech", True) == AwaitSpeech(5, 60, "speech", True)
    assert type(end_speech(2)) is EndSpeech and type(ACTIONS["check"](1, 2)) is Check


def test_defaults_and_keywords_build_the_same_record() -> None:
    assert foul(3) == foul(3, "host") == foul(seat=3) == Foul(3)
    assert foul(3, "second_vote") != foul(3)


def test_records_of_different_kinds_are_unequal_whatever_their_fields() -> None:
    assert SpeechEnded(3) != EndSpeech(3)  # type: ignore[comparison-overlap]  # unrelated kinds, on purpose
    assert EndSpeech(3) != SpeechEnded(3)  # type: ignore[comparison-overlap]  # unrelated kinds, on purpose
    assert AwaitDawn(1) != AwaitMorning(1)  # type: ignore[comparison-overlap]  # unrelated kinds, on purpose
    assert speech_began(1, 60, "speech") != await_speech(1, 60, "speech", True)  # type: ignore[comparison-overlap]  # unrelated kinds, on purpose
    assert SpeechEnded(3) != 3 and SpeechEnded(3) != (3,) and SpeechEnded(3) is not None  # type: ignore[comparison-overlap]  # unrelated kinds, on purpose


def test_an_interned_record_is_still_frozen_and_hashable() -> None:
    record = foul_given(2, 1, "host")
    try:
        record.count = 2  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("an interned record took a new field value")
    assert len({vote(1, 2), vote(1, 2), vote(2, 1)}) == 2


def test_the_cache_behind_an_interned_constructor_is_bounded() -> None:
    make: Any = interned(Foul, size=8)
    for seat in range(100):
        make(seat)
    assert make.cache_info().currsize == 8
    assert make(99) is make(99) and make(0) == Foul(0)
