"""The idle table: what a Pi with voicehost as a service does between games.

It shows the ready pattern on every LED and says «Стол готов» once; a game starts when the
first and the last seat hold their buttons together for :data:`CHORD_S` (or the judge types
``start``), with the table's default ruleset and options and the host's own deal shown on
each player's LED. After the game its protocol is written next to the journal and the table
is idle again.

A power cut costs nothing: at start an unfinished journal (one without a protocol) is
resumed — «Продолжаем игру» and the state so far — unless the judge types ``discard``
(within :data:`DISCARD_WINDOW_S`, or at any time during the game): the journal is then kept,
renamed ``*.discarded.jsonl``, and the table is idle.

With ``serve --web`` the judge's phone does the same (:mod:`voicehost.web.setup`): the idle table
is the web's :class:`~voicehost.web.setup.SetupDesk` — a game with his ruleset, options, roster
and deal starts through the same path as ``start``, and resume/discard are the console's. After
a game whose scoring has a best-player award (seed 001) the table's vote is open until the next
game starts (``best N``, or a seat button on the web): journaled, written into the protocol and
stored in the records.

The journal is the game's memory, so the table never plays without one: no game starts
without :data:`JOURNAL_ROOM` bytes free for it, and when a write or fsync fails during a game
the host says so, prints it, and takes no more inputs (:class:`Halted`) — the journal on disk
ends at the last input anyone saw acted on, ready to resume once the card is fixed.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hw.leds import JOURNAL_FAILED, OFF, READY
from voicehost.host import (
    Director,
    HearingSettings,
    Journal,
    Ports,
    events_to,
    resume_game,
    seeded_deal,
    show_roles,
    write_results,
)
from voicehost.language.narrate import narrate, public_log_printer
from voicehost.language.phrasebook import Phrasebook, load_phrasebook
from voicehost.rules import Game, InputError, Ruleset, new_game
from voicehost.rules.events import Event
from voicehost.rules.protocol import build_protocol
from voicehost.service.notify import Notifier

if TYPE_CHECKING:
    from voicehost.web.setup import GameChoice

CHORD_S = 3.0            # the first and the last seat held together this long start a game
CHORD_POLL_S = 0.1
DISCARD_WINDOW_S = 10.0  # after a restart, the judge has this long to type «discard»
JOURNAL_ROOM = 1 << 20   # bytes free before a game starts (a game's journal is a few dozen KB)
DISCARDED = ".discarded"
READY_LINE = "voicehost: the table is ready (hold the first and the last seat's buttons 3 s to start a game)"

Log = Callable[[str], None]


class JournalFailed(RuntimeError):
    """A journal write or fsync failed: the game cannot go on unjournaled."""


class WatchedJournal(Journal):
    """A journal whose failures are told apart from any other error of the director."""

    def append(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().append(*args, **kwargs)
        except OSError as err:
            raise JournalFailed(f"{self.path}: {err.strerror or err}") from err

    def splice(self, *args: Any, **kwargs: Any) -> None:
        try:
            super().splice(*args, **kwargs)
        except OSError as err:
            raise JournalFailed(f"{self.path}: {err.strerror or err}") from err

    def close(self) -> None:
        try:
            super().close()
        except OSError:
            pass  # the buffered tail that could not be written (it was never acted on)


@dataclass
class TableSetup:
    """What the table plays and where it keeps the journals."""

    ruleset: Ruleset
    options: Any   # the ruleset's resolved options
    seats: int
    journals: Path
    deal_seed: Callable[[], int] = lambda: time.time_ns()
    room: int = JOURNAL_ROOM


@dataclass
class BestPlayerVote:
    """The last game's best-player vote (seed 001), open from its end until the next game starts."""

    journal: Path
    protocol_path: Path
    protocol: dict[str, Any]
    seats: int
    names: dict[int, str]
    points: float              # what the award is worth under the game's scoring scheme
    chosen: int | None = None


def best_player_points(game: Game) -> float | None:
    """The best-player award of the scoring scheme the game was played under, if it has one."""
    scheme = game.options.get("scoring")
    points = game.ruleset.scoring.get(str(scheme), {}).get("best_player") if scheme is not None else None
    return float(points) if points else None


@dataclass
class IdleTable:
    """The service's table: idle → a game → idle, over one set of ports for its whole life."""

    setup: TableSetup
    ports: Ports
    log: Log = print
    notify: Notifier = field(default_factory=Notifier)
    book: Phrasebook = field(default_factory=load_phrasebook)
    on_line: Log = lambda line: None   # the public log, printed
    forbidden: frozenset[str] = frozenset()   # the club's forbidden words ([ears] of the table file)
    hearing: HearingSettings | None = None    # the host's doubt and correction ([ears])
    halted: str | None = None          # why the table stopped taking inputs (a journal failure)
    played: list[Path] = field(default_factory=list)   # protocols written
    on_results: Callable[[Path, dict[str, Any]], None] | None = None   # the club records, off the loop
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _game: asyncio.Task[None] | None = None
    _discard: bool = False
    _may_discard: bool = False   # the window after a restart, before the unfinished game resumes
    _start_typed: bool = False
    _choice: GameChoice | None = None    # the web setup's game for the next start (None: the table's default)
    _resume_now: bool = False
    _unfinished: Path | None = None      # the power cut's journal while it waits to be resumed or discarded
    best_vote: BestPlayerVote | None = None   # the last game's best-player vote, while it is open
    # The records are written by one worker thread, in order: a vote never races its game's store.
    _records: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, "voicehost-records"))
    on_change: Callable[[Director | None], None] = lambda director: None
    """Told each game's director when it starts, and None whenever the table is (still) idle: the web display."""

    @property
    def seats(self) -> int:
        return self.setup.seats

    # ---- the web setup page (voicehost.web.setup.SetupDesk): the same paths as the console -----

    def setup_state(self) -> dict[str, Any]:
        vote = self.best_vote
        best = None if vote is None else {"seats": vote.seats, "names": {str(k): v for k, v in vote.names.items()},
                                          "chosen": vote.chosen, "points": vote.points}
        return {"ruleset": self.setup.ruleset.name, "options": dict(self.setup.options),
                "unfinished": self._unfinished.name if self._unfinished is not None else None,
                "playing": self._game is not None, "halted": self.halted, "best": best}

    def start(self, choice: GameChoice) -> str | None:
        """The judge's game from the web, started as ``start`` starts the default one."""
        if self.halted:
            return "Стол остановлен: журнал не записывается. Перезапустите voicehost."
        if self._game is not None or self._choice is not None or self._start_typed:
            return "Игра уже идёт."
        if self._may_discard:
            return "Сначала продолжите или отложите прерванную игру."
        self._choice = choice
        self.type("start")
        return None

    def resume(self) -> str | None:
        if not self._may_discard:
            return "Нет прерванной игры."
        self._resume_now = True
        return None

    def best(self, seat: int) -> str | None:
        """The table's best-player vote for the last game: journaled (an ``award`` line), written
        into its protocol and into the records (after the game's own store); a second vote
        replaces the first. Open from the game's end until the next game starts."""
        vote = self.best_vote
        if vote is None or self._game is not None:
            return "Сейчас нельзя: голосование за лучшего игрока — после игры, где оно есть в подсчёте очков."
        if not 1 <= seat <= vote.seats:
            return f"Места {seat} нет: за этим столом места 1–{vote.seats}."
        try:
            journal = Journal(vote.journal, {})
            try:
                journal.award(self.ports.clock(), "console", seat)
            finally:
                journal.close()
            vote.protocol["best_player"] = seat
            vote.protocol_path.write_text(json.dumps(vote.protocol, ensure_ascii=False, indent=2) + "\n")
        except OSError as err:
            return f"Голос не записан: {err.strerror or err}."
        vote.chosen = seat
        self.log(f"voicehost: the best player of {vote.journal.name}: seat {seat} (+{vote.points:g})")
        if self.on_results is not None:
            self._records.submit(self.on_results, vote.protocol_path, dict(vote.protocol))
        self.on_change(None)
        return None

    def discard(self) -> str | None:
        if self._game is None and not self._may_discard:
            return "Нет прерванной игры."
        self.type("discard")
        return None

    # ---- the console (typed lines: start, discard; anything else goes to the director) ---------

    def type(self, line: str) -> None:
        words = line.strip()
        if words == "discard":
            if self._game is None and not self._may_discard:
                self.log("console: discard: there is no unfinished game to set aside")
                return
            self._discard = True
            if self._game is not None:
                self._game.cancel()
            self.ports.stirred.set()
        elif self._game is None:
            if words.startswith("best"):
                self._typed_best(words)
            elif words == "start":
                self._start_typed = True
                self.ports.stirred.set()
            elif words:
                self.log(f"console: {words}: no game is running (start one with «start» or the chord)")
        else:
            self.ports.type(line)

    def _typed_best(self, words: str) -> None:
        number = words.removeprefix("best").strip()
        if not number.isdigit():
            self.log("console: usage: best N (the seat the table voted the best player)")
            return
        refused = self.best(int(number))
        self.log(f"console: {words}: " + (refused or "recorded"))

    def stop(self) -> None:
        self._stop.set()
        self.ports.stirred.set()
        if self._game is not None:
            self._game.cancel()

    # ---- the life of the table ---------------------------------------------------------------

    async def serve(self) -> None:
        """Resume what a power cut interrupted, then idle → game → idle until stopped. A
        journal failure halts the table (no inputs taken) until it is restarted."""
        await self._resume_unfinished()
        ready_told = False
        while not self._stop.is_set() and not self.halted:
            await self._idle(tell_systemd=not ready_told)
            ready_told = True
            if not self._stop.is_set():
                await self._new_game()
        if self.halted:
            await self._stop.wait()

    async def _idle(self, tell_systemd: bool) -> None:
        """The ready pattern and «Стол готов»; returns when a game should start (chord or
        ``start``) and there is room for its journal, or the table is stopped."""
        self._show_all(READY)
        if tell_systemd:  # from here a chord is taken: ready, as «Стол готов» begins
            self.notify.ready("idle: waiting for the start chord")
            self.log(READY_LINE)
        else:
            self.notify.status("idle: waiting for the start chord")
        await self._say("table_ready")
        while not self._stop.is_set():
            if await self._chord_or_start():
                if self._room():
                    return
                self.log(f"voicehost: not starting: less than {self.setup.room // 1024} KB free "
                         f"for the journal in {self.setup.journals}")
                self._choice = None
                self.on_change(None)
                await self._say("no_room")
                self._show_all(READY)

    async def _chord_or_start(self) -> bool:
        """Wait until the first and last seats have been held together for CHORD_S, or the
        judge typed ``start``. Nothing polls: an edge, a typed line or the chord's own
        deadline wakes the table (an idle table costs no CPU of its own)."""
        first, last = 1, self.setup.seats
        while not self._stop.is_set():
            if self._start_typed:
                self._start_typed = False
                return True
            self.ports.stirred.clear()
            held = held_since(self.ports.edges.edges)
            timeout = None
            if first in held and last in held:
                timeout = max(held[first], held[last]) + CHORD_S - self.ports.clock()
                if timeout <= 0:
                    await self._released(first, last)
                    return True
            try:
                await asyncio.wait_for(self.ports.stirred.wait(), timeout)
            except TimeoutError:
                pass
        return False

    async def _released(self, *seats: int) -> None:
        """The chord's thumbs come up before the game starts, so they count as nobody's vote."""
        self._show_all(OFF)
        while set(seats) & set(held_since(self.ports.edges.edges)) and not self._stop.is_set():
            await asyncio.sleep(CHORD_POLL_S)

    def _room(self) -> bool:
        try:
            self.setup.journals.mkdir(parents=True, exist_ok=True)
            return shutil.disk_usage(self.setup.journals).free >= self.setup.room
        except OSError:
            return False

    async def _new_game(self) -> bool:
        """The web setup's game if the judge chose one, else the table's default; the host
        deals unless the judge typed the cards."""
        choice, self._choice = self._choice, None
        self.best_vote = None   # the last game's vote closes as the next game starts
        if choice is None:
            game = new_game(self.setup.ruleset, self.setup.options, self.setup.seats)
        else:
            game = new_game(choice.ruleset, choice.options, self.setup.seats)
            game.names = dict(choice.names)
        path = self.setup.journals / f"game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        while path.exists():
            path = path.with_name(path.stem + "-1.jsonl")
        typed = choice.cards if choice is not None else None
        deal = typed if typed is not None else seeded_deal(game, self.setup.deal_seed())
        roster = {str(seat): name for seat, name in game.names.items()}  # the records read it
        try:
            journal = WatchedJournal(path, {"ruleset": game.ruleset.name, "options": dict(game.options),
                                            "seats": game.seats, "level": "live", "service": True,
                                            **({"names": roster} if roster else {})})
            journal.append(0, self.ports.clock(), "host" if typed is not None else "deal", deal)
        except (OSError, JournalFailed) as err:
            self.log(f"voicehost: cannot start a game: the journal {path}: {err}")
            await self._say("no_room")
            return False
        game.push(deal)
        self.log(f"voicehost: a new game of {game.ruleset.name}, journal {path}")
        return await self._play(game, journal, fresh=True, show_cards=typed is None)

    async def _resume_unfinished(self) -> None:
        path = unfinished_journal(self.setup.journals)
        if path is None:
            return
        self.log(f"voicehost: an unfinished game in {path}: resuming in {DISCARD_WINDOW_S:g} s "
                 "(type «discard» to set it aside)")
        self.notify.ready(f"resuming {path.name}")
        deadline = self.ports.clock() + DISCARD_WINDOW_S
        self._may_discard, self._unfinished = True, path
        self.on_change(None)
        while (self.ports.clock() < deadline and not self._discard and not self._resume_now
               and not self._stop.is_set()):
            await asyncio.sleep(CHORD_POLL_S)
        self._may_discard, self._unfinished, self._resume_now = False, None, False
        if self._discard:
            await self._set_aside(path)
            return
        self.best_vote = None
        try:
            game, journal = resume_game(path, journal_type=WatchedJournal)
        except (InputError, OSError) as err:
            self.log(f"voicehost: cannot resume {path} ({err}); it is set aside")
            await self._set_aside(path)
            return
        await self._play(game, journal, fresh=False)

    async def _set_aside(self, path: Path) -> None:
        self._discard = False
        kept = path.with_name(path.stem + DISCARDED + path.suffix)
        path.rename(kept)
        self.log(f"voicehost: the unfinished game is kept as {kept}")
        self.on_change(None)
        await self._say("game_discarded")

    async def _play(self, game: Game, journal: Journal, fresh: bool, show_cards: bool = True) -> bool:
        """One game to its end, in its own task (so ``discard`` can cancel it); True when its
        protocol is written."""
        director = Director(game, self.ports, journal, book=self.book, log=self.log, forbidden=self.forbidden,
                            hearing=self.hearing)
        public_log = public_log_printer(self.book, game.names, self.on_line)
        director.watch(events_to(public_log))
        self.notify.status(f"playing {game.ruleset.name}: {Path(journal.path).name}")
        self._show_all(OFF)
        while not self.ports.heard.empty():  # words heard while the table was idle are nobody's
            self.ports.heard.get_nowait()
        self._game = asyncio.create_task(self._direct(director, fresh, show_cards, public_log))
        self.on_change(director)
        try:
            await asyncio.wait([self._game])
        finally:
            task, self._game = self._game, None
            if not task.done():
                task.cancel()
            director.close()
            journal.close()
            self.on_change(None)
        if task.cancelled():
            if self._discard:
                await self._set_aside(Path(journal.path))
            return False
        failure = task.exception()
        if isinstance(failure, JournalFailed):
            await self._halt(str(failure))
            return False
        if failure is not None:
            raise failure
        self._write_protocol(game, Path(journal.path))
        return True

    @staticmethod
    async def _direct(director: Director, fresh: bool, show_cards: bool,
                      public_log: Callable[[list[Event]], None]) -> None:
        if fresh:
            await director.nightfall(1)  # «Наступает ночь» and the music, then the cards
            if show_cards:  # the host's deal, each card on its player's LED (typed cards are already dealt)
                await show_roles(director)
        else:  # after a power cut: the state so far, then the game goes on where it stopped
            public_log(list(director.game.events))
            await director.say([("game_resumed", {}), *director.status()])
        await director.run()

    async def _halt(self, why: str) -> None:
        """A journal failure: said, printed, and no more inputs — the table waits for a restart."""
        self.halted = why
        self.log(f"voicehost: error: the journal cannot be written ({why}); the game is stopped, "
                 "no more inputs are taken; free the card and restart voicehost to resume")
        self.notify.status(f"halted: journal failed ({why})")
        self.on_change(None)
        self._show_all(JOURNAL_FAILED)
        await self._say("journal_failed")

    def _write_protocol(self, game: Game, journal: Path) -> None:
        log = list(narrate(game.events, self.book, game.names))
        protocol = build_protocol(game, None, game.names)
        try:
            path = write_results(journal, protocol, log)
        except OSError as err:
            self.log(f"voicehost: error: the protocol of {journal} cannot be written ({err}); "
                     "the journal has the whole game")
            return
        self.played.append(path)
        outcome = game.outcome()
        self.log(f"protocol: {path}" + (f" ({outcome.winner}, {outcome.reason})" if outcome else ""))
        if outcome is not None and self.on_results is not None:  # stored and pushed in a worker thread
            self._records.submit(self.on_results, path, dict(protocol))
        points = best_player_points(game)
        if outcome is not None and points is not None:
            self.best_vote = BestPlayerVote(journal, path, protocol, game.seats, dict(game.names), points)
            self.log(f"voicehost: the table's best player (+{points:g}): type «best N» or use the judge console, "
                     "until the next game starts")
            self.on_change(None)

    async def _say(self, key: str) -> None:
        await self.ports.utter(self.book.say(key, self.setup.ruleset.name))

    def _show_all(self, pattern: Any) -> None:
        for seat in range(1, self.setup.seats + 1):
            self.ports.led(seat, pattern)


def held_since(edges: list[Any]) -> dict[int, float]:
    """Seats whose button is down now, with the time it went down (from the panel's edges)."""
    held: dict[int, float] = {}
    for edge in edges:
        if edge.pressed:
            held[edge.seat] = edge.t
        else:
            held.pop(edge.seat, None)
    return held


def unfinished_journal(folder: Path) -> Path | None:
    """The newest journal of a game that has no protocol (a power cut), if any."""
    if not folder.is_dir():
        return None
    candidates = [path for path in folder.glob("*.jsonl")
                  if not path.stem.endswith(DISCARDED) and not path.with_suffix(".protocol.json").exists()]
    return max(candidates, key=lambda path: path.stat().st_mtime, default=None)
