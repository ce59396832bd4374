"""``voicehost model install|check``, ``voicehost listen`` and ``voicehost ears test`` (how well
the host hears in this room, with this microphone)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.cli.args import Commands, number_between, positive, print_json, seat_count
from voicehost.config import load_ruleset, read_toml
from voicehost.i18n import N_, _
from voicehost.rules import InputError

if TYPE_CHECKING:  # the audio stack, the model and the host load only for the command that runs
    from audio.listener import Heard, SpeechModel
    from voicehost.host.calibration import Report
    from voicehost.host.ears import EarsConfig
    from voicehost.host.voice import Voice


def add_commands(commands: Commands) -> None:
    model_cmd = commands.add_parser("model", help=_("the speech model: install it, or check it against the grammar"))
    model_cmd.add_argument("action", choices=["install", "check"])
    model_cmd.add_argument("source", nargs="?", default=None, metavar=_("source"),
                           help=_("install: a ZIP, a folder or a URL (default: vosk-model-small-ru-0.22)"))
    model_cmd.add_argument("--model", default=None, help=_("check: this model folder instead of the configured one"))
    model_cmd.add_argument("--rules", default="sport", help=_("check: the ruleset whose table size to use"))
    model_cmd.add_argument("--table", default=None, help=_("the table file whose [ears] settings to use"))
    model_cmd.set_defaults(run=_model)

    listen_cmd = commands.add_parser("listen", help=_("print what the host understands: live, replayed or typed"))
    listen_cmd.add_argument("--replay", default=None, help=_("a JSONL file of vosk results"))
    listen_cmd.add_argument("--console", action="store_true", help=_("read typed lines from standard input"))
    listen_cmd.add_argument("--seats", type=seat_count, default=10)
    listen_cmd.add_argument("--table", default=None, help=_("the table file whose [ears] settings to use"))
    listen_cmd.set_defaults(run=_listen)

    ears_cmd = commands.add_parser("ears", help=_("the host's ears at this table: check a room and a microphone"))
    actions = ears_cmd.add_subparsers(dest="action", required=True, parser_class=type(ears_cmd))
    test = actions.add_parser("test", help=_("the host plays the phrases (or a player reads them) and reports what it "
                                            "understood, the noise floor and the [ears] settings that fit"))
    test.add_argument("--table", default=None, help=_("the table file whose voice, microphone and [ears] to use"))
    test.add_argument("--read", action="store_true",
                      help=_("a player reads the phrases shown here, into the microphone"))
    test.add_argument("--phrases", default=None,
                      help=_("a text file of phrases, one a line, instead of the grammar's (they become the grammar)"))
    test.add_argument("--all", action="store_true", help=_("every phrase of the grammar, not a sample"))
    test.add_argument("--repeat", type=positive, default=2, help=_("times each phrase is played (default 2)"))
    test.add_argument("--seats", type=seat_count, default=None, help=_("the seats (default: the table file's, or 10)"))
    test.add_argument("--quiet", type=number_between(1, 60, "seconds"), default=3.0,
                      help=_("seconds of silence first, for the room's noise floor (default 3)"))
    test.add_argument("--timeout", type=number_between(1, 60, "seconds"), default=None,
                      help=_("seconds to wait for a phrase to be heard (default 4 after the host's line, 10 to read)"))
    test.add_argument("--model", default=None, help=_("this model folder instead of the configured one"))
    test.add_argument("--audio", default=None,
                      help=_("the speaker: default, device:NAME (default: the table's output)"))
    test.add_argument("--json", action="store_true", help=_("the report as JSON"))
    test.set_defaults(run=_ears_test)


def _model(args: argparse.Namespace) -> int:
    if args.action == "install":
        return install(args.source, args.table)
    return check_model(args.model, args.rules, args.table)


def _listen(args: argparse.Namespace) -> int:
    return listen(args.replay, args.console, args.seats, args.table)


def _ears(table: str | None) -> EarsConfig:
    from voicehost.host.ears import load_ears
    from voicehost.host.table_file import table_path

    return load_ears(table_path(table))


def open_model(config: EarsConfig, override: str | None = None) -> SpeechModel:
    """The model to listen with; none installed: how to install it, with and without internet."""
    from audio.listener import ModelUnavailable
    from voicehost.host.ears import MODELS, install_hint, model_path

    path = override or str(model_path(config))
    try:
        return load_model(path)
    except ModelUnavailable as err:
        hint = f"; {install_hint()}" if path == str(MODELS / "current") and not Path(path).exists() else ""
        raise InputError("model", f"{err}{hint}") from None


def load_model(path: str) -> SpeechModel:
    """The recognizer's model in the folder ``path`` (vosk loads only here)."""
    from audio.listener import SpeechModel

    return SpeechModel(path)


def install(source: str | None, table: str | None) -> int:
    from voicehost.host.ears import DEFAULT_MODEL_URL, install_model

    config = _ears(table)
    target = install_model(source or DEFAULT_MODEL_URL, config.endpoint)
    print(_("installed {name} into {parent} (current)").format(
              name=target.name, parent=target.parent))
    return 0


def check_model(override: str | None, ruleset: str, table: str | None) -> int:
    """Load the model and list the grammar's words it does not know (vosk drops them silently)."""
    from voicehost.host.ears import grammar, words

    config = _ears(table)
    seats = range(1, max(load_ruleset(ruleset).seats) + 1)
    phrases = grammar(seats, forbidden=config.forbidden_words)
    start = time.perf_counter()
    model = open_model(config, override)
    loaded = time.perf_counter() - start
    missing = model.missing_words(phrases)
    vocabulary = words(phrases)
    print(_("{path}: loaded in {loaded:.1f} s; the grammar has {phrases} phrases, {words} words").format(
              path=model.path, loaded=loaded, phrases=len(phrases), words=len(vocabulary)))
    if missing:
        print(_("missing from the model's vocabulary ({count}): {missing}").format(
                  count=len(missing), missing=', '.join(missing)))
        return 1
    print(_("every word of the grammar is in the model's vocabulary"))
    return 0


def listen(replay: str | None, console: bool, seats: int, table: str | None) -> int:
    """Print each final result and what the parser makes of it, as JSON lines."""
    from voicehost.host.transcripts import console_source, replay_source, understand

    source: Iterator[Heard]
    if replay:
        source = replay_source(replay)
    elif console:
        source = console_source(sys.stdin)
    else:
        source = _microphone(_ears(table), seats)
    for heard in source:
        intents = [u.intent.to_dict() for u in understand(heard, None)]
        print(json.dumps({"t": round(heard.t_end, 3), "source": heard.source, "text": heard.text,
                          "intents": intents}, ensure_ascii=False), flush=True)
    return 0


def _microphone(config: EarsConfig, seats: int) -> Iterator[Heard]:
    import queue

    from audio.listener import Gate, MicListener, MicrophoneUnavailable
    from voicehost.host.ears import grammar
    from voicehost.host.transcripts import queue_source

    model = open_model(config)
    found: queue.Queue[Heard | None] = queue.Queue()
    try:
        mic = MicListener(model.recognizer(grammar(range(1, seats + 1))), Gate(config.hold_off_s), found.put,
                          config.microphone)
    except MicrophoneUnavailable as err:
        raise InputError("listen", str(err)) from None
    mic.start()
    print(_("listening… (Ctrl+C to stop)"), file=sys.stderr)
    try:
        yield from queue_source(found)
    finally:
        mic.close()


ECHO_PROBES = 3   # --read: lines the host says itself first, to measure its echo


def _ears_test(args: argparse.Namespace) -> int:
    report = ears_test(args.table, read=args.read, phrases_file=args.phrases, every=args.all, repeat=args.repeat,
                       seats=args.seats, quiet_s=args.quiet, timeout=args.timeout, model_dir=args.model,
                       audio=args.audio)
    if args.json:
        print_json(report.to_dict())
    else:
        print(report.text())
    return 0 if report.passed else 1


def ears_test(table: str | None, *, read: bool = False, phrases_file: str | None = None, every: bool = False,
              repeat: int = 2, seats: int | None = None, quiet_s: float = 3.0, timeout: float | None = None,
              model_dir: str | None = None, audio: str | None = None) -> Report:
    """Play (or have a player read) the phrases at this table and measure how they are heard."""
    from voicehost.host.calibration import phrases_to_try
    from voicehost.host.ears import grammar
    from voicehost.host.voice import open_voice

    config = _ears(table)
    if phrases_file:
        phrases = _read_phrases(phrases_file)
        listened_for = phrases
    else:
        seat_range = range(1, (seats or _table_seats(table) or 10) + 1)
        phrases = phrases_to_try(seat_range, every)
        listened_for = grammar(seat_range, forbidden=config.forbidden_words)
    model = open_model(config, model_dir)
    missing = model.missing_words(listened_for)
    voice = open_voice(table, audio)
    try:
        voice.renderer.warm(phrases if not read else phrases[:ECHO_PROBES])
        return _session(voice, model, listened_for, config, phrases, read, repeat, quiet_s,
                        timeout or (10.0 if read else 4.0), missing)
    finally:
        voice.close()


def _session(voice: Voice, model: SpeechModel, listened_for: list[str], config: EarsConfig, phrases: list[str],
             read: bool, repeat: int, quiet_s: float, timeout: float, missing: list[str]) -> Report:
    import queue

    from audio.listener import Gate, MicListener, MicrophoneUnavailable, read_endpoint
    from voicehost.host.calibration import Attempt, CalibrationRun, LevelMeter, build_report, rounds

    meter = LevelMeter()
    found: queue.Queue[Heard] = queue.Queue()
    # The gate stays open (here the host's own voice is what the ears should hear), and no
    # alternatives are asked for even if [ears] does: they come without word confidences.
    try:
        mic = MicListener(model.recognizer(listened_for), Gate(0.0), found.put, config.microphone, on_block=meter.add)
    except MicrophoneUnavailable as err:
        raise InputError("ears test", str(err)) from None

    def say(text: str) -> tuple[float, float]:
        onset = voice.say(text)
        return onset, time.monotonic()

    session = CalibrationRun(found, say, _progress)
    mic.start()
    notes = []
    try:
        if not session.settle(meter):
            notes.append(N_("the microphone delivered its audio late and in bursts: its figures are rough"))
        _progress(f"measuring the room's noise for {quiet_s:g} s: please keep quiet…")
        quiet = session.quiet(quiet_s)
        probes: list[Attempt] = []
        if read:
            _progress("the host says a few phrases itself, to hear its own echo…")
            probes = [session.host_says(phrase, timeout=4.0) for phrase in phrases[:ECHO_PROBES]]
            _progress("now read each phrase aloud when it is shown, at the seat farthest from the microphone")
        attempts = []
        played = rounds(phrases, repeat)
        for number, phrase in enumerate(played, start=1):
            label = f"[{number}/{len(played)}] "
            before = len(session.results)
            if read:
                attempts.append(session.player_reads(phrase, timeout, label))
            else:
                _progress(f"{label}«{phrase}»")
                attempts.append(session.host_says(phrase, timeout))
            _progress(f"    heard: {' | '.join(h.text for h in session.results[before:]) or '(nothing)'}")
    finally:
        mic.close()
    current = {"hold_off_s": config.hold_off_s, **read_endpoint(model.path), **config.endpoint,
               "min_confidence": config.hearing.min_confidence}
    return build_report("read" if read else "voice", str(model.path), config.microphone or "default", meter, quiet,
                        attempts, probes, session.results, current, missing, notes)


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _read_phrases(path: str) -> list[str]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(path, _("no such file")) from None
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(path, _("cannot read it ({err})").format(err=err)) from None
    phrases = list(dict.fromkeys(line.strip().lower() for line in lines if line.strip() and not line.startswith("#")))
    if not phrases:
        raise InputError(path, _("no phrases (one a line)"))
    return phrases


def _table_seats(table: str | None) -> int:
    """How many seats the table file wires (0: none listed)."""
    from voicehost.host.table_file import table_path

    seats = read_toml(table_path(table)).get("seat", [])
    return len(seats) if isinstance(seats, list) else 0
