"""The idle table: what a Pi with voicehost as a service does between games.

It shows the ready pattern on every LED and says «Стол готов» once; a game starts when the
first and the last seat hold their buttons together for :data:`CHORD_S` (or the judge types
``start``), with the table's default ruleset and options and the host's own deal shown on
each player's LED. After the game its protocol is written next to the journal and the table
is idle again. Where the game's options take the judge's points or the best move
(``judge_points``, ``best_move``), the judge gives them first, as at ``voicehost run``: the
console and the web take ``bonus``, ``penalty`` and ``bestmove`` for 120 table seconds, or
until ``end``, and the protocol and the records have them.

A power cut costs nothing: at start an unfinished journal (one without a protocol) is
resumed — «Продолжаем игру» and the state so far — unless the judge types ``discard``
(within :data:`DISCARD_WINDOW_S`, or at any time during the game): the journal is then kept,
renamed ``*.discarded.jsonl``, and the table is idle.

With ``serve --web`` the judge's phone does the same (:mod:`voicehost.web.setup`): the idle table
is the web's :class:`~voicehost.web.setup.SetupDesk` — a game with his ruleset, options, roster
and deal starts through the same path as ``start``, and resume/discard are the console's. After
a game whose scoring has a best-player award (``seed001``: +2) the table's vote is open until the next
game starts (``best N``, or a seat button on the web): journaled, written into the protocol and
stored in the records.

The journal is the game's memory, so the table never plays without one: no game starts
without :data:`JOURNAL_ROOM` bytes free for it, and when a write or fsync fails during a game
the host says so, prints it, and takes no more inputs (:attr:`TableState.HALTED`) — the journal
on disk ends at the last input anyone saw acted on, ready to resume once the card is fixed.

The table's life is one :class:`TableState`; :data:`TRANSITIONS` is the one place that says
which state may follow which, and :meth:`IdleTable.state`'s setter refuses any other change
(:class:`RefusedTransition`, a bug) and wakes whoever waits for a change: nothing polls. The
console and the web both send it typed :data:`TableCommand` values (:func:`console_command`
reads a typed line into one); a command is taken exactly when the table is in a state from
which its transition is allowed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from hw.leds import JOURNAL_FAILED, OFF, READY
from voicehost.host import (
    BestCommand,
    Director,
    GameSetup,
    HearingSettings,
    Journal,
    Ports,
    Refused,
    events_to,
    journal_clock,
    judged_results,
    read_args,
    read_journal,
    resume_game,
    seeded_deal,
    show_roles,
    write_results,
)
from voicehost.i18n import N_, _
from voicehost.language.narrate import narrate, public_log_printer
from voicehost.language.phrasebook import Phrasebook, load_phrasebook
from voicehost.language.record_words import result_words
from voicehost.language.refusals import refusal_text
from voicehost.rules import Game, InputError, Refusal, Ruleset
from voicehost.rules.events import Event
from voicehost.rules.protocol import build_protocol
from voicehost.service.notify import Notifier
from voicehost.service.refusals import (
    BestVoteNotNow,
    GameBeingSetAside,
    GameRunning,
    NoBestSeat,
    NoUnfinishedGame,
    TableHalted,
    TableNotReady,
    TableStopping,
    UnfinishedGameWaits,
    VoteNotWritten,
)

if TYPE_CHECKING:
    from voicehost.web.setup import GameChoice

CHORD_S = 3.0
"""The first and the last seat held together this long start a game."""
DISCARD_WINDOW_S = 10.0
"""After a restart, the judge has this long to type «discard» before the unfinished game resumes."""
JOURNAL_ROOM = 1 << 20
"""Bytes free before a game starts (a game's journal is a few dozen KB)."""
DISCARDED = ".discarded"
IDLE_LINES = ("table_ready", "no_room", "game_discarded", "journal_failed", "game_resumed")
"""The phrasebook keys the table says between games: on a fresh appliance they are rendered first."""
READY_LINE = N_("voicehost: the table is ready (hold the first and the last seat's buttons 3 s to start a game)")

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
    options: Any
    """The ruleset's resolved options."""
    seats: int
    journals: Path
    deal_seed: Callable[[], int] = lambda: time.time_ns()
    room: int = JOURNAL_ROOM
    """Bytes that must be free in :attr:`journals` before a game starts."""
    tournament: Any = None
    """``serve --tournament``: the tournament's name, this table's number and the first round."""
    seating: Callable[[Mapping[str, Any]], Mapping[int, str]] | None = None
    """``serve --tournament``: the names the stored schedule seats at a place (empty: none
    stored); a game without names of its own takes them."""

    def default_game(self) -> GameSetup:
        """The table's own game (``start``, the chord): the table file's ``[game]``, checked at boot."""
        return GameSetup(self.ruleset, self.options, self.seats, tournament=self.next_place())

    def next_place(self) -> dict[str, Any] | None:
        """The tournament place of the next game: the round after the last one this table
        finished (its journals with a protocol say which), never before the first round given."""
        if self.tournament is None:
            return None
        first = int(self.tournament["round"])
        played = [first - 1]
        for path in self.journals.glob("*.jsonl") if self.journals.is_dir() else ():
            if not path.with_suffix(".protocol.json").exists():
                continue
            try:
                with open(path, "rb") as file:
                    tag = json.loads(file.readline(64 * 1024)).get("tournament")
            except (OSError, ValueError, AttributeError):
                continue
            if isinstance(tag, dict) and tag.get("name") == self.tournament["name"] \
                    and tag.get("table") == self.tournament["table"] and isinstance(tag.get("round"), int):
                played.append(tag["round"])
        return {**self.tournament, "round": max(played) + 1}


@dataclass
class BestPlayerVote:
    """The last game's best-player vote (``seed001``: +2), open from its end until the next game starts."""

    journal: Path
    protocol_path: Path
    protocol: dict[str, Any]
    seats: int
    names: dict[int, str]
    points: float
    """What the award is worth under the game's scoring scheme."""
    chosen: int | None = None
    """The seat the table voted for (None: no vote yet)."""


def best_player_points(game: Game) -> float | None:
    """The best-player award of the scoring scheme the game was played under, if it has one."""
    scheme = game.options.get("scoring")
    points = game.ruleset.scoring.get(str(scheme), {}).get("best_player") if scheme is not None else None
    return float(points) if points else None


class TableState(Enum):
    """Where the table is in its life. One state at a time; :data:`TRANSITIONS` says what may follow."""

    BOOTING = "booting"
    """``serve`` has not yet looked for an unfinished journal."""
    RESUME_WINDOW = "resume window"
    """A power cut's journal waits :data:`DISCARD_WINDOW_S` for «resume» or «discard»."""
    RESUMING = "resuming"
    """The unfinished journal is being read back (the window passed, or the judge resumed it)."""
    IDLE = "idle"
    """Ready: the LEDs blip, a chord or ``start`` starts a game."""
    BEST_VOTE = "best-player vote"
    """Ready as :attr:`IDLE`, and the last game's best-player vote is open until the next game."""
    STARTING = "starting"
    """A start was asked for (chord, ``start``, the web): the chord's thumbs come up, the journal
    is made; back to idle when there is no room for it."""
    PLAYING = "playing"
    """A game runs; the console's lines go to its director."""
    DISCARDING = "discarding"
    """The judge set the game aside: its journal is renamed ``*.discarded.jsonl``."""
    HALTED = "halted"
    """A journal write failed: no more inputs are taken until voicehost is restarted."""
    STOPPING = "stopping"
    """``stop()`` (SIGTERM): the table ends; nothing follows."""


S = TableState
TRANSITIONS: dict[TableState, frozenset[TableState]] = {
    S.BOOTING: frozenset({S.RESUME_WINDOW, S.IDLE, S.STOPPING}),
    S.RESUME_WINDOW: frozenset({S.RESUMING, S.DISCARDING, S.STOPPING}),
    S.RESUMING: frozenset({S.PLAYING, S.DISCARDING, S.STOPPING}),   # DISCARDING: the journal does not read back
    S.IDLE: frozenset({S.STARTING, S.STOPPING}),
    S.BEST_VOTE: frozenset({S.STARTING, S.STOPPING}),
    S.STARTING: frozenset({S.PLAYING, S.IDLE, S.BEST_VOTE, S.STOPPING}),   # back: no room for the journal
    S.PLAYING: frozenset({S.IDLE, S.BEST_VOTE, S.DISCARDING, S.HALTED, S.STOPPING}),
    S.DISCARDING: frozenset({S.IDLE, S.STOPPING}),
    S.HALTED: frozenset({S.STOPPING}),
    S.STOPPING: frozenset(),
}
"""The one place that says which state may follow which (everything else is refused)."""
READY_STATES = frozenset({S.IDLE, S.BEST_VOTE})
"""The states in which the table waits for a start (the ready pattern, «Стол готов»)."""


class RefusedTransition(RuntimeError):
    """A change of state that :data:`TRANSITIONS` does not allow: a bug in the table, not bad input."""

    def __init__(self, old: TableState, new: TableState) -> None:
        super().__init__(f"the table cannot go from {old.value} to {new.value}")
        self.old, self.new = old, new


@dataclass(frozen=True)
class Start:
    """Start a game: the web setup's choice, or (None) the table's default game."""

    choice: GameChoice | None = None


@dataclass(frozen=True)
class Resume:
    """Resume the power cut's game now, without waiting out the window."""


@dataclass(frozen=True)
class Discard:
    """Set the power cut's or the running game aside (its journal is kept)."""


@dataclass(frozen=True)
class BestPlayer:
    """The table's best-player vote for the last game: this seat."""

    seat: int


TableCommand = Start | Resume | Discard | BestPlayer
"""What the judge asks of the table itself, from the console or the web."""
COMMAND_STATE: dict[type[Start | Resume | Discard], TableState] = {
    Start: S.STARTING, Resume: S.RESUMING, Discard: S.DISCARDING}
"""The state each command moves the table to: it is taken exactly when :data:`TRANSITIONS` allows that."""


def console_command(line: str) -> TableCommand | Refusal | None:
    """A typed line as the table's own command; a refusal: why it is not one (``best`` without a
    seat, read as the judge's :class:`~voicehost.host.BestCommand` is; the seat is checked against
    the last game's by the vote); None: any other line (the director's, while a game runs)."""
    words = line.split()
    if words == ["start"]:
        return Start()
    if words == ["discard"]:
        return Discard()
    if words[:1] == [BestCommand.name]:
        try:
            (seat,) = read_args(BestCommand, words[1:], None)
        except Refused as err:
            return err.refusal
        assert isinstance(seat, int)
        return BestPlayer(seat)
    return None


def refusal(command: TableCommand, state: TableState) -> Refusal:
    """Why the table cannot take ``command`` in ``state`` (worded by :func:`refusal_text`)."""
    if isinstance(command, BestPlayer):
        return BestVoteNotNow()
    if isinstance(command, (Resume, Discard)):
        return NoUnfinishedGame()
    if state is S.HALTED:
        return TableHalted()
    if state in (S.RESUME_WINDOW, S.RESUMING):
        return UnfinishedGameWaits()
    if state is S.DISCARDING:
        return GameBeingSetAside()
    if state in (S.BOOTING, S.STOPPING):
        return TableNotReady() if state is S.BOOTING else TableStopping()
    return GameRunning()


@dataclass
class IdleTable:
    """The service's table: idle → a game → idle, over one set of ports for its whole life."""

    setup: TableSetup
    ports: Ports
    log: Log = print
    notify: Notifier = field(default_factory=Notifier)
    book: Phrasebook = field(default_factory=load_phrasebook)
    on_line: Log = lambda line: None
    """The public log, printed."""
    forbidden: frozenset[str] = frozenset()
    """The club's forbidden words (``[ears]`` of the table file)."""
    hearing: HearingSettings | None = None
    """The host's doubt and correction (``[ears]``)."""
    played: list[Path] = field(default_factory=list)
    """The protocols written, in order."""
    on_results: Callable[[Path, dict[str, Any]], None] | None = None
    """The club records: called off the loop, in :attr:`_records`' thread."""
    best_vote: BestPlayerVote | None = None
    """The last game's best-player vote, while it is open (:attr:`TableState.BEST_VOTE`, and a
    start that may still find no room)."""
    on_change: Callable[[Director | None], None] = lambda director: None
    """Told each game's director when it starts, and None at every other change of state or of
    the vote: the web display."""
    game_place: Mapping[str, Any] | None = None
    """The tournament place (name, round, table) of the game on the table, set before ``on_change``."""
    on_state: Callable[[TableState], None] = lambda state: None
    """Told each new state as the table enters it (a log, a test)."""
    _state: TableState = TableState.BOOTING
    """Where the table is in its life: read it as :attr:`state`, change it only through its setter."""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the state changes, then replaced: a waiter takes the current one and sleeps on it."""
    _game: asyncio.Task[None] | None = None
    """The running game's task (PLAYING), so ``discard`` and ``stop`` can cancel it."""
    _choice: GameChoice | None = None
    """The web setup's game for the start under way (STARTING; None: the table's default)."""
    _unfinished: Path | None = None
    """The power cut's journal (RESUME_WINDOW)."""
    _halted: str | None = None
    """Why the table stopped taking inputs (HALTED)."""
    _scheduled: Mapping[int, str] = field(default_factory=dict)
    """``serve --tournament``: the names the stored schedule seats at the next game's place, read
    as the table becomes ready (not on every state the phone is sent): its setup page shows them."""
    _records: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, "voicehost-records"))
    """The records' one worker thread: stores run in order, so a vote never races its game's store."""

    seats: int = field(init=False)
    """The table's seats (the setup's; a plain attribute, as :class:`~voicehost.web.setup.SetupDesk` has it)."""

    def __post_init__(self) -> None:
        self.seats = self.setup.seats

    @property
    def state(self) -> TableState:
        return self._state

    @state.setter
    def state(self, new: TableState) -> None:
        """Enter ``new`` if :data:`TRANSITIONS` allows it from here, and tell everyone waiting."""
        if new not in TRANSITIONS[self._state]:
            raise RefusedTransition(self._state, new)
        self._state = new
        if new in READY_STATES:
            self._scheduled = self._next_seating()
        self._changed.set()
        self._changed = asyncio.Event()
        self.on_state(new)
        if new is not S.PLAYING:  # a game's start tells the web its director instead
            self.on_change(None)

    def _next_seating(self) -> Mapping[int, str]:
        """The schedule's names at the next game's place (none outside a tournament)."""
        place = self.setup.next_place()
        return {} if place is None or self.setup.seating is None else dict(self.setup.seating(place))

    @property
    def halted(self) -> str | None:
        """Why the table takes no more inputs (a journal failure), or None."""
        return self._halted if self._state is S.HALTED else None

    async def wait_for_state(self, *states: TableState, timeout: float | None = None) -> bool:
        """Sleep until the table is in one of ``states`` (True), or ``timeout`` seconds pass."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self._state not in states:
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                return False
        return True

    # ---- the judge's commands: the web setup page (voicehost.web.setup.SetupDesk) and the console

    def command(self, command: TableCommand) -> Refusal | None:
        """Take ``command`` if the table's state allows it; else why not."""
        if isinstance(command, BestPlayer):
            open_vote = self._state is S.BEST_VOTE and self.best_vote is not None
            return self._vote(command.seat) if open_vote else refusal(command, self._state)
        target = COMMAND_STATE[type(command)]
        if target not in TRANSITIONS[self._state]:
            return refusal(command, self._state)
        if isinstance(command, Start):
            self._choice = command.choice
        self.state = target
        if isinstance(command, Discard) and self._game is not None:
            self._game.cancel()
        return None

    def setup_state(self) -> dict[str, Any]:
        vote = self.best_vote if self._state is S.BEST_VOTE else None
        best = None if vote is None else {"seats": vote.seats, "names": {str(k): v for k, v in vote.names.items()},
                                          "chosen": vote.chosen, "points": vote.points}
        unfinished = self._unfinished if self._state is S.RESUME_WINDOW else None
        return {"ruleset": self.setup.ruleset.name, "options": dict(self.setup.options),
                "unfinished": unfinished.name if unfinished is not None else None,
                "playing": self._state is S.PLAYING, "halted": self.halted, "best": best,
                "state": self._state.value,
                "scheduled": {str(seat): name for seat, name in sorted(self._scheduled.items())}}

    def start(self, choice: GameChoice) -> Refusal | None:
        """The judge's game from the web, started as ``start`` starts the default one."""
        return self.command(Start(choice))

    def resume(self) -> Refusal | None:
        return self.command(Resume())

    def discard(self) -> Refusal | None:
        return self.command(Discard())

    def best(self, seat: int) -> Refusal | None:
        """The table's best-player vote for the last game: journaled (an ``award`` line), written
        into its protocol and into the records (after the game's own store); a second vote
        replaces the first. Open from the game's end until the next game starts."""
        return self.command(BestPlayer(seat))

    def _vote(self, seat: int) -> Refusal | None:
        vote = self.best_vote
        assert vote is not None
        if not 1 <= seat <= vote.seats:
            return NoBestSeat(seat, vote.seats)
        try:
            journal = Journal(vote.journal, {})
            try:
                journal.award(self.ports.clock(), "console", seat)
            finally:
                journal.close()
            vote.protocol["best_player"] = seat
            vote.protocol_path.write_text(json.dumps(vote.protocol, ensure_ascii=False, indent=2) + "\n")
        except OSError as err:
            return VoteNotWritten(str(err.strerror or err))
        vote.chosen = seat
        self.log(_("voicehost: the best player of {game}: seat {seat} (+{points:g})").format(
            game=vote.journal.name, seat=seat, points=vote.points))
        if self.on_results is not None:
            self._records.submit(self.on_results, vote.protocol_path, dict(vote.protocol))
        self.on_change(None)
        return None

    def type(self, line: str) -> None:
        """A console line: ``discard`` is always the table's; while a game runs every other line
        is its director's; otherwise ``start``, ``best N``, and anything else is refused."""
        words = line.strip()
        command = console_command(words)
        if self._state is S.PLAYING and not isinstance(command, Discard):
            self.ports.type(line)
        elif isinstance(command, Refusal):   # «best» mistyped: why, in the judge's language
            why = refusal_text(command)
            self.log(_("console: {words}: {answer}").format(words=words, answer=why))
        elif command is None:
            if words:
                self.log(_("console: {words}: no game is running (start one with «start» or the chord)").format(
                    words=words))
        else:
            refused = self.command(command)
            if isinstance(command, Discard) and refused:
                self.log(_("console: discard: there is no unfinished game to set aside"))
            elif isinstance(command, BestPlayer) or refused:
                self.log(_("console: {words}: {answer}").format(
                    words=words, answer=refusal_text(refused) if refused else _("recorded")))

    def stop(self) -> None:
        if S.STOPPING in TRANSITIONS[self._state]:
            self.state = S.STOPPING
        if self._game is not None:
            self._game.cancel()

    # ---- the life of the table ---------------------------------------------------------------

    async def serve(self) -> None:
        """Resume what a power cut interrupted, then idle → game → idle until stopped. A
        journal failure halts the table (no inputs taken) until it is stopped and restarted."""
        await self._resume_unfinished()
        if self._state is S.BOOTING:
            self.state = S.IDLE
        ready_told = False
        while self._state in READY_STATES:
            if await self._idle(tell_systemd=not ready_told):
                await self._new_game()
            ready_told = True
        await self.wait_for_state(S.STOPPING)

    async def _idle(self, tell_systemd: bool) -> bool:
        """The ready pattern and «Стол готов»; True when a game should start (chord, ``start``
        or the web) and there is room for its journal, False when the table is stopped."""
        self._show_all(READY)
        if tell_systemd:  # from here a chord is taken: ready, as «Стол готов» begins
            self.notify.ready("idle: waiting for the start chord")
            self.log(_(READY_LINE))
        else:
            self.notify.status("idle: waiting for the start chord")
        await self._say("table_ready")
        while await self._chord_or_start():
            if self._room():
                return True
            self.log(_("voicehost: not starting: less than {kb} KB free for the journal in {folder}").format(
                kb=self.setup.room // 1024, folder=self.setup.journals))
            self._choice = None
            self.state = S.BEST_VOTE if self.best_vote is not None else S.IDLE
            await self._say("no_room")
            self._show_all(READY)
        return False

    async def _chord_or_start(self) -> bool:
        """Wait until the first and last seats have been held together for CHORD_S, or a start
        was asked for: True once STARTING. Nothing polls: an edge, a change of state or the
        chord's own deadline wakes the table (an idle table costs no CPU of its own)."""
        first, last = 1, self.setup.seats
        while self._state in READY_STATES:
            self.ports.stirred.clear()
            held = held_since(self.ports.edges.edges)
            timeout = None
            if first in held and last in held:
                timeout = max(held[first], held[last]) + CHORD_S - self.ports.clock()
                if timeout <= 0:
                    self.state = S.STARTING
                    await self._released(first, last)
                    break
            await self._stirred_or_changed(timeout)
        return self._state is S.STARTING

    async def _stirred_or_changed(self, timeout: float | None) -> None:
        """Until a button edge or a typed line stirs the ports, the state changes, or ``timeout``."""
        waits = [asyncio.ensure_future(self.ports.stirred.wait()), asyncio.ensure_future(self._changed.wait())]
        try:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()

    async def _released(self, *seats: int) -> None:
        """The chord's thumbs come up before the game starts, so they count as nobody's vote."""
        self._show_all(OFF)
        while self._state is S.STARTING:
            self.ports.stirred.clear()
            if not set(seats) & set(held_since(self.ports.edges.edges)):
                return
            await self._stirred_or_changed(None)

    def _room(self) -> bool:
        try:
            self.setup.journals.mkdir(parents=True, exist_ok=True)
            return shutil.disk_usage(self.setup.journals).free >= self.setup.room
        except OSError:
            return False

    async def _new_game(self) -> None:
        """The web setup's game if the judge chose one, else the table's default; the host
        deals unless the judge typed the cards."""
        choice, self._choice = self._choice, None
        self.best_vote = None   # the last game's vote closes as the next game starts
        chosen = choice if choice is not None else self.setup.default_game()
        if chosen.tournament is None and self.setup.tournament is not None:   # the judge's game, same evening
            chosen = dataclasses.replace(chosen, tournament=self.setup.next_place())
        chosen = self._seated(chosen)
        game = chosen.new_game()
        path = self.setup.journals / f"game-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        while path.exists():
            path = path.with_name(path.stem + "-1.jsonl")
        typed = choice.cards if choice is not None else None
        deal = typed if typed is not None else seeded_deal(game, self.setup.deal_seed())
        try:
            journal = WatchedJournal(path, service_header(chosen))
            journal.append(0, self.ports.clock(), "host" if typed is not None else "deal", deal)
        except (OSError, JournalFailed) as err:
            self.log(_("voicehost: cannot start a game: the journal {path}: {error}").format(path=path, error=err))
            self.state = S.IDLE
            await self._say("no_room")
            return
        game.push(deal)
        self.log(_("voicehost: a new game of {ruleset}, journal {path}").format(ruleset=game.ruleset.name, path=path))
        await self._play(game, journal, fresh=True, show_cards=typed is None, place=chosen.tournament)

    def _seated(self, chosen: GameSetup) -> GameSetup:
        """A tournament game without names of its own takes the schedule's, and says them."""
        if chosen.names or chosen.tournament is None or self.setup.seating is None:
            return chosen
        names = dict(self.setup.seating(chosen.tournament))
        if not names:
            return chosen
        self.log(_("{name}, round {round}, table {table}, from the schedule: {seats}").format(
            seats=", ".join(f"{seat}. {name}" for seat, name in sorted(names.items())), **chosen.tournament))
        return dataclasses.replace(chosen, names=MappingProxyType(names))

    async def _resume_unfinished(self) -> None:
        """The power cut's journal, if any: the window, then resumed, set aside, or (stopped) left."""
        path = unfinished_journal(self.setup.journals)
        if path is None:
            return
        self.log(_("voicehost: an unfinished game in {path}: resuming in {seconds:g} s "
                   "(type «discard» to set it aside)").format(path=path, seconds=DISCARD_WINDOW_S))
        self.notify.ready(f"resuming {path.name}")
        self._unfinished = path
        self.state = S.RESUME_WINDOW
        if not await self.wait_for_state(S.RESUMING, S.DISCARDING, S.STOPPING, timeout=DISCARD_WINDOW_S):
            self.state = S.RESUMING   # the window passed
        self._unfinished = None
        if self._state is S.DISCARDING:
            await self._set_aside(path)
            return
        if self._state is S.STOPPING:
            return
        try:
            game, journal = resume_game(path, journal_type=WatchedJournal)
        except (InputError, OSError) as err:
            self.log(_("voicehost: cannot resume {path} ({error}); it is set aside").format(path=path, error=err))
            self.state = S.DISCARDING
            await self._set_aside(path)
            return
        await self._play(game, journal, fresh=False, place=read_journal(path)[0].get("tournament"))

    async def _set_aside(self, path: Path) -> None:
        kept = path.with_name(path.stem + DISCARDED + path.suffix)
        path.rename(kept)
        self.log(_("voicehost: the unfinished game is kept as {kept}").format(kept=kept))
        self.state = S.IDLE
        await self._say("game_discarded")

    async def _play(self, game: Game, journal: Journal, fresh: bool, show_cards: bool = True,
                    place: Mapping[str, Any] | None = None) -> None:
        """One game to its end, in its own task (so ``discard`` and ``stop`` can cancel it);
        ``place``: its tournament place (serve gives each new game the next round)."""
        director = Director(game, self.ports, journal, book=self.book, log=self.log, forbidden=self.forbidden,
                            hearing=self.hearing)
        public_log = public_log_printer(game.names, self.on_line)
        director.watch(events_to(public_log))
        self.notify.status(f"playing {game.ruleset.name}: {Path(journal.path).name}")
        self._show_all(OFF)
        while not self.ports.heard.empty():  # words heard while the table was idle are nobody's
            self.ports.heard.get_nowait()
        self._game = asyncio.create_task(self._direct(director, fresh, show_cards, public_log))
        self.state = S.PLAYING
        self.game_place = place if isinstance(place, Mapping) else None
        self.on_change(director)
        try:
            await asyncio.wait([self._game])
        finally:
            task, self._game = self._game, None
            if not task.done():
                task.cancel()
            director.close()
            journal.close()
        await self._after(game, Path(journal.path), task)

    async def _after(self, game: Game, journal: Path, task: asyncio.Task[None]) -> None:
        """The game's task is over: its protocol written if it played to its end, else set aside
        (discard), halted (a journal failure) or left as it is (stop)."""
        failure = None if task.cancelled() else task.exception()
        # A discard or a stop in the after-game window (the judge's points) comes after the end:
        # the game is played, so its protocol is written all the same.
        if failure is None and (not task.cancelled() or game.is_over):
            self._write_protocol(game, journal)
            if self._state is S.DISCARDING:  # the discard came as the game ended: it is played, not set aside
                self.best_vote = None
                self.state = S.IDLE
            elif self._state is S.PLAYING:
                self.state = S.BEST_VOTE if self.best_vote is not None else S.IDLE
            return
        if failure is not None and not isinstance(failure, JournalFailed):
            raise failure
        if self._state is S.DISCARDING:
            await self._set_aside(journal)
        elif self._state is S.PLAYING and failure is not None:
            await self._halt(str(failure))
        elif self._state is S.PLAYING:
            self.state = S.IDLE

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
        await director.points_after_game()   # the judge's bonus, penalty and best move, then the protocol

    async def _halt(self, why: str) -> None:
        """A journal failure: said, printed, and no more inputs — the table waits for a restart."""
        self._halted = why
        self.state = S.HALTED
        self.log(_("voicehost: error: the journal cannot be written ({why}); the game is stopped, "
                   "no more inputs are taken; free the card and restart voicehost to resume").format(why=why))
        self.notify.status(f"halted: journal failed ({why})")
        self._show_all(JOURNAL_FAILED)
        await self._say("journal_failed")

    def _write_protocol(self, game: Game, journal: Path) -> None:
        log = list(narrate(game.events, game.names))
        protocol = {**build_protocol(game, None, game.names), **judged_results(journal), **journal_clock(journal)}
        try:
            path = write_results(journal, protocol, log)
        except OSError as err:
            self.log(_("voicehost: error: the protocol of {journal} cannot be written ({error}); "
                       "the journal has the whole game").format(journal=journal, error=err))
            return
        self.played.append(path)
        outcome = game.outcome()
        self.log(_("protocol: {path} — {result}").format(path=path, result=result_words(outcome.winner, outcome.reason))
                 if outcome else _("protocol: {path}").format(path=path))
        if (outcome is not None or "verdict" in protocol) and self.on_results is not None:  # stored in a worker
            self._records.submit(self.on_results, path, dict(protocol))
        points = best_player_points(game)
        if outcome is not None and points is not None:
            self.best_vote = BestPlayerVote(journal, path, protocol, game.seats, dict(game.names), points)
            self.log(_("voicehost: the table's best player (+{points:g}): type «best N» or use the judge console, "
                       "until the next game starts").format(points=points))

    async def _say(self, key: str) -> None:
        await self.ports.utter(self.book.say(key, self.setup.ruleset.name))

    def _show_all(self, pattern: Any) -> None:
        for seat in range(1, self.setup.seats + 1):
            self.ports.led(seat, pattern)

def idle_lines(book: Phrasebook, ruleset: str) -> list[str]:
    """What the table itself says between games (:data:`IDLE_LINES`), as the phrasebook words it."""
    return [book.say(key, ruleset) for key in IDLE_LINES]


def held_since(edges: list[Any]) -> dict[int, float]:
    """Seats whose button is down now, with the time it went down (from the panel's edges)."""
    held: dict[int, float] = {}
    for edge in edges:
        if edge.pressed:
            held[edge.seat] = edge.t
        else:
            held.pop(edge.seat, None)
    return held


def service_header(setup: GameSetup) -> dict[str, Any]:
    """A service game's journal header: the one checked setup's own, marked as the service's
    (so a resume knows it belongs to the idle table)."""
    return {**setup.header(), "service": True}


def unfinished_journal(folder: Path) -> Path | None:
    """The newest journal of a game that has no protocol (a power cut), if any."""
    if not folder.is_dir():
        return None
    candidates = [path for path in folder.glob("*.jsonl")
                  if not path.stem.endswith(DISCARDED) and not path.with_suffix(".protocol.json").exists()]
    return max(candidates, key=lambda path: path.stat().st_mtime, default=None)
