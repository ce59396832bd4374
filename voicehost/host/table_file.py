"""A table's file (``config/tables/NAME.toml``): its pins (read by :mod:`hw.pinmap`) and its
``[audio]`` settings — the voice, volumes, ducking, the music folder, the output device.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, get_args

from audio.cues import CUE_NAMES
from audio.mixer import MixSettings
from audio.output import AudioSpecError, parse_spec
from audio.tts import VoiceSettings
from voicehost.config import config_file, read_toml
from voicehost.i18n import _
from voicehost.rules import InputError

DEFAULT_TABLE = "ten-seats.toml"


# How the speaker's warning sounds: a tone, the spoken line («Десять секунд.», «Осталась одна
# минута.») or both.
WarningStyle = Literal["tone", "voice", "both"]


@dataclass(frozen=True)
class AudioConfig:
    voice: VoiceSettings = VoiceSettings()
    mix: MixSettings = MixSettings()
    music_folder: str | None = None
    output: str = "default"
    warning: WarningStyle = "tone"    # the speaker's warning: tone, voice («Десять секунд») or both
    cues: Mapping[str, str] = field(default_factory=dict)  # cue name → a club's own sound file
    voice_folder: str | None = None   # a club's recorded host: script.tsv + NAME.wav (voicehost voice script)
    judge_output: str = "off"         # the judge's earpiece (--judge-audio): off, default, device:NAME, file:OUT.wav


_VOICE = {"voice": str, "rate": int, "volume": float, "loudness_lufs": float, "ceiling_dbtp": float}
_MIX = {"duck_db": float, "count_duck_db": float, "duck_attack_s": float, "duck_release_s": float, "fade_s": float,
        "music_level": float, "voice_level": float, "pause_s": float, "split_hz": float, "count_release_s": float,
        "line_split_hz": float, "count_top_duck_db": float, "limit_dbtp": float}
_OTHER = {"music_folder": str, "output": str, "warning": str, "cues": dict, "voice_folder": str,
          "judge_output": str}
WARNINGS: tuple[WarningStyle, ...] = get_args(WarningStyle)


def table_path(name: str | None) -> Path:
    if name is None:
        return config_file(f"tables/{DEFAULT_TABLE}")
    path = Path(name)
    return path if path.suffix == ".toml" or path.exists() else config_file(f"tables/{name}.toml")


def load_audio(path: Path) -> AudioConfig:
    """The ``[audio]`` table of a table file, validated; missing keys keep their defaults."""
    data = read_toml(path).get("audio", {})
    audio = audio_from_mapping(data, f"{path}: audio")
    cues = {name: str(path.parent / file) for name, file in audio.cues.items()}  # relative to the table file
    folder = str(path.parent / audio.voice_folder) if audio.voice_folder else None
    return replace(audio, cues=cues, voice_folder=folder)


def audio_from_mapping(data: Any, place: str) -> AudioConfig:
    if not isinstance(data, Mapping):
        raise InputError(place, _("must be a table"))
    known = {**_VOICE, **_MIX, **_OTHER}
    values: dict[str, Any] = {}
    for key, value in data.items():
        kind = known.get(key)
        if kind is None:
            raise InputError(f"{place}.{key}", _("unknown setting (known: {known})").format(
                                                   known=', '.join(sorted(known))))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(f"{place}.{key}", _("must be a {kind}").format(
                                                   kind=kind.__name__))
        values[key] = value
    _check_ranges(values, place)
    voice = VoiceSettings(**{k: v for k, v in values.items() if k in _VOICE})
    mix_fields = {f.name for f in fields(MixSettings)}
    mix = MixSettings(**{k: v for k, v in values.items() if k in _MIX and k in mix_fields})
    return AudioConfig(voice, mix, values.get("music_folder"), values.get("output", "default"),
                       values.get("warning", "tone"), _cues(values.get("cues", {}), f"{place}.cues"),
                       values.get("voice_folder"), values.get("judge_output", "off"))


def _cues(data: Mapping[str, Any], place: str) -> dict[str, str]:
    for name, path in data.items():
        if name not in CUE_NAMES:
            raise InputError(f"{place}.{name}", _("unknown cue (known: {cue_names})").format(
                                                    cue_names=', '.join(CUE_NAMES)))
        if not isinstance(path, str):
            raise InputError(f"{place}.{name}", _("must be the path of a sound file"))
    return dict(data)


def _check_ranges(values: Mapping[str, Any], place: str) -> None:
    limits = {"rate": (60, 400), "volume": (0.0, 1.0), "duck_db": (-60.0, -12.0), "music_level": (0.0, 1.0),
              "voice_level": (0.0, 1.0), "fade_s": (0.0, 30.0), "duck_attack_s": (0.005, 2.0),
              "duck_release_s": (0.01, 5.0), "count_duck_db": (-24.0, 0.0), "pause_s": (0.0, 3.0),
              "split_hz": (1000.0, 8000.0), "count_release_s": (0.01, 2.0), "line_split_hz": (500.0, 8000.0),
              "count_top_duck_db": (-24.0, 0.0), "limit_dbtp": (-12.0, -0.5),
              "loudness_lufs": (-40.0, -10.0), "ceiling_dbtp": (-12.0, -0.5)}
    if "warning" in values and values["warning"] not in WARNINGS:
        raise InputError(f"{place}.warning", _("{warning!r}: use {warnings}").format(
                                                 warning=values['warning'], warnings=', '.join(WARNINGS)))
    if values.get("judge_output", "off") != "off":
        try:
            parse_spec(values["judge_output"])
        except AudioSpecError:
            raise InputError(f"{place}.judge_output", _("{spec!r}: use off, default, device:NAME, file:OUT.wav or "
                                                        "null").format(spec=values["judge_output"])) from None
    for key, (low, high) in limits.items():
        if key in values and not low <= values[key] <= high:
            raise InputError(f"{place}.{key}", _("{values} is outside {low}..{high}").format(
                                                   values=values[key], low=low, high=high))
    split = values.get("split_hz", MixSettings.split_hz)
    if values.get("line_split_hz", MixSettings.line_split_hz) >= split:
        raise InputError(f"{place}.line_split_hz", _("must be under split_hz ({split:g} Hz)").format(split=split))


WEB_KEYS = frozenset({"pin", "overlay_key", "overlay_delay_s"})
"""``[web]`` of a table file: the judge's PIN, and the stream overlay's key and delay (docs/broadcast.md)."""


def load_overlay(path: Path) -> tuple[object, object]:
    """``[web] overlay_key`` and ``overlay_delay_s`` of a table file as written (None and 0 when
    unset); :func:`voicehost.web.overlay.check_settings` checks them."""
    load_web_pin(path)   # the section's own checks
    data = read_toml(path).get("web", {})
    return data.get("overlay_key"), data.get("overlay_delay_s", 0)


def load_web_pin(path: Path) -> str | None:
    """``[web] pin`` of a table file: the judge console's PIN (4–12 digits); unset: none."""
    data = read_toml(path).get("web", {})
    if not isinstance(data, Mapping):
        raise InputError(f"{path}: web", _("must be a table"))
    unknown = set(data) - WEB_KEYS
    if unknown:
        raise InputError(f"{path}: web.{sorted(unknown)[0]}", _("unknown setting (known: {known})").format(
            known=", ".join(sorted(WEB_KEYS))))
    pin = data.get("pin")
    if pin is None:
        return None
    if not isinstance(pin, str) or not pin.isdigit() or not 4 <= len(pin) <= 12:
        raise InputError(f"{path}: web.pin", _("must be a string of 4 to 12 digits, e.g. \"4821\""))
    return pin
