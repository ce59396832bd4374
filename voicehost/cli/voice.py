"""``voicehost voice``: render every fixed line ahead of a game, say one line aloud, or show
how a text will be pronounced (the lexicon applied, then espeak-ng's phonemes)."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from voicehost.cli.args import Commands, number_between
from voicehost.config import load_ruleset, ruleset_names
from voicehost.i18n import N_, _
from voicehost.rules import InputError

if TYPE_CHECKING:
    import numpy as np


def add_commands(commands: Commands) -> None:
    voice_cmd = commands.add_parser("voice", help=_("the host's voice: render lines ahead, or say one"))
    voice_cmd.add_argument("action", choices=["warm", "say", "pronounce", "script", "night"],
                           help=_("warm: render every fixed line; say: speak TEXT; "
                                  "pronounce: print TEXT after the lexicon and its espeak-ng phonemes; "
                                  "script: list (name TAB text) every line and fragment a club records "
                                  "for its own voice; night: play a night count over the music with "
                                  "seat-button taps mixed in, to set the night level in the room"))
    voice_cmd.add_argument("text", nargs="*", metavar=_("text"), help=_("what to say (say, pronounce)"))
    voice_cmd.add_argument("--rules", action="append", default=None, help=_("rulesets to warm (default: all)"))
    voice_cmd.add_argument("--table", default=None, help=_("the table file whose [audio] settings to use"))
    voice_cmd.add_argument("--audio", default=None, help=_("default, device:NAME, file:OUT.wav or null"))
    voice_cmd.add_argument("--level", type=number_between(0, 1, N_("night level")), default=None,
                           help=_("night: the night level to try, 0 to 1 (default: the table file's music_level)"))
    voice_cmd.set_defaults(run=_voice)


def _voice(args: argparse.Namespace) -> int:
    from voicehost.host.voice import fixed_lines, open_voice

    if args.action == "pronounce":
        return _pronounce(" ".join(args.text), args.table)
    if args.action == "script":
        return _script(args.rules or ruleset_names())
    if args.action == "night":
        return _night(args.table, args.audio, args.level)
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


def _night(table: str | None, output: str | None, level: float | None) -> int:
    """A night count with taps, measured, then played (or written to ``file:OUT.wav``) for the room."""
    from voicehost.host import load_audio, table_path
    from voicehost.host.nightcheck import night_check, summary

    audio = load_audio(table_path(table))
    check = night_check(audio, level)
    figures = summary(check)
    print(_("night level {level:.2f}: the quietest number {over:.1f} dB over the music in the speech band "
            "(aim: 10 dB or more); a tap at 55 dB(A) anywhere in the count: {margin:+.1f} dB under the masked "
            "threshold at the median (aim: 0 dB or more), {worst:+.1f} dB for the worst tenth").format(
                level=level if level is not None else audio.mix.music_level,
                over=figures["numbers_over_music_db_min"], margin=figures["tap_margin_db_median"],
                worst=figures["tap_margin_db_p10"]))
    print(_("Set the speaker so that the host's lines read about 68 dB(A) at the table (a sound level meter "
            "or a phone's meter app, slow, at a player's seat); then listen from a seat: raise music_level "
            "until the taps on three, seven and between five and six are lost in the music, "
            "lower it if a number is hard to make out."))
    _play(check.mix, check.rate, table, output)
    return 0


def _play(samples: np.ndarray, rate: int, table: str | None, output: str | None) -> None:
    """``samples`` to ``file:OUT.wav`` at once, or through the table's speaker, waiting until heard."""
    if output is not None and output.startswith("file:"):
        import soundfile

        try:
            soundfile.write(output.removeprefix("file:"), samples, rate, subtype="PCM_16")
        except Exception as err:  # soundfile's LibsndfileError, OSError: a path it cannot write
            raise InputError(f"--audio {output}", _("cannot write it ({err})").format(err=err)) from None
        return
    from voicehost.host.voice import open_voice

    voice = open_voice(table, output)
    try:
        onset = voice.mixer.say(samples).result(timeout=30)
        time.sleep(max(0.0, onset + len(samples) / rate - time.monotonic()))
    finally:
        voice.close()


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
