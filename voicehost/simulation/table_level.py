"""The table level: a script played by the live :class:`~voicehost.host.director.Director` itself,
with simulated people at the table. The people do what the script says the way players do:
they tap their buttons while the host counts, hold a thumb from a candidate's question to
«Спасибо», say their speeches into the ears, and the judge types fouls at the console. The
director captures all that exactly as at a real table. Under :func:`voicehost.host.vclock.run_virtual`
a game takes milliseconds; with the real voice and mock pins (``voicehost demo``) it is heard.

The people know what to do from :meth:`ScriptPlayer.acts` — the same acts the engine level
pushes — and the engine level runs alongside as the reference: after each act the people
wait until the director has taken its next input, which must be exactly the input the
engine level takes for that act, or the run stops with a :class:`Divergence` saying where
the host went wrong. So the table level's protocol equals the engine level's.

Everything public is recorded: spoken lines, LED patterns anyone can see, what was heard;
private things (a check's answer, a card) go only to one player's own LED.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

from audio.listener import Heard
from hw.edges import Edge
from hw.leds import NO, YES, Pattern
from voicehost.host.ballots import VoteBallots
from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.hearing import HearingSettings
from voicehost.host.journal import Journal, JournalEntry
from voicehost.host.night import CALL_GAP_S
from voicehost.host.notices import BallotsCast, ConsoleAnswered, FloorChanged, InputsTaken, LineSaid, Notice, events_to
from voicehost.host.ports import POLL_S
from voicehost.host.subtitles import Transcript
from voicehost.host.table_file import WarningStyle
from voicehost.host.voice import spoken_length_s
from voicehost.i18n import _
from voicehost.language.host_lines import question_key
from voicehost.language.intents import EndIntent
from voicehost.language.narrate import public_lines, public_log_printer
from voicehost.language.parser import parse
from voicehost.language.russian import cardinal
from voicehost.rules import Game, IllegalInput, InputError, new_game
from voicehost.rules.inputs import (
    BloodName,
    EndSpeech,
    Foul,
    Input,
    Join,
    Kill,
    Lift,
    Nominate,
    RaiseHand,
    Remove,
    Shots,
    Vote,
    Withdraw,
)
from voicehost.rules.requests import AwaitAction, AwaitSpeech, AwaitVotes
from voicehost.simulation.engine_level import Act, Feed, ScriptPlayer, Simulation
from voicehost.simulation.mishearing import Mishearing
from voicehost.simulation.script import Script

TAP_AFTER_S = 0.3       # a night tap lands this long after the onset of the number called
TAP_GAP_S = 0.2         # between two taps (the club Sheriff's shot)
TAP_ROOM_S = CALL_GAP_S - TAP_AFTER_S - 0.15  # many taps on one number all land before the next is called
TAP_S = 0.08            # how long a tap holds the button
HAND_MIN_S = 0.03       # hands move in real time: a tap or a gap is never shorter than the
GAP_MIN_S = 0.06        # … button's debounce window, however fast the timers run
PRESS_AFTER_S = 0.3     # a thumb goes down this long after the question ends
HOLD_PAST_S = 0.2       # … and comes up this long after «Спасибо»
ANSWER_AFTER_S = 1.0    # a name said this long after being asked
JOIN_AFTER_S = 1.0      # the maniac taps this long after «вы играете за мафию?»
WORDS_PER_S = 2.5       # how fast people speak
REACT_S = 4.0           # a speaker who hears no echo this long after his nomination says it again
REPEAT_AFTER_S = 0.5    # … starting this long after the host asked or went quiet
VETO_AFTER_S = 0.4      # a wrong echo is vetoed this long after the people notice it
REPEATS = 6             # how often a speaker corrects the host before giving up
PRIVATE_PATTERNS = frozenset({YES.name, NO.name, "role"})  # shown while everyone else's eyes are closed


class Divergence(RuntimeError):
    """The director took something other than what the people did (``did``: the people's
    input, ``took``: the host's, where there is one)."""

    def __init__(self, message: str, did: Input | None = None, took: Input | None = None) -> None:
        super().__init__(message)
        self.did, self.took = did, took


@dataclass
class TableRecord:
    """Everything the table saw and heard, with times on the game's clock."""

    lines: list[tuple[float, str]] = field(default_factory=list)
    leds: list[tuple[float, int, str, bool]] = field(default_factory=list)   # (t, seat, pattern, private)
    heard: list[tuple[float, int, str]] = field(default_factory=list)
    public_log: list[str] = field(default_factory=list)
    ballots: list[VoteBallots] = field(default_factory=list)
    """Each vote's ballots as the table was shown them after its count (a correction's replace them)."""

    def keep_ballots(self, vote: VoteBallots) -> None:
        if self.ballots and (self.ballots[-1].day, self.ballots[-1].vote) == (vote.day, vote.vote):
            self.ballots[-1] = vote
        else:
            self.ballots.append(vote)


class Seats(Protocol):
    """The people's hands on the seat buttons."""

    def press(self, seat: int, down: float, up: float | None) -> None:
        """Down at ``down``, up at ``up`` (None: held until :meth:`release`); times on the loop's clock."""

    def release(self, seat: int, at: float) -> None: ...


class VirtualSeats:
    """Edges straight into the director's edge log, stamped with the game time they happen at."""

    def __init__(self, edges: EdgeLog) -> None:
        self.edges = edges

    def press(self, seat: int, down: float, up: float | None) -> None:
        self.edges.add(Edge(seat, True, down))
        if up is not None:
            self.edges.add(Edge(seat, False, up))

    def release(self, seat: int, at: float) -> None:
        self.edges.add(Edge(seat, False, at))


class PinSeats:
    """gpiozero's mock pins of a real :class:`hw.panel.SeatPanel`, driven in real time: the
    panel debounces and stamps them as it would a real button."""

    def __init__(self, factory: Any, pinmap: Any) -> None:
        self.factory, self.pinmap = factory, pinmap

    def _pin(self, seat: int) -> Any:
        return self.factory.pin(self.pinmap.pins_of(seat).button)

    def press(self, seat: int, down: float, up: float | None) -> None:
        loop = asyncio.get_running_loop()
        down = max(down, loop.time())   # a moment already past: now
        loop.call_at(down, self._pin(seat).drive_low)
        if up is not None:
            loop.call_at(max(up, down + HAND_MIN_S), self._pin(seat).drive_high)

    def release(self, seat: int, at: float) -> None:
        loop = asyncio.get_running_loop()
        loop.call_at(max(at, loop.time()), self._pin(seat).drive_high)


class VirtualVoice:
    """Takes the time a line would take (by its length) on the loop's clock, ``speed`` times
    faster; says nothing."""

    def __init__(self, speed: float = 1.0) -> None:
        self.speed = speed

    async def speak(self, text: str) -> float:
        onset = asyncio.get_running_loop().time()
        await asyncio.sleep(spoken_length_s(text) / self.speed)
        return onset


class People:
    """The script's people at the table: they carry out the acts and check what the host took.

    With ``ears`` (a :class:`~voicehost.simulation.mishearing.Mishearing`) their words reach the
    host misheard, and they correct the host as players would: they repeat a number the host
    asks for again or did not react to, veto a wrong echo with their button, and hold it when
    a «спасибо» that was not theirs ended their speech."""

    def __init__(self, director: Director, player: ScriptPlayer, seats: Seats, record: TableRecord,
                 speed: float = 1.0, ears: Mishearing | None = None, correct: bool = True,
                 judge: Callable[[Director, str], Awaitable[None]] | None = None,
                 hearing: HearingSettings | None = None) -> None:
        self.director, self.player, self.seats, self.record = director, player, seats, record
        self.ears, self.correct = ears, correct
        self.hearing = hearing or HearingSettings()   # the host's, as the table file sets it
        self.judge = judge   # who types a script's foul or removal (None: straight into the console queue)
        self.last_words: tuple[Any, str] | None = None   # the utterance whose intents are being taken
        self.game: Game = director.game   # the table's game; the player's own is the engine level
        self.speed = speed
        self.tap_s = max(TAP_S / speed, HAND_MIN_S)
        self.tap_gap_s = max(TAP_GAP_S / speed, GAP_MIN_S)
        self.cursor = len(self.game.inputs)   # inputs checked so far
        self.on_count: dict[int, list[tuple[int, int]]] = {}   # called seat → (tapper, taps)
        self.on_question: dict[tuple[str, int], list[int]] = {}  # (line key, candidate) → thumbs
        self.on_asked: dict[str, list[int]] = {}   # line key → who taps once it is said (the maniac's «yes»)
        self.held: set[int] = set()
        self.open_window_thumbs: list[int] = []   # lift thumbs for a window already open
        self.said_since_taken: set[str] = set()   # line keys said since the people's last input was taken
        self.floor_given = asyncio.Event()   # set whenever the host gives or closes a floor
        self.floor_of: Any = None             # the request whose floor is open (the host's timer runs)
        self.progress = asyncio.Event()       # set on every input the host took or refused, and «повторите»
        self.refusals: list[IllegalInput] = []   # the game's refusals of what the judge typed
        director.watch(self.notice)

    # ---- what the people hear --------------------------------------------------------------------

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def notice(self, notice: Notice) -> None:
        """What the people see and hear of the host (a director watcher)."""
        if isinstance(notice, LineSaid):
            self.hear_line(notice.key, notice.values, notice.text, notice.onset)
        elif isinstance(notice, InputsTaken):
            self.progress.set()
        elif isinstance(notice, ConsoleAnswered) and notice.illegal is not None:
            self.refusals.append(notice.illegal)
            self.progress.set()
        elif isinstance(notice, FloorChanged):
            self.floor_of = notice.request
            self.floor_given.set()
        elif isinstance(notice, BallotsCast) and notice.complete:
            self.record.keep_ballots(notice.ballots)

    def hear_line(self, key: str, values: dict[str, Any], text: str, onset: float) -> None:
        self.record.lines.append((onset, text))
        self.said_since_taken.add(key)
        if key == "repeat_number":
            self.progress.set()   # a speaker waiting for his echo hears this instead
        if key in ("count", "name_call"):
            called = values.get("seat") or {n: s for s, n in self.game.names.items()}.get(values.get("name", ""))
            base = onset + TAP_AFTER_S / self.speed  # while the number is said (the pins clamp to now)
            for tapper, taps in self.on_count.pop(int(called or 0), []):
                gap = min(self.tap_gap_s, max(TAP_ROOM_S / self.speed / taps, GAP_MIN_S))  # all before the next
                for k in range(taps):
                    down = base + k * gap
                    self.seats.press(tapper, down, down + self.tap_s)
        elif (key, int(values.get("seat", 0))) in self.on_question:
            self.thumbs(self.on_question.pop((key, int(values.get("seat", 0)))))
        elif key in self.on_asked:
            for seat in self.on_asked.pop(key):
                down = self.now() + JOIN_AFTER_S / self.speed
                self.seats.press(seat, down, down + self.tap_s)
        elif key == "thanks" and self.held:
            for voter in sorted(self.held):
                self.seats.release(voter, self.now() + HOLD_PAST_S / self.speed)
            self.held.clear()

    def thumbs(self, voters: list[int]) -> None:
        """Thumbs down a moment after the question, held until «Спасибо»; a voter listed twice
        presses, lets go and presses again (all first presses come first)."""
        down = self.now() + PRESS_AFTER_S / self.speed
        times = {voter: voters.count(voter) for voter in voters}
        for k in range(max(times.values(), default=0)):
            for voter in sorted(v for v, n in times.items() if n > k):
                last = k == times[voter] - 1
                self.seats.press(voter, down, None if last else down + self.tap_s)
                if last:
                    self.held.add(voter)
            down += self.tap_s + self.tap_gap_s

    # ---- what the people do ------------------------------------------------------------------------

    async def play(self, feed: Feed) -> None:
        """Carry out every batch of acts."""
        for batch in feed:
            try:
                await self.carry_out(batch)
            except IllegalInput as err:
                feed.refuse(err)

    async def carry_out(self, batch: list[Act]) -> None:
        request = self.player.game.request
        self.on_count.clear()     # a plan whose line never came (a window not opened) is void
        self.on_question.clear()
        self.open_window_thumbs.clear()
        for act in batch:
            self.plan(act, request)
        self.thumbs(self.open_window_thumbs)
        for act in batch:
            if act.via == "words":
                await self.speak(request, act.words)
            elif act.via == "answer":
                await self.answer(request, act.item)
            elif act.via == "hand" and isinstance(act.item, RaiseHand):
                await self.raise_hand(act.item, request)
            elif act.via == "console" and act.item is not None:
                refused = len(self.refusals)
                if self.judge is None:
                    self.director.ports.type(console_line(act.item))
                else:
                    await self.judge(self.director, console_line(act.item))
                await self.taken(act.item, refused)
            elif act.item is not None:
                await self.taken(act.item)
            if self.player.game.request != request:
                return  # as at the engine level: the rest of the batch is no longer asked for

    def plan(self, act: Act, request: Any) -> None:
        """Acts that wait for a line (a number called, a candidate's question) are set up
        before the host says it."""
        item = act.item
        if isinstance(item, Shots):
            for shooter, targets in item.taps:
                for target in dict.fromkeys(targets):  # each number once, tapped as often as listed
                    self.on_count.setdefault(target, []).append((shooter, targets.count(target)))
        elif act.via == "taps" and isinstance(item, Join):
            if item.side == "black" and item.by is not None:
                self.on_asked.setdefault("maniac_side", []).append(item.by)
        elif act.via == "taps" and getattr(item, "target", None) is not None:
            by, target = item.by, item.target  # type: ignore[union-attr]
            double = isinstance(item, Kill) and isinstance(request, AwaitAction) and request.actions[0] != "kill"
            self.on_count.setdefault(target, []).append((by, 2 if double else 1))
        elif isinstance(item, Vote) and isinstance(request, AwaitVotes):
            self.on_question.setdefault((question_key(request.round), item.candidate), []).append(item.voter)
        elif isinstance(item, Lift) and "all_leave_question" not in self.said_since_taken:
            self.on_question.setdefault(("all_leave_question", 0), []).append(item.voter)
        elif isinstance(item, Lift):  # «… покинули игру?» came with the result: its window is open
            self.open_window_thumbs.append(item.voter)

    async def raise_hand(self, item: RaiseHand, request: Any) -> None:
        """A hand is a button held for ``raise_hand_s`` once the speaker has the floor; the
        speaker himself cannot (his button ends his speech), so the judge types his hand."""
        await self.floor(request)
        if isinstance(request, AwaitSpeech) and request.seat == item.seat:
            self.director.ports.type(f"hand {item.seat}")
        else:
            hold = (self.game.ruleset.timers.get("raise_hand_s", 2) + 0.5) / self.speed
            self.seats.press(item.seat, self.now(), self.now() + hold)
        await self.taken(item)

    async def floor(self, request: Any) -> None:
        """Until the host has given the floor for ``request`` (his line said, the timer running).
        Not just any floor: a speaker removed by the judge still holds his until the host's
        loop closes it, and words said under it would be his, not the next speaker's."""
        while self.floor_of != request:
            self.floor_given.clear()
            await self.floor_given.wait()

    async def speak(self, request: Any, text: str) -> None:
        await self.floor(request)
        if self.ears is not None:
            await self.take_back_a_false_end(request)
        await asyncio.sleep(len(text.split()) / WORDS_PER_S / self.speed)
        if self.game.request == request:  # the floor may have been taken away meanwhile
            self.last_words = (request, text)
            self.hear(request, text)

    async def answer(self, request: Any, item: Input | None) -> None:
        assert isinstance(item, (Nominate, BloodName))
        names = self.game.names
        words = names[item.target] if item.target in names else f"номер {cardinal(item.target)}"
        await self.floor(request)
        # a quick answer when the turn is short (a club may give 1 s): within the first third of it
        await asyncio.sleep(min(ANSWER_AFTER_S, getattr(request, "seconds", 0) / 3 or ANSWER_AFTER_S) / self.speed)
        self.last_words = (request, words)
        self.hear(request, words)
        await self.taken(item)

    def hear(self, request: Any, text: str) -> None:
        seat = request.seat if isinstance(request, AwaitSpeech) else 0
        self.record.heard.append((self.now(), seat, text))
        if self.ears is None:
            self.director.ports.hear(Heard(text, self.now(), "script"))
            return
        for misheard in self.ears.hear(text):
            self.director.ports.hear(Heard(misheard.text, self.now(), "script", misheard.raw))

    async def taken(self, item: Input, refusals: int | None = None) -> None:
        """Wait until the director takes its next input; it must be ``item``."""
        if self.ears is not None:
            await self.corrected(item)
        while len(self.game.inputs) <= self.cursor:
            if refusals is not None and len(self.refusals) > refusals:
                raise self.refusals[-1]
            if self.game.is_over:
                raise Divergence(f"the game ended before the host took {item}", did=item)
            self.progress.clear()
            await self.progress.wait()
        taken = self.game.inputs[self.cursor]
        if taken != item:
            raise Divergence(f"input {self.cursor}: the people did {item}, the host took {taken}", item, taken)
        self.cursor += 1
        self.said_since_taken.clear()
        self.player.push(item)  # the engine level takes the same input


    # ---- correcting a host that misheard (with ``ears``) ------------------------------------------

    async def corrected(self, item: Input) -> None:
        """Before ``item`` is checked: whatever the host took that nobody said is vetoed, and
        words the host did not take (lost, or asked for again) are said again."""
        for _attempt in range(REPEATS):
            reaction = await self.reaction(item)
            if reaction == "over":
                return
            if reaction == "taken":
                taken = self.game.inputs[self.cursor]
                if taken != item and self.refused_words(taken):
                    self.cursor += 1   # the host refused what it misheard («уже выставлен»): nothing happened
                    continue
                if taken == item or not await self.veto(taken):
                    return   # right, or not a thing a player can veto: the check that follows reports it
            await self.say_again(item)

    def refused_words(self, taken: Input) -> bool:
        """A misheard nomination the game refused («уже выставлен»): it changed nothing."""
        return isinstance(taken, Nominate) and (taken.by, taken.target) not in getattr(self.game, "nominations", ())

    def repeatable(self, item: Input) -> str | None:
        """What the speaker says again when the host missed ``item``: his last words for a
        nomination or an answer, «спасибо» for the end of his speech; None for anything else."""
        if self.last_words is None or self.game.request != self.last_words[0]:
            return None
        if isinstance(item, (Nominate, Withdraw, BloodName)):
            return self.last_words[1]
        if isinstance(item, EndSpeech) and any(isinstance(i, EndIntent) for i in parse(self.last_words[1])):
            return "спасибо"
        return None

    async def say_again(self, item: Input) -> None:
        words = self.repeatable(item)
        if words is not None:
            await asyncio.sleep(REPEAT_AFTER_S / self.speed)
            if self.repeatable(item) is not None:
                self.hear(self.game.request, words)

    async def reaction(self, item: Input) -> str:
        """What the host did after the people acted: ``taken`` an input, ``asked`` for the number
        again, nothing for a while (``silence``), or the game is ``over``."""
        patient = self.repeatable(item) is not None
        until = self.now() + REACT_S / self.speed
        self.said_since_taken.discard("repeat_number")
        while len(self.game.inputs) <= self.cursor:
            if self.game.is_over:
                return "over"
            if patient and "repeat_number" in self.said_since_taken:
                return "asked"
            if patient and self.now() >= until:
                return "silence"
            await self.stir(until - self.now() if patient else None)
        return "taken"

    async def stir(self, timeout: float | None) -> None:
        """Until the host takes or refuses an input or says a line (or ``timeout`` passes)."""
        self.progress.clear()
        try:
            await asyncio.wait_for(self.progress.wait(), timeout)
        except TimeoutError:
            pass

    async def veto(self, taken: Input) -> bool:
        """The host took what the speaker did not say: a nomination or withdrawal (he presses
        his button while the echo's window is open) or the end of his speech (he holds it).
        True once the host has undone it."""
        if not self.correct:
            return False
        if isinstance(taken, EndSpeech) and taken.seat:
            hold = (self.hearing.hold_s + 0.3) / self.speed
            self.seats.press(taken.seat, self.now(), self.now() + hold)
        elif isinstance(taken, (Nominate, Withdraw, BloodName)) and taken.by:
            down = self.now() + VETO_AFTER_S / self.speed
            self.seats.press(taken.by, down, down + self.tap_s)
        else:
            return False
        limit = self.now() + 3 * REACT_S / self.speed
        while len(self.game.inputs) > self.cursor and self.now() < limit:
            await self.stir(limit - self.now())
        if len(self.game.inputs) == self.cursor and isinstance(taken, EndSpeech):
            await self.floor(self.game.request)
        return len(self.game.inputs) == self.cursor

    async def take_back_a_false_end(self, request: Any) -> None:
        """Before his next words: if the host took a «спасибо» that was not this speaker's, he
        holds his button until the floor comes back."""
        inputs = self.game.inputs
        if len(inputs) == self.cursor + 1 and inputs[-1] == EndSpeech(getattr(request, "seat", 0)):
            await self.veto(inputs[-1])


def console_line(item: Input | None) -> str:
    """What the judge types for a script's foul or removal."""
    if isinstance(item, Foul):
        return f"foul {item.seat}"
    if isinstance(item, Remove):
        return f"remove {item.seat}"
    raise AssertionError(item)


# ---- a whole game -------------------------------------------------------------------------------

def virtual_seats(ports: Ports) -> tuple[Seats, Callable[[], None]]:
    return VirtualSeats(ports.edges), lambda: None


def mock_pin_seats(pinmap: Any) -> Callable[[Ports], tuple[Seats, Callable[[], None]]]:
    """A real :class:`hw.panel.SeatPanel` on gpiozero's mock pins: the people press the mock
    buttons, the panel debounces and stamps them, and the host's LED patterns light the mock
    LEDs — the seat panel's whole code path, without a Pi."""
    def wire(ports: Ports) -> tuple[Seats, Callable[[], None]]:
        from hw.panel import SeatPanel
        from voicehost.host.seats import mock_factory
        factory = mock_factory()
        loop = asyncio.get_running_loop()
        panel = SeatPanel(pinmap, ports.edges.add, pin_factory=factory, deliver=loop.call_soon_threadsafe)
        record = ports.led

        def led(seat: int, pattern: Pattern) -> None:
            record(seat, pattern)
            panel.show(seat, pattern)
        ports.led = led
        ports.settle = panel.settle
        return PinSeats(factory, pinmap), panel.close
    return wire


@dataclass
class TableRun:
    """How the table is run: the voice (``say`` blocks and returns the onset; ``speak`` is a
    voice on the loop's clock, such as a file render; neither: the virtual voice), the night
    music, the seats, the timers' speed, each public log line as it comes, the spoken
    transcript, who else watches the director while the game runs (``around``: e.g. the web
    display, an async context entered with the director once it exists), and the judge at the
    console (``judge``: types a script's foul or removal; by default straight into the queue)."""

    say: Callable[[str], float] | None = None
    speak: Callable[[str], Awaitable[float]] | None = None   # a voice on the loop's own clock
    night: Callable[[bool], None] = lambda on: None
    seats: Callable[[Ports], tuple[Seats, Callable[[], None]]] = virtual_seats
    speed: float = 1.0
    show: Callable[[str], None] | None = None
    transcript: Transcript | None = None
    ears: Mishearing | None = None      # the people's words misheard (voicehost bench hearing)
    hearing: HearingSettings | None = None   # the host's doubt and correction settings
    around: Callable[[Director], AbstractAsyncContextManager[Any]] | None = None
    judge: Callable[[Director, str], Awaitable[None]] | None = None
    cue: Callable[[str], None] = lambda name: None       # the voice's tones (Ports.cue)
    cue_length: Callable[[str], float] = lambda name: 0.0   # how long each tone sounds (Ports.cue_length)
    hold: Callable[[bool], None] = lambda on: None       # the bed held through a night count
    warning: WarningStyle = "voice"                      # the speaker's warning: tone, voice or both


async def play_table(script: Script, journal: Journal | None = None, replayed: list[JournalEntry] | None = None,
                     how: TableRun | None = None) -> Simulation:
    """Play ``script`` at the table level. ``replayed``: a journal being resumed — its inputs
    are taken again straight into the game (a vote the crash interrupted is taken again from
    its start), then the director and the people carry on."""
    how = how or TableRun()
    record = TableRecord()
    edges = EdgeLog()
    loop = asyncio.get_running_loop()
    ports = Ports(night=how.night, led=lambda seat, pattern: _led(record, loop, seat, pattern), edges=edges,
                  say=how.say, speak=None if how.say else how.speak or VirtualVoice().speak, clock=loop.time,
                  speed=how.speed,
                  poll_s=None if how.say is None else POLL_S, cue=how.cue,
                  cue_length=how.cue_length, hold=how.hold, warning=how.warning)
    seats, close_seats = how.seats(ports)
    player = ScriptPlayer(script)   # the engine level, in step with the table
    player.journal_name = str(journal.path) if journal is not None else "journal"
    table = new_game(script.ruleset, script.options, script.seats)
    table.names = dict(script.names)
    director = Director(table, ports, journal, log=lambda line: None, transcript=how.transcript, hearing=how.hearing)
    public_log = public_log_printer(table.names, how.show) if how.show is not None else None
    if public_log is not None:
        director.watch(events_to(public_log))
    try:
        feed = _replay(player, table, replayed or [], journal, loop.time)
        if public_log is not None:
            public_log(list(table.events))  # the deal (and a resumed game so far), for the log
        people = People(director, player, seats, record, how.speed, how.ears,
                        correct=how.hearing is None or how.hearing.ask_again, judge=how.judge, hearing=how.hearing)
        async with how.around(director) if how.around is not None else nullcontext():
            await _together(director, people, feed)
    finally:
        director.close()
        close_seats()
    record.public_log = public_lines(table.events, table.names)
    result = player.finish()
    result.game = table
    result.table = record
    return result


def _led(record: TableRecord, loop: asyncio.AbstractEventLoop, seat: int, pattern: Pattern) -> None:
    record.leds.append((loop.time(), seat, pattern.name, pattern.name in PRIVATE_PATTERNS))


def _replay(player: ScriptPlayer, table: Game, replayed: list[JournalEntry], journal: Journal | None,
            clock: Callable[[], float]) -> Feed:
    """The deal, and a resumed game's journaled inputs, go straight into both games (checked
    against the script, whole batches of acts only). A vote the crash interrupted is taken
    again from its start: its inputs are spliced out of the journal."""
    done = max(1, len(replayed) - _open_vote(player, replayed))
    player.replayed = replayed[:done]
    feed = Feed(player.acts())
    while player.pushed < done:
        try:
            player.push_batch(next(feed))
        except IllegalInput as err:  # a judge's foul the game refused, then as now
            feed.refuse(err)
        except StopIteration:
            break
    if player.pushed != done:
        raise InputError(player.journal_place(min(player.pushed, done)),
                         _("input {done} falls inside a batch of the script's acts, or past its end: not the "
                           "same game").format(done=done))
    for item in player.game.inputs:
        table.push(item)
    if journal is not None and not replayed:
        journal.append(0, clock(), "deal", table.inputs[0])
    if journal is not None and done < len(replayed):
        journal.splice(clock(), "host", done, len(replayed) - done, [], "resume: the interrupted vote is taken again")
    return feed


def _open_vote(player: ScriptPlayer, replayed: list[JournalEntry]) -> int:
    """How many of a journal's last inputs are an unfinished vote (see Game.open_vote_inputs)."""
    script = player.script
    probe = new_game(script.ruleset, script.options, script.seats)
    player.replayed = replayed
    for index, entry in enumerate(replayed):
        try:
            probe.push(entry.input)
        except IllegalInput as err:
            raise InputError(player.journal_place(index), _("the game refuses {input} ({err}): not the same "
                                                            "game").format(
                                                              input=entry.input, err=err)) from None
    return probe.open_vote_inputs()


async def _together(director: Director, people: People, feed: Feed) -> None:
    """The director runs the game while the people act. When the script's acts run out the
    game stops there, as at the engine level; when the game ends, the people finish."""
    host = asyncio.create_task(director.run())
    table = asyncio.create_task(people.play(feed))
    try:
        done, _ = await asyncio.wait({host, table}, return_when=asyncio.FIRST_COMPLETED)
        if table in done:
            table.result()
            if director.game.is_over:
                await host  # the host finishes announcing the victory
            host.cancel()
        else:
            host.result()
            await table
    finally:
        for task in (host, table):
            if not task.done():
                task.cancel()
        await asyncio.gather(host, table, return_exceptions=True)
    if len(director.game.inputs) != people.cursor:
        extra = director.game.inputs[people.cursor:]
        raise Divergence(f"the host took {len(extra)} input(s) the people never made: {extra[0]}")
