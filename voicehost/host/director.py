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
from typing import Any

from voicehost.host.night import NightSteps
from voicehost.host.ports import EdgeLog, Ports
from voicehost.host.speeches import Speeches
from voicehost.host.voting import Voting
from voicehost.language.host_lines import request_lines
from voicehost.rules.flow import request_night
from voicehost.rules.inputs import Dawn, Proceed
from voicehost.rules.requests import (
    AwaitAction,
    AwaitDawn,
    AwaitLift,
    AwaitMorning,
    AwaitNightfall,
    AwaitShots,
    AwaitSpeech,
    AwaitVotes,
)

__all__ = ["Director", "EdgeLog", "Ports"]


class Director(NightSteps, Speeches, Voting):
    """One host for every table. Its parts, one module each: :mod:`~voicehost.host.stage` (say,
    push, wait), :mod:`~voicehost.host.lights` (the LEDs), :mod:`~voicehost.host.night`,
    :mod:`~voicehost.host.speeches`, :mod:`~voicehost.host.voting`, :mod:`~voicehost.host.console`;
    the cards are dealt or learned by :mod:`~voicehost.host.cards`."""

    async def run(self) -> None:
        if (night := request_night(self.game.request)) is not None:
            await self.nightfall(night)  # night 1 opens like every night (and a resumed night too)
        while (request := self.game.request) is not None:
            await asyncio.sleep(0)  # anyone waiting on the last input acts before the next step
            await self.console()
            await self.take_back_window(request)
            if self.game.request is not request:
                continue
            if not (isinstance(request, AwaitSpeech) and request.seat in self.time_left):  # a floor given back
                await self.call(request_lines(request, self.game))
            await self.answer(request)

    async def answer(self, request: Any) -> None:
        if isinstance(request, AwaitShots):
            await self.shots(request)
        elif isinstance(request, AwaitAction):
            await self.action(request)
        elif isinstance(request, AwaitDawn):
            await self.push(Dawn(), "host")
        elif isinstance(request, (AwaitMorning, AwaitNightfall)):
            await self.push(Proceed(), "host")  # the judge's console had its turn just before
        elif isinstance(request, AwaitSpeech):
            await self.speech(request)
        elif isinstance(request, AwaitVotes):
            await self.votes(request)
        elif isinstance(request, AwaitLift):
            await self.lift(request)
