"""The appliance's idle table, whole cycles on gpiozero's mock pins and the virtual clock with a
silent voice: ready → chord → a game with the host's deal → protocol → ready again; a power cut
resumed or discarded; no game without room for its journal; a full disk mid-game halts it."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from hw.panel import SeatPanel
from voicehost.config import load_ruleset
from voicehost.host import EdgeLog, Ports, load_journal, open_pinmap, read_journal, run_virtual
from voicehost.service.notify import Notifier
from voicehost.service.table import CHORD_S, DISCARD_WINDOW_S, IdleTable, Start, TableSetup, TableState, held_since

if TYPE_CHECKING:
    from gpiozero.pins.mock import MockFactory

TEN = Path(__file__).resolve().parent.parent / "config" / "tables" / "ten-seats.toml"
READY, RESUMED, NO_ROOM, FAILED, DISCARDED = ("Стол готов.", "Продолжаем игру.", "Нет места для журнала",
                                              "Журнал игры не записывается", "Прерванная игра отложена.")


class Bench:
    """One idle table on mock pins: what it said, showed and printed, and hands on its buttons."""

    def __init__(self, factory: MockFactory, journals: Path, room: int = 1 << 20) -> None:
        self.factory, self.journals, self.room = factory, journals, room
        self.said: list[str] = []
        self.leds: list[tuple[int, str]] = []
        self.printed: list[str] = []

    async def start(self) -> IdleTable:
        loop = asyncio.get_running_loop()
        pinmap = open_pinmap(str(TEN), "sport")
        self.pins = pinmap
        edges = EdgeLog()
        self.panel = SeatPanel(pinmap, edges.add, pin_factory=self.factory, clock=loop.time)

        async def speak(text: str) -> float:
            onset = loop.time()
            self.said.append(text)
            await asyncio.sleep(0.3 + 0.06 * len(text))
            return onset

        ports = Ports(night=lambda on: None, led=lambda seat, pattern: self.leds.append((seat, pattern.name)),
                      edges=edges, speak=speak, clock=loop.time, poll_s=None, settle=self.panel.settle)
        ruleset = load_ruleset("sport")
        setup = TableSetup(ruleset, ruleset.resolve({}), 10, self.journals, deal_seed=lambda: 7, room=self.room)
        self.table = IdleTable(setup, ports, log=self.printed.append, notify=Notifier(""))
        self.task = asyncio.create_task(self.table.serve())
        return self.table

    async def chord(self, held_s: float = CHORD_S + 0.5) -> None:
        first, last = (self.factory.pin(self.pins.pins_of(seat).button) for seat in (1, 10))
        first.drive_low()
        last.drive_low()
        await asyncio.sleep(held_s)
        first.drive_high()
        last.drive_high()

    async def until(self, condition: Callable[[], object], limit_s: float = 20000.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit_s
        while not condition():
            assert loop.time() < deadline, f"not reached; said last: {self.said[-5:]}; printed: {self.printed[-3:]}"
            assert not self.task.done() or self.task.exception() is None, self.task.exception()
            await asyncio.sleep(1.0)

    async def finish(self) -> None:
        self.table.stop()
        await self.task
        self.panel.close()


def test_ready_chord_game_protocol_and_ready_again(mock_factory: MockFactory, tmp_path: Path, english: None) -> None:
    bench = Bench(mock_factory, tmp_path)

    async def main() -> None:
        table = await bench.start()
        await bench.until(lambda: READY in bench.said)
        assert {seat for seat, name in bench.leds if name == "ready"} == set(range(1, 11))
        table.type("discard")  # nothing to discard: said so, and no later game is affected
        table.type("foul 3")   # no game: refused
        await bench.chord(held_s=2.0)  # too short: nothing starts
        await asyncio.sleep(5)
        assert not list(tmp_path.glob("*.jsonl"))
        await bench.chord()
        await bench.until(lambda: table.played)
        await bench.until(lambda: bench.said.count(READY) == 2)
        await bench.finish()

    run_virtual(main())
    assert bench.said.count(READY) == 2
    assert any("no unfinished game" in line for line in bench.printed)
    assert any("foul 3: no game is running" in line for line in bench.printed)
    journal = next(tmp_path.glob("*.jsonl"))
    header, entries = read_journal(journal)
    assert header["ruleset"] == "sport" and entries[0].source == "deal"
    protocol = json.loads(journal.with_suffix(".protocol.json").read_text())
    assert protocol["winner"] == "red"
    assert "Игрок номер один, откройте глаза и посмотрите на свою лампу." in bench.said  # the host's deal shown
    assert any(name == "role" for _, name in bench.leds)


def test_chord_needs_both_seats_held_together() -> None:
    from hw.edges import Edge
    edges = [Edge(1, True, 0.0), Edge(10, True, 1.0), Edge(1, False, 2.0), Edge(1, True, 2.5)]
    assert held_since(edges) == {10: 1.0, 1: 2.5}


def _interrupted_game(mock_factory: MockFactory, journals: Path, after_inputs: int = 12) -> Path:
    """A game cut off (as by a power cut) after some inputs: its journal has no protocol."""
    bench = Bench(mock_factory, journals)

    async def main() -> None:
        await bench.start()
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: any(journals.glob("*.jsonl")) and
                          len(read_journal(next(journals.glob("*.jsonl")))[1]) >= after_inputs)
        await bench.finish()

    run_virtual(main())
    mock_factory.reset()
    journal = next(journals.glob("*.jsonl"))
    assert not journal.with_suffix(".protocol.json").exists()
    return journal


def test_an_unfinished_game_is_resumed_at_start(mock_factory: MockFactory, tmp_path: Path) -> None:
    journal = _interrupted_game(mock_factory, tmp_path)
    before = len(read_journal(journal)[1])
    bench = Bench(mock_factory, tmp_path)

    async def main() -> None:
        table = await bench.start()
        await bench.until(lambda: table.played)
        await bench.until(lambda: READY in bench.said)
        await bench.finish()

    run_virtual(main())
    assert bench.said[0] == RESUMED and bench.said.index(RESUMED) < bench.said.index(READY)
    header, entries = read_journal(journal)
    assert len(entries) > before
    assert json.loads(journal.with_suffix(".protocol.json").read_text())["winner"] == "red"


def _earpiece(bench: Bench, heard: list[str]) -> None:
    """``serve``'s earpiece (cli/service.py: _judge_earpiece) on the bench's table: a follower of
    each game, saying into ``heard``."""
    from voicehost.host.earpiece import JudgeFollower
    from voicehost.language.phrasebook import load_phrasebook
    loop = asyncio.get_running_loop()

    async def speak(text: str) -> float:
        heard.append(text)
        await asyncio.sleep(0.2)
        return loop.time()

    follower = JudgeFollower(speak, load_phrasebook())
    bench.table.on_change = follower.follow


def _said(journal: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    return [r for r in lines if r.get("type") == "said"]


def test_serve_journals_the_earpiece_and_a_resume_repeats_the_deal_once(mock_factory: MockFactory,
                                                                         tmp_path: Path) -> None:
    """``serve`` with ``--judge-audio``: each earpiece line goes into the game's journal on the
    judge's channel (as ``run`` keeps it), and a game resumed after a power cut tells the judge
    its deal once more — once, not at each change of the table's state."""
    bench, heard = Bench(mock_factory, tmp_path), list[str]()

    async def first() -> None:
        await bench.start()
        _earpiece(bench, heard)
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: any(tmp_path.glob("*.jsonl")) and
                          len(read_journal(next(tmp_path.glob("*.jsonl")))[1]) >= 12)
        await bench.finish()

    run_virtual(first())
    mock_factory.reset()
    journal = next(tmp_path.glob("*.jsonl"))
    said = _said(journal)
    assert said and said[0]["text"] == "Раздача." and str(said[1]["key"]).startswith("judge.role_")
    assert all(r["channel"] == "judge" and str(r["key"]).startswith("judge.") for r in said)
    assert [r["text"] for r in said] == heard[:len(said)]
    deal = [text for text in heard if text != "Раздача."][:3]
    resumed, again = Bench(mock_factory, tmp_path), list[str]()

    async def second() -> None:
        table = await resumed.start()
        _earpiece(resumed, again)
        await resumed.until(lambda: table.played)
        await resumed.finish()

    run_virtual(second())
    assert again.count("Раздача.") == 1 and again[1:4] == deal
    kept = _said(journal)
    assert [r["text"] for r in kept].count("Раздача.") == 2   # the first start's and the resume's
    assert [r["text"] for r in kept][len(said):] == again[:len(kept) - len(said)]
    assert json.loads(journal.with_suffix(".protocol.json").read_text())["winner"] == "red"


def test_the_judge_discards_an_unfinished_game_and_it_is_kept(mock_factory: MockFactory, tmp_path: Path) -> None:
    journal = _interrupted_game(mock_factory, tmp_path)
    content = journal.read_text()
    bench = Bench(mock_factory, tmp_path)

    async def main() -> None:
        table = await bench.start()
        await asyncio.sleep(DISCARD_WINDOW_S / 2)
        table.type("discard")
        await bench.until(lambda: READY in bench.said)
        await bench.finish()

    run_virtual(main())
    kept = journal.with_name(journal.stem + ".discarded.jsonl")
    assert not journal.exists() and kept.read_text() == content
    assert bench.said[:2] == [DISCARDED, READY] and RESUMED not in bench.said


def test_discard_during_a_game_keeps_its_journal_and_the_table_is_idle_again(
        mock_factory: MockFactory, tmp_path: Path) -> None:
    bench = Bench(mock_factory, tmp_path)

    async def main() -> None:
        table = await bench.start()
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: any(tmp_path.glob("*.jsonl")) and
                          len(read_journal(next(tmp_path.glob("*.jsonl")))[1]) >= 5)
        table.type("discard")
        await bench.until(lambda: bench.said.count(READY) == 2)
        await bench.finish()

    run_virtual(main())
    [kept] = tmp_path.glob("*.jsonl")
    assert kept.name.endswith(".discarded.jsonl") and len(read_journal(kept)[1]) >= 5
    assert bench.said[-2:] == [DISCARDED, READY]


def test_no_game_starts_without_room_for_its_journal(mock_factory: MockFactory, tmp_path: Path, english: None) -> None:
    bench = Bench(mock_factory, tmp_path, room=1 << 60)

    async def main() -> None:
        await bench.start()
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: any(NO_ROOM in line for line in bench.said))
        await bench.finish()

    run_virtual(main())
    assert not list(tmp_path.glob("*.jsonl"))
    assert any("not starting" in line for line in bench.printed)


@pytest.fixture
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A 128 KB tmpfs (root only: ``mount -t tmpfs -o size=``), unmounted afterwards."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tiny tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()})")
    yield mount
    subprocess.run(["umount", "--lazy", str(mount)], check=True)


def fill(folder: Path) -> None:
    """Write until the filesystem refuses another byte."""
    descriptor = os.open(folder / f"filler-{uuid.uuid4().hex}", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(descriptor, b"\0" * 1024):
            pass
    except OSError:
        pass
    finally:
        os.close(descriptor)


def test_a_full_disk_mid_game_stops_the_inputs_said_and_printed(
        mock_factory: MockFactory, tiny_fs: Path, english: None) -> None:
    journals = tiny_fs / "journals"
    bench = Bench(mock_factory, journals, room=16 * 1024)

    async def main() -> None:
        table = await bench.start()
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: any(journals.glob("*.jsonl")))
        fill(tiny_fs)
        await bench.until(lambda: table.halted)
        assert table.state is TableState.HALTED and table.command(Start()) is not None
        taken = len(read_journal(next(journals.glob("*.jsonl")))[1])
        said = len(bench.said)
        await bench.chord()  # nobody is listening any more
        await asyncio.sleep(600)
        assert len(read_journal(next(journals.glob("*.jsonl")))[1]) == taken
        assert len(bench.said) == said
        await bench.finish()
        # (mypy keeps table.state narrowed to HALTED from the assert above, across the awaits that move it on)
        assert table.state is TableState.STOPPING and table.halted is None  # type: ignore[comparison-overlap]

    run_virtual(main())
    assert any(FAILED in line for line in bench.said)
    assert any("the journal cannot be written" in line and "No space left" in line for line in bench.printed)
    assert {name for _, name in bench.leds[-10:]} == {"journal_failed"}
    journal = next(journals.glob("*.jsonl"))
    assert not journal.with_suffix(".protocol.json").exists()
    read_journal(journal)  # what is on disk reads back: the game resumes once the card has room


def test_no_game_starts_on_a_full_disk(mock_factory: MockFactory, tiny_fs: Path) -> None:
    fill(tiny_fs)
    bench = Bench(mock_factory, tiny_fs / "journals", room=16 * 1024)

    async def main() -> None:
        await bench.start()
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: any(NO_ROOM in line for line in bench.said))
        await bench.finish()

    run_virtual(main())
    assert not list((tiny_fs / "journals").glob("*.jsonl"))


# ---- systemd's side: the notification socket, and `voicehost serve` as the unit runs it -------

def test_notifier_speaks_sd_notify_on_a_real_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    from voicehost.service.notify import watchdog_interval
    address = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(address)
        Notifier(address).ready("idle")
        Notifier(address).watchdog()
        assert server.recv(256).decode() == "READY=1\nSTATUS=idle"
        assert server.recv(256).decode() == "WATCHDOG=1"
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_interval() == 15.0
    monkeypatch.setenv("WATCHDOG_PID", "1")
    assert watchdog_interval() is None
    Notifier("").ready("outside systemd: nothing is sent, nothing fails")


def test_serve_tells_systemd_it_is_ready_and_stops_on_sigterm(tmp_path: Path, english: None) -> None:
    """``voicehost serve`` as the unit starts it: READY=1 on $NOTIFY_SOCKET once the table is
    idle, WATCHDOG=1 while it runs, a clean exit on SIGTERM (mock pins, null audio)."""
    import signal
    import socket
    import sys
    address = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(address)
        server.settimeout(300)  # a cold TTS cache renders the game's fixed lines first
        env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "1000000"}
        env.pop("WATCHDOG_PID", None)
        process = subprocess.Popen([sys.executable, "-m", "voicehost.cli.main", "serve", "--mock", "--audio", "null",
                                    "--no-ears", "--journals", str(tmp_path / "journals")],
                                   env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        try:
            messages = [server.recv(256).decode() for _ in range(3)]
        finally:
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=30)
    assert any(m.startswith("READY=1") for m in messages), (messages, err)
    assert "WATCHDOG=1" in messages
    assert process.returncode == 0, err
    assert "the table is ready" in err


def test_a_fresh_table_is_ready_before_its_voice_is_warmed(tmp_path: Path) -> None:
    """A fresh Pi (an empty voice cache) does not wait for a few hundred lines to render before
    «Стол готов»: the warm-up runs in the background, and stops when the table does."""
    import signal
    import socket
    import sys
    address = str(tmp_path / "notify")
    cache = tmp_path / "cache"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(address)
        server.settimeout(120)
        env = {**os.environ, "NOTIFY_SOCKET": address, "XDG_CACHE_HOME": str(cache)}
        env.pop("WATCHDOG_USEC", None)
        process = subprocess.Popen([sys.executable, "-m", "voicehost.cli.main", "serve", "--mock", "--audio", "null",
                                    "--no-ears", "--journals", str(tmp_path / "journals")],
                                   env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        try:
            ready = server.recv(256).decode()
            rendered = len(list(cache.rglob("*.ogg")))
        finally:
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=60)
    assert ready.startswith("READY=1"), (ready, err)
    assert rendered < 100, f"{rendered} lines were rendered before the table was ready"  # of the 428 it says
    assert process.returncode == 0, err


def test_serve_runs_inside_the_units_sandbox(tmp_path: Path, english: None) -> None:
    """``voicehost serve`` under an emulation of the unit's sandbox, as far as it goes without
    systemd as PID 1: everything read-only but the state, cache and runtime folders
    (``ProtectSystem=strict``), a private /tmp, the runtime folder as working directory,
    ``UMask=0077``, no capabilities and no new privileges. It gets ready, journals a game typed
    ``start`` on the console FIFO, and after a restart opens the resume window for it."""
    from voicehost.config import cache_dir
    from voicehost.service.unit import unit_text
    unit = unit_text("ten-seats")
    for setting in ("ProtectSystem=strict", "PrivateTmp=yes", "WorkingDirectory=/run/voicehost", "UMask=0077",
                    "NoNewPrivileges=yes", "CapabilityBoundingSet=\n"):
        assert setting in unit
    if os.geteuid() != 0 or not all(shutil.which(tool) for tool in ("unshare", "setpriv")):
        pytest.skip("emulating the sandbox needs root, unshare and setpriv")
    namespace = ["unshare", "-m", "--propagation", "private"]
    probe = subprocess.run([*namespace, "mount", "-t", "tmpfs", "tmpfs", str(tmp_path)], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace here ({probe.stderr.strip()})")
    outside_tmp = Path(tempfile.mkdtemp(prefix="voicehost-sandbox-", dir="/var/tmp"))  # the private /tmp hides /tmp
    try:
        _serve_in_the_sandbox(outside_tmp / "state", outside_tmp / "run", cache_dir(), outside_tmp / "program")
    finally:
        shutil.rmtree(outside_tmp, ignore_errors=True)


def _serve_in_the_sandbox(state: Path, run: Path, cache: Path, program: Path) -> None:
    for folder in (state, run, cache, program):
        folder.mkdir(parents=True, exist_ok=True)
    # A checkout under /tmp (a CI clone) would vanish behind the private /tmp: it is carried
    # through a bind outside /tmp and put back in place, as a real install lives in /opt.
    checkout = Path(__file__).resolve().parent.parent
    under_tmp = checkout == Path("/tmp") or Path("/tmp") in checkout.parents
    keep = f"mount --bind {checkout} {program} && " if under_tmp else ""
    restore = f" && mkdir -p {checkout} && mount --bind {program} {checkout}" if under_tmp else ""
    sandbox = (f"{keep}mount --bind {state} {state} && mount --bind {run} {run} && mount --bind {cache} {cache} && "
               f"mount -o remount,bind,ro / && mount -t tmpfs -o mode=1777 tmpfs /tmp{restore} && cd {run} && "
               f"umask 0077 && "
               f"exec setpriv --no-new-privs --bounding-set -all --inh-caps -all "
               f"{sys.executable} -m voicehost.cli.main serve --mock --audio null --no-ears --table ten-seats")
    console = run / "console"

    def serve(then: list[str]) -> tuple[str, str]:
        address = run / "notify"
        address.unlink(missing_ok=True)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
            server.bind(str(address))
            server.settimeout(1)
            env = {**os.environ, "NOTIFY_SOCKET": str(address), "VOICEHOST_DATA": str(state),
                   "VOICEHOST_CACHE": str(cache), "VOICEHOST_CONSOLE": str(console), "PYTHONUNBUFFERED": "1"}
            env.pop("WATCHDOG_USEC", None)
            process = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", sandbox], env=env,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
            try:
                ready, deadline = "", time.monotonic() + 300  # a cold TTS cache renders the fixed lines first
                while not ready and process.poll() is None and time.monotonic() < deadline:
                    try:
                        ready = server.recv(512).decode()
                    except TimeoutError:
                        pass
                for line in then if ready else ():
                    with open(console, "w") as fifo:
                        fifo.write(line + "\n")
                deadline = time.monotonic() + 60
                while then and not list((state / "journals").glob("*.jsonl")) and time.monotonic() < deadline:
                    time.sleep(0.2)
            finally:
                process.send_signal(signal.SIGTERM)
                out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err[-2000:]
        return ready, err

    ready, err = serve(["start"])
    assert ready.startswith("READY=1\nSTATUS=idle"), (ready, err[-2000:])
    [journal] = (state / "journals").glob("*.jsonl")
    assert "a new game of sport" in err and journal.stat().st_mode & 0o077 == 0
    ready, err = serve([])
    assert ready == f"READY=1\nSTATUS=resuming {journal.name}", (ready, err[-2000:])
    assert journal.exists() and not journal.with_suffix(".protocol.json").exists()


def test_an_annulment_on_serve_can_be_undone_within_the_after_game_window(
        mock_factory: MockFactory, tmp_path: Path) -> None:
    """Issue 42: «annul» on ``serve`` acted at once and for good (undo: «Стол свободен: игра не
    идёт.»). Now, as at ``run``, ``undo`` within the after-game window takes the verdict back, the
    table hears «Продолжаем.» and the game plays on to its own end."""
    bench = Bench(mock_factory, tmp_path)

    async def main() -> None:
        table = await bench.start()
        await bench.until(lambda: READY in bench.said)
        await bench.chord()
        await bench.until(lambda: any(tmp_path.glob("*.jsonl")) and
                          len(read_journal(next(tmp_path.glob("*.jsonl")))[1]) >= 5)
        table.type("annul свет погас")
        await bench.until(lambda: any(line.startswith("voicehost:") and "«undo»" in line for line in bench.printed))
        annulled = bench.said.index("Игра аннулирована.")
        await asyncio.sleep(30)
        assert bench.said[annulled + 1:] == []   # the speech does not play on under the verdict
        table.type("undo")
        await bench.until(lambda: "Продолжаем." in bench.said)
        await bench.until(lambda: bench.said.count(READY) == 2)
        await bench.finish()

    run_virtual(main())
    journal = next(tmp_path.glob("*.jsonl"))
    protocol = json.loads(journal.with_suffix(".protocol.json").read_text())
    assert "verdict" not in protocol and protocol["winner"] == "red"
    assert [r["action"] for r in load_journal(journal).judged] == []
