"""``voicehost overlay obs`` against a real OBS Studio (Debian's, under Xvfb, its obs-websocket v5
server on): a whole real-time table-level game, and OBS's program scene follows the overlay's
scene hints — seen from OBS's own events. Without OBS or Xvfb, or if OBS does not start here,
that test is skipped with the reason. Bad options are one line and exit 2 (no OBS needed)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from test_overlay import three_candidates

from voicehost.cli.overlay import HINTS, Obs, connect_obs, follow_hints, scene_map
from voicehost.host import Director
from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table
from voicehost.web import WebTable
from voicehost.web.overlay import SCENES

OBS, XVFB = shutil.which("obs"), shutil.which("xvfb-run")
SPEED = 120.0
GLOBAL_INI = """[General]
FirstRun=true
LastVersion=486539266
EnableAutoUpdates=false

[OBSWebSocket]
FirstLoad=false
ServerEnabled=true
ServerPort={port}
AlertsEnabled=false
AuthRequired=false
ServerPassword=
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def obs_studio(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """OBS Studio under Xvfb with a home of its own and its WebSocket server on a free port."""
    if not (OBS and XVFB):
        pytest.skip("OBS Studio and Xvfb are not installed (apt-get install obs-studio xvfb)")
    pytest.importorskip("obsws_python", reason="obsws-python is not installed (pip install -e '.[obs]')")
    port = free_port()
    config = tmp_path / ".config" / "obs-studio"
    config.mkdir(parents=True)
    (config / "global.ini").write_text(GLOBAL_INI.format(port=port), encoding="utf-8")
    log = (tmp_path / "obs.log").open("w")
    process = subprocess.Popen([XVFB, "-a", "-s", "-screen 0 1280x720x24", OBS, "--disable-shutdown-check",
                                "--minimize-to-tray"],
                               env={**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"),
                                    "LIBGL_ALWAYS_SOFTWARE": "1"},
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                connect_obs("127.0.0.1", port, "", f"ws://127.0.0.1:{port}").client.disconnect()
                break
            except Exception:
                if process.poll() is not None or time.monotonic() > deadline:
                    tail = (tmp_path / "obs.log").read_text(errors="replace").strip().splitlines()[-3:]
                    why = f"it exited ({process.returncode})" if process.poll() is not None else "no answer in 90 s"
                    pytest.skip(f"OBS Studio did not start its WebSocket server here, {why}: {' | '.join(tail)}")
                time.sleep(1.0)
        yield "127.0.0.1", port
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)   # xvfb-run, its Xvfb and OBS: the group this test started
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
        log.close()


async def game_with_obs(obs: Obs, host: str, port: int) -> tuple[list[str], list[str], Any]:
    """A real-time game served with the overlay; ``follow_hints`` drives OBS; OBS's own events
    say which program scenes it showed."""
    import obsws_python

    shown: list[str] = []
    said: list[str] = []
    events = obsws_python.EventClient(host=host, port=port, password="", timeout=5)

    def on_current_program_scene_changed(data: Any) -> None:
        shown.append(data.scene_name)
    events.callback.register(on_current_program_scene_changed)
    table = WebTable()
    base = await table.start("127.0.0.1", 0)
    stop = asyncio.Event()
    following = asyncio.create_task(follow_hints(base + "/overlay/events", scene_map([]), obs.switch, said.append,
                                                 stop))

    @asynccontextmanager
    async def around(director: Director) -> AsyncIterator[WebTable]:
        table.attach(director)
        yield table

    try:
        await asyncio.sleep(0.5)
        result = await play_table(three_candidates(), how=TableRun(speak=VirtualVoice(SPEED).speak, speed=SPEED,
                                                                  around=around))
        await asyncio.sleep(2.0)   # the last hint, and OBS's event of it
    finally:
        stop.set()
        await asyncio.gather(following, return_exceptions=True)
        await table.stop()
        events.disconnect()
    return shown, said, result


def test_obs_follows_the_scene_hints_through_a_whole_game(obs_studio: tuple[str, int]) -> None:
    host, port = obs_studio
    obs = connect_obs(host, port, "", f"ws://{host}:{port}")
    for hint in HINTS:
        obs.client.create_scene(hint)
    obs.client.set_current_scene_transition("Cut")   # a 120× game's vote is over before a fade would end
    assert set(HINTS) <= set(obs.scenes()) and set(HINTS) == set(SCENES)
    events, said, result = asyncio.run(game_with_obs(obs, host, port))
    assert result.game.is_over
    shown = [scene for k, scene in enumerate(events) if k == 0 or scene != events[k - 1]]   # the same again: no change
    assert {"day", "vote", "night", "last_word", "over"} <= set(shown), shown
    assert shown[-1] == "over" and shown.index("night") < len(shown) - 1
    assert len(said) >= len(shown), "each change of scene is one switch the command made"
    assert said and all("OBS" in line for line in said)
    obs.client.disconnect()


@pytest.mark.parametrize(("argv", "option"), [
    (["--url", "http://127.0.0.1:4455", "--hints", "http://127.0.0.1:8080/overlay/events"], "--url"),
    (["--url", "ws://127.0.0.1:1", "--hints", "http://127.0.0.1:8080/overlay/events"], "--url"),
    (["--url", "ws://127.0.0.1:1", "--hints", "http://127.0.0.1:8080/overlay"], "--hints"),
    (["--url", "ws://127.0.0.1:1", "--hints", "http://127.0.0.1:8080/overlay/events", "--scene", "dawn=X"], "--scene"),
])
def test_a_bad_obs_option_is_one_line_and_exit_2(argv: list[str], option: str) -> None:
    done = subprocess.run([sys.executable, "-m", "voicehost", "overlay", "obs", *argv], capture_output=True, text=True,
                          timeout=60)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and option in lines[0] and "Traceback" not in done.stderr, lines
