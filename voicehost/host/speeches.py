"""A speech at a live table: the floor with its timer, the speaker's LED, the 10-second
warning and «Спасибо»; nominations heard in the speech; a raised hand; an end by word, button,
console or time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from audio.listener import Heard
from hw.capture import Press
from voicehost.host.clock import SpeechTimer
from voicehost.host.hearing import HearingSettings, Joiner, TakeBack, doubtful
from voicehost.host.judging import standing_speech
from voicehost.host.notices import LineSaid, Notice
from voicehost.host.refusals import NothingToGiveBack, Refused
from voicehost.host.stage import Stage
from voicehost.i18n import _
from voicehost.language.intents import EndIntent, ForbiddenIntent, NominateIntent, WithdrawIntent
from voicehost.language.parser import parse, parse_seat_answer
from voicehost.rules.inputs import BloodName, EndSpeech, Foul, Input, Nominate, RaiseHand, Withdraw
from voicehost.rules.requests import AwaitSpeech, Request, Turn

ANSWER_TURNS: frozenset[Turn] = frozenset({"nominate", "blood_name"})  # turns answered with one name or number
ECHO_KEYS = {Nominate: "nomination_accepted", Withdraw: "withdrawn"}  # the line that echoes what was taken


@dataclass
class SpeechTurn:
    """One speech's bookkeeping for doubt and correction (:mod:`voicehost.host.hearing`); a new
    one for every floor given."""

    joiner: Joiner
    """The half of a phrase held for the next utterance."""
    after: float = float("-inf")
    """Words that ended before this (the last floor's close, the loop's clock) are not this speech's."""
    closed: float = float("-inf")
    """When this floor was closed."""
    wake_at: float = float("inf")
    """A button being held for a take-back is looked at again then."""
    ended_at: float = float("-inf")
    """When the words that ended the speech were heard."""
    asked_again: bool = False
    """The host has asked for a number (or an answer) again once already."""
    veto: tuple[int, float, float] | None = None
    """(input index, window opens, closes) of the last echo, on the loop's clock."""
    used_presses: set[float] = field(default_factory=set)
    """Presses that vetoed, not ended the speech."""


class Floor:
    """The floor and the speech: the turn's timer and warning, what the speaker says and
    presses, and what he may still take back once it is over. A speech also reads the console:
    ``judge`` carries out the lines typed (True: the judge ended the speech), ``stopped`` says
    the judge annulled or stopped the game."""

    def __init__(self, stage: Stage, timer: SpeechTimer, hearing: HearingSettings,
                 forbidden: frozenset[str] = frozenset(), *, judge: Callable[[], Awaitable[bool]],
                 stopped: Callable[[], bool]) -> None:
        self.stage = stage
        self.game = stage.game
        self.ports = stage.ports
        self.clock = stage.clock
        self.judge, self.stopped = judge, stopped
        self.timer = timer
        self.hearing = hearing
        self.forbidden = forbidden
        """The club's forbidden words: heard in a speech, a foul."""
        self.turn = SpeechTurn(Joiner(self.clock.span(hearing.join_s)))
        """The current (or last) speech's bookkeeping."""
        self.take_back: TakeBack | None = None
        """What the last speaker may still take back (:mod:`voicehost.host.hearing`)."""
        self.time_left: dict[int, float] = {}
        """Seat → table seconds of a speech taken back, given back with his floor."""
        self.ended: tuple[int, int, float] | None = None
        """The last speech's end: (its input's place in the game, the seat, table seconds left)."""
        self.hands: dict[int, set[int]] = {}
        """Day → seats that raised a hand (once a day)."""
        self.echoes: dict[str, float] = {}
        """The last onset of each echo line (:data:`ECHO_KEYS`), on the loop's clock."""
        self.held: set[int] = set()
        """Seats whose given-back (or resumed) floor opens with the judge's ``hold`` on it."""
        stage.watch(self._heard)

    def resume_clock(self, judged: list[dict[str, Any]]) -> None:
        """A resumed journal: the speech it stopped in opens with the time (and the hold) the
        judge had left it (:func:`~voicehost.host.judging.standing_speech`)."""
        standing = standing_speech(judged, len(self.game.inputs))
        request = self.game.request
        if standing is not None and isinstance(request, AwaitSpeech) and request.seat == standing[0]:
            seat, left, held = standing
            self.time_left[seat] = left
            if held:
                self.held.add(seat)

    def give_back(self) -> tuple[int, float]:
        """The judge's ``back``: the last speech's end is taken back (a splice), and its speaker
        gets the floor with the time he had left. Refused once the game has gone past that end."""
        if self.ended is None or self.ended[0] != len(self.game.inputs) - 1:
            raise Refused(NothingToGiveBack())
        _, seat, left = self.ended
        self.stage.pop_last("back:", shown=False)   # the judge's answer says it
        self.ended, self.take_back = None, None
        self.time_left[seat] = left
        return seat, left

    def close(self) -> None:
        self.stage.unwatch(self._heard)

    async def undone(self, item: Input, index: int) -> None:
        """The judge's ``undo`` took back the end of the last speech: its speaker gets the floor
        back with the time he had left, and is told so — as when he takes a false «спасибо» back."""
        if not isinstance(item, EndSpeech) or self.ended is None or self.ended[0] != index:
            return
        _, seat, left = self.ended
        self.ended, self.take_back = None, None
        self.time_left[seat] = left
        await self.stage.say([("go_on", {"seat": seat})])

    def _heard(self, notice: Notice) -> None:
        if isinstance(notice, LineSaid) and notice.key in ECHO_KEYS.values():
            self.echoes[notice.key] = notice.onset

    async def speech(self, request: AwaitSpeech) -> None:
        """The floor: LED on, the timer, the ruleset's warning, «Спасибо». The turn ends on
        «спасибо»/«пас», a tap of the speaker's own button, the console's ``end``, or time.
        The timer is :class:`~voicehost.host.clock.SpeechTimer`: a console ``pause`` moves it on by the pause."""
        seat = request.seat
        if seat:
            self.stage.lights.give_floor(seat)
        self.ports.cue("speech_start")
        started = self.ports.clock()
        seconds = self.time_left.pop(seat, request.seconds)   # a false «спасибо» undone: the time he had
        self.turn = SpeechTurn(Joiner(self.clock.span(self.hearing.join_s)), after=self.turn.closed)
        self.timer.start(request, seconds, held=seat in self.held)
        self.held.discard(seat)
        warning = self.game.warning_for(request, seconds)   # (seconds left, its line) or none, by the ruleset
        changes = self.timer.changes
        ended: bool | str = False
        while not ended and self.game.request == request:
            self.ports.stirred.clear()
            ended = await self._listen(request, started)
            deadline = self.timer.deadline
            assert deadline is not None
            if self.timer.changes != changes:   # the judge changed the time: the warning is due again
                changes, warning = self.timer.changes, self.game.warning_for(request, request.seconds)
                if warning is not None and self.timer.now_left() <= warning[0]:
                    warning = None
            if not ended and self.timer.held_left is not None:   # the judge holds this speech's clock
                if self.game.request == request:
                    await self.ports.idle(min(self.turn.wake_at, self.ports.clock() + self.clock.span(1.0)))
                continue
            if not ended and warning is not None and self.clock.reached(deadline - warning[0]):
                (left_s, line), warning = warning, None
                if seat:
                    self.stage.lights.last_seconds(seat)
                if self.ports.warning != "voice":
                    self.ports.cue("ten_seconds")
                if self.ports.warning != "tone":
                    await self.stage.say([(line, {"n": left_s})])
            if not ended and self.clock.reached(deadline):
                self.ports.cue("time_up")
                await self.stage.say([("thanks", {})])
                ended = True
            if not ended and self.game.request == request:
                wake = self.clock.loop_time(deadline - warning[0] if warning is not None else deadline)
                await self.ports.idle(min(wake, self.turn.wake_at))
        if seat:
            self.stage.lights.take_floor(seat)
        self.turn.closed = self.ports.clock()
        left = self.timer.stop()
        if self.game.request == request and not self.stopped():
            await self.stage.push(EndSpeech(seat), "console" if ended == "console" else "host")
            if seat:
                self.ended = (len(self.game.inputs) - 1, seat, max(0.0, left))
            if ended == "words" and seat:   # he may hold his button: it was not his «спасибо»
                self.take_back = TakeBack(seat, len(self.game.inputs) - 1, self.turn.ended_at,
                                          self.clock.now() + self.hearing.false_end_s,
                                          self.hearing.hold_s, max(0.0, left), "go_on")

    async def _listen(self, request: AwaitSpeech, started: float) -> bool | str:
        """One look at the ears, the buttons and the console; true when the turn ends (``"words"``
        when it was ended by a heard «спасибо», which its speaker may still take back)."""
        while not self.ports.heard.empty():
            heard = self.ports.heard.get_nowait()
            if heard.t_end <= self.turn.after:
                continue   # said before the last floor was closed: not this speaker's words
            if request.turn in ANSWER_TURNS:
                return await self._answer_turn(request, heard)
            text = self.turn.joiner.text_of(heard)
            for intent in parse(text or "", self.forbidden):
                if isinstance(intent, ForbiddenIntent) and request.seat and self.game.is_alive(request.seat):
                    await self.stage.push(Foul(request.seat, f"forbidden:{intent.word}"), "ears")
                    if self.game.request != request:
                        return False
                if isinstance(intent, EndIntent):
                    self.turn.ended_at = heard.t_end
                    return "words"
                if request.may_nominate and isinstance(intent, (NominateIntent, WithdrawIntent)):
                    if not await self._nomination(request, intent, heard, text or ""):
                        break   # asked again: the rest of this utterance is not trusted either
        presses = self.ports.presses(started, self.ports.clock() + 1e-6)   # a press stamped this very moment too
        await self._raised_hands(request, presses)
        if await self.taken_back() or self.game.request != request:
            return False
        own = [p for p in presses if p.seat == request.seat and p.down not in self.turn.used_presses]
        if request.seat and own and not await self._veto(own):
            return True
        return "console" if await self.judge() else False   # the judge's «end»: journaled as his

    async def _nomination(self, request: AwaitSpeech, intent: NominateIntent | WithdrawIntent, heard: Heard,
                          text: str) -> bool:
        """Take a heard nomination or withdrawal, unless its number is unsure (then ask once);
        its echo opens the speaker's veto window. False when the host asked again."""
        if doubtful(heard, text, self.hearing) or not 1 <= intent.seat <= self.game.seats:
            if not self.turn.asked_again:
                self.turn.asked_again = True
                await self.stage.say([("repeat_number", {})])
            else:
                self.stage.log(_("ears: «{text}»: the number is still unclear (the judge or the buttons "
                                 "decide)").format(text=heard.text))
            return False
        kind = Nominate if isinstance(intent, NominateIntent) else Withdraw
        before = len(self.game.inputs)
        await self.stage.push(kind(request.seat, intent.seat), "ears")
        echo = self.echoes.get(ECHO_KEYS[kind])
        if len(self.game.inputs) > before and echo is not None and echo >= heard.t_end - 1e-9:
            self.turn.veto = (before, echo, echo + self.clock.span(self.hearing.veto_s))
        return True

    async def _veto(self, presses: list[Press]) -> bool:
        """The speaker pressed his button while an echo's window was open: what was taken is
        undone («Отменено»), journaled as a splice. False when no window was open (the press ends
        the speech)."""
        window = self.turn.veto
        vetoes = [p for p in presses if window is not None and window[1] <= p.down <= window[2]]
        if window is None or not vetoes:
            return False
        self.turn.used_presses.update(p.down for p in vetoes)
        self.turn.veto = None
        index = window[0]
        if len(self.game.inputs) != index + 1:
            self.stage.log(_("ears: veto refused: the game has moved on since the echo"))
            return True
        self.stage.pop_last("veto", "seats")
        await self.stage.say([("vetoed", {})])
        return True

    async def taken_back(self) -> bool:
        """The last speaker asks for what the host took from his words back (see
        :class:`~voicehost.host.hearing.TakeBack`): it is undone as a splice, and said."""
        back = self.take_back
        if back is None:
            return False
        now, hold = self.ports.clock(), self.clock.span(back.hold)
        if now > self.clock.loop_time(back.until) or len(self.game.inputs) != back.index + 1:
            self.take_back = None
            return False
        presses = [p for p in self.ports.presses(back.since, float("inf")) if p.seat == back.seat and p.down <= now]
        held = [min(now, p.up if p.up is not None else now) - p.down for p in presses]
        if not any(h >= hold - 1e-9 for h in held):
            # look again once a button still down has been held long enough
            wakes = [p.down + hold for p in presses if p.down + hold > now]
            self.turn.wake_at = min(wakes, default=float("inf"))
            return False
        self.take_back = None
        self.stage.pop_last(f"taken back by seat {back.seat}:", "seats")
        if back.time_left is not None:
            self.time_left[back.seat] = back.time_left
        await self.stage.say([(back.line, {"seat": back.seat})])
        return True

    async def take_back_window(self, request: Request) -> None:
        """Before a step that does not listen for it (a vote, the night, an answer turn): the
        take-back window, if one is open, is waited out."""
        while self.take_back is not None and not (isinstance(request, AwaitSpeech) and request.turn == "speech"):
            until = self.clock.loop_time(self.take_back.until)
            if await self.taken_back():
                return
            if self.ports.clock() > until:
                self.take_back = None
                return
            self.ports.stirred.clear()
            await self.ports.idle(min(until + 1e-6, self.turn.wake_at))

    async def _answer_turn(self, request: AwaitSpeech, heard: Heard) -> bool:
        """«Кого вы выдвигаете?» (canonical, by name) or a blood name (classic): one answer. An
        unsure answer is asked for again (once); a taken one can be vetoed by its speaker."""
        seat = parse_seat_answer(heard.text, self.game.names or None)
        if seat is None:
            return False
        if doubtful(heard, heard.text, self.hearing, any_word=True):
            if not self.turn.asked_again:
                self.turn.asked_again = True
                await self.stage.say([("repeat_answer", {})])
                return False
        make = Nominate if request.turn == "nominate" else BloodName
        await self.stage.push(make(request.seat, seat), "ears")
        self.take_back = TakeBack(request.seat, len(self.game.inputs) - 1, heard.t_end,
                                  self.clock.now() + self.hearing.veto_s)
        return True

    async def _raised_hands(self, request: AwaitSpeech, presses: list[Press]) -> None:
        """club: a player who holds his button for ``raise_hand_s`` during the round asks for
        30 more seconds (once a day; the engine keeps the list)."""
        handlers = type(self.game).handlers
        if request.turn != "speech" or (RaiseHand, AwaitSpeech) not in handlers:
            return
        hold = self.clock.span(self.game.ruleset.timers.get("raise_hand_s", 2))
        now = self.ports.clock()
        for press in presses:
            held = (press.up if press.up is not None else now) - press.down
            raised = self.hands.setdefault(self.game.day, set())
            if press.seat != request.seat and held >= hold and press.seat not in raised:
                raised.add(press.seat)
                await self.stage.push(RaiseHand(press.seat), "seats")
