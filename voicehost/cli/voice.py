"""``voicehost voice``: render every fixed line ahead of a game, say one line aloud, or show
how a text will be pronounced (the lexicon applied, then espeak-ng's phonemes)."""

from __future__ import annotations

import argparse
import time

from voicehost.cli.args import Commands
from voicehost.config import load_ruleset, ruleset_names
from voicehost.language.i18n import _
from voicehost.rules import InputError


def add_commands(commands: Commands) -> None:
    voice_cmd = commands.add_parser("voice", help=_("the host's voice: render lines ahead, or say one"))
    voice_cmd.add_argument("action", choices=["warm", "say", "pronounce", "script"],
                           help=_("warm: render every fixed line; say: speak TEXT; "
                                  "pronounce: print TEXT after the lexicon and its espeak-ng phonemes; "
                                  "script: list (name TAB text) every line and fragment a club records "
                                  "for its own voice"))
    voice_cmd.add_argument("text", nargs="*", metavar=_("text"), help=_("what to say (say, pronounce)"))
    voice_cmd.add_argument("--rules", action="append", default=None, help=_("rulesets to warm (default: all)"))
    voice_cmd.add_argument("--table", default=None, help=_("the table file whose [audio] settings to use"))
    voice_cmd.add_argument("--audio", default=None, help=_("default, device:NAME, file:OUT.wav or null"))
    voice_cmd.set_defaults(run=_voice)


def _voice(args: argparse.Namespace) -> int:
    from voicehost.host.voice import fixed_lines, open_voice

    if args.action == "pronounce":
        return _pronounce(" ".join(args.text), args.table)
    if args.action == "script":
        return _script(args.rules or ruleset_names())
    if args.action == "say" and not args.text:
        raise InputError("voice say", _("give the words to say"))
    notes: list[str] = []
    voice = open_voice(args.table, args.audio or ("null" if args.action == "warm" else None), log=notes.append)
    try:
        if args.action == "say":
            if voice.speaker_missing:  # a speaker check that reaches no speaker has failed
                reason = (voice.out.no_device or _("voicehost: no audio device")).removeprefix("voicehost: ")
                raise InputError("voice say", _("{value}; nothing was said").format(
                                                  value=reason.split(';')[0]))
            voice.say(" ".join(args.text))
            return 0
        for name in args.rules or ruleset_names():
            seats = range(1, max(load_ruleset(name).seats) + 1)
            start = time.perf_counter()
            count = voice.renderer.warm(fixed_lines(voice.book, name, seats))
            print(_("{name}: {count} lines ready in {seconds:.2f} s (cache: {cache_dir})").format(
                      name=name, count=count, seconds=time.perf_counter() - start,
                      cache_dir=voice.renderer.cache_dir))
    finally:
        voice.close()
    return 0


def _pronounce(text: str, table: str | None) -> int:
    """What espeak-ng is given for ``text`` and the phonemes it makes of it (stress: ')."""
    from audio.tts import VoiceUnavailable, phonemes
    from voicehost.host.table_file import load_audio, table_path
    from voicehost.language.lexicon import load_lexicon

    if not text.strip():
        raise InputError("voice pronounce", _("give the words to pronounce"))
    spelled = load_lexicon().apply(text)
    try:
        said = phonemes(spelled, load_audio(table_path(table)).voice.espeak_voice)
    except VoiceUnavailable as err:
        raise InputError("voice pronounce", str(err)) from None
    print(_("text:     {text}").format(text=text))
    if spelled != text:
        print(_("lexicon:  {spelled}").format(spelled=spelled))
    print(_("phonemes: {said}").format(said=said))
    return 0


def _script(rulesets: list[str]) -> int:
    """The recording script as TSV on stdout: save it as ``script.tsv`` in the voice folder."""
    from voicehost.host.voice import recording_script
    from voicehost.language.phrasebook import load_phrasebook

    plan = []
    for name in rulesets:
        ruleset = load_ruleset(name)
        plan.append((name, max(ruleset.seats), sorted(set(ruleset.timers.values()))))
    print("name\ttext")
    for row, text in recording_script(load_phrasebook(), plan):
        print(f"{row}\t{text}")
    return 0
