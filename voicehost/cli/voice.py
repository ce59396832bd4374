"""``voicehost voice``: render every fixed line ahead of a game, or say one line aloud."""

from __future__ import annotations

import argparse
import time

from voicehost.cli.args import Commands
from voicehost.config import load_ruleset, ruleset_names
from voicehost.host.voice import open_voice
from voicehost.rules import InputError


def add_commands(commands: Commands) -> None:
    voice_cmd = commands.add_parser("voice", help="the host's voice: render lines ahead, or say one")
    voice_cmd.add_argument("action", choices=["warm", "say"], help="warm: render every fixed line; say: speak TEXT")
    voice_cmd.add_argument("text", nargs="*", help="what to say (say)")
    voice_cmd.add_argument("--rules", action="append", default=None, help="rulesets to warm (default: all)")
    voice_cmd.add_argument("--table", default=None, help="the table file whose [audio] settings to use")
    voice_cmd.add_argument("--audio", default=None, help="default, device:NAME, file:OUT.wav or null")
    voice_cmd.set_defaults(run=_voice)


def _voice(args: argparse.Namespace) -> int:
    from voicehost.host.voice import fixed_lines

    if args.action == "say" and not args.text:
        raise InputError("voice say", "give the words to say")
    notes: list[str] = []
    voice = open_voice(args.table, args.audio or ("null" if args.action == "warm" else None), log=notes.append)
    try:
        if args.action == "say":
            if voice.speaker_missing:  # a speaker check that reaches no speaker has failed
                reason = notes[0].removeprefix("voicehost: ") if notes else "no audio device"
                raise InputError("voice say", f"{reason.split(';')[0]}; nothing was said")
            voice.say(" ".join(args.text))
            return 0
        for name in args.rules or ruleset_names():
            seats = range(1, max(load_ruleset(name).seats) + 1)
            start = time.perf_counter()
            count = voice.renderer.warm(fixed_lines(voice.book, name, seats))
            print(f"{name}: {count} lines ready in {time.perf_counter() - start:.2f} s "
                  f"(cache: {voice.renderer.cache_dir})")
    finally:
        voice.close()
    return 0
