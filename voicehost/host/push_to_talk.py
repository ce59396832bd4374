"""Push-to-talk for the judge: while he holds the keypad's ``talk`` key, what the microphone
hears is his, not the players' (:func:`~voicehost.language.judge_speech.judge_command` reads
it). Each command is echoed in his earpiece and carried out :data:`CONFIRM_S` later unless he
takes it back — «отмена», or a tap of the talk key — as a player's nomination is echoed and
may be vetoed. A command is typed into the console's port as the keyboard's are; ``status``
and ``repeat`` go to the earpiece.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol, TypeVar

from voicehost.host.keypad import KeypadCommands
from voicehost.language.judge_speech import CANCEL, judge_command

CONFIRM_S = 2.5     # seconds the echoed command waits for «отмена» before it is carried out
TAIL_S = 0.8        # an utterance that ends this long after the key is released is still the judge's


class Utterance(Protocol):
    """What the recogniser heard (:class:`audio.listener.Heard`): its text and when it ended."""

    @property
    def text(self) -> str: ...

    @property
    def t_end(self) -> float: ...


U = TypeVar("U", bound=Utterance)


class JudgeEars:
    """The talk key's state and the command waiting for its confirmation."""

    def __init__(self, keys: KeypadCommands, seats: int, clock: Callable[[], float]) -> None:
        self.keys = keys
        self.seats = seats
        self.clock = clock
        self.since: float | None = None       # when the talk key last went down
        self.released: float | None = None    # when it came up (None: held now)
        self.pending: tuple[str, asyncio.TimerHandle] | None = None

    def talk(self, down: bool) -> None:
        """The talk key went down (the ears are the judge's) or up; a tap while a command
        waits takes it back."""
        now = self.clock()
        if down:
            if self.pending is not None:
                self.cancel()
            self.since, self.released = now, None
        elif self.since is not None:
            self.released = now

    def listening(self, t_end: float) -> bool:
        """Whether an utterance that ended at ``t_end`` (the clock's) is the judge's."""
        if self.since is None or t_end < self.since:
            return False
        return self.released is None or t_end <= self.released + TAIL_S

    def heard(self, text: str) -> None:
        """What the recogniser made of the judge's words."""
        line = judge_command(text, self.seats)
        if line is None:
            self._tell("ptt_unknown")
        elif line == CANCEL:
            self.cancel()
        else:
            if self.pending is not None:
                self.pending[1].cancel()
            handle = asyncio.get_running_loop().call_later(CONFIRM_S, self._carry_out, line)
            self.pending = (line, handle)
            name, _space, argument = line.partition(" ")
            number = int(argument.lstrip("+")) if argument else 0
            self._tell(f"ptt_{name}", seat=number, n=number)

    def cancel(self) -> None:
        if self.pending is not None:
            self.pending[1].cancel()
            self.pending = None
            self._tell("ptt_cancelled")

    def _carry_out(self, line: str) -> None:
        self.pending = None
        if line == "status":
            self.keys.key("status")   # the earpiece's status (the console's when there is none)
        else:
            self.keys.type_line(line)

    def _tell(self, key: str, **values: int) -> None:
        if self.keys.channel is not None:
            self.keys.channel.tell([(key, dict(values))])


def heard_by(judge: JudgeEars | None, players: Callable[[U], None]) -> Callable[[U], None]:
    """Where each utterance of the table's microphone goes: to the judge while he holds the
    talk key (and :data:`TAIL_S` after), else to the players (the ports' ears)."""
    def hear(heard: U) -> None:
        if judge is not None and judge.listening(heard.t_end):
            judge.heard(heard.text)
        else:
            players(heard)
    return hear
