"""What every part of the live host stands on: the game, the ports, and the one way an input
goes in — into the game (which may refuse it), on disk, and only then said and shown."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from hw.leds import Pattern
from voicehost.host.clock import TableClock
from voicehost.host.hearing import Floor, HearingSettings, Joiner, TakeBack
from voicehost.host.journal import Journal
from voicehost.host.lights import Lights
from voicehost.host.ports import Ports
from voicehost.host.subtitles import Transcript
from voicehost.language.host_lines import event_lines, spoken
from voicehost.language.phrasebook import Phrasebook, load_phrasebook
from voicehost.rules import Game, IllegalInput
from voicehost.rules.events import Event, MorningCame, NightFell
from voicehost.rules.inputs import Input


class Stage(Lights):
    """The state the director's parts share and the three things they all do: say, push, wait."""

    def __init__(self, game: Game, ports: Ports, journal: Journal | None = None,
                 book: Phrasebook | None = None, log: Callable[[str], None] = print,
                 forbidden: frozenset[str] = frozenset(), transcript: Transcript | None = None,
                 hearing: HearingSettings | None = None) -> None:
        self.game = game
        self.ports = ports
        self.journal = journal
        self.book = book or load_phrasebook()
        self.log = log
        self.last_line = ""
        self.onsets: dict[str, float] = {}
        self.hands: dict[int, set[int]] = {}  # day → seats that raised a hand (once a day)
        self.forbidden = forbidden  # the club's forbidden words: heard in a speech, a foul
        self.deadline: float | None = None   # the floor's end, in table seconds
        self.refusals: list[IllegalInput] = []  # console commands the game refused
        self.console_refused: list[tuple[str, str]] = []  # every typed line refused, and why
        self.held: list[str] = []               # lines typed during a pause, carried out after resume
        self.echo_replies = True                # console answers printed too (off when every line is)
        self.progress = asyncio.Event()         # set on every input taken or refused (a simulated table waits)
        self.on_events: Callable[[list[Event]], None] = lambda events: None  # e.g. the public log in a terminal
        self.leds: dict[int, Pattern] = {}      # each seat's steady LED state (nominated today, out)
        self.speaking: int | None = None
        self.transcript = transcript
        self.clock = TableClock(ports.clock, ports.speed)   # table seconds: the only '/ speed'
        self.music_on = False
        self.night_opened = 0              # the last night whose «Наступает ночь» was said
        self.hearing = hearing or HearingSettings()   # doubt and correction of what the ears heard
        self.floor = Floor(Joiner(self.clock.span(self.hearing.join_s)))   # the current speech (speeches)
        self.take_back: TakeBack | None = None   # what the last speaker may still take back (hearing)
        self.time_left: dict[int, float] = {}   # seat → table seconds of a speech taken back
        self.paused = False
        # Who watches the table change (the web display): called with what changed — "line"
        # (a line said, with its text), "input" (the game moved), "speech" (the floor given or
        # taken), "pause", or "console" (a console line and its answer: None when done, else why not).
        self.watchers: list[Callable[[str, Any], None]] = []

    def tell(self, what: str, detail: Any = None) -> None:
        for watcher in self.watchers:
            watcher(what, detail)

    async def say(self, said: list[tuple[str, dict[str, Any]]]) -> list[float]:
        onsets = []
        for (key, values), text in zip(said, spoken(said, self.book, self.game.ruleset.name), strict=True):
            self.last_line = text
            onsets.append(await self.ports.utter(text))
            self.onsets[key] = onsets[-1]
            self.ports.on_line(key, values, text, onsets[-1])
            if self.transcript is not None:
                self.transcript.line(self.clock.at(onsets[-1]), key, text)
            self.tell("line", (key, values, text))
        return onsets

    def music(self, on: bool) -> None:
        """The night music, on from «Наступает ночь» until the morning line."""
        if on == self.music_on:
            return
        self.music_on = on
        self.ports.night(on)
        if self.transcript is not None:
            self.transcript.music(self.clock.now(), on)

    async def nightfall(self, night: int) -> None:
        """«Наступает ночь» and the music — once a night, whether the night fell from an input
        the host took or before the host took the table (night 1, a resumed night)."""
        if self.night_opened >= night:
            return
        self.night_opened = night
        await self.say(event_lines(NightFell(night), self.game))
        self.music(True)

    async def push(self, item: Input, source: str) -> list[Event]:
        """Into the game (which may refuse it), on disk, and only then said and shown."""
        events = self.game.push(item)
        if self.journal is not None:
            self.journal.append(len(self.game.inputs) - 1, self.ports.clock(), source, item)
        self.progress.set()
        self.on_events(events)
        self.tell("input", events)
        for event in events:
            if isinstance(event, MorningCame):
                self.music(False)
            self._show(event)
            if isinstance(event, NightFell):
                await self.nightfall(event.night)
            else:
                await self.say(event_lines(event, self.game))
        return events

    async def wait(self, seconds: float) -> None:
        await self.clock.sleep(seconds)
