"""The table level: a script played through the host's whole chain — every line spoken (by
the voice, or a virtual one that only takes time), votes captured from button presses in
windows between spoken lines, night taps read against the spoken count, speech heard and
parsed — under a virtual clock, so a game takes milliseconds. Its protocol must equal the
engine level's: that sameness tests the chain.

Everything public is recorded: spoken lines, LED patterns anyone can see, and the public
log; private things (a check's answer) go only to the checker's own LED.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

from hw.capture import Call, Press, Window, count_votes, read_taps
from hw.leds import FOUL, HAND, NO, NOMINEE, OFF, SPEAKER, YES

from .host_lines import count_lines, event_lines, question_key, request_lines, spoken
from .intents import EndIntent, Intent
from .narrate import public_lines
from .parser import parse, parse_seat_answer
from .phrasebook import load_phrasebook
from .rules.events import (
    CheckAnswered, Eliminated, Event, FoulGiven, MorningCame, NightFell, NominationAccepted, SpeechBegan,
    SpeechEnded,
)
from .rules.inputs import BloodName, EndSpeech, Input, Join, Lift, Nominate, RaiseHand, Shots, Vote
from .rules.requests import AwaitAction, AwaitLift, AwaitShots, AwaitSpeech, AwaitVotes, Request
from .russian import cardinal
from .simulation import ACTIONS, ScriptPlayer

TAP_AFTER_S = 0.3       # a shooter taps this long after his target's number is called
PRESS_AFTER_S = 0.3     # a voter's thumb goes down this long after the question starts
HOLD_PAST_S = 0.2       # … and comes up this long after «Спасибо»
WORDS_PER_S = 2.5       # how fast simulated players speak


class VoicePort(Protocol):
    def say(self, text: str) -> tuple[float, float]:
        """Speak; returns (onset, duration) in the player's clock."""

    def night(self, on: bool) -> None: ...


@dataclass
class VirtualVoice:
    """Takes the time a line would take (by its length) on the virtual clock; says nothing."""

    clock: list[float]
    lines: list[tuple[float, str]] = field(default_factory=list)

    def say(self, text: str) -> tuple[float, float]:
        onset = self.clock[0]
        duration = 0.3 + 0.065 * len(text)
        self.clock[0] += duration
        self.lines.append((onset, text))
        return onset, duration

    def night(self, on: bool) -> None:
        pass


class RealVoice:
    """The host's real voice (``voicehost demo``): the clock is the real one."""

    def __init__(self, voice: object) -> None:
        self.voice = voice
        self.lines: list[tuple[float, str]] = []

    def say(self, text: str) -> tuple[float, float]:
        onset = self.voice.say(text)  # type: ignore[attr-defined]
        self.lines.append((onset, text))
        return onset, time.monotonic() - onset

    def night(self, on: bool) -> None:
        self.voice.night(on)  # type: ignore[attr-defined]


class LiveLog:
    """Prints the public log as the game unfolds (``voicehost demo``)."""

    def __init__(self, pace: float = 0.0) -> None:
        self.pace = pace

    def show(self, player: TablePlayer, events: list[Event]) -> None:
        for line in public_lines(events, player.book, player.script.names):
            print(line, flush=True)
            if self.pace:
                time.sleep(self.pace)


class TablePlayer(ScriptPlayer):
    """A ScriptPlayer whose people act through the table: buttons, voice and ears."""

    voice_factory = None  # a callable (player) -> VoicePort; None: the virtual voice
    live_log: LiveLog | None = None

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.time = [0.0]
        self.voice: VoicePort = (type(self).voice_factory or (lambda p: VirtualVoice(p.time)))(self)
        self.book = load_phrasebook()
        self.leds: list[tuple[float, int, str, bool]] = []   # (time, seat, pattern, private)
        self.heard: list[tuple[float, int, str]] = []
        self.said_end = False
        self.spoken_at: dict[str, float] = {}

    # ---- the clock and the host's mouth ------------------------------------------------------

    def clock(self) -> float:
        return self.time[0] if isinstance(self.voice, VirtualVoice) else time.monotonic()

    def wait(self, seconds: float) -> None:
        if isinstance(self.voice, VirtualVoice):
            self.time[0] += seconds

    def say_lines(self, said: list[tuple[str, dict[str, object]]]) -> list[float]:
        onsets = []
        for (key, _), text in zip(said, spoken(said, self.book, self.game.ruleset.name), strict=True):
            onsets.append(self.voice.say(text)[0])
            self.spoken_at[key] = onsets[-1]
        return onsets

    def say_key(self, key: str, **values: object) -> float:
        return self.say_lines([(key, values)])[0]

    def led(self, seat: int, pattern: str, private: bool = False) -> None:
        self.leds.append((self.clock(), seat, pattern, private))

    # ---- hooks of the script player --------------------------------------------------------------

    def before_answer(self, request: Request) -> None:
        self.say_lines(request_lines(request, self.game))
        if isinstance(request, AwaitSpeech) and request.seat:
            self.said_end = False

    def after_push(self, events: list[Event]) -> None:
        if self.live_log is not None:
            self.live_log.show(self, events)
        for event in events:
            if isinstance(event, MorningCame):
                self.voice.night(False)
            self.say_lines(event_lines(event, self.game))
            self._show(event)
            if isinstance(event, NightFell):
                self.voice.night(True)

    def _show(self, event: Event) -> None:
        """The LED language: speaker on, nominee dim, out of the game off, a foul flashes."""
        if isinstance(event, SpeechBegan) and event.seat:
            self.led(event.seat, SPEAKER.name)
        elif isinstance(event, SpeechEnded) and event.seat:
            self.led(event.seat, OFF.name)
        elif isinstance(event, NominationAccepted):
            self.led(event.target, NOMINEE.name)
        elif isinstance(event, FoulGiven):
            self.led(event.seat, FOUL.name)
        elif isinstance(event, Eliminated):
            self.led(event.seat, OFF.name)
        elif isinstance(event, CheckAnswered):
            self.led(event.by, (YES if event.result else NO).name, private=True)

    # ---- night: the spoken count and the taps ------------------------------------------------

    def _count(self, seats: tuple[int, ...]) -> tuple[list[Call], float]:
        calls = [Call(seat, self.say_lines(count_lines((seat,), self.game))[0]) for seat in seats]
        return calls, self.clock()

    def table_shots(self, request: AwaitShots, taps: list[tuple[int, tuple[int, ...]]]) -> Shots:
        calls, ends = self._count(request.called)
        onset = {call.number: call.t for call in calls}
        presses = [Press(shooter, onset[target] + TAP_AFTER_S, onset[target] + TAP_AFTER_S + 0.1)
                   for shooter, targets in taps for target in targets if target in onset]
        read = read_taps(calls, ends, presses, request.shooters)
        return Shots(tuple((shooter, read.taps[shooter]) for shooter, _ in taps if shooter in read.taps))

    def table_action(self, request: AwaitAction, action: str, target: int | None) -> Input:
        """The role taps while the host counts the seats; the first tap is the choice."""
        seats = tuple(range(1, self.game.seats + 1))
        calls, ends = self._count(seats)
        presses = []
        if request.by is not None and target is not None:
            presses.append(Press(request.by, calls[target - 1].t + TAP_AFTER_S, calls[target - 1].t + 0.4))
        read = read_taps(calls, ends, presses, [request.by] if request.by is not None else [])
        chosen = read.taps.get(request.by or 0, (None,))[0]
        return ACTIONS[action](request.by, chosen)

    def table_join(self, request: AwaitAction, side: str) -> Input:
        """«Маньяк, вы играете за мафию?»: a tap within 3 s means yes."""
        opens = self.clock()
        self.wait(3.0)
        presses = [Press(request.by, opens + 1.0, opens + 1.2)] if side == "black" and request.by else []
        tapped = any(opens <= p.down < opens + 3.0 for p in presses)
        return Join(request.by, "black" if tapped else "solo")

    # ---- day: ears, timers, windows ---------------------------------------------------------

    def table_words(self, request: AwaitSpeech, text: str) -> list[Intent]:
        """The speaker's words, heard when he stops (the parser is the same as the engine's)."""
        self.wait(len(text.split()) / WORDS_PER_S)
        self.heard.append((self.clock(), request.seat, text))
        intents = parse(text)
        if any(isinstance(i, EndIntent) for i in intents):
            self.said_end = True
        return intents

    def table_answer(self, request: AwaitSpeech, make: type[Nominate] | type[BloodName], target: int) -> Input:
        names = self.script.names or None
        words = names[target] if names and target in names else f"номер {cardinal(target)}"
        self.wait(1.0)
        self.heard.append((self.clock(), request.seat, words))
        seat = parse_seat_answer(words, names)
        return make(request.seat, seat if seat is not None else target)

    def table_hand(self, seat: int) -> Input:
        """A hand is raised by holding the button for ``raise_hand_s``."""
        self.led(seat, HAND.name)
        return RaiseHand(seat)

    def table_end(self, request: AwaitSpeech) -> Input:
        """The speaker said «спасибо»/«пас»; or the timer runs out: 10 s warning, then «Спасибо»."""
        if not self.said_end and request.seconds and request.seat:
            self.wait(max(0.0, request.seconds - self.game.ruleset.timers.get("warning_s", 10)))
            self.say_key("ten_seconds")
            self.wait(self.game.ruleset.timers.get("warning_s", 10))
            self.say_key("thanks")
        return EndSpeech(request.seat)

    def _window(self, key: str, **values: object) -> tuple[float, float]:
        """A candidate's window: from the onset of the question to the onset of «Спасибо»."""
        opens = self.say_key(key, **values)
        self.wait(self.game.ruleset.timers.get("vote_window_s", 2))
        return opens, self.say_key("thanks")

    def table_votes(self, request: AwaitVotes, wanted: list[tuple[int, int]]) -> list[Input]:
        """A window per candidate the ruleset asks about (sport: all but the last)."""
        question = question_key(request.round)
        windows = [Window(c, *self._window(question, seat=c, name=self._name(c))) for c in self.game.windowed(request)]
        opens = {w.candidate: w for w in windows}
        presses = [Press(voter, opens[c].opens + PRESS_AFTER_S, opens[c].closes + HOLD_PAST_S)
                   for voter, c in wanted if c in opens]
        result = count_votes(windows, sorted(presses, key=lambda p: p.down), request.voters)
        return [Vote(voter, candidate) for voter, candidate in result.votes.items()]

    def _name(self, seat: int) -> str:
        return self.script.names.get(seat, str(seat))

    def table_lifts(self, request: AwaitLift, voters: list[int]) -> list[Input]:
        """«Кто за то, чтобы все голосуемые покинули игру?» opened the window when it began."""
        opens = self.spoken_at.get("all_leave_question", self.clock())
        self.wait(self.game.ruleset.timers.get("vote_window_s", 2))
        closes = self.say_key("thanks")
        presses = [Press(v, opens + PRESS_AFTER_S, closes + HOLD_PAST_S) for v in voters]
        result = count_votes([Window(0, opens, closes)], presses, request.voters)
        return [Lift(voter) for voter in result.votes]


def public_log(player: TablePlayer) -> list[str]:
    """The public log of the whole game."""
    return public_lines(player.game.events, player.book, player.script.names)
