"""``voicehost model install|check`` and ``voicehost listen``."""

from __future__ import annotations

import argparse
import json
import queue
import sys
import time
from collections.abc import Iterator

from audio.listener import Gate, Heard, MicListener, MicrophoneUnavailable, ModelUnavailable, SpeechModel
from voicehost.cli.args import Commands, seat_count
from voicehost.config import load_ruleset
from voicehost.host.ears import DEFAULT_MODEL_URL, EarsConfig, grammar, install_model, load_ears, model_path, words
from voicehost.host.table_file import table_path
from voicehost.host.transcripts import console_source, queue_source, replay_source, understand
from voicehost.rules import InputError


def add_commands(commands: Commands) -> None:
    model_cmd = commands.add_parser("model", help="the speech model: install it, or check it against the grammar")
    model_cmd.add_argument("action", choices=["install", "check"])
    model_cmd.add_argument("source", nargs="?", default=None,
                           help="install: a ZIP, a folder or a URL (default: vosk-model-small-ru-0.22)")
    model_cmd.add_argument("--model", default=None, help="check: this model folder instead of the configured one")
    model_cmd.add_argument("--rules", default="sport", help="check: the ruleset whose table size to use")
    model_cmd.add_argument("--table", default=None, help="the table file whose [ears] settings to use")
    model_cmd.set_defaults(run=_model)

    listen_cmd = commands.add_parser("listen", help="print what the host understands: live, replayed or typed")
    listen_cmd.add_argument("--replay", default=None, help="a JSONL file of vosk results")
    listen_cmd.add_argument("--console", action="store_true", help="read typed lines from standard input")
    listen_cmd.add_argument("--seats", type=seat_count, default=10)
    listen_cmd.add_argument("--table", default=None, help="the table file whose [ears] settings to use")
    listen_cmd.set_defaults(run=_listen)


def _model(args: argparse.Namespace) -> int:
    if args.action == "install":
        return install(args.source, args.table)
    return check_model(args.model, args.rules, args.table)


def _listen(args: argparse.Namespace) -> int:
    return listen(args.replay, args.console, args.seats, args.table)


def _ears(table: str | None) -> EarsConfig:
    return load_ears(table_path(table))


def open_model(config: EarsConfig, override: str | None = None) -> SpeechModel:
    path = override or str(model_path(config))
    try:
        return SpeechModel(path)
    except ModelUnavailable as err:
        hint = "" if override else "; install one with: voicehost model install"
        raise InputError("model", f"{err}{hint}") from None


def install(source: str | None, table: str | None) -> int:
    config = _ears(table)
    target = install_model(source or DEFAULT_MODEL_URL, config.endpoint)
    print(f"installed {target.name} into {target.parent} (current)")
    return 0


def check_model(override: str | None, ruleset: str, table: str | None) -> int:
    """Load the model and list the grammar's words it does not know (vosk drops them silently)."""
    config = _ears(table)
    seats = range(1, max(load_ruleset(ruleset).seats) + 1)
    phrases = grammar(seats, forbidden=config.forbidden_words)
    start = time.perf_counter()
    model = open_model(config, override)
    loaded = time.perf_counter() - start
    missing = model.missing_words(phrases)
    vocabulary = words(phrases)
    print(f"{model.path}: loaded in {loaded:.1f} s; the grammar has {len(phrases)} phrases, {len(vocabulary)} words")
    if missing:
        print(f"missing from the model's vocabulary ({len(missing)}): {', '.join(missing)}")
        return 1
    print("every word of the grammar is in the model's vocabulary")
    return 0


def listen(replay: str | None, console: bool, seats: int, table: str | None) -> int:
    """Print each final result and what the parser makes of it, as JSON lines."""
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
    model = open_model(config)
    found: queue.Queue[Heard | None] = queue.Queue()
    try:
        mic = MicListener(model.recognizer(grammar(range(1, seats + 1))), Gate(config.hold_off_s), found.put,
                          config.microphone)
    except MicrophoneUnavailable as err:
        raise InputError("listen", str(err)) from None
    mic.start()
    print("listening… (Ctrl+C to stop)", file=sys.stderr)
    try:
        yield from queue_source(found)
    finally:
        mic.close()
