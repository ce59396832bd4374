"""A speech at a live table: the floor with its timer, the speaker's LED, the 10-second
warning and «Спасибо»; nominations heard in the speech; a raised hand; an end by word, button,
console or time."""

from __future__ import annotations

from hw.capture import Press
from hw.leds import LAST_SECONDS, SPEAKER
from voicehost.host.console import Console
from voicehost.language.intents import EndIntent, ForbiddenIntent, NominateIntent, WithdrawIntent
from voicehost.language.parser import parse, parse_seat_answer
from voicehost.rules.inputs import BloodName, EndSpeech, Foul, Nominate, RaiseHand, Withdraw
from voicehost.rules.requests import AwaitSpeech

ANSWER_TURNS = frozenset({"nominate", "blood_name"})  # turns answered with one name or number


class Speeches(Console):
    """Mixed into :class:`~voicehost.host.director.Director` (a speech also reads the console)."""

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
