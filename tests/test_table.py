"""A table file's [audio] settings are validated like everything else in config/."""

from __future__ import annotations

from typing import Any

import pytest

from voicehost.host.table_file import audio_from_mapping, load_audio, table_path
from voicehost.rules import InputError


def test_shipped_tables_have_valid_audio_settings() -> None:
    for name in ("ten-seats", "twelve-seats"):
        audio = load_audio(table_path(name))
        assert audio.voice.voice == "zle/ru" and audio.mix.duck_db <= -12


@pytest.mark.parametrize(("data", "message"), [
    ({"rate": "fast"}, "t: audio.rate: must be a int"),
    ({"duck_db": -6}, "t: audio.duck_db: -6.0 is outside -60.0..-12.0"),
    ({"volume": 2}, "t: audio.volume: 2.0 is outside 0.0..1.0"),
    ({"loudness": 1}, "t: audio.loudness: unknown setting"),
])
@pytest.mark.usefixtures("english")
def test_audio_setting_errors_name_the_key(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as caught:
        audio_from_mapping(data, "t: audio")
    assert str(caught.value).startswith(message)
