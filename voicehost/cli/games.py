"""``voicehost simulate``, ``resume`` and ``demo``: table scripts played at the engine or the
table level, resumed from their journals, or played aloud on a simulated table."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli.args import (
    Commands,
    add_judge_audio_argument,
    add_tournament_arguments,
    add_web_arguments,
    audio_help,
    print_json,
    seconds,
    speed,
    tournament_of,
    web_around,
)
from voicehost.config import packaged_examples, ruleset_names
from voicehost.i18n import _
from voicehost.rules import InputError

if TYPE_CHECKING:  # the engine, the host and the simulations load only for the command that runs
    from voicehost.host.subtitles import Transcript


def add_commands(commands: Commands) -> None:
    simulate_cmd = commands.add_parser("simulate", help=_("play a table script, print the protocol"))
    simulate_cmd.add_argument("script", metavar=_("script"), help=_("a table script (.json or .toml)"))
    simulate_cmd.add_argument("--json", action="store_true", help=_("print the protocol as JSON"))
    simulate_cmd.add_argument("--level", choices=["engine", "table"], default="engine",
                              help=_("engine: the rules alone; table: voice, seat buttons and ears, "
                                     "on a virtual clock"))
    simulate_cmd.add_argument("--journal", default=None,
                              help=_("append every input to this file (fsynced); resume it after a crash"))
    simulate_cmd.add_argument("--transcript", default=None, metavar=_("FILE.jsonl"),
                          help=_("(--level table) write every spoken line and music change as JSON lines, "
                                 "timed on the table's clock"))
    _record_options(simulate_cmd)
    simulate_cmd.add_argument("--speed", type=speed, default=1.0,
                              help=_("with --web: the table level runs in real time, timers this many times faster"))
    add_web_arguments(simulate_cmd)
    simulate_cmd.set_defaults(run=_simulate)

    resume_cmd = commands.add_parser("resume", help=_("rebuild a game from its journal and carry on"))
    resume_cmd.add_argument("journal", metavar=_("journal"), help=_("the journal file of the interrupted game"))
    resume_cmd.add_argument("--json", action="store_true", help=_("print the protocol as JSON"))
    resume_cmd.set_defaults(run=_resume)

    demo_cmd = commands.add_parser("demo", help=_("play the bundled sample game aloud, then its protocol"))
    demo_cmd.add_argument("script", nargs="?", default=None, metavar=_("script"),
                          help=_("a script to play (default: the bundled sport sample, "
                                 "or an invented game with --seed)"))
    demo_cmd.add_argument("--seed", type=int, default=None, help=_("invent a game from this seed instead of a script"))
    demo_cmd.add_argument("--rules", default="sport", help=_("with --seed: the ruleset of the invented game"))
    demo_cmd.add_argument("--speed", type=speed, default=8.0,
                          help=_("timers run this many times faster (speech timers, vote windows); default 8"))
    demo_cmd.add_argument("--pace", type=seconds, default=0.15,
                          help=_("with --audio off: seconds between printed lines"))
    demo_cmd.add_argument("--audio", default=None,
                          help=audio_help())
    add_judge_audio_argument(demo_cmd)
    demo_cmd.add_argument("--table", default=None,
                          help=_("the table file whose seat panel (on mock pins) and [audio] settings to use"))
    demo_cmd.add_argument("--transcript", default=None, metavar=_("FILE.jsonl"),
                          help=_("write every spoken line and music change as JSON lines, timed on the table's clock"))
    demo_cmd.add_argument("--json", action="store_true",
                          help=_("print the whole protocol as JSON at the end (instead of the short summary)"))
    _record_options(demo_cmd)
    add_web_arguments(demo_cmd)
    demo_cmd.set_defaults(run=_demo)


def _record_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", action="store_true", help=_("store the finished game in the club records"))
    parser.add_argument("--db", default=None, metavar="URL", help=_("with --record: the records database"))
    add_tournament_arguments(parser)


def _place(args: argparse.Namespace) -> dict[str, Any] | None:
    """The game's tournament place (``--tournament --round --tournament-table``), checked, or None."""
    from voicehost.host.setup import tournament_place

    place = tournament_place(tournament_of(args), "--tournament")
    return dict(place) if place is not None else None


def _tagged(protocol: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    place = _place(args)
    return {**protocol, "tournament": place} if place is not None else protocol


def _record(args: argparse.Namespace, protocol: dict[str, Any], name: str, journal: Path | None = None) -> str | None:
    """``--record``: the finished game into the records (a simulated table's, so table "simulation");
    an unfinished one is not a game the records keep, and one line says so. Returns the
    database the game is in (its URL, no password), or None."""
    if not getattr(args, "record", False):
        return None
    if protocol.get("winner") is None:
        from voicehost.language.read_lines import read_line

        print(read_line("log", "not_recorded"), file=sys.stderr)
        return None
    from sqlalchemy.engine import make_url

    from voicehost.records.paths import default_url
    from voicehost.records.table import record_finished_game, with_start

    started = with_start(protocol, journal)  # started when its journal says
    if not record_finished_game(_tagged(started, args), name, db=args.db, refuse_taken=True):
        return None
    return make_url(args.db or default_url()).render_as_string(hide_password=True)


def _simulate(args: argparse.Namespace) -> int:
    if args.transcript is not None and args.level != "table":
        raise InputError("--transcript", _("only the table level speaks (add --level table)"))
    if args.web and args.level != "table":
        raise InputError("--web", _("the web display follows the live director: add --level table"))
    from voicehost.simulation.script import load_script

    around = web_around(args)
    script = load_script(args.script)
    place = _place(args)
    if args.journal is None:
        with _transcript(args) as transcript:
            return _report(_play(script, args.level, transcript=transcript, around=around, speed=args.speed),
                           args.json, record=args if args.record else None)
    from voicehost.host.journal import Journal

    path = Path(args.journal)
    if path.exists() and path.stat().st_size:
        raise InputError(str(path), _("the journal already exists: resume it with voicehost resume, or pick a new "
                                      "name"))
    journal = Journal(path, {"script": str(Path(args.script).resolve()), "ruleset": script.ruleset.name,
                             "seats": script.seats, "options": dict(script.options), "level": args.level,
                             **({"tournament": place} if place is not None else {})})
    try:
        with _transcript(args) as transcript:
            return _report(_play(script, args.level, journal, transcript=transcript, around=around,
                                 speed=args.speed), args.json, path, args if args.record else None)
    finally:
        journal.close()


@contextmanager
def _transcript(args: argparse.Namespace) -> Iterator[Transcript | None]:
    """The ``--transcript`` file, if asked for (opened before the game, so a bad path costs nothing)."""
    if getattr(args, "transcript", None) is None:
        yield None
        return
    from voicehost.host.subtitles import Transcript

    transcript = Transcript(args.transcript)
    try:
        yield transcript
    finally:
        transcript.close()


def _play(script: Any, level: str | None, journal: Any = None, replayed: Any = None,
          transcript: Transcript | None = None, around: Any = None, speed: float = 1.0) -> Any:
    """The engine level, or the table level: the live director with simulated people on game time.
    With the web display (``around``) the table level runs in real time, ``speed`` times faster:
    on game time a whole game is over before a phone has loaded the page."""
    if level == "table":
        import asyncio

        from voicehost.host.vclock import run_virtual
        from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table

        if around is not None:
            how = TableRun(speak=VirtualVoice(speed).speak, speed=speed, transcript=transcript, around=around)
            return asyncio.run(play_table(script, journal, replayed, how))
        return run_virtual(play_table(script, journal, replayed, TableRun(transcript=transcript)))
    from voicehost.simulation.engine_level import simulate

    return simulate(script, journal=journal, replayed=replayed)


def _resume(args: argparse.Namespace) -> int:
    from voicehost.host.journal import Journal, load_journal
    from voicehost.simulation.script import load_script

    read = load_journal(args.journal)
    header = read.header
    if header.get("level") not in ("engine", "table") or "script" not in header:
        raise InputError(args.journal, _("this journal has no script to replay (a live game: voicehost run --resume)"))
    script = load_script(header["script"])
    _same_setup(script, header, args.journal)
    journal = Journal.resume(read)
    try:
        return _report(_play(script, header["level"], journal, read.entries), args.json, Path(args.journal))
    finally:
        journal.close()


def _same_setup(script: Any, header: dict[str, Any], place: str) -> None:
    """The script must still set up the game the journal recorded: ruleset, seats and options."""
    options = header.get("options")   # an option added since the journal was written takes its default
    recorded = {"ruleset": header.get("ruleset"), "seats": header.get("seats"),
                "options": dict(script.ruleset.resolve(options, f"{place}:1: options"))
                if isinstance(options, dict) and header.get("ruleset") == script.ruleset.name else options}
    now = {"ruleset": script.ruleset.name, "seats": script.seats, "options": dict(script.options)}
    for key, value in recorded.items():
        if value != now[key]:
            raise InputError(f"{place}:1", _("the journal's {key} is {value!r}, the script's {now!r} now: not the same "
                                             "game").format(key=key, value=value, now=now[key]))


def _report(result: Any, as_json: bool, journal: Path | None = None, record: argparse.Namespace | None = None) -> int:
    """Print the protocol or the account; next to a journal, write both as files."""
    from voicehost.host.journal import journal_ballots
    from voicehost.rules.protocol import build_protocol

    ballots = journal_ballots(journal) if journal is not None else getattr(result.table, "ballots", [])
    protocol = build_protocol(result.game, result.ignored, result.script.names,   # ballots: a table level's only
                              [{"day": vote.day, **vote.entry()} for vote in ballots])
    account = _account(result)
    if journal is not None and result.game.is_over:
        from voicehost.host.journal import write_results

        write_results(journal, protocol, account)
    if as_json:
        print_json(protocol)
    else:
        for line in account:
            print(line)
    if record is not None:
        _record(record, protocol, journal.name if journal is not None else Path(record.script).name, journal)
    return 0


def _account(result: Any) -> list[str]:
    from voicehost.language.narrate import narrate
    from voicehost.language.read_lines import read_line

    lines = list(narrate(result.game.events, result.script.names))
    if result.game.outcome() is None:
        lines.append(read_line("log", "ran_out"))
    for entry in result.ignored:
        lines.append(_("(ignored: {at} — {why})").format(at=entry['at'], why=entry['why']))
    return lines


def _demo(args: argparse.Namespace) -> int:
    """The main job on any machine: a table script played by the live director at a simulated
    table — gpiozero's mock pins for the seat panel, people who press and speak as the script
    says — with the host's real voice and night music, timers sped up by ``--speed``, the
    public log in the terminal and a short summary at the end (``--json``: the protocol; it is
    saved in the data folder either way). ``--audio off``: no voice, on game time (instant;
    ``--pace`` spaces the printed lines)."""
    from voicehost.language.read_lines import read_line
    from voicehost.rules.protocol import build_protocol

    script = _demo_script(args)
    pinmap = _demo_pinmap(args.table, script.seats)
    _demo_setup(args, script)  # the whole table file and --audio, checked before the voice warm-up
    _place(args)  # and the tournament place
    around = web_around(args, args.table)
    with _transcript(args) as transcript:
        if args.audio == "off":
            result = _demo_printed(args, script, transcript, around)
        elif args.audio and args.audio.startswith("file:"):
            result = _demo_to_file(args, script, transcript)
        else:
            result = _demo_aloud(args, script, pinmap, transcript, around)
    if result.game.outcome() is None:
        print(read_line("log", "ran_out"))
    print()
    protocol = _tagged(build_protocol(result.game, result.ignored, result.script.names), args)
    saved = _demo_protocol_file(protocol)
    if args.json:
        print_json(protocol)
    recorded = _record(args, protocol, saved.stem.removesuffix(".protocol"))
    if not args.json:
        for line in demo_summary(result, protocol, saved, recorded):
            print(line)
    return 0


def _demo_aloud(args: argparse.Namespace, script: Any, pinmap: Any, transcript: Transcript | None,
                around: Any) -> Any:
    """The game through the sound card, in real time. No speaker (no sound card, or the named
    one cannot be opened): one line says so, and the game is played as with ``--audio off``
    with the host's lines printed, rather than a whole silent game in real time."""
    import asyncio

    from voicehost.host.voice import open_voice
    from voicehost.simulation.table_level import TableRun, mock_pin_seats, play_table

    notes: list[str] = []
    voice = open_voice(args.table, args.audio, log=notes.append)
    if voice.speaker_missing:
        voice.close()
        for note in notes:
            if note != voice.out.no_device:   # said below, with what the demo does instead
                print(note, file=sys.stderr)
        print(_("No speaker ({wanted} does not open): the host cannot be heard, the lines are printed below, and the "
                "game runs without pauses, as with --audio off. To check the sound: voicehost voice say hello").format(
                    wanted=_audio_wanted(voice.wanted)), flush=True)
        return _demo_printed(args, script, transcript, around, host_lines=True)
    for note in notes:
        print(note, file=sys.stderr)
    print(_("voicehost demo: a {ruleset} game at a simulated {seats}-seat table, timers {speed:g}× faster; the host "
            "speaks every line, so a whole game takes a while (Ctrl+C ends it).").format(
                ruleset=script.ruleset.name, seats=script.seats, speed=args.speed), flush=True)
    try:
        voice.renderer.warm(_fixed_lines(voice, script))
        with _judge_channel(args, transcript, around, virtual=False) as judged:
            how = TableRun(say=voice.say, night=voice.night, cue=voice.cue, cue_length=voice.cue_length,
                           hold=voice.hold, warning=voice.warning,
                           seats=mock_pin_seats(pinmap), speed=args.speed,
                           show=lambda line: print(line, flush=True), transcript=transcript, around=judged)
            return asyncio.run(play_table(script, how=how))
    finally:
        voice.close()


def _audio_wanted(spec: str) -> str:
    """The sound card asked for, in the no-speaker line."""
    if spec == "default":
        return _("the default sound card")
    return _('the device "{name}"').format(name=spec.removeprefix("device:"))


def _demo_printed(args: argparse.Namespace, script: Any, transcript: Transcript | None, around: Any,
                  host_lines: bool = False) -> Any:
    """``--audio off`` (and no speaker): no sound, on game time, ``--pace`` between printed
    lines; with phones watching (``around``), in real time ``--speed`` times faster.
    ``host_lines``: each line the host would say is printed as it would be said."""
    import asyncio

    from voicehost.host.vclock import run_virtual
    from voicehost.simulation.table_level import TableRun, VirtualVoice, play_table

    def show(line: str) -> None:
        print(line, flush=True)
        if around is None:
            time.sleep(args.pace)

    virtual = VirtualVoice(args.speed if around is not None else 1.0)

    async def speak(text: str) -> float:
        if host_lines:
            show(_('Host: "{text}"').format(text=text))
        return await virtual.speak(text)

    with _judge_channel(args, transcript, around, around is None, show) as judged:
        how = TableRun(speak=speak, speed=args.speed if around is not None else 1.0, transcript=transcript, show=show,
                       around=judged)
        return asyncio.run(play_table(script, how=how)) if around is not None else \
            run_virtual(play_table(script, how=how))


def _demo_protocol_file(protocol: dict[str, Any]) -> Path:
    """The demo's protocol, kept as ``run`` keeps a game's: in the data folder's journals."""
    import json

    from voicehost.config import journals_dir

    stem = f"demo-{time.strftime('%Y%m%d-%H%M%S')}"
    path = journals_dir() / f"{stem}.protocol.json"
    for again in range(2, 100):  # two demos in one second keep both protocols
        if not path.exists():
            break
        path = journals_dir() / f"{stem}-{again}.protocol.json"
    try:
        path.write_text(json.dumps(protocol, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    except OSError as err:
        raise InputError(str(path), _("cannot write the protocol ({error})").format(
            error=err.strerror or err)) from None
    return path


def demo_summary(result: Any, protocol: dict[str, Any], saved: Path, recorded: str | None) -> list[str]:
    """The demo's last lines, in Russian: who won, who left the table when, and where the
    protocol and the record went (the whole protocol: ``--json``)."""
    from voicehost.language.read_lines import read_line
    from voicehost.rules.events import GameOver

    names = result.script.names
    over = next((e for e in reversed(result.game.events) if isinstance(e, GameOver)), None)
    if over is None:
        lines = [_("Result: the game is not over.")]
    else:
        reason = read_line("log", f"reason_{over.reason}", n=over.count)
        winner = read_line("log", f"winner_{over.winner}")
        lines = [_("Result: {winner} — {reason}.").format(winner=winner, reason=reason)]
    left = [f"{_seat(out['seat'], names)} — {_when(out)}, {_left_by(out['cause'])}"
            for out in protocol.get("eliminations", [])]
    seats = "; ".join(left) if left else _("nobody")
    lines.append(_("Left the game: {seats}.").format(seats=seats))
    lines.append(_("Protocol: {path} (all of it on screen: voicehost demo --json).").format(path=saved))
    lines.append(_("Club records: the game is recorded in {where}.").format(where=recorded) if recorded is not None
                 else _("Club records: the game is not recorded (to record it: --record)."))
    return lines


def _left_by(cause: str) -> str:
    causes = {"voted": _("voted out"), "killed": _("killed"), "removed": _("removed")}
    return causes.get(cause, cause)


def _seat(seat: int, names: dict[int, str]) -> str:
    return f"№{seat} ({names[seat]})" if names.get(seat) else f"№{seat}"


def _when(out: dict[str, Any]) -> str:
    if out.get("night") is not None:
        return _("night {night}").format(night=out["night"])
    return _("day {day}").format(day=out["day"])


def _demo_to_file(args: argparse.Namespace, script: Any, transcript: Transcript | None) -> Any:
    """``--audio file:OUT.wav``: the game on the virtual clock, rendered to the file as fast as
    the machine can (the timers at ``--speed``, as the demo would be heard)."""
    from voicehost.host.table_file import load_audio, table_path
    from voicehost.host.vclock import run_virtual
    from voicehost.host.voice import FileVoice, fixed_lines
    from voicehost.simulation.table_level import TableRun, play_table

    voice = FileVoice(load_audio(table_path(args.table)), args.audio.removeprefix("file:"))
    try:
        voice.renderer.warm(fixed_lines(voice.book, script.ruleset.name, range(1, script.seats + 1)))
        with _judge_channel(args, transcript, None, virtual=True) as judged:
            how = TableRun(speak=voice.speak, night=voice.night, cue=voice.cue, cue_length=voice.cue_length,
                           hold=voice.hold, warning=voice.warning, speed=args.speed, transcript=transcript,
                           show=lambda line: print(line, flush=True), around=judged)
            return run_virtual(play_table(script, how=how))
    finally:
        voice.close()
    

def _demo_script(args: argparse.Namespace) -> Any:
    """The script given, a game invented from ``--seed``, or the bundled sample."""
    from voicehost.simulation.script import load_script

    if args.seed is None:
        return load_script(args.script or packaged_examples() / "sport-sample.json")
    if args.script is not None:
        raise InputError("demo", _("give a script or --seed, not both"))
    from voicehost.simulation.script import script_from_data
    from voicehost.simulation.scriptgen import random_script

    if args.rules not in ruleset_names():
        raise InputError("--rules", _("unknown ruleset {name!r} (known: {known})").format(
            name=args.rules, known=", ".join(ruleset_names())))
    print(_("An invented {rules} game, seed {seed}.").format(rules=args.rules, seed=args.seed), flush=True)
    return script_from_data(random_script(args.rules, args.seed))


def _demo_pinmap(table: str | None, seats: int) -> Any:
    """The demo's seat panel: the given table, or the bundled one with enough seats."""
    from voicehost.host.seats import open_pinmap
    from voicehost.host.table_file import table_path

    name = table or ("ten-seats" if seats <= 10 else "twelve-seats")
    pinmap = open_pinmap(str(table_path(name)))
    if pinmap.size < seats:
        raise InputError(str(table_path(name)), _("has {size} seats; the script needs {seats}").format(
            size=pinmap.size, seats=seats))
    return pinmap


def _demo_setup(args: argparse.Namespace, script: Any) -> None:
    """The script's game at the demo's table through the one setup check ``run`` uses."""
    from voicehost.host.setup import CLI_PLACES, SetupRequest, audio_choice, check_setup
    from voicehost.host.table_file import table_path

    table = table_path(args.table or ("ten-seats" if script.seats <= 10 else "twelve-seats"))
    check_setup(SetupRequest(ruleset=script.ruleset.name, options=dict(script.options), names=script.names.items(),
                             table=table, seats=script.seats, audio=args.audio, places=CLI_PLACES))
    audio_choice(args.judge_audio, "--judge-audio")


@contextmanager
def _judge_channel(args: argparse.Namespace, transcript: Transcript | None, around: Any, virtual: bool,
                   show: Any = None) -> Iterator[Any]:
    """The demo's ``around`` with the judge's earpiece (``--judge-audio``) added, its voice
    closed after the game. ``virtual``: the game is on the virtual clock (a file renders on
    game time); ``show``: no sound (``--audio off``), the judge's lines are printed unless
    they go to a file."""
    from voicehost.host.earpiece import both, judge_around
    from voicehost.host.table_file import load_audio, table_path
    from voicehost.host.voice import open_judge_voice
    from voicehost.language.phrasebook import load_phrasebook

    audio = load_audio(table_path(args.table))
    spec = args.judge_audio if args.judge_audio is not None else audio.judge_output
    if show is not None and spec != "off" and not spec.startswith("file:"):
        spec = "print"
    voice = open_judge_voice(audio, spec, show or (lambda line: print(line, file=sys.stderr)), virtual,
                             args.speed if not virtual else 1.0)
    try:
        yield around if voice is None else both(around, judge_around(voice.speak, load_phrasebook(),
                                                                     transcript=transcript))
    finally:
        if voice is not None:
            voice.close()


def _fixed_lines(voice: Any, script: Any) -> list[str]:
    from voicehost.host.voice import fixed_lines

    return list(fixed_lines(voice.book, script.ruleset.name, range(1, script.seats + 1)))
