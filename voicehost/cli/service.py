"""``voicehost serve`` (what the systemd unit runs: the idle table), ``voicehost service unit``
(print the unit) and ``voicehost service install`` (write and enable it)."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli.args import (
    Commands,
    add_judge_audio_argument,
    add_tournament_arguments,
    add_web_arguments,
    overlay_settings,
    tournament_of,
    web_pin,
)
from voicehost.cli.tournament_screen import add_club_arguments, club_reporter
from voicehost.i18n import _
from voicehost.rules import InputError
from voicehost.service.unit import DEFAULT_USER, ENVIRONMENT_FILE, install, unit_text

if TYPE_CHECKING:  # the host, the audio stack and asyncio load only for `serve` (see issue 30)
    import asyncio
    import subprocess

    from voicehost.service.notify import Notifier
    from voicehost.service.table import IdleTable, TableSetup


def add_commands(commands: Commands) -> None:
    serve = commands.add_parser("serve", help=_("the appliance: an idle table that starts games from a button chord"))
    serve.add_argument("--table", default=None, help=_("the table file or name (default: ten-seats)"))
    serve.add_argument("--audio", default=None, help=_("default, device:NAME, file:OUT.wav or null"))
    add_judge_audio_argument(serve)
    serve.add_argument("--mock", action="store_true", help=_("gpiozero mock pins (no header: a trial run)"))
    serve.add_argument("--no-ears", action="store_true", help=_("no microphone: speeches end by button or console"))
    serve.add_argument("--journals", default=None, help=_("the journals folder (default: the data folder's)"))
    add_web_arguments(serve)   # for serve: the setup page while idle, the display and console during games
    add_tournament_arguments(serve)   # --round: the first round; each game takes the next
    add_club_arguments(serve)  # the public state to the tournament screen, game after game
    serve.set_defaults(run=_serve)
    service = commands.add_parser("service", help=_("the systemd unit that boots a Pi into a ready table"))
    service.add_argument("action", choices=["unit", "install"], help=_("unit: print it; install: write and enable it"))
    service.add_argument("--table", default=None, help=_("the table file or name the service serves"))
    service.add_argument("--user", default=DEFAULT_USER, help=_("the system user it runs as (default {user})").format(
                             user=DEFAULT_USER))
    service.add_argument("--web", default=None, metavar=_("HOST:PORT"),
                         help=_("serve the setup page, the table display and the judge console here "
                                "(e.g. 0.0.0.0:8080; the PIN: [web] pin of the table file)"))
    service.add_argument("--club-server", default=None, metavar="URL",
                         help=_("report each game's public state to this tournament screen (http://HOST:PORT; "
                                "its key: VOICEHOST_CLUB_KEY in {path})").format(path=ENVIRONMENT_FILE))
    service.set_defaults(run=_service)


def _service(args: argparse.Namespace) -> int:
    if args.table:
        table_setup(args.table)  # a table that does not load is refused now, not at boot
    if args.web:
        from voicehost.web import parse_address
        host, port = parse_address(args.web)
        args.web = f"{host}:{port}"
    if args.club_server:  # refused now, not at boot
        from voicehost.web.reporter import club_socket_url
        args.club_server = args.club_server.strip()
        club_socket_url(args.club_server)
    if args.action == "unit":
        print(unit_text(args.table, args.user, web=args.web, club_server=args.club_server), end="")
        return 0
    path = install(args.table, args.user, web=args.web, club_server=args.club_server)
    print(_("{path}: written and enabled; start it now with: sudo systemctl start voicehost").format(
              path=path))
    return 0


def table_setup(table: str | None, journals: str | None = None) -> tuple[Path, Any, TableSetup]:
    """The table file's pins and its ``[game]`` (ruleset, options) through the one setup check
    (:func:`~voicehost.host.table_game`, as ``config check`` does), and its ``[records]``."""
    from voicehost.config import journals_dir
    from voicehost.host import open_pinmap, table_path
    from voicehost.host.setup import table_game
    from voicehost.records.table import table_records
    from voicehost.service.table import TableSetup

    game = table_game(table)
    path = game.table or table_path(table)
    table_records(path)  # a club server that is not PostgreSQL: refused now, not after the voice warm-up
    pinmap = open_pinmap(str(path), game.ruleset.name)
    folder = Path(journals) if journals else journals_dir()
    return path, pinmap, TableSetup(game.ruleset, game.options, pinmap.size, folder)


def serve_place(args: argparse.Namespace) -> dict[str, Any] | None:
    """``serve --tournament NAME --tournament-table T [--round R]``: the tournament place of the
    table's first game (round R, default 1); each game after takes the next round."""
    from voicehost.host.setup import tournament_place

    if args.tournament is not None and args.round is None:
        args.round = 1
    place = tournament_place(tournament_of(args), "--tournament")
    return dict(place) if place is not None else None


def _serve(args: argparse.Namespace) -> int:
    import asyncio

    from voicehost.config import cache_dir
    from voicehost.host import load_audio
    from voicehost.service.voice_render import start_cues

    path, pinmap, setup = _checked_table(args)
    cues = start_cues(load_audio(path), cache_dir() / "cues")   # a fresh cache: beside the rest of the start-up
    try:
        asyncio.run(_serve_table(args, path, pinmap, setup, cues))
    finally:
        if cues is not None and cues.poll() is None:   # stopped before the voice opened
            cues.kill()
            cues.wait()
    return 0


def _checked_table(args: argparse.Namespace) -> tuple[Path, Any, TableSetup]:
    """The table file and everything given on the line, refused before the table opens anything."""
    path, pinmap, setup = table_setup(args.table, args.journals)
    setup.tournament = serve_place(args)
    if setup.tournament is not None:   # each game's players from the stored schedule, at its round
        from voicehost.cli.run import records_url, schedule_seating

        setup.seating = schedule_seating(records_url(None, path))
    if args.web:  # a bad address or PIN is refused before the table opens anything
        from voicehost.web import parse_address
        args.web_address, args.web_pin = parse_address(args.web), web_pin(args, path)
        args.overlay = overlay_settings(args, path)
    club_reporter(args, path.stem)   # a bad --club-server is refused before the table opens anything
    from voicehost.host.setup import audio_choice
    audio_choice(args.judge_audio, "--judge-audio")   # and a bad earpiece
    return path, pinmap, setup


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def _serve_table(args: argparse.Namespace, path: Path, pinmap: Any, setup: TableSetup,
                       cues: subprocess.Popen[bytes] | None) -> None:
    import asyncio
    import signal
    import time

    from audio.listener import Gate
    from hw.panel import GpioUnavailable, SeatPanel
    from voicehost.host import EdgeLog, Ports, Voice, fixed_lines, load_audio, mock_factory
    from voicehost.host.ears import load_ears
    from voicehost.host.live import _open_ears as open_ears  # the same ears as `voicehost run`
    from voicehost.language.parser import forbidden_words
    from voicehost.records.table import protocol_hook
    from voicehost.service.notify import Notifier
    from voicehost.service.table import IdleTable, idle_lines
    from voicehost.service.voice_render import BackgroundRender

    loop = asyncio.get_running_loop()
    audio = load_audio(path)
    if cues is not None:
        await asyncio.to_thread(cues.wait)
    voice = Voice(audio, args.audio, log=_log)
    # Rendered in the background by idle-priority children (voice_render): a fresh Pi's table is
    # ready at once and stays light; a line a game asks for first is rendered by the table itself.
    spell = voice.renderer.spell
    render = BackgroundRender.of_missing(
        voice.renderer.settings, voice.renderer.cache_dir,
        map(spell, fixed_lines(voice.book, setup.ruleset.name, range(1, setup.seats + 1))), _log,
        first=map(spell, idle_lines(voice.book, setup.ruleset.name)))
    warm_up = asyncio.create_task(render.run())
    try:
        edges = EdgeLog()
        try:
            panel = SeatPanel(pinmap, edges.add, pin_factory=mock_factory() if args.mock else None,
                              deliver=loop.call_soon_threadsafe)
        except GpioUnavailable as err:
            raise InputError("serve", _("{err}; on a machine without GPIO try --mock").format(
                                          err=err)) from None
        gate = Gate(load_ears(path).hold_off_s)

        def say(text: str) -> float:
            render.wait_for(spell(text))   # an idle line of a fresh cache: its child renders it
            onset = voice.say(text)
            gate.host_speaks(onset, time.monotonic())  # the ears ignore the host's own voice
            return onset

        ports = Ports(say=say, night=voice.night, led=panel.show, edges=edges, settle=panel.settle, cue=voice.cue,
                      cue_length=voice.cue_length, hold=voice.hold, warning=voice.warning)
        mic = None if args.no_ears else open_ears(path, setup.seats, gate, loop, ports, _log)
        notify = Notifier()
        ears = load_ears(path)
        table = IdleTable(setup, ports, log=_log, notify=notify, on_line=lambda line: print(line, flush=True),
                          on_results=protocol_hook(path, None, _log, check_db=False),
                          forbidden=forbidden_words(ears.forbidden_words), hearing=ears.hearing)
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, table.stop)
        _read_console(loop, table)
        web, watchdog, reporter, judge = None, None, None, None
        try:
            web = await _serve_web(args, table) if args.web else None
            reporter = _report_to_club(args, path, table)
            judge = _judge_earpiece(args, path, pinmap, table, ports)
            watchdog = _keep_watchdog(notify)
            await table.serve()
        finally:
            if reporter is not None:
                await reporter.stop()
            if judge is not None:
                judge.close()
            if watchdog is not None:
                watchdog.cancel()
            if web is not None:
                await web.stop()
            if mic is not None:
                mic.close()
            panel.close()
    finally:
        render.stop()   # the child at work ends now, no other starts
        voice.close()
        await asyncio.gather(warm_up, return_exceptions=True)


async def _serve_web(args: argparse.Namespace, table: IdleTable) -> Any:
    """The web pages for the table's whole life, on its own loop: the setup page while idle,
    each game's display and console while it runs."""
    from voicehost.web import WebTable
    from voicehost.web.server import overlay_urls

    web = WebTable(args.web_pin, desk=table, overlay=args.overlay)
    url = await web.start(*args.web_address)
    table.on_change = web.follow
    _log(_("voicehost: the table display: {url}/  the judge console and setup: {url}/judge  (PIN {pin})").format(
        url=url, pin=web.pin))
    _log(overlay_urls(url, web.overlay))
    return web


def _report_to_club(args: argparse.Namespace, path: Path, table: IdleTable) -> Any:
    """``--club-server``: the reporter follows the table from game to game, beside the web pages."""
    from voicehost.records.table import table_records

    reporter = club_reporter(args, table_records(path).table)
    if reporter is None:
        return None
    shown = table.on_change

    def follow(director: Any) -> None:
        shown(director)
        reporter.follow(director, table.game_place)
    table.on_change = follow
    reporter.start()
    return reporter


def _judge_earpiece(args: argparse.Namespace, path: Path, pinmap: Any, table: IdleTable, ports: Any) -> Any:
    """The judge's earpiece (``--judge-audio`` or the table's ``judge_output``) and keypad
    (``[judge]``) follow the table from game to game, beside the web pages and the reporter;
    between games the keys do nothing (no line waits to be carried out in the next game)."""
    import asyncio
    from contextlib import ExitStack

    from voicehost.host.earpiece import JudgeFollower
    from voicehost.host.keypad import KeypadCommands
    from voicehost.host.live import _open_keypad as open_keypad  # the same keypad as `voicehost run`
    from voicehost.host.table_file import load_audio
    from voicehost.host.voice import open_judge_voice
    from voicehost.language.phrasebook import load_phrasebook

    closing = ExitStack()
    voice = open_judge_voice(load_audio(path), args.judge_audio, _log)
    if voice is not None:
        closing.callback(voice.close)
    follower = JudgeFollower(voice.speak, load_phrasebook()) if voice is not None else None
    keys = KeypadCommands(ports.type)
    playing: list[Any] = [None]
    keypad = open_keypad(pinmap, lambda action: keys.key(action) if playing[0] is not None else None,
                         args.mock, asyncio.get_running_loop(), _log)
    if keypad is not None:
        closing.callback(keypad.close)
    shown = table.on_change

    def follow(director: Any) -> None:
        shown(director)
        if playing[0] is not None:
            playing[0].unwatch(keys.notice)
        playing[0] = director
        if director is not None:
            director.watch(keys.notice)
        if follower is not None:
            follower.follow(director)
            keys.channel = follower.channel
    table.on_change = follow
    return closing


def _keep_watchdog(notify: Notifier) -> asyncio.Task[None] | None:
    """``WATCHDOG=1`` from the loop itself: if the loop hangs, systemd restarts the table."""
    import asyncio

    from voicehost.service.notify import watchdog_interval

    interval = watchdog_interval()
    if interval is None:
        return None

    async def beat() -> None:
        while True:
            notify.watchdog()
            await asyncio.sleep(interval)
    return asyncio.create_task(beat())


def _read_console(loop: asyncio.AbstractEventLoop, table: IdleTable) -> None:
    """The judge's console: the terminal when there is one, and the FIFO ``$VOICEHOST_CONSOLE``
    (the service's: ``echo discard | sudo tee /run/voicehost/console``)."""
    import threading

    from voicehost.host.live import decode_console_line

    def feed(lines: Any) -> None:  # bytes, decoded leniently: a broken byte never ends the thread
        for line in lines:
            loop.call_soon_threadsafe(table.type, decode_console_line(line).strip())

    if sys.stdin is not None and sys.stdin.isatty():  # on the loop: no thread blocked in stdin at shutdown
        from voicehost.host.terminal import read_terminal
        read_terminal(loop, lambda line: table.type(line.strip()))
    fifo = os.environ.get("VOICEHOST_CONSOLE")
    if not fifo:
        return
    try:
        if not Path(fifo).exists():
            os.mkfifo(fifo, 0o620)
        if not stat.S_ISFIFO(os.stat(fifo).st_mode):
            raise OSError(_("{fifo} is not a FIFO").format(fifo=fifo))
    except OSError as err:
        _log(_("voicehost: no console FIFO ({error})").format(error=err))
        return

    def read_fifo() -> None:
        while True:  # each writer's lines, then the next writer
            with open(fifo, "rb") as handle:
                feed(handle)
    threading.Thread(target=read_fifo, name="voicehost-console-fifo", daemon=True).start()
