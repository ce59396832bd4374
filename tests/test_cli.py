"""The ``voicehost`` command: outputs, one-line errors with exit code 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st
from machine import real_time_needed

from voicehost.cli.main import main

if TYPE_CHECKING:
    from audio.tts import SpeechRenderer

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sport-sample.json"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_prints_the_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "simulate", str(SAMPLE), "--json")
    protocol = json.loads(out)
    assert code == 0 and protocol["winner"] == "red" and protocol["reason"] == "no_black_left"


def test_simulate_without_json_is_a_russian_account(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "simulate", str(SAMPLE))
    assert code == 0
    assert "Игрок номер 1 выставляет игрока номер 5. Принято." in out
    assert out.strip().endswith("Причина: в игре не осталось чёрных игроков.")


def test_parse_prints_intents_in_spoken_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "parse", "выставляю", "игрока", "номер", "три", "отзываю", "третьего", "выставляю",
                       "седьмого", "спасибо", "всё")
    assert code == 0
    assert json.loads(out) == {"intents": [{"type": "nominate", "seat": 3}, {"type": "withdraw", "seat": 3},
                                           {"type": "nominate", "seat": 7}, {"type": "end"}]}


def test_parse_with_seats_flags_numbers_that_are_no_seat(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = cli(capsys, "parse", "--seats", "10", "выставляю двенадцатого")
    assert json.loads(out)["intents"] == [{"type": "nominate", "seat": 12, "not_a_seat": True}]


def test_rules_lists_and_shows_options_with_defaults_and_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "rules")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == ["canonical", "classic", "club", "sport"]
    assert "(мест: 6–18)" in out
    code, out, _ = cli(capsys, "rules", "show", "sport")
    assert code == 0
    assert 'split_at_four = "stay"  [stay, vote]  источник: seed 001 / клубы, где четверо могут выгнать обоих' in out
    assert "      повторная ничья при четырёх игроках: все остаются или голосование «все уходят?»" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["simulate", "/nonexistent.json"], "voicehost: error: /nonexistent.json: no such file"),
    (["simulate", "a\x00b.json"], "voicehost: error: 'a\\x00b.json': not a file name"),
    (["simulate"], "voicehost simulate: error: the following arguments are required: script"),
    (["frobnicate"], "voicehost: error: argument command: invalid choice"),
    (["parse", "--seats", "abc", "пас"], "voicehost parse: error: argument --seats: 'abc' is not a positive"),
    (["rules", "show", "poker"], "voicehost: error: ruleset: unknown ruleset 'poker'"),
    (["rules", "show"], "voicehost: error: rules show: name a ruleset"),
    (["bench", "engine", "--games", "0"], "voicehost bench: error: argument --games"),
    (["demo", "--pace", "-1"], "voicehost demo: error: argument --pace"),
])
@pytest.mark.usefixtures("english")
def test_bad_arguments_give_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                message: str) -> None:
    code, out, err = cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


@pytest.mark.usefixtures("english")
def test_voice_pronounce_shows_the_lexicon_and_espeaks_phonemes(capsys: pytest.CaptureFixture[str]) -> None:
    import shutil
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    code, out, _ = cli(capsys, "voice", "pronounce", "Кандидатура", "номер", "семь", "принята.")
    assert code == 0
    assert "lexicon:  Кандидатура номер семь [[p@-r;in;Vt'A]]." in out
    assert out.splitlines()[-1].endswith("p@-r;in;at'A")  # espeak-ng's own reading: the stress on «та́»
    code, out, err = cli(capsys, "voice", "pronounce")
    assert code == 2 and err == "voicehost: error: voice pronounce: give the words to pronounce\n"


@pytest.mark.usefixtures("english")
def test_bad_script_gives_one_line_with_its_place(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"roles": {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"},
                                "days": [{}, {"votes": {"11": 3}}]}))
    code, _, err = cli(capsys, "simulate", str(path))
    assert code == 2
    assert err == f"voicehost: error: {path}: days[1].votes.11: there is no seat 11 at a 10-seat table\n"


def test_the_installed_console_script_runs(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "voicehost", "simulate", str(SAMPLE), "--json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and json.loads(done.stdout)["winner"] == "red"


words = st.sampled_from(["simulate", "parse", "rules", "show", "demo", "bench", "engine", "--json", "--seats", "hw",
                         "test", "--table", "--mock",
                         "--games", "--pace", "--seed", "--ruleset", "sport", "0", "-1", "99999", "x", "",
                         "выставляю", "пятого", "--", "-h", str(SAMPLE), "/dev/null", "/"])


@given(argv=st.lists(words | st.text(max_size=6), max_size=5))
def test_fuzzed_arguments_never_raise(argv: list[str]) -> None:
    if any(a in ("-h", "--help", "demo", "bench", "--mock", "run", "model", "listen", "voice") for a in argv):
        return  # help exits 0; these open devices, models or the network and are covered above
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    assert code in (0, 2)


@pytest.mark.usefixtures("english")
def test_hw_test_walks_every_seat_on_mock_pins(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "hw", "test", "--table", str(ROOT / "config/tables/ten-seats.toml"), "--mock",
                       "--rules", "sport")
    assert code == 0 and out.count("waiting for button") == 10 and "all seats answer" in out


@pytest.mark.usefixtures("english")
def test_hw_test_without_gpio_is_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    code, out, err = cli(capsys, "hw", "test", "--table", str(ROOT / "config/tables/ten-seats.toml"))
    assert code == 2 and err.count("\n") == 1 and "try --mock" in err


@pytest.mark.usefixtures("english")
def test_hw_test_seat_count_against_the_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "hw", "test", "--table", str(ROOT / "config/tables/twelve-seats.toml"),
                       "--rules", "sport", "--mock")
    assert code == 2 and err.endswith("twelve-seats.toml: seat: the table has 12 seats; sport here needs 10\n")
    code, _, _ = cli(capsys, "hw", "test", "--table", str(ROOT / "config/tables/twelve-seats.toml"),
                     "--rules", "club", "--mock")
    assert code == 0


def test_bench_gpio_reports_the_stamp_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "bench", "gpio", "--games", "200")
    assert code == 0 and "p95" in out


def test_voice_say_renders_speech_into_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                              renderer: SpeechRenderer) -> None:
    import soundfile
    out = tmp_path / "say.wav"
    code, stdout, _ = cli(capsys, "voice", "say", "Наступает", "ночь.", "--audio", f"file:{out}")
    data, rate = soundfile.read(out)
    assert code == 0 and "] Наступает ночь." in stdout
    assert rate == 48000 and (abs(data) > 0.05).sum() > rate * 0.2


@pytest.mark.usefixtures("english")
def test_voice_warm_renders_every_fixed_line(capsys: pytest.CaptureFixture[str], renderer: SpeechRenderer) -> None:
    code, out, _ = cli(capsys, "voice", "warm", "--rules", "sport")
    assert code == 0 and out.startswith("sport: ") and " lines ready in " in out


def test_demo_without_voice_still_narrates(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "demo", "--audio", "off", "--pace", "0")
    assert code == 0 and "Ночь 1." in out
    assert "Итог игры: победа красных — в игре не осталось чёрных игроков." in out


def test_demo_ends_with_a_short_summary_and_keeps_the_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    """Not 250 lines of JSON: who won, who left when, where the protocol and the record went;
    ``--json`` prints the protocol, which is saved in the data folder either way."""
    code, out, _ = cli(capsys, "demo", "--audio", "off", "--pace", "0")
    summary = out.strip().splitlines()[-4:]
    assert code == 0 and '"winner"' not in out and summary[0].startswith("Итог игры: победа красных")
    assert summary[1] == ("Покинули игру: №5 — день 1, по голосованию; №1 — ночь 2, убит; №9 — день 2, "
                          "по голосованию; №7 — ночь 3, убит; №3 — день 3, по голосованию.")
    saved = Path(summary[2].removeprefix("Протокол: ").split(" (")[0])
    assert saved.parent.parent == Path(os.environ["VOICEHOST_DATA"])
    assert json.loads(saved.read_text())["winner"] == "red"
    assert summary[3] == "Записи клуба: игра не записана (чтобы записать: --record)."
    code, out, _ = cli(capsys, "demo", "--audio", "off", "--pace", "0", "--json")
    assert code == 0 and json.loads(out[out.index("\n{"):])["reason"] == "no_black_left" and "Итог игры:" not in out


@pytest.mark.usefixtures("english")
def test_demo_invents_a_game_from_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "demo", "--seed", "4", "--rules", "classic", "--audio", "off", "--pace", "0", "--json")
    assert code == 0 and out.startswith("An invented classic game, seed 4.") and '"ruleset": "classic"' in out


def test_demo_without_a_speaker_prints_the_host_lines_on_game_time(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                   renderer: SpeechRenderer) -> None:
    """A sound card that cannot be opened (the real path: PortAudio finds no such device) is
    said in one Russian line, and the game is played on game time with the host's lines printed
    as they would be said — not a whole silent game in real time, nor a hint to render a file."""
    script = tmp_path / "short.json"
    script.write_text(json.dumps({"ruleset": "sport", "roles": {"3": "don", "5": "mafia", "9": "mafia",
                                                                 "7": "sheriff"}, "days": [{}]}))
    started = time.monotonic()
    code, out, err = cli(capsys, "demo", str(script), "--audio", "device:no-such-card-here", "--pace", "0",
                         "--speed", "1")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("Динамика нет (устройство «no-such-card-here» не открывается)")
    assert "Ведущий: «Наступает ночь.»" in lines and "Ведущий: «Игрок номер один, ваше слово.»" in lines
    assert "file:" not in err and "Итог игры: игра не окончена." in lines
    assert time.monotonic() - started < 60  # at --speed 1 the first night alone is over a minute aloud


def _default_output_exists() -> bool:
    try:
        import sounddevice
    except (ImportError, OSError):  # no sounddevice, no libportaudio: no sound card either
        return False
    try:
        sounddevice.query_devices(kind="output")
    except (OSError, sounddevice.PortAudioError):
        return False
    return True


def test_demo_on_a_machine_without_a_sound_card_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        renderer: SpeechRenderer) -> None:
    """``--audio default`` where PortAudio has no default output (a server, a container)."""
    if _default_output_exists():
        pytest.skip("this machine has a default sound output")
    script = tmp_path / "short.json"
    script.write_text(json.dumps({"ruleset": "sport", "roles": {"3": "don", "5": "mafia", "9": "mafia",
                                                                 "7": "sheriff"}, "days": [{}]}))
    code, out, _ = cli(capsys, "demo", str(script), "--audio", "default", "--pace", "0")
    assert code == 0 and out.startswith("Динамика нет (звуковая карта по умолчанию не открывается)")
    assert "Ведущий: «Наступает ночь.»" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["voice", "say", "привет", "--audio", "speaker"], "voicehost: error: --audio: --audio 'speaker': use default"),
    (["voice", "say", "--audio", "null"], "voicehost: error: voice say: give the words to say"),
    (["demo", "--table", "/nonexistent.toml", "--audio", "null"], "voicehost: error: /nonexistent.toml: no such file"),
    (["demo", "--seed", "1", "--rules", "mafia2"], "voicehost: error: --rules: unknown ruleset 'mafia2'"),
    (["demo", "examples/club-sample.json", "--seed", "1"], "voicehost: error: demo: give a script or --seed"),
    (["demo", "--speed", "0"], "voicehost demo: error: argument --speed"),
])
@pytest.mark.usefixtures("english")
def test_voice_errors_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], message: str,
                                   renderer: SpeechRenderer) -> None:
    code, _, err = cli(capsys, *argv)
    assert code == 2 and err.startswith(message) and err.count("\n") == 1


def test_parse_takes_forbidden_words_before_the_text_as_documented(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "parse", "--forbidden", "честно", "выставляю", "пятого", "честно")
    assert code == 0 and json.loads(out)["intents"] == [{"type": "nominate", "seat": 5},
                                                        {"type": "forbidden", "word": "честно"}]
    code, out, _ = cli(capsys, "parse", "--forbidden", "честно,клянусь", "--forbidden", "мамой", "клянусь", "мамой")
    assert [i["word"] for i in json.loads(out)["intents"]] == ["клянусь", "мамой"]


@pytest.mark.usefixtures("english")
def test_voice_say_without_an_audio_device_fails(capsys: pytest.CaptureFixture[str], renderer: SpeechRenderer) -> None:
    """A speaker check that reaches no speaker must not look like a success."""
    code, _, err = cli(capsys, "voice", "say", "проверка", "--audio", "device:no-such-card-here")
    assert code != 0 and err.startswith("voicehost: error: voice say: no audio device") and err.count("\n") == 1


def test_bench_prints_counts_as_whole_numbers() -> None:
    from voicehost.cli.bench import figure
    assert figure(9) == "9" and figure(1234) == "1234"
    assert figure(9.0) == "9.000" and figure(0.12345) == "0.123"


def test_demo_to_a_file_runs_on_the_virtual_clock(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  renderer: SpeechRenderer) -> None:
    """``--audio file:OUT.wav`` renders as fast as the machine can, not in real time: here a
    game whose night 1 alone lasts more than a minute of audio, at --speed 1."""
    import soundfile

    script = tmp_path / "short.json"
    script.write_text(json.dumps({"ruleset": "sport", "roles": {"3": "don", "5": "mafia", "9": "mafia",
                                                                 "7": "sheriff"}, "days": [{}]}))
    out, transcript = tmp_path / "demo.wav", tmp_path / "t.jsonl"
    started = time.monotonic()
    code, stdout, _ = cli(capsys, "demo", str(script), "--audio", f"file:{out}", "--speed", "1",
                          "--transcript", str(transcript))
    elapsed = time.monotonic() - started
    data, rate = soundfile.read(out)
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert code == 0 and len(data) / rate > 60
    assert abs(len(data) / rate - records[-1]["t"]) < 10  # the file is the game's own time
    minute = next(r["t"] for r in records if r.get("key") == "mafia_acquaint")
    only_music = data[int((minute + 10) * rate):int((minute + 20) * rate)]  # inside the acquaintance minute
    assert records[1] == {"t": records[1]["t"], "music": "on"} and abs(only_music).max() > 0.01
    real_time_needed("a game rendered faster than real time")
    assert elapsed < len(data) / rate  # faster than real time
