"""``voicehost run``: the real table — seat panel, speaker, microphone and console — with
the director. Anything missing (no model, no microphone, no sound card) is said in one
line, and the game goes on with what is there."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hw.keypad import JudgeKeypad
from hw.panel import GpioUnavailable, SeatPanel
from voicehost.config import journals_dir
from voicehost.host.cards import learn_roles, roles_from_console, show_roles
from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.earpiece import both, judge_around
from voicehost.host.ears import grammar, load_ears, model_path
from voicehost.host.journal import Journal, JournalFile, Source, load_journal, write_results
from voicehost.host.journal_clock import journal_clock
from voicehost.host.judging import best_points, judged_results
from voicehost.host.keypad import KeypadCommands
from voicehost.host.notices import events_to
from voicehost.host.push_to_talk import JudgeEars, heard_by
from voicehost.host.seats import mock_factory, open_pinmap
from voicehost.host.setup import GameSetup, audio_choice, setup_from_header
from voicehost.host.subtitles import Transcript
from voicehost.host.table_file import load_audio, table_path
from voicehost.host.terminal import decode_console_line as decode_console_line  # the service reads it here
from voicehost.host.terminal import read_terminal
from voicehost.host.voice import JUDGE_PLACE, TerminalVoice, open_judge_voice, open_live_voice
from voicehost.i18n import _
from voicehost.language.judge_speech import judge_grammar
from voicehost.language.narrate import narrate, public_log_printer
from voicehost.language.phrasebook import load_phrasebook
from voicehost.language.record_words import record_word, result_words
from voicehost.rules import Game, IllegalInput, InputError
from voicehost.rules.flow import request_night
from voicehost.rules.protocol import build_protocol


def parse_options(items: list[str]) -> dict[str, str]:
    """``--option nomination=last`` (repeatable) → {"nomination": "last"}; checked by the ruleset."""
    options = {}
    for item in items:
        key, _sep, value = item.partition("=")
        if not key.strip() or not value.strip():
            raise InputError(f"--option {item}", _("is not KEY=VALUE"))
        options[key.strip()] = value.strip()
    return options


@dataclass(frozen=True)
class _Run:
    """What the table's wiring reads of a run: the setup's deal and audio, and the run's own knobs."""

    audio: str | None
    speed: float
    mock: bool
    no_ears: bool
    transcript: str | None
    roles: str | None      # "taps", "typed" or None (the host deals)
    resume: bool
    judge_audio: str | None = None   # the judge's earpiece (None: the table's [audio] judge_output)


def run(setup: GameSetup, resumed: JournalFile | None = None, *, mock: bool = False, ears: bool = True,
        speed: float = 1.0, transcript: str | None = None,
        on_results: Callable[[Path, dict[str, Any]], None] | None = None,
        around: Callable[[Director], AbstractAsyncContextManager[Any]] | None = None,
        judge_audio: str | None = None) -> int:
    """Host one game of ``setup`` — checked whole by :func:`~voicehost.host.setup.check_setup`
    (table, pins, ruleset, options, roster, cards, journal, audio) before this is called, so a
    bad argument never waits for the voice warm-up. ``resumed``: the journal being continued
    (``setup`` is its header's, :func:`setup_of_journal`); every record must replay
    (:func:`resume_game`). ``on_results`` (the club records) gets each finished game's protocol;
    ``around`` (the web display) is entered with the director once it exists and left when the
    game ends; ``judge_audio``: the judge's earpiece (:mod:`~voicehost.host.earpiece`). The
    sound card and the seat panel are opened next; the journal — which holds the
    secret deal — is created last, just before the game starts."""
    if setup.table is None:
        raise InputError("run", _("the live table needs a table file"))
    pinmap = open_pinmap(str(setup.table), None)
    if resumed is not None:
        game, journal = resume_game(resumed, pinmap.size)
        open_journal = lambda: journal  # noqa: E731 - the journal being resumed already exists
    else:
        game, open_journal = _new_game(setup)
    knobs = _Run(setup.audio, speed, mock, not ears, transcript,
                 None if setup.deal == "host" else setup.deal, resumed is not None,
                 audio_choice(judge_audio, JUDGE_PLACE))
    journal = asyncio.run(_play(knobs, game, open_journal, pinmap, setup.table, around))
    _write_results(game, game.names, Path(journal.path), on_results, journal.judged)
    return 0


def setup_of_journal(read: JournalFile, table: str | None = None, audio: str | None = None) -> GameSetup:
    """The setup a live journal's header gives (its table, ruleset, options, seats, roster),
    checked as a new game's is; ``table``: where it resumes when the header names none."""
    if read.header.get("level", "live") != "live":
        raise InputError(f"{read.path}:1", _("a simulated game's journal: continue it with voicehost resume"))
    setup = setup_from_header(read.header, f"{read.path}:1", table_path(read.header.get("table", table)))
    return replace(setup, journal=read.path, audio=audio_choice(audio))


def _new_game(setup: GameSetup) -> tuple[Game, Callable[[], Journal]]:
    """A fresh game with its deal (typed, seeded, or learned from taps later), and how to
    create its journal once nothing more can be refused."""
    game = setup.new_game()
    path = setup.journal or journals_dir() / f"game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    deal = setup.first_deal(int(time.time()))

    def open_journal() -> Journal:
        journal = Journal(path, setup.header())
        if deal is not None:
            journal.append(0, time.monotonic(), "host" if setup.deal == "typed" else "deal", deal)
            game.push(deal)
        return journal
    return game, open_journal


def resume_game(source: str | Path | JournalFile, table_seats: int | None = None,
                journal_type: type[Journal] = Journal) -> tuple[Game, Journal]:
    """The journal's game rebuilt record by record — every input must be one the game takes,
    exactly as ``voicehost resume`` checks a simulated game — before anything is written. A
    vote the crash interrupted is taken again from its start (a splice says so). The header
    decides the ruleset, options, seats and roster."""
    read = source if isinstance(source, JournalFile) else load_journal(source)
    header, place = read.header, f"{read.path}:1"
    if "seats" not in header and table_seats is not None:
        header = {**header, "seats": table_seats}
    setup = setup_from_header({key: value for key, value in header.items() if key != "table"}, place)
    if table_seats is not None and setup.seats > table_seats:
        raise InputError(f"{place}: seats", _("the game has {seats} seats; the table has {table_seats}").format(
                                                seats=setup.seats, table_seats=table_seats))
    game = setup.new_game()
    for entry in read.entries:
        try:
            game.push(entry.input)
        except IllegalInput as err:
            raise InputError(f"{read.path}:{entry.record}", _("the game refuses {input} here ({err}): the "
                                                              "journal does not replay").format(
                                                                input=entry.input, err=err)) from None
    journal = journal_type.resume(read)
    if (cut := game.open_vote_inputs()):  # the power went off mid-vote: that vote is taken again
        game.splice(len(game.inputs) - cut, cut, [])
        journal.splice(time.monotonic(), "host", len(game.inputs), cut, [],
                       "resume: the interrupted vote is taken again")
    return game, journal


async def _play(args: Any, game: Game, open_journal: Callable[[], Journal], pinmap: Any, table: Path,
                around: Callable[[Director], AbstractAsyncContextManager[Any]] | None = None) -> Journal:
    loop = asyncio.get_running_loop()
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    voice = open_live_voice(table, args.audio, game, log, args.speed)
    edges = EdgeLog()
    try:
        panel = SeatPanel(pinmap, edges.add, pin_factory=mock_factory() if args.mock else None,
                          deliver=loop.call_soon_threadsafe)
    except GpioUnavailable as err:
        voice.close()
        raise InputError("run", _("{err}; on a machine without GPIO try --mock").format(err=err)) from None
    from audio.listener import Gate
    gate = Gate(load_ears(table).hold_off_s)

    def say(text: str) -> float:
        onset = voice.say(text)
        gate.host_speaks(onset, time.monotonic())
        return onset

    transcript = None
    try:
        transcript = Transcript(args.transcript) if getattr(args, "transcript", None) else None
        journal = open_journal()  # the journal (and the deal) on disk; it may still fail (a FIFO, a full disk)
    except (InputError, OSError):
        if transcript is not None:
            transcript.close()
        panel.close()
        voice.close()
        raise
    ports = Ports(say=say, night=voice.night, led=panel.show, edges=edges, speed=args.speed, settle=panel.settle,
                  cue=voice.cue, cue_length=voice.cue_length, hold=voice.hold, warning=voice.warning)
    keys = KeypadCommands(ports.type)   # the judge's keypad, and his push-to-talk if it has a talk key
    talk = JudgeEars(keys, game.seats, time.monotonic) if any(k.action == "talk" for k in pinmap.judge) else None
    mic = None if args.no_ears else _open_ears(table, game.seats, gate, loop, ports, log, talk)
    console = read_terminal(loop, ports.type)   # read on the loop: nothing left blocked when the game ends
    from voicehost.language.parser import forbidden_words
    ears = load_ears(table)
    director = Director(game, ports, journal, log=log, forbidden=forbidden_words(ears.forbidden_words),
                        transcript=transcript, hearing=ears.hearing)
    director.console.echo_replies = not isinstance(voice, TerminalVoice)  # --audio off prints every line anyway
    public_log = public_log_printer(game.names, lambda line: print(line, flush=True))
    director.watch(events_to(public_log))
    public_log(list(game.events))  # the deal, or a resumed game so far
    judge, keypad = None, None
    director.watch(keys.notice)
    try:
        judge = open_judge_voice(load_audio(table), args.judge_audio, log, speed=args.speed)
        if judge is not None:
            around = both(around, judge_around(judge.speak, load_phrasebook(), journal, transcript,
                                               attached=keys.attach))
        keypad = _open_keypad(pinmap, keys.key, args.mock, loop, log,
                              lambda key, down: talk.talk(down) if talk is not None else None)
        async with around(director) if around is not None else nullcontext():
            await _host(args, director)
    finally:
        if keypad is not None:
            keypad.close()
        if judge is not None:
            judge.close()
        if console is not None:
            console.close()
        director.close()
        if mic is not None:
            mic.close()
        panel.close()
        voice.close()
        journal.close()
        if transcript is not None:
            transcript.close()
    return journal


async def _host(args: Any, director: Director) -> None:
    """Nightfall, the cards (learned from taps, typed, or dealt and shown), then the game."""
    game = director.game
    if (night := request_night(game.request)) is not None or not game.inputs:
        await director.nightfall(night or 1)  # «Наступает ночь», then the cards
    if args.roles == "taps" and not game.inputs:
        deal = await learn_roles(director, dict(game.cast))
        source: Source = "seats"
        if deal is None:  # the taps did not add up: the human host types the cards
            director.log(_("voicehost: the taps did not match the cards; type them: roles 3=don,5=mafia,…"))
            deal, source = await roles_from_console(director), "console"
        await director.push(deal, source)
    elif not args.roles and not args.resume:
        await show_roles(director)
    await director.run()
    while await director.after_game(best_points(game)):   # the judge's undo took a verdict back
        await director.run()


def _open_keypad(pinmap: Any, on_key: Callable[[str], None], mock: bool, loop: asyncio.AbstractEventLoop,
                 log: Callable[[str], None],
                 on_hold: Callable[[str, bool], None] = lambda key, down: None) -> JudgeKeypad | None:
    """The judge's keypad of the table's ``[judge]`` (None: the table has none, or its pins do
    not open — said in one line, and the game goes on with the console)."""
    if not pinmap.judge:
        return None
    try:
        return JudgeKeypad(pinmap, on_key, pin_factory=mock_factory() if mock else None,
                           deliver=loop.call_soon_threadsafe, on_hold=on_hold)
    except GpioUnavailable as err:
        log(_("voicehost: no judge's keypad ({error}); the console still takes every command").format(error=err))
        return None


def _open_ears(table: Path, seats: int, gate: Any, loop: Any, ports: Ports, log: Any,
               judge: JudgeEars | None = None) -> Any:
    """The table's microphone; with ``judge`` (the keypad's talk key) what is heard while he
    holds it is his, and the grammar has his commands too."""
    from audio.listener import MicListener, MicrophoneUnavailable, ModelUnavailable, SpeechModel
    config = load_ears(table)

    hear = heard_by(judge, ports.hear)
    try:
        model = SpeechModel(model_path(config))
        phrases = grammar(range(1, seats + 1), forbidden=config.forbidden_words)
        recognizer = model.recognizer(phrases + (judge_grammar(range(1, seats + 1)) if judge is not None else []))
        if config.alternatives:
            recognizer.consider_alternatives(config.alternatives)
        mic = MicListener(recognizer, gate, lambda heard: loop.call_soon_threadsafe(hear, heard), config.microphone)
        mic.start()
        return mic
    except (ModelUnavailable, MicrophoneUnavailable) as err:
        log(_("voicehost: no ears ({error}); speeches end by the speaker's button or the console").format(error=err))
        return None


def _write_results(game: Game, names: dict[int, str], journal: Path,
                   on_results: Callable[[Path, dict[str, Any]], None] | None = None,
                   judged: list[dict[str, Any]] | None = None) -> None:
    log = list(narrate(game.events, names))
    protocol = {**build_protocol(game, None, names), **judged_results(journal, judged), **journal_clock(journal)}
    path = write_results(journal, protocol, log)
    outcome = game.outcome()
    verdict = protocol.get("verdict")
    if verdict:   # the judge's: annulled or stopped, and why
        print(_("protocol: {path} — {result}").format(
            path=path, result=f"{record_word(verdict['result'])}: {verdict['reason']}"))
    elif outcome:
        print(_("protocol: {path} — {result}").format(path=path, result=result_words(outcome.winner, outcome.reason)))
    else:
        print(_("protocol: {path}").format(path=path) + _(" (the game is not over)"))
    if (outcome is not None or verdict) and on_results is not None:
        on_results(path, protocol)
