"""The live host: a game run in real time by voice, seat buttons, ears and the console.

The director answers the engine's requests the way a judge would: it calls the night steps
and counts the seats aloud while the seat panel records taps; gives the floor with a timer,
the speaker's LED, the 10-second warning and «Спасибо»; hears nominations and confirms
them; opens each candidate's vote window at the onset of the question and closes it at the
onset of «Спасибо». Every input the game takes is journaled (fsynced) before the host says
or shows anything that follows from it; one the game refuses never reaches the journal.

It runs on asyncio: the seat panel and the ears hand their events to the loop thread-safely,
a blocking voice speaks in an executor, and everything the director waits for is awaited
with a deadline. The ports are small (:class:`Ports`): the voice (``say(text) -> onset``),
the panel's edge log, the LEDs, a queue of heard phrases, a queue of console lines, and the
clock. The same director runs the real table (``voicehost run``), the demo on mock pins and
the table level on a virtual clock (:mod:`voicehost.simulation.table_level`) — one host, three tables.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from voicehost.host.clock import SpeechTimer, TableClock
from voicehost.host.console import Console
from voicehost.host.hearing import HearingSettings
from voicehost.host.journal import Journal, Source
from voicehost.host.judging import notes_of
from voicehost.host.night import Night
from voicehost.host.notices import TableWatcher
from voicehost.host.ports import EdgeLog, Ports
from voicehost.host.speeches import Floor
from voicehost.host.stage import Stage
from voicehost.host.subtitles import Transcript
from voicehost.host.voting import Voting
from voicehost.i18n import _
from voicehost.language.host_lines import request_lines
from voicehost.language.phrasebook import Phrasebook
from voicehost.rules import Game
from voicehost.rules.events import Event
from voicehost.rules.flow import request_night
from voicehost.rules.inputs import Dawn, Input, Proceed
from voicehost.rules.requests import (
    AwaitAction,
    AwaitDawn,
    AwaitDeal,
    AwaitLift,
    AwaitMorning,
    AwaitNightfall,
    AwaitShots,
    AwaitSpeech,
    AwaitVotes,
    Request,
)

__all__ = ["Director", "EdgeLog", "Ports"]
AFTER_GAME_S = 120   # table seconds the console waits after the game for «best N» (or an undone verdict)


class Director:
    """One host for every table, made of parts that each own their state: the
    :class:`~voicehost.host.stage.Stage` (game, ports, journal, phrasebook, clock, LEDs; say,
    push, wait), the :class:`~voicehost.host.console.Console`, the
    :class:`~voicehost.host.night.Night`, the :class:`~voicehost.host.speeches.Floor` (speeches
    and what is taken back) and :class:`~voicehost.host.voting.Voting`; the cards are dealt or
    learned by :mod:`~voicehost.host.cards`. What happens leaves it as notices
    (:mod:`~voicehost.host.notices`, :meth:`watch`); nobody outside the host reads its parts."""

    def __init__(self, game: Game, ports: Ports, journal: Journal | None = None,
                 book: Phrasebook | None = None, log: Callable[[str], None] = print,
                 forbidden: frozenset[str] = frozenset(), transcript: Transcript | None = None,
                 hearing: HearingSettings | None = None) -> None:
        self.stage = Stage(game, ports, journal, book, log)
        self.timer = SpeechTimer(self.stage.clock, self.stage.notify)
        self.night = Night(self.stage)
        self.floor = Floor(self.stage, self.timer, hearing or HearingSettings(), forbidden,
                           judge=lambda: self.console.run(in_speech=True), stopped=lambda: self.console.stopped)
        self.console = Console(self.stage, self.timer, self.floor)   # an undone end of a speech gives the floor back
        self.voting = Voting(self.stage)
        self.floor.resume_clock(self.console.controls.judged)   # a resumed speech: the clock as the judge left it
        if transcript is not None:
            self.stage.watch(transcript.notice)

    # ---- what the rest of the program uses ---------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.stage.game

    @property
    def ports(self) -> Ports:
        return self.stage.ports

    @property
    def clock(self) -> TableClock:
        return self.stage.clock

    @property
    def journal(self) -> Journal | None:
        """The game's journal: the judge's earpiece keeps its lines there (``serve``, like ``run``)."""
        return self.stage.journal

    def log(self, line: str) -> None:
        self.stage.log(line)

    def watch(self, watcher: TableWatcher) -> None:
        """``watcher`` is told every notice from now on (:mod:`~voicehost.host.notices`)."""
        self.stage.watch(watcher)

    def unwatch(self, watcher: TableWatcher) -> None:
        self.stage.unwatch(watcher)

    async def say(self, said: list[tuple[str, dict[str, Any]]]) -> list[float]:
        return await self.stage.say(said)

    async def push(self, item: Input, source: Source) -> list[Event]:
        return await self.stage.push(item, source)

    async def wait(self, seconds: float) -> None:
        await self.stage.wait(seconds)

    async def nightfall(self, night: int) -> None:
        await self.stage.nightfall(night)

    def status(self) -> list[tuple[str, dict[str, Any]]]:
        """What the console's ``status`` says (who is nominated, the fouls, the time left)."""
        return self.console.status()

    def close(self) -> None:
        """The parts stop following the table (the game is over or set aside)."""
        self.floor.close()
        self.voting.close()

    # ---- the game ------------------------------------------------------------------------------------

    async def run(self) -> None:
        if (night := request_night(self.game.request)) is not None:
            await self.nightfall(night)  # night 1 opens like every night (and a resumed night too)
        while (request := self.game.request) is not None and not self.console.stopped:
            await asyncio.sleep(0)  # anyone waiting on the last input acts before the next step
            await self.console.run()
            if self.console.stopped:
                break   # annulled or stopped just now: the next step (a whole speech) is not played
            await self.floor.take_back_window(request)
            if self.game.request is not request:
                continue
            if not (isinstance(request, AwaitSpeech) and request.seat in self.floor.time_left):  # a floor given back
                await self.night.call(request_lines(request, self.game))
            await self.answer(request)

    def notes(self) -> tuple[tuple[int, str], ...]:
        """The judge's notes so far (seat 0: the game's), for the judge's own screen only."""
        return notes_of(self.console.controls.judged)

    async def after_game(self, best_points: float | None) -> bool:
        """``voicehost run`` after the game: the table's best player (when the scoring has the
        award, ``best_points``) and the judge's last word on a verdict; True when ``undo`` took
        the verdict back and the game goes on (:meth:`Console.after_game`)."""
        if self.console.stopped:
            self._tell_the_verdict_window()
        elif self.game.is_over and (best_points or self.console.points_after_game()):
            if best_points:
                self.log(_("voicehost: the table's best player (+{points:g}): type «best N» within {seconds} s")
                         .format(points=best_points, seconds=AFTER_GAME_S))
            if self.console.points_after_game():
                self._tell_the_points_window()
        else:
            return False
        return await self.console.after_game(AFTER_GAME_S)

    async def points_after_game(self) -> None:
        """``voicehost serve`` after the game: an annulled or stopped game's verdict can be taken
        back (``undo``) for :data:`AFTER_GAME_S`, as at ``voicehost run``, and the game then goes
        on; the judge's points and the best move, for as long or until «end», before the protocol
        is written. The table's best-player vote is the appliance's own (open until the next game
        starts)."""
        while self.console.stopped:
            self._tell_the_verdict_window()
            if not await self.console.after_game(AFTER_GAME_S):
                return   # the verdict stands: the table is free for the next game
            await self.run()   # undone: the game goes on where it stopped
        if self.console.points_after_game():
            self._tell_the_points_window()
            await self.console.after_game(AFTER_GAME_S)

    def _tell_the_verdict_window(self) -> None:
        verdict = self.console.controls.verdict
        annulled = verdict is not None and verdict["result"] == "annulled"
        told = (_("voicehost: the game is annulled; «undo» within {seconds} s takes that back") if annulled else
                _("voicehost: the game is stopped; «undo» within {seconds} s takes that back"))
        self.log(told.format(seconds=AFTER_GAME_S))

    def _tell_the_points_window(self) -> None:
        self.log(_("voicehost: the judge's points and the best move still count: «bonus», «penalty», "
                   "«bestmove» within {seconds} s; «end» when done").format(seconds=AFTER_GAME_S))

    async def answer(self, request: Request) -> None:
        match request:
            case AwaitShots():
                await self.night.shots(request)
            case AwaitAction():
                await self.night.action(request)
            case AwaitDawn():
                await self.push(Dawn(), "host")
            case AwaitMorning() | AwaitNightfall():
                await self.push(Proceed(), "host")  # the judge's console had its turn just before
            case AwaitSpeech():
                await self.floor.speech(request)
            case AwaitVotes():
                await self.voting.votes(request)
            case AwaitLift():
                await self.voting.lift(request)
            case AwaitDeal():
                pass   # the cards are dealt before the director runs (voicehost.host.cards)
