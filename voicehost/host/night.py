"""The night at a live table: the host counts the seats aloud and a tap belongs to the number
being called (the shooting, the checks, the Doctor, the maniac's choice of side)."""

from __future__ import annotations

from hw.capture import Call, read_taps
from voicehost.host.stage import Stage
from voicehost.language.host_lines import TIMED_WAKES, Said, count_lines
from voicehost.rules.inputs import ACTIONS, Join, Shots
from voicehost.rules.requests import AwaitAction, AwaitShots

CALL_GAP_S = 1.0        # one number of the night count
LAST_CALL_TAIL_S = 0.5  # after the last number, before the count closes
JOIN_WINDOW_S = 3.0     # the maniac taps within this time to join the mafia


class Night:
    """The night's steps: the host's calls and the counts the taps belong to. It keeps no state
    between steps (the night music is the stage's: the morning may come from any input)."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        self.game = stage.game
        self.ports = stage.ports

    async def call(self, said: Said) -> None:
        """A night step's lines; a timed wake-up (the sport acquaintance minute, the club
        mafia's ten seconds to agree) waits its time after its «wakes» line, before the
        «sleeps» line or the count that follows."""
        for line in said:
            await self.stage.say([line])
            timer = TIMED_WAKES.get(line[0])
            if timer is not None:
                await self.stage.wait(self.game.ruleset.timers.get(timer, 0))

    async def count(self, seats: tuple[int, ...]) -> tuple[list[Call], float]:
        """The host counts the seats aloud; a tap belongs to the number being called. The first
        number comes a line's pause after the line that woke the players; through the count
        the music's treble stays up (it hides the taps) and only its speech band ducks, under
        each number and not between them (docs/voice.md, «The night's loudness plan»)."""
        calls = []
        self.ports.hold(True)
        try:
            for seat in seats:
                started = self.ports.clock()
                onset = (await self.stage.say(count_lines((seat,), self.game)))[0]
                calls.append(Call(seat, onset))
                await self.stage.wait(CALL_GAP_S - self.stage.clock.since(started))
            await self.stage.wait(LAST_CALL_TAIL_S)  # the last number gets time to be tapped, whatever its length
        finally:
            self.ports.hold(False)
        return calls, self.ports.clock()

    async def shots(self, request: AwaitShots) -> None:
        calls, ends = await self.count(request.called)
        read = read_taps(calls, ends, self.ports.presses(calls[0].t, ends), request.shooters)
        await self.stage.push(Shots(tuple(sorted(read.taps.items()))), "seats")

    async def action(self, request: AwaitAction) -> None:
        if "join" in request.actions:
            opens = self.ports.clock()
            await self.stage.wait(JOIN_WINDOW_S)
            tapped = request.by is not None and any(p.seat == request.by for p in
                                                     self.ports.presses(opens, self.ports.clock()))
            await self.stage.push(Join(request.by, "black" if tapped else "solo"), "seats")
            return
        calls, ends = await self.count(tuple(range(1, self.game.seats + 1)))
        actors = [request.by] if request.by is not None else []
        taps = read_taps(calls, ends, self.ports.presses(calls[0].t, ends), actors).taps.get(request.by or 0, ())
        target = taps[0] if taps else None
        if target is not None and request.targets is not None and target not in request.targets:
            target = None  # the Doctor pointed at someone who is no victim tonight: nobody is saved
        # The club Sheriff checks with one tap and shoots with two taps on the same number.
        shoots = "kill" in request.actions and len(taps) >= 2 and taps[0] == taps[1]
        await self.stage.push(ACTIONS["kill" if shoots else request.actions[0]](request.by, target), "seats")
