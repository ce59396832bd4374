"""What every part of the live host stands on: the game, the ports, the journal, the phrasebook,
the table's clock, and the one way an input goes in — into the game (which may refuse it), on
disk, and only then said and shown. The parts (:mod:`~voicehost.host.speeches`,
:mod:`~voicehost.host.voting`, :mod:`~voicehost.host.night`, :mod:`~voicehost.host.console`)
each receive the stage and keep their own state; the stage keeps only what every input
touches: the LEDs (:class:`~voicehost.host.lights.Lights`), the night music, the last line
said, and the watchers it tells (:mod:`~voicehost.host.notices`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voicehost.host.clock import TableClock
from voicehost.host.journal import Journal, Source
from voicehost.host.lights import Lights
from voicehost.host.notices import InputsTaken, LineSaid, MusicChanged, Notice, Notices, TableWatcher
from voicehost.host.ports import Ports
from voicehost.i18n import N_, _
from voicehost.language.host_lines import event_lines, spoken
from voicehost.language.phrasebook import Phrasebook, load_phrasebook
from voicehost.rules import Game
from voicehost.rules.events import Event, MorningCame, NightFell
from voicehost.rules.inputs import Input


class Stage:
    """The state the director's parts share and the things they all do: say, push, wait."""

    def __init__(self, game: Game, ports: Ports, journal: Journal | None = None,
                 book: Phrasebook | None = None, log: Callable[[str], None] = print) -> None:
        self.game = game
        self.ports = ports
        self.journal = journal
        self.book = book or load_phrasebook()
        self.log = log
        self.clock = TableClock(ports.clock, ports.speed)
        """Table seconds: the only code that knows ``--speed``."""
        self.lights = Lights(game, ports)
        self.last_line = ""
        """The last line said (the console's ``repeat``)."""
        self._notices = Notices()
        self._music_on = False
        self._night_opened = 0
        """The last night whose «Наступает ночь» was said."""

    def watch(self, watcher: TableWatcher) -> None:
        self._notices.watch(watcher)

    def unwatch(self, watcher: TableWatcher) -> None:
        self._notices.unwatch(watcher)

    def notify(self, notice: Notice) -> None:
        self._notices.send(notice)

    async def say(self, said: list[tuple[str, dict[str, Any]]]) -> list[float]:
        """Each line said in turn; returns their onsets (the loop's clock)."""
        onsets = []
        for (key, values), text in zip(said, spoken(said, self.book, self.game.ruleset.name), strict=True):
            self.last_line = text
            onsets.append(await self.ports.utter(text))
            self.notify(LineSaid(key, values, text, onsets[-1], self.clock.at(onsets[-1])))
        return onsets

    def music(self, on: bool) -> None:
        """The night music, on from «Наступает ночь» until the morning line."""
        if on == self._music_on:
            return
        self._music_on = on
        self.ports.night(on)
        self.notify(MusicChanged(on, self.clock.now()))

    async def nightfall(self, night: int) -> None:
        """«Наступает ночь» and the music — once a night, whether the night fell from an input
        the host took or before the host took the table (night 1, a resumed night)."""
        if self._night_opened >= night:
            return
        self._night_opened = night
        await self.say(event_lines(NightFell(night), self.game))
        self.music(True)

    async def push(self, item: Input, source: Source) -> list[Event]:
        """Into the game (which may refuse it), on disk, and only then said and shown."""
        events = self.game.push(item)
        if self.journal is not None:
            self.journal.append(len(self.game.inputs) - 1, self.ports.clock(), source, item)
        self.notify(InputsTaken(item, source, tuple(events)))
        for event in events:
            if isinstance(event, MorningCame):
                self.music(False)
            self.lights.show(event)
            if isinstance(event, NightFell):
                await self.nightfall(event.night)
            else:
                await self.say(event_lines(event, self.game))
        return events

    async def wait(self, seconds: float) -> None:
        """``seconds`` table seconds."""
        await self.clock.sleep(seconds)

    def pop_last(self, why: str, source: Source = "console", shown: bool = True) -> Input:
        """The last input undone — by the judge's ``undo`` or a player's button (a veto, a
        speech taken back) — journaled as a splice and the LEDs relit; returns what was undone
        (``shown``: logged here; the judge's console words its own answer instead)."""
        undone = self.game.pop()
        self.journal_splice(len(self.game.inputs), 1, [], f"{why} {undone.kind}", source, shown=shown)
        self.lights.relight()
        return undone

    def journal_splice(self, at: int, removed: int, new: list[Input], why: str, source: Source = "console",
                       ballot: dict[str, int] | None = None, shown: bool = True) -> None:
        """A correction is checked against the whole game first (the splice replays it), then
        on disk before anything is said about it (``ballot``: the vote's ballot it changed)."""
        if shown:
            self.log(shown_correction(source, why))
        if self.journal is not None:
            self.journal.splice(self.ports.clock(), source, at, removed, new, why, ballot)


# Who made a correction and the first words of why, as the terminal shows them in the language
# in use; the journal keeps both as they are (English record words).
SHOWN_SOURCES = {"seats": N_("seats"), "ears": N_("ears"), "host": N_("host"), "console": N_("console"),
                 "deal": N_("deal"), "script": N_("script")}
SHOWN_REASONS = {"undo": N_("undo"), "veto": N_("veto"), "vote": N_("vote"), "roles corrected": N_("roles corrected"),
                 "taken back by seat": N_("taken back by seat")}


def shown_correction(source: str, why: str) -> str:
    """``console: undo end_speech`` in the language in use (the input kind stays a record word)."""
    for start, shown in SHOWN_REASONS.items():
        if why == start or why.startswith(start + " "):
            why = _(shown) + why[len(start):]
            break
    return f"{_(SHOWN_SOURCES.get(source, source))}: {why}"
