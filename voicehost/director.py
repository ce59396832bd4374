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
the table level on a virtual clock (:mod:`voicehost.table_sim`) — one host, three tables.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from hw.capture import Call, Press, Window, count_votes, presses_from, read_taps
from hw.edges import Edge
from hw.leds import FOUL, HAND, LAST_SECONDS, NO, NOMINEE, OFF, SPEAKER, VOTE_WINDOW, YES, Pattern

from .host_lines import count_lines, event_lines, question_key, request_lines, spoken
from .intents import EndIntent, ForbiddenIntent, NominateIntent, WithdrawIntent
from .journal import Journal
from .parser import parse, parse_seat_answer
from .phrasebook import Phrasebook, load_phrasebook
from .rules import Game, IllegalInput, Role
from .rules.events import (
    CheckAnswered, Eliminated, Event, FoulGiven, HandRaised, MorningCame, NightFell, NominationAccepted,
    NominationWithdrawn,
)
from .rules.inputs import (
    BloodName, CloseVoting, Dawn, Deal, EndSpeech, Foul, Input, Join, Lift, Nominate, RaiseHand, Remove, Shots, Vote,
    Withdraw,
)
from .rules.requests import AwaitAction, AwaitDawn, AwaitLift, AwaitShots, AwaitSpeech, AwaitVotes
from .simulation import ACTIONS

ANSWER_TURNS = frozenset({"nominate", "blood_name"})  # turns answered with one name or number
POLL_S = 0.01           # how often the director looks at its queues while it waits
CALL_GAP_S = 1.0        # one number of the night count
LAST_CALL_TAIL_S = 0.5  # after the last number, before the count closes
JOIN_WINDOW_S = 3.0     # the maniac taps within this time to join the mafia

# The private role code shown on a player's own LED when the host deals (README: «Раздача»).
ROLE_BLINKS = {Role.CITIZEN: 1, Role.SHERIFF: 2, Role.COMMISSAR: 2, Role.DOCTOR: 3, Role.PUTANA: 4,
               Role.DON: 5, Role.MAFIA: 6, Role.YAKUZA: 7, Role.MANIAC: 8}


class EdgeLog:
    """Every debounced edge of the seat panel, in the loop thread."""

    def __init__(self) -> None:
        self.edges: list[Edge] = []
        self.on_edge: Callable[[], None] = lambda: None

    def add(self, edge: Edge) -> None:
        self.edges.append(edge)
        self.on_edge()

    def presses(self, since: float, until: float) -> list[Press]:
        return [p for p in presses_from(self.edges) if since <= p.down < until]


@dataclass
class Ports:
    """What the director talks to: the voice (``say`` blocks until the line is heard and
    returns its onset; or ``speak``, a coroutine, for a voice that lives on the loop's own
    clock), the night music, the seat LEDs, the seat panel's edges, what the ears heard, what
    the console typed — and the clock. ``on_line`` tells the table each line as it ends."""

    night: Callable[[bool], None]
    led: Callable[[int, Pattern], None]
    edges: EdgeLog
    say: Callable[[str], float] | None = None
    speak: Callable[[str], Awaitable[float]] | None = None
    on_line: Callable[[str, dict[str, Any], str, float], None] = lambda key, values, text, onset: None
    heard: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    console: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    clock: Callable[[], float] = time.monotonic
    speed: float = 1.0   # timers run this many times faster (a demo; 1 at a real table)
    settle: Callable[[], None] = lambda: None   # the panel's bounce settling (SeatPanel.settle)
    poll_s: float | None = POLL_S  # None: wait only for a stir (everything arrives through hear/type/edges)
    stirred: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.edges.on_edge = self.stirred.set

    def presses(self, since: float, until: float) -> list[Press]:
        self.settle()
        return self.edges.presses(since, until)

    def hear(self, heard: Any) -> None:
        self.heard.put_nowait(heard)
        self.stirred.set()

    def type(self, line: str) -> None:
        self.console.put_nowait(line)
        self.stirred.set()

    async def utter(self, text: str) -> float:
        if self.speak is not None:
            return await self.speak(text)
        assert self.say is not None, "Ports needs say or speak"
        return await asyncio.get_running_loop().run_in_executor(None, self.say, text)

    async def idle(self, until: float) -> None:
        """Sleep until ``until`` (the clock's time), or until something arrives."""
        timeout = max(0.0, until - self.clock())
        if self.poll_s is not None:
            timeout = min(timeout, self.poll_s)
        try:
            await asyncio.wait_for(self.stirred.wait(), timeout)
        except TimeoutError:
            pass


class Director:
    def __init__(self, game: Game, ports: Ports, journal: Journal | None = None,
                 book: Phrasebook | None = None, log: Callable[[str], None] = print,
                 forbidden: frozenset[str] = frozenset()) -> None:
        self.game = game
        self.ports = ports
        self.journal = journal
        self.book = book or load_phrasebook()
        self.log = log
        self.last_line = ""
        self.onsets: dict[str, float] = {}
        self.hands: dict[int, set[int]] = {}  # day → seats that raised a hand (once a day)
        self.forbidden = forbidden  # the club's forbidden words: heard in a speech, a foul
        self.deadline: float | None = None
        self.refusals: list[IllegalInput] = []  # console commands the game refused
        self.progress = asyncio.Event()         # set on every input taken or refused (a simulated table waits)
        self.on_events: Callable[[list[Event]], None] = lambda events: None  # e.g. the public log in a terminal
        self.leds: dict[int, Pattern] = {}      # each seat's steady LED state (nominated today, out)
        self.speaking: int | None = None

    # ---- speaking, pushing ---------------------------------------------------------------------

    async def say(self, said: list[tuple[str, dict[str, Any]]]) -> list[float]:
        onsets = []
        for (key, values), text in zip(said, spoken(said, self.book, self.game.ruleset.name), strict=True):
            self.last_line = text
            onsets.append(await self.ports.utter(text))
            self.onsets[key] = onsets[-1]
            self.ports.on_line(key, values, text, onsets[-1])
        return onsets

    async def push(self, item: Input, source: str) -> list[Event]:
        """Into the game (which may refuse it), on disk, and only then said and shown."""
        events = self.game.push(item)
        if self.journal is not None:
            self.journal.append(len(self.game.inputs) - 1, self.ports.clock(), source, item)
        self.progress.set()
        self.on_events(events)
        for event in events:
            if isinstance(event, MorningCame):
                self.ports.night(False)
            self._show(event)
            await self.say(event_lines(event, self.game))
            if isinstance(event, NightFell):
                self.ports.night(True)
        return events

    # ---- the LED language (README): a steady state per seat, the floor and flashes on top ----------

    def _show(self, event: Event) -> None:
        for seat in self._steady_after(event):
            if seat != self.speaking:
                self.ports.led(seat, self.leds[seat])
        if isinstance(event, FoulGiven):
            self._flash(event.seat, FOUL)
        elif isinstance(event, CheckAnswered):
            self._flash(event.by, YES if event.result else NO)  # the checker's own LED only
        elif isinstance(event, HandRaised):
            self._flash(event.seat, HAND)

    def _steady_after(self, event: Event) -> list[int]:
        """The seats whose steady state the event changes (nominated today; out of the game)."""
        changed: dict[int, Pattern] = {}
        if isinstance(event, NominationAccepted):
            changed[event.target] = NOMINEE
        elif isinstance(event, NominationWithdrawn):
            changed[event.target] = OFF
        elif isinstance(event, Eliminated):
            changed[event.seat] = OFF
        elif isinstance(event, NightFell):  # «nominated today» ends with the day
            changed = {seat: OFF for seat, pattern in self.leds.items() if pattern is not OFF}
        self.leds.update(changed)
        return list(changed)

    def _relight(self) -> None:
        """After a correction replayed the game: every LED as the corrected game has it."""
        before, self.leds = self.leds, {}
        for event in self.game.events:
            self._steady_after(event)
        for seat in set(before) | set(self.leds):
            if before.get(seat, OFF) is not self.leds.get(seat, OFF):
                self._restore(seat)

    def _flash(self, seat: int, pattern: Pattern) -> None:
        """A counted blink, then the seat's LED shows what it showed before."""
        self.ports.led(seat, pattern)
        asyncio.get_running_loop().call_later((pattern.on + pattern.off) * (pattern.n or 1), self._restore, seat)

    def _restore(self, seat: int) -> None:
        self.ports.led(seat, SPEAKER if seat == self.speaking else self.leds.get(seat, OFF))

    async def wait(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.ports.speed)

    # ---- the game ------------------------------------------------------------------------------------

    async def run(self) -> None:
        while (request := self.game.request) is not None:
            await asyncio.sleep(0)  # anyone waiting on the last input acts before the next step
            await self.console()
            if self.game.request is not request:
                continue
            await self.say(request_lines(request, self.game))
            await self.answer(request)

    async def answer(self, request: Any) -> None:
        if isinstance(request, AwaitShots):
            await self.shots(request)
        elif isinstance(request, AwaitAction):
            await self.action(request)
        elif isinstance(request, AwaitDawn):
            await self.wait(self.game.ruleset.timers.get("acquaintance_s", 0) if request.night == 1 else 0)
            await self.push(Dawn(), "host")
        elif isinstance(request, AwaitSpeech):
            await self.speech(request)
        elif isinstance(request, AwaitVotes):
            await self.votes(request)
        elif isinstance(request, AwaitLift):
            await self.lift(request)

    async def count(self, seats: tuple[int, ...]) -> tuple[list[Call], float]:
        """The host counts the seats aloud; a tap belongs to the number being called."""
        calls = []
        for seat in seats:
            started = self.ports.clock()
            onset = (await self.say(count_lines((seat,), self.game)))[0]
            calls.append(Call(seat, onset))
            await self.wait(CALL_GAP_S - (self.ports.clock() - started) * self.ports.speed)
        await self.wait(LAST_CALL_TAIL_S)  # the last number gets time to be tapped, whatever its length
        return calls, self.ports.clock()

    async def shots(self, request: AwaitShots) -> None:
        calls, ends = await self.count(request.called)
        read = read_taps(calls, ends, self.ports.presses(calls[0].t, ends), request.shooters)
        await self.push(Shots(tuple(sorted(read.taps.items()))), "seats")

    async def action(self, request: AwaitAction) -> None:
        if "join" in request.actions:
            opens = self.ports.clock()
            await self.wait(JOIN_WINDOW_S)
            tapped = request.by is not None and any(p.seat == request.by for p in
                                                     self.ports.presses(opens, self.ports.clock()))
            await self.push(Join(request.by, "black" if tapped else "solo"), "seats")
            return
        calls, ends = await self.count(tuple(range(1, self.game.seats + 1)))
        actors = [request.by] if request.by is not None else []
        taps = read_taps(calls, ends, self.ports.presses(calls[0].t, ends), actors).taps.get(request.by or 0, ())
        target = taps[0] if taps else None
        if target is not None and request.targets is not None and target not in request.targets:
            target = None  # the Doctor pointed at someone who is no victim tonight: nobody is saved
        # The club Sheriff checks with one tap and shoots with two taps on the same number.
        shoots = "kill" in request.actions and len(taps) >= 2 and taps[0] == taps[1]
        await self.push(ACTIONS["kill" if shoots else request.actions[0]](request.by, target), "seats")

    async def speech(self, request: AwaitSpeech) -> None:
        """The floor: LED on, the timer, the 10-second warning, «Спасибо». The turn ends on
        «спасибо»/«пас», a tap of the speaker's own button, the console's ``end``, or time.
        ``self.deadline`` is the timer: a console ``pause`` moves it on by the pause."""
        seat = request.seat
        if seat:
            self.speaking = seat
            self.ports.led(seat, SPEAKER)
        started = self.ports.clock()
        self.deadline = started + request.seconds / self.ports.speed
        warning_s = self.game.ruleset.timers.get("warning_s", 10) / self.ports.speed
        warns = request.seconds > 10
        ended = False
        while not ended and self.game.request == request:
            self.ports.stirred.clear()
            ended = await self._listen(request, started)
            now, deadline = self.ports.clock(), self.deadline
            if not ended and warns and now >= deadline - warning_s:
                warns = False
                if seat:
                    self.ports.led(seat, LAST_SECONDS)
                await self.say([("ten_seconds", {})])
            if not ended and self.ports.clock() >= deadline:
                await self.say([("thanks", {})])
                ended = True
            if not ended:
                await self.ports.idle(deadline - warning_s if warns else deadline)
        if seat:
            self.speaking = None
            self._restore(seat)
        self.deadline = None
        if self.game.request == request:
            await self.push(EndSpeech(seat), "host")

    async def _listen(self, request: AwaitSpeech, started: float) -> bool:
        """One look at the ears, the buttons and the console; True when the turn ends."""
        while not self.ports.heard.empty():
            heard = self.ports.heard.get_nowait()
            if request.turn in ANSWER_TURNS:
                return await self._answer_turn(request, heard.text)
            for intent in parse(heard.text, self.forbidden):
                if isinstance(intent, ForbiddenIntent) and request.seat and self.game.is_alive(request.seat):
                    await self.push(Foul(request.seat, f"forbidden:{intent.word}"), "ears")
                    if self.game.request != request:
                        return False
                if isinstance(intent, EndIntent):
                    return True
                if request.may_nominate and isinstance(intent, (NominateIntent, WithdrawIntent)):
                    kind = Nominate if isinstance(intent, NominateIntent) else Withdraw
                    await self.push(kind(request.seat, intent.seat), "ears")
        presses = self.ports.presses(started, self.ports.clock())
        await self._raised_hands(request, presses)
        if request.seat and any(p.seat == request.seat for p in presses):
            return True
        return await self.console(in_speech=True)

    async def _answer_turn(self, request: AwaitSpeech, text: str) -> bool:
        """«Кого вы выдвигаете?» (canonical, by name) or a blood name (classic): one answer."""
        seat = parse_seat_answer(text, self.game.names or None)
        if seat is not None:
            make = Nominate if request.turn == "nominate" else BloodName
            await self.push(make(request.seat, seat), "ears")
        return seat is not None

    async def _raised_hands(self, request: AwaitSpeech, presses: list[Press]) -> None:
        """club: a player who holds his button for ``raise_hand_s`` during the round asks for
        30 more seconds (once a day; the engine keeps the list)."""
        handlers = type(self.game).handlers  # type: ignore[attr-defined]
        if request.turn != "speech" or (RaiseHand, AwaitSpeech) not in handlers:
            return
        hold = self.game.ruleset.timers.get("raise_hand_s", 2) / self.ports.speed
        now = self.ports.clock()
        for press in presses:
            held = (press.up if press.up is not None else now) - press.down
            raised = self.hands.setdefault(self.game.day, set())
            if press.seat != request.seat and held >= hold and press.seat not in raised:
                raised.add(press.seat)
                await self.push(RaiseHand(press.seat), "seats")

    async def window(self, key: str, **values: Any) -> Window:
        """One candidate's window; his LED pulses while it is open."""
        candidate = int(values.get("seat", 0))
        self.ports.led(candidate, VOTE_WINDOW)
        opens = (await self.say([(key, values)]))[0]
        await self.wait(self.game.ruleset.timers.get("vote_window_s", 2))
        closes = (await self.say([("thanks", {})]))[0]
        self._restore(candidate)
        return Window(candidate, opens, closes)

    async def votes(self, request: AwaitVotes) -> None:
        """A window per candidate the ruleset asks about (sport: all but the last)."""
        question = question_key(request.round)
        windows = [await self.window(question, seat=c, name=self.game.names.get(c, str(c)))
                   for c in self.game.windowed(request)]
        if windows:
            result = count_votes(windows, self.ports.presses(windows[0].opens, windows[-1].closes),
                                 request.voters)
            for voter, candidate in result.votes.items():
                await self.push(Vote(voter, candidate), "seats")
            for seat, reason in result.fouls:
                if self.game.is_alive(seat) and self.game.request is not None:
                    await self.push(Foul(seat, reason), "seats")
        if self.game.request == request:
            await self.push(CloseVoting(), "host")

    async def lift(self, request: AwaitLift) -> None:
        """«Кто за то, чтобы все голосуемые покинули игру?» opened the window as it began."""
        opens = self.onsets.get("all_leave_question", self.ports.clock())
        await self.wait(self.game.ruleset.timers.get("vote_window_s", 2))
        closes = (await self.say([("thanks", {})]))[0]
        result = count_votes([Window(0, opens, closes)], self.ports.presses(opens, closes), request.voters)
        for voter in result.votes:
            await self.push(Lift(voter), "seats")
        if self.game.request == request:
            await self.push(CloseVoting(), "host")

    # ---- the host console -----------------------------------------------------------------------------

    async def console(self, in_speech: bool = False) -> bool:
        """Commands typed by a human host: ``foul N``, ``remove N``, ``end``, ``nominate A B``,
        ``withdraw A B``, ``blood A B``, ``hand N``, ``vote V C`` (V voted for C in the last
        round; ``vote V 0``: for nobody), ``roles 3=don,…`` (the cards corrected), ``undo``,
        ``pause``/``resume``, ``repeat``, ``status``. Returns True when the current speech was
        ended from the console."""
        ended = False
        while not self.ports.console.empty():
            words = self.ports.console.get_nowait().split()
            if not words:
                continue
            try:
                ended = await self.command(words) or ended
            except (IllegalInput, ValueError, IndexError) as err:
                self.log(f"console: {' '.join(words)}: {err}")
                if isinstance(err, IllegalInput):
                    self.refusals.append(err)
                    self.progress.set()
            await asyncio.sleep(0)  # let whoever typed this see it done and type the next line
        return ended

    async def command(self, words: list[str]) -> bool:
        name, args = words[0], [int(w) for w in words[1:] if w.isdigit()]
        if name == "end":
            return True
        if name == "roles":
            self._set_roles(" ".join(words[1:]))
            return False
        if name in ("foul", "remove"):
            await self.push((Foul if name == "foul" else Remove)(args[0], "host"), "console")
        elif name in ("nominate", "withdraw", "blood"):
            make = {"nominate": Nominate, "withdraw": Withdraw, "blood": BloodName}[name]
            await self.push(make(args[0], args[1]), "console")
        elif name == "hand":
            await self.push(RaiseHand(args[0]), "console")
        elif name == "undo":
            if len(self.game.inputs) <= 1:
                raise IllegalInput("the deal cannot be undone (correct the cards with: roles 3=don,…)")
            undone = self.game.inputs[-1]
            self.game.pop()
            self._journal_splice(len(self.game.inputs), 1, [], f"undo {undone.kind}")
            self._relight()
        elif name == "vote":
            voter, candidate = args[0], args[1] if len(args) > 1 else 0
            at, removed, new = self.game.correct_vote(voter, candidate)
            self._journal_splice(at, removed, new, f"vote {voter} {candidate}")
            await self.say([("vote_corrected", {"seat": voter, "target": candidate}) if candidate
                            else ("vote_removed", {"seat": voter})])
            await self._announce_since(at + len(new))
        elif name == "repeat":
            await self.say_text(self.last_line)
        elif name == "status":
            await self.say(self.status())
        elif name == "pause":
            await self.pause()
        else:
            raise ValueError("unknown command (foul, remove, end, nominate, withdraw, blood, hand, vote, roles, "
                             "undo, repeat, status, pause)")
        return False

    async def _announce_since(self, index: int) -> None:
        """The corrected vote's result, said again from the count on, and the LEDs relit."""
        probe = type(self.game)(self.game.ruleset, self.game.options, self.game.seats)
        for item in self.game.inputs[:index]:
            probe.push(item)
        self._relight()
        for event in self.game.events[len(probe.events):]:
            await self.say(event_lines(event, self.game))

    def _set_roles(self, typed: str) -> None:
        """«roles 3=don,5=mafia,…» in the middle of a game: the cards were learned wrong. The
        deal is replaced and the game replayed (refused if what followed no longer fits).
        Nothing is said: the roles are secret."""
        from .dealing import typed_deal
        if not self.game.inputs:
            raise IllegalInput("no cards are dealt yet")
        deal = typed_deal(typed, self.game, "roles")
        self.game.splice(0, 1, [deal])
        self._journal_splice(0, 1, [deal], "roles corrected")
        self._relight()

    async def pause(self) -> None:
        """Everything waits until the console types ``resume``; a running speech keeps the
        time it had left."""
        paused_at = self.ports.clock()
        await self.say([("paused", {})])
        while (await self.ports.console.get()).strip() != "resume":
            self.log("console: paused — type resume")
        if self.deadline is not None:
            self.deadline += self.ports.clock() - paused_at
        await self.say([("resumed", {})])

    def _journal_splice(self, at: int, removed: int, new: list[Input], why: str) -> None:
        """A correction is checked against the whole game first (the splice replays it), then
        on disk before anything is said about it."""
        self.log(f"console: {why}")
        if self.journal is not None:
            self.journal.splice(self.ports.clock(), "console", at, removed, new, why)

    async def say_text(self, text: str) -> None:
        await self.ports.utter(text)

    def status(self) -> list[tuple[str, dict[str, Any]]]:
        """«status» aloud: who is nominated, and the fouls."""
        nominated = [n for _, n in getattr(self.game, "nominations", [])]
        said: list[tuple[str, dict[str, Any]]] = [("status_nominated", {"list": tuple(nominated)})] if nominated \
            else [("status_nobody_nominated", {})]
        said += [("fouls_status", {"seat": s, "n": n}) for s, n in sorted(self.game.fouls.items()) if n]
        if self.deadline is not None:
            left = max(0, round((self.deadline - self.ports.clock()) * self.ports.speed))
            said.append(("status_time_left", {"n": left}))
        return said


async def show_roles(director: Director) -> None:
    """When the host deals: each player in turn opens his eyes and reads his card on his own
    LED — the number of blinks is the role (README «Раздача»), then closes them."""
    from hw.leds import Pattern as LedPattern
    for seat in range(1, director.game.seats + 1):
        await director.say([("deal_open", {"seat": seat})])
        blinks = ROLE_BLINKS[director.game.roles[seat]]
        director.ports.led(seat, LedPattern("role", on=0.4, off=0.4, n=blinks))
        await director.wait(blinks * 0.8 + 1.0)
        await director.say([("deal_close", {})])


# The order the host calls roles on the first night when the club dealt the cards itself:
# each called player taps his button while the others keep their eyes closed.
LEARN_ORDER = (Role.DON, Role.MAFIA, Role.YAKUZA, Role.SHERIFF, Role.COMMISSAR, Role.DOCTOR, Role.PUTANA,
               Role.MANIAC)
LEARN_WINDOW_S = 5.0


async def learn_roles(director: Director, cast: dict[Role, int]) -> Deal | None:
    """The club dealt the cards: on the first night the host calls each role in turn and the
    players holding it tap their buttons. Returns the deal, or None when the taps do not add
    up to the cast (then the host says so and the console must set the roles)."""
    roles = {seat: Role.CITIZEN for seat in range(1, director.game.seats + 1)}
    for role in LEARN_ORDER:
        wanted = cast.get(role, 0)
        if not wanted:
            continue
        opens = (await director.say([("learn_role", {"role": role})]))[0]
        await director.wait(LEARN_WINDOW_S)
        tapped = sorted({p.seat for p in director.ports.presses(opens, director.ports.clock())
                         if roles[p.seat] is Role.CITIZEN})
        await director.say([("learn_close", {})])
        if len(tapped) != wanted:
            await director.say([("learn_failed", {})])
            return None
        for seat in tapped:
            roles[seat] = role
    return Deal(tuple(roles[seat] for seat in sorted(roles)))


async def roles_from_console(director: Director) -> Deal:
    """A human host types the cards: ``roles 3=don,5=mafia,9=mafia,7=sheriff`` (unlisted seats
    are citizens). A line that does not fit the table's cast is refused with the reason."""
    from .dealing import typed_deal
    from .rules import InputError
    while True:
        words = (await director.ports.console.get()).split(maxsplit=1)
        if len(words) != 2 or words[0] != "roles":
            director.log("console: type the cards as: roles 3=don,5=mafia,…")
            continue
        try:
            return typed_deal(words[1], director.game, "roles")
        except InputError as err:
            director.log(f"console: {words[1]}: {err}")
