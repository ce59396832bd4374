"""The appliance's packaging and setup: installed from a wheel it runs anywhere with its
shipped defaults; the config layers in order; ``config init``/``check``; the systemd unit
passes ``systemd-analyze verify``; the wiring diagram names every pin of the map."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from machine import hang_guard

from hw.pinmap import load_pinmap
from voicehost import config
from voicehost.cli.main import main
from voicehost.service.unit import HARDENING, unit_text

ROOT = Path(__file__).resolve().parent.parent
TABLES = sorted((ROOT / "config" / "tables").glob("*.toml"))


# ---- the config layers -----------------------------------------------------------------------

@pytest.fixture
def layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Three club layers above the packaged defaults, each with its own copy of rules/sport.toml."""
    folders = {"env": tmp_path / "env", "user": tmp_path / "xdg" / "voicehost", "etc": tmp_path / "etc"}
    for folder in folders.values():
        (folder / "rules").mkdir(parents=True)
        shutil.copy(ROOT / "config" / "rules" / "sport.toml", folder / "rules" / "sport.toml")
    monkeypatch.setenv("VOICEHOST_CONFIG", str(folders["env"]))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(config, "SYSTEM_CONFIG", folders["etc"])
    return folders


def test_each_file_comes_from_the_first_layer_that_has_it(
        layers: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    found = config.config_file("rules/sport.toml")
    assert found == layers["env"] / "rules" / "sport.toml"
    monkeypatch.delenv("VOICEHOST_CONFIG")
    assert config.config_file("rules/sport.toml") == layers["user"] / "rules" / "sport.toml"
    (layers["user"] / "rules" / "sport.toml").unlink()
    assert config.config_file("rules/sport.toml") == layers["etc"] / "rules" / "sport.toml"
    (layers["etc"] / "rules" / "sport.toml").unlink()
    assert config.config_file("rules/sport.toml") == config.packaged_config() / "rules" / "sport.toml"
    assert config.config_file("phrases/ru.toml") == config.packaged_config() / "phrases" / "ru.toml"


def test_the_packaged_defaults_are_the_repositorys_config() -> None:
    assert (config.packaged_config() / "rules" / "sport.toml").read_bytes() == \
        (ROOT / "config" / "rules" / "sport.toml").read_bytes()
    assert (config.packaged_examples() / "sport-sample.json").is_file()


def test_journals_and_cache_never_default_to_the_current_folder(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VOICEHOST_DATA", raising=False)
    monkeypatch.delenv("VOICEHOST_CACHE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert config.journals_dir() == tmp_path / "share" / "voicehost" / "journals"
    assert config.cache_dir().is_absolute() and tmp_path not in config.cache_dir().parents
    monkeypatch.setenv("VOICEHOST_DATA", "/var/lib/voicehost")
    assert config.data_dir() == Path("/var/lib/voicehost")


@pytest.mark.usefixtures("english")
def test_config_init_copies_the_defaults_and_check_accepts_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    club = tmp_path / "club"
    assert main(["config", "init", str(club)]) == 0
    assert (club / "rules" / "sport.toml").is_file() and (club / "tables" / "ten-seats.toml").is_file()
    (club / "phrases" / "ru.toml").write_text("[host]\ntable_ready = 'Готово.'\n")  # the club's own, kept
    assert main(["config", "init", str(club)]) == 0
    assert "already there kept" in capsys.readouterr().out
    assert (club / "phrases" / "ru.toml").read_text().startswith("[host]")
    assert main(["config", "check", str(club)]) == 0


@pytest.mark.parametrize(("folder", "text", "message"), [
    ("rules", "name = 'sport'\n[timers\n", "rules/sport.toml: not valid TOML"),
    ("tables", "[[seat]]\nbutton = 4\nled = 4\n", "ten-seats.toml: seat[0] (seat 1).led: GPIO4 is already"),
    ("tables", "[[seat]]\nbutton = 4\nled = 5\n[audio]\nrate = 1000\n", "ten-seats.toml: audio.rate: 1000 is outside"),
    ("phrases", "[host]\nready = 3\n", "phrases/ru.toml: host.ready: must be a string"),
])
@pytest.mark.usefixtures("english")
def test_config_check_names_the_mistake_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str, text: str, message: str) -> None:
    club = tmp_path / "club"
    main(["config", "init", str(club)])
    capsys.readouterr()
    name = {"rules": "sport.toml", "tables": "ten-seats.toml", "phrases": "ru.toml"}[folder]
    (club / folder / name).write_text(text)
    assert main(["config", "check", str(club)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("voicehost: error: ") and message in err, err


@pytest.mark.usefixtures("english")
def test_config_check_of_a_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


# ---- installed from a wheel ------------------------------------------------------------------

@pytest.mark.usefixtures("english")
def test_a_wheel_from_a_clean_clone_runs_from_any_folder(tmp_path: Path) -> None:
    """Clone the committed tree, build its wheel, install it (not editable) into a fresh venv
    whose dependencies come from this one, and run it from an unrelated folder."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    # A checkout on PYTHONPATH would stand in for the wheel in pip and in the installed command.
    unpathed = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=hang_guard(120))
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "-w", str(dist), str(clone)], capture_output=True, text=True, env=unpathed,
                           timeout=hang_guard(300))
    assert built.returncode == 0, built.stderr
    wheel = next(dist.glob("voicehost-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=hang_guard(120))
    python = venv / "bin" / "python"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                                "--no-deps", str(wheel)], capture_output=True, text=True, env=unpathed,
                               timeout=hang_guard(300))
    assert installed.returncode == 0, installed.stderr
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # The dependencies (numpy, gpiozero …) from this venv; its own .pth files (the editable
    # voicehost) are not processed from a path added this way, so voicehost is the wheel's.
    Path(site, "deps-from-the-test-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**unpathed, "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "VOICEHOST_DATA": str(tmp_path / "data")}
    env.pop("VOICEHOST_CONFIG", None)
    where = subprocess.run([str(venv / "bin" / "voicehost"), "config", "paths"], cwd=elsewhere, env=env,
                           capture_output=True, text=True, timeout=hang_guard(120))
    assert where.returncode == 0, where.stderr
    packaged = where.stdout.splitlines()[2].split(": ", 1)[1]
    assert packaged.startswith(site) and str(ROOT) not in where.stdout, where.stdout
    sample = Path(packaged).parent / "examples" / "sport-sample.json"
    played = subprocess.run([str(venv / "bin" / "voicehost"), "simulate", str(sample)], cwd=elsewhere, env=env,
                            capture_output=True, text=True, timeout=hang_guard(120))
    assert played.returncode == 0 and "протокол" in played.stdout.lower() or played.stdout, played.stderr
    assert subprocess.run([str(venv / "bin" / "voicehost"), "config", "check"], cwd=elsewhere, env=env,
                          capture_output=True, timeout=hang_guard(120)).returncode == 0
    assert not list(elsewhere.iterdir())  # nothing written into the current folder


# ---- the systemd unit ------------------------------------------------------------------------

def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (apt install systemd)")
    unit = tmp_path / "voicehost.service"
    unit.write_text(unit_text("ten-seats", "voicehost"))
    text = unit.read_text()
    for line in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "SupplementaryGroups=gpio audio",
                 "User=voicehost", "StandardOutput=journal", " serve --table ten-seats"):
        assert line in text
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "voicehost.service" not in done.stderr, done.stderr
    unit.write_text(text.replace("Type=notify", "Type=notifyy"))
    broken = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert "notifyy" in broken.stderr  # the check can fail


def exposure(unit: Path) -> float:
    """``systemd-analyze security --offline=true``'s overall exposure of a unit file (0 … 10)."""
    done = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit)],
                          capture_output=True, text=True, timeout=120)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout)
    assert found, (done.stdout[-500:], done.stderr)
    return float(found.group(1))


def test_the_unit_is_sandboxed_to_an_ok_exposure(tmp_path: Path) -> None:
    """The unit serves the club's Wi-Fi: systemd rates its sandbox at most 4.9 ("OK"); the same
    unit without the sandbox was rated 9.2 UNSAFE. It still passes ``verify``, with --web too."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (apt install systemd)")
    probe = subprocess.run(["systemd-analyze", "security", "--help"], capture_output=True, text=True, timeout=60)
    if "--offline" not in probe.stdout:
        pytest.skip("this systemd-analyze has no --offline (systemd < 250)")
    unit = tmp_path / "voicehost.service"
    unit.write_text(unit_text("ten-seats", "voicehost", web="0.0.0.0:8080"))
    assert exposure(unit) <= 4.9
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "voicehost.service" not in done.stderr, done.stderr
    text = unit.read_text()
    for line in ("DeviceAllow=char-gpiochip rw", "DeviceAllow=char-alsa rw", "ProtectSystem=strict",
                 "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "WorkingDirectory=/run/voicehost"):
        assert line in text
    bare = "\n".join(line for line in text.splitlines() if line not in HARDENING.format(protect_home="yes"))
    unit.write_text(bare + "\n")
    assert exposure(unit) > 9  # the check can fail: the unit as it was


def test_a_checkout_in_a_home_folder_stays_readable(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ProtectHome=yes`` would hide a program, its Python or a table file under /home or /root:
    the unit then only makes the homes read-only, so the table still starts."""
    monkeypatch.setattr(sys, "executable", "/usr/bin/python3")
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    assert "ProtectHome=yes" in unit_text("ten-seats", command="/opt/voicehost/.venv/bin/voicehost")
    assert "ProtectHome=read-only" in unit_text("ten-seats", command="/home/pi/voicehost/.venv/bin/voicehost")
    assert "ProtectHome=read-only" in unit_text("/home/pi/club.toml", command="/opt/vh/bin/voicehost")
    monkeypatch.setattr(sys, "base_prefix", "/root/.pyenv/versions/3.11.7")   # a venv on a pyenv Python
    assert "ProtectHome=read-only" in unit_text("ten-seats", command="/opt/voicehost/.venv/bin/voicehost")


@pytest.mark.usefixtures("english")
def test_service_unit_prints_it_and_refuses_a_bad_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["service", "unit", "--table", "twelve-seats", "--user", "club"]) == 0
    out = capsys.readouterr().out
    assert "User=club" in out and "serve --table twelve-seats" in out
    assert main(["service", "unit", "--table", "no-such-table"]) == 2
    assert capsys.readouterr().err.startswith("voicehost: error: ")


def test_service_install_writes_creates_the_user_and_enables(tmp_path: Path) -> None:
    from voicehost.service.unit import install
    ran: list[list[str]] = []
    path = install("ten-seats", "voicehost-test-nobody", unit_dir=tmp_path, run=ran.append)
    assert path.read_text() == unit_text("ten-seats", "voicehost-test-nobody")
    assert ran[0][0] == "useradd" and "voicehost-test-nobody" in ran[0]
    assert ran[-2:] == [["systemctl", "daemon-reload"], ["systemctl", "enable", "voicehost.service"]]


def test_the_unit_reports_to_the_club_server_and_takes_its_key_from_the_environment_file(tmp_path: Path) -> None:
    """``service unit --club-server URL``: every game of the appliance reports to the tournament
    screen; the key is not on the command line (the process list) but in the environment file
    systemd reads as root. Bad input (exit 2) is not restarted in a loop."""
    text = unit_text("ten-seats", "voicehost", club_server="http://192.168.1.10:8090/100%")
    assert "--club-server http://192.168.1.10:8090/100%%\n" in text   # % escaped: not a specifier
    assert "EnvironmentFile=-/etc/voicehost/environment\n" in text and "RestartPreventExitStatus=2\n" in text
    assert "CLUB_KEY" not in text
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (apt install systemd)")
    unit = tmp_path / "voicehost.service"
    unit.write_text(text)
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "voicehost.service" not in done.stderr, done.stderr


@pytest.mark.usefixtures("english")
def test_service_unit_refuses_a_club_server_that_is_no_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["service", "unit", "--club-server", " http://10.0.0.5:8090 "]) == 0
    assert "serve --club-server http://10.0.0.5:8090\n" in capsys.readouterr().out
    assert main(["service", "unit", "--club-server", "ftp://10.0.0.5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("voicehost: error: --club-server: ") and len(err.strip().splitlines()) == 1


def test_service_install_writes_the_club_server_into_the_unit(tmp_path: Path) -> None:
    from voicehost.service.unit import install
    path = install("ten-seats", "voicehost-test-nobody", unit_dir=tmp_path, run=lambda command: None,
                   club_server="http://10.0.0.5:8090")
    assert path.read_text() == unit_text("ten-seats", "voicehost-test-nobody", club_server="http://10.0.0.5:8090")


# ---- the wiring diagram ----------------------------------------------------------------------

@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.stem)
def test_the_wiring_diagram_shows_every_pin_of_the_map(tmp_path: Path, table: Path) -> None:
    out = tmp_path / "table.svg"
    assert main(["hw", "diagram", "--table", str(table), str(out)]) == 0
    svg = ET.parse(out).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    by_id = {name: element for element in svg.iter() if (name := element.get("id"))}
    pinmap = load_pinmap(table)
    for seat in pinmap.seats:
        button = "".join(by_id[f"seat-{seat.seat}-button"].itertext())
        led = "".join(by_id[f"seat-{seat.seat}-led"].itertext())
        assert f"GPIO{seat.button} " in button and f"GPIO{seat.led} " in led
        assert "330 Ом" in "".join(by_id[f"seat-{seat.seat}-resistor"].itertext())   # the Russian default
        for pin in (seat.button, seat.led):
            rect = by_id[f"header-gpio{pin}"].find(f"{ns}rect")
            assert rect is not None and rect.get("fill") != "#eeeeee"
    assert len([g for g in svg.iter(f"{ns}g") if (g.get("id") or "").startswith("header-")]) == 28
    header = {pin: "".join(by_id[f"header-gpio{pin}"].itertext()) for pin in (14, 15)}
    used = {seat.led: f"светодиод {seat.seat}" for seat in pinmap.seats} | {seat.button: f"кнопка {seat.seat}"
                                                                          for seat in pinmap.seats}
    named = {14: "8: GPIO14 (UART TXD)", 15: "10: GPIO15 (UART RXD)"}   # free, and named for what they are
    # ten-seats-miniamp.toml gives the UART pins to two LEDs (its amplifier takes GPIO16 and 26)
    assert header == {pin: f"{text.split(' (')[0]} · {used[pin]}" if pin in used else text
                      for pin, text in named.items()}
    notes = ["".join(element.itertext()) for key, element in by_id.items() if key.startswith("note-")]
    assert notes[0] == ("GPIO2, GPIO3 (I2C): на плате подтяжка 1,8 кОм к 3,3 В: годится для кнопки; светодиод на "
                        "нём светился бы при загрузке.")
    uart_note = ["GPIO14, GPIO15 (UART): последовательный порт: с включённой консолью на порту (или Bluetooth на "
                 "нём) не годится, см. voicehost hw test."] if {14, 15} & set(used) else []
    assert notes[1:] == ([] if "i2s" in pinmap.interfaces else  # the twelve seats take the HAT's pins
                         ["GPIO18, GPIO19, GPIO20, GPIO21 (I2S): выводы аудио-HAT: с этой картой HAT не ставится, "
                          "звук идёт через USB-звуковую карту."]) + uart_note
