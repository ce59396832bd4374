"""``voicehost run``: the real table — seat panel, speaker, microphone and console — with
the director. Anything missing (no model, no microphone, no sound card) is said in one
line, and the game goes on with what is there."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hw.panel import GpioUnavailable, SeatPanel
from voicehost.config import journals_dir, load_ruleset
from voicehost.host.cards import learn_roles, roles_from_console, show_roles
from voicehost.host.dealing import parse_pairs, seeded_deal, typed_deal
from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.ears import grammar, load_ears, model_path
from voicehost.host.journal import Journal, read_journal, write_results
from voicehost.host.seats import mock_factory, open_pinmap
from voicehost.host.table_file import load_audio, table_path
from voicehost.host.voice import Voice
from voicehost.language.narrate import narrate, public_log_printer
from voicehost.language.phrasebook import load_phrasebook
from voicehost.rules import Game, IllegalInput, InputError, new_game
from voicehost.rules.protocol import build_protocol


def parse_options(items: list[str]) -> dict[str, str]:
    """``--option nomination=last`` (repeatable) → {"nomination": "last"}; checked by the ruleset."""
    options = {}
    for item in items:
        key, _, value = item.partition("=")
        if not key.strip() or not value.strip():
            raise InputError(f"--option {item}", "is not KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def run(args: Any, on_results: Callable[[Path, dict[str, Any]], None] | None = None) -> int:
    """Host one game; ``on_results`` (the club records) gets each finished game's protocol."""
    table = table_path(args.table)
    pinmap = open_pinmap(str(table), args.rules)
    ruleset = load_ruleset(args.rules)
    options = ruleset.resolve(parse_options(args.option or []), "--option")
    game, journal = _game_and_journal(args, ruleset, options, pinmap.size)
    names = {seat: name for seat, name in parse_pairs(args.names, "--names").items()}
    game.names = names
    try:
        asyncio.run(_play(args, game, journal, pinmap, table))
    finally:
        journal.close()
    _write_results(game, names, Path(journal.path), on_results)
    return 0


def _game_and_journal(args: Any, ruleset: Any, options: Any, seats: int) -> tuple[Game, Journal]:
    if args.resume:
        return resume_game(args.resume, ruleset, seats)
    game = new_game(ruleset, options, seats)
    path = Path(args.journal) if args.journal else journals_dir() / f"game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    if path.exists() and path.stat().st_size:
        raise InputError(str(path), "the journal already exists: continue it with --resume")
    roster = {str(seat): name for seat, name in parse_pairs(args.names, "--names").items()}  # the records read it
    journal = Journal(path, {"ruleset": ruleset.name, "options": dict(options), "seats": seats, "level": "live",
                             **({"names": roster} if roster else {})})
    if args.roles == "taps":
        return game, journal  # learned at the table on the first night (see _play)
    if args.roles:
        deal = typed_deal(args.roles, game, "--roles")
    else:
        deal = seeded_deal(game, args.deal if args.deal is not None else int(time.time()))
    journal.append(0, time.monotonic(), "host" if args.roles else "deal", deal)
    game.push(deal)
    return game, journal


def resume_game(path: str | Path, ruleset: Any = None, seats: int = 0,
                journal_type: type[Journal] = Journal) -> tuple[Game, Journal]:
    """The game of an interrupted journal, rebuilt, and its journal open to go on. ``ruleset``:
    the one the journal names when not given."""
    header, entries = read_journal(path)
    ruleset = ruleset or load_ruleset(str(header.get("ruleset")))
    game = new_game(ruleset, ruleset.resolve(header.get("options", {})), header.get("seats", seats))
    for entry in entries:
        try:
            game.push(entry.input)
        except IllegalInput:  # it was refused the first time too: the game is deterministic
            continue
    journal = journal_type(path, header)
    if (cut := game.open_vote_inputs()):  # the power went off mid-vote: that vote is taken again
        game.splice(len(game.inputs) - cut, cut, [])
        journal.splice(time.monotonic(), "host", len(game.inputs), cut, [],
                       "resume: the interrupted vote is taken again")
    return game, journal


async def _play(args: Any, game: Game, journal: Journal, pinmap: Any, table: Path) -> None:
    loop = asyncio.get_running_loop()
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    voice = Voice(load_audio(table), args.audio, log=log)
    from voicehost.host.voice import fixed_lines
    voice.renderer.warm(fixed_lines(voice.book, game.ruleset.name, range(1, game.seats + 1)))  # no delay later
    edges = EdgeLog()
    try:
        panel = SeatPanel(pinmap, edges.add, pin_factory=mock_factory() if args.mock else None,
                          deliver=loop.call_soon_threadsafe)
    except GpioUnavailable as err:
        voice.close()
        raise InputError("run", f"{err}; on a machine without GPIO try --mock") from None
    from audio.listener import Gate
    gate = Gate(load_ears(table).hold_off_s)

    def say(text: str) -> float:
        onset = voice.say(text)
        gate.host_speaks(onset, time.monotonic())
        return onset

    ports = Ports(say=say, night=voice.night, led=panel.show, edges=edges, speed=args.speed, settle=panel.settle)
    mic = None if args.no_ears else _open_ears(table, game.seats, gate, loop, ports, log)
    _read_console(loop, ports)
    from voicehost.language.parser import forbidden_words
    director = Director(game, ports, journal, log=log, forbidden=forbidden_words(load_ears(table).forbidden_words))
    director.on_events = public_log_printer(load_phrasebook(), game.names, lambda line: print(line, flush=True))
    director.on_events(list(game.events))  # the deal, or a resumed game so far
    try:
        if args.roles == "taps" and not game.inputs:
            deal = await learn_roles(director, dict(game.cast))
            source = "seats"
            if deal is None:  # the taps did not add up: the human host types the cards
                log("voicehost: the taps did not match the cards; type them: roles 3=don,5=mafia,…")
                deal, source = await roles_from_console(director), "console"
            await director.push(deal, source)
        elif not args.roles and not args.resume:
            await show_roles(director)
        await director.run()
    finally:
        if mic is not None:
            mic.close()
        panel.close()
        voice.close()


def _open_ears(table: Path, seats: int, gate: Any, loop: Any, ports: Ports, log: Any) -> Any:
    from audio.listener import MicListener, MicrophoneUnavailable, ModelUnavailable, SpeechModel
    config = load_ears(table)
    try:
        model = SpeechModel(model_path(config))
        mic = MicListener(model.recognizer(grammar(range(1, seats + 1), forbidden=config.forbidden_words)), gate,
                          lambda heard: loop.call_soon_threadsafe(ports.hear, heard), config.microphone)
        mic.start()
        return mic
    except (ModelUnavailable, MicrophoneUnavailable) as err:
        log(f"voicehost: no ears ({err}); speeches end by the speaker's button or the console")
        return None


def _read_console(loop: Any, ports: Ports) -> None:
    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(ports.type, line.strip())
    threading.Thread(target=read, name="voicehost-console", daemon=True).start()


def _write_results(game: Game, names: dict[int, str], journal: Path,
                   on_results: Callable[[Path, dict[str, Any]], None] | None = None) -> None:
    log = list(narrate(game.events, load_phrasebook(), names))
    protocol = build_protocol(game, None, names)
    path = write_results(journal, protocol, log)
    outcome = game.outcome()
    print(f"protocol: {path}" + (f" ({outcome.winner}, {outcome.reason})" if outcome else " (the game is not over)"))
    if outcome is not None and on_results is not None:
        on_results(path, protocol)
