"""The judge's private channel (``--judge-audio``): what only the judge hears, in his earpiece.

A judge who cannot see the table — or who must watch faces rather than a screen — still needs
the secrets: the deal, the night's shots and checks, who pressed for whom. The channel is a
watcher of the director's notices (:mod:`voicehost.host.notices`) with its own voice output,
so it reads nothing of the director but what every watcher reads; the table's speaker never
hears it (a second voice, its own mixer: no line of it is mixed into the table's sound, and it
ducks nothing there), and it never says the table's own lines again.

What it says (``[judge]`` in ``config/phrases/ru.toml``), in the order things happen:

- the deal, once, when it takes the table (a resumed game's too);
- each night action as the buttons give it: every shooter's taps and the result, each check;
- each vote window's count as it closes, with the voters;
- the speaker's clock: 30 seconds left, and a clock the judge holds;
- the answer to each console line (done, held until ``resume``, refused and why);
- ``status`` (typed, or the keypad's button): who is in the game and with which card.

Each line it says is written to the journal (``said``, channel ``judge``) and to the
transcript (``"channel": "judge"``), so a protest can learn what the judge was told and when.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol, runtime_checkable

from voicehost.host.clock import TableClock
from voicehost.host.notices import BallotsCast, ConsoleAnswered, FloorChanged, InputsTaken, Notice, Paused
from voicehost.host.subtitles import Transcript
from voicehost.language.phrasebook import Phrasebook
from voicehost.language.refusals import spoken_refusal
from voicehost.language.russian import fill
from voicehost.rules import Game
from voicehost.rules.events import ActionTaken, CheckAnswered, RolesDealt, ShootingResolved
from voicehost.rules.inputs import Shots
from voicehost.rules.roles import Role

Said = tuple[str, dict[str, Any]]
CHANNEL = "judge"
WARN_LEFT_S = 30.0        # table seconds left when the judge is told the speaker's time
WARN_MIN_TURN_S = 45.0    # a turn shorter than this gets no warning (the table's own cue suffices)
CHECKS_ON = (Role.DON,)   # a check whose «yes» means «found the sheriff»; the others find the black


class JudgeJournal(Protocol):
    """Where the channel's lines are kept (:meth:`voicehost.host.journal.Journal.said`)."""

    def said(self, t: float, channel: str, key: str, text: str) -> None: ...


class JudgeLines:
    """The judge's lines for each notice: pure (the game is read, nothing is said here)."""

    def __init__(self, game: Game, book: Phrasebook) -> None:
        self.game = game
        self.book = book
        self._told: set[tuple[int, int, str, int]] = set()   # vote windows whose count was said

    def text(self, key: str, values: dict[str, Any]) -> str:
        return fill(self.book.lines[f"judge.{key}"], values)

    def role(self, role: Role) -> str:
        return self.book.say(f"role_{role.value}", self.game.ruleset.name).capitalize()

    def deal(self, seats: set[int] | None = None) -> list[Said]:
        """Who holds which card (every card but the citizens'); ``seats``: only these (still playing)."""
        dealt = next((e for e in self.game.events if isinstance(e, RolesDealt)), None)
        if dealt is None:
            return []
        by_role: dict[Role, list[int]] = {}
        for seat, role in enumerate(dealt.roles, start=1):
            if role != Role.CITIZEN and (seats is None or seat in seats):
                by_role.setdefault(role, []).append(seat)
        lines: list[Said] = []
        for role, held in sorted(by_role.items(), key=lambda item: (item[0].team != "black", item[1])):
            name = self.role(role)
            lines.append(("role_one", {"role": name, "seat": held[0]}) if len(held) == 1
                         else ("role_many", {"role": name, "list": held}))
        return lines

    def of(self, notice: Notice) -> list[Said]:
        if isinstance(notice, InputsTaken):
            return self._taken(notice)
        if isinstance(notice, BallotsCast):
            return self._ballots(notice)
        if isinstance(notice, ConsoleAnswered):
            return self._answer(notice)
        if isinstance(notice, FloorChanged) and notice.held_left is not None and notice.speaker:
            return [("held", {"seat": notice.speaker})]
        return []

    def _taken(self, notice: InputsTaken) -> list[Said]:
        lines: list[Said] = []
        if isinstance(notice.item, Shots):
            for shooter, taps in notice.item.taps:
                lines.append(("shots", {"seat": shooter, "target": taps[0]}) if taps
                             else ("shots_none", {"seat": shooter}))
        for event in notice.events:
            if isinstance(event, RolesDealt):
                lines = [("deal", {}), *self.deal()]
            elif isinstance(event, ShootingResolved):
                lines.append(("hit", {"seat": event.target}) if event.target else ("miss", {}))
            elif isinstance(event, CheckAnswered):
                lines.append(self._check(event))
            elif isinstance(event, ActionTaken):
                lines.append(("action", {"role": self.role(event.role), "seat": event.target}))
        return lines

    def _check(self, event: CheckAnswered) -> Said:
        if event.role in CHECKS_ON:
            return ("check_don_yes" if event.result else "check_don_no", {"seat": event.target})
        return ("check_black" if event.result else "check_red", {"role": self.role(event.role), "seat": event.target})

    def _ballots(self, notice: BallotsCast) -> list[Said]:
        """Each window's count once, as it closes (the lift's when its vote is read)."""
        vote = notice.ballots
        lines: list[Said] = []
        for window in vote.windows:
            told = (vote.day, vote.vote, vote.round, window.candidate)
            if told in self._told:
                continue
            self._told.add(told)
            voters = sorted(b.voter for b in vote.ballots if b.counted and b.candidate == window.candidate)
            if vote.round == "lift":
                lines.append(("lift", {"n": len(voters), "list": voters}) if voters else ("lift_none", {}))
            elif not voters:
                lines.append(("votes_none", {"seat": window.candidate}))
            elif len(voters) == 1:
                lines.append(("votes_one", {"seat": window.candidate, "voter": voters[0]}))
            else:
                lines.append(("votes", {"seat": window.candidate, "n": len(voters), "list": voters}))
        return lines

    def _answer(self, notice: ConsoleAnswered) -> list[Said]:
        answer = notice.answer
        words = answer.line.split()
        command = self._command(words[0].lower() if words else "")
        if answer.outcome == "refused" and answer.refusal is not None:
            return [("refused", {"why": spoken_refusal(answer.refusal)})]
        if answer.outcome == "held":
            return [("held_line", {"command": command or answer.line.strip()})]
        said: list[Said] = [("done", {"command": command}) if command else ("done_plain", {})]
        if words and words[0].lower() == "status":
            said += self.status()
        return said

    def _command(self, name: str) -> str | None:
        key = f"judge.command_{name}"
        return self.book.lines[key] if key in self.book.lines else None

    def status(self, speaker: int | None = None, paused: bool = False) -> list[Said]:
        """Who is still playing, with their cards; who has the floor; a pause."""
        alive = {s for s in range(1, self.game.seats + 1) if self.game.is_alive(s)}
        said: list[Said] = [("status", {"n": len(alive)}), *self.deal(alive)]
        if speaker:
            said.append(("status_speaker", {"seat": speaker}))
        if paused:
            said.append(("paused", {}))
        return said


Speak = Callable[[str], Awaitable[float]]


class JudgeChannel:
    """The watcher that speaks :class:`JudgeLines` into the judge's own voice, one line after
    another on its own task (a watcher must not block the director's step)."""

    def __init__(self, game: Game, book: Phrasebook, clock: TableClock, speak: Speak,
                 journal: JudgeJournal | None = None, transcript: Transcript | None = None) -> None:
        self.lines = JudgeLines(game, book)
        self.clock = clock
        self.speak = speak
        self.journal = journal
        self.transcript = transcript
        self.said: list[tuple[float, str, str]] = []   # (table seconds, key, text): what the judge heard
        self.speaker: int | None = None
        self.paused = False
        self._queue: asyncio.Queue[Said] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._warning: asyncio.TimerHandle | None = None
        self._last: list[Said] = []

    def start(self) -> None:
        """Take the table: the deal (a resumed game's too), once; then follow the notices."""
        self._task = asyncio.get_running_loop().create_task(self._speaker())
        if (deal := self.lines.deal()):
            self.tell([("deal", {}), *deal])

    def notice(self, notice: Notice) -> None:
        """The watcher (:class:`~voicehost.host.notices.TableWatcher`)."""
        if isinstance(notice, FloorChanged):
            self._floor(notice)
        elif isinstance(notice, Paused):
            self.paused = notice.on
        self.tell(self.lines.of(notice))

    def tell(self, said: list[Said]) -> None:
        if said:
            self._last = said
        for line in said:
            self._queue.put_nowait(line)

    def status(self) -> None:
        """``status`` on the judge's own demand (the keypad): nothing is said at the table."""
        self.tell(self.lines.status(self.speaker, self.paused))

    def repeat(self) -> None:
        """The judge's last lines again (the keypad's «repeat»)."""
        self.tell(self._last or [("repeat_none", {})])

    def _floor(self, notice: FloorChanged) -> None:
        self.speaker = notice.speaker
        if self._warning is not None:
            self._warning.cancel()
            self._warning = None
        if notice.speaker is None or notice.deadline is None or notice.held_left is not None:
            return
        left = notice.deadline - self.clock.now()
        if left >= WARN_MIN_TURN_S:
            loop = asyncio.get_running_loop()
            warn = [("time_left", {"seat": notice.speaker, "seconds": int(WARN_LEFT_S)})]
            self._warning = loop.call_at(self.clock.loop_time(notice.deadline - WARN_LEFT_S), self.tell, warn)

    async def _speaker(self) -> None:
        while True:
            key, values = await self._queue.get()
            text = self.lines.text(key, values)
            try:
                onset = await self.speak(text)
            except (OSError, RuntimeError, ValueError):   # an earpiece that fails must not stop the table
                continue
            finally:
                self._queue.task_done()
            t = self.clock.at(onset)
            self.said.append((t, key, text))
            if self.journal is not None:
                self.journal.said(t, CHANNEL, f"judge.{key}", text)
            if self.transcript is not None:
                self.transcript.line(t, f"judge.{key}", text, channel=CHANNEL)

    async def drain(self, timeout: float = 60.0) -> None:
        """Everything told is said (the game is over: the last count and answer still reach the judge)."""
        try:
            await asyncio.wait_for(self._queue.join(), timeout)
        except TimeoutError:
            pass

    def close(self) -> None:
        if self._warning is not None:
            self._warning.cancel()
        if self._task is not None:
            self._task.cancel()


class Watched(Protocol):
    """What the channel needs of the director: its public game, clock, phrasebook and watch."""

    @property
    def game(self) -> Game: ...

    @property
    def clock(self) -> TableClock: ...

    def watch(self, watcher: Any) -> None: ...

    def unwatch(self, watcher: Any) -> None: ...


def judge_around(speak: Speak, book: Phrasebook, journal: JudgeJournal | None = None,
                 transcript: Transcript | None = None,
                 attached: Callable[[JudgeChannel], None] = lambda channel: None
                 ) -> Callable[[Any], Any]:
    """The channel as an ``around`` of a game (``TableRun.around``, ``run``'s ``around``):
    entered once the director exists, left when the game is over (what is still queued is said)."""
    @asynccontextmanager
    async def around(director: Watched) -> AsyncIterator[JudgeChannel]:
        channel = JudgeChannel(director.game, book, director.clock, speak, journal, transcript)
        director.watch(channel.notice)
        channel.start()
        attached(channel)
        try:
            yield channel
            await channel.drain()
        finally:
            director.unwatch(channel.notice)
            channel.close()
    return around


def both(*arounds: Callable[[Any], Any] | None) -> Callable[[Any], Any] | None:
    """Several ``around``s entered in turn (the web's and the judge's channel)."""
    present = [a for a in arounds if a is not None]
    if len(present) <= 1:
        return present[0] if present else None

    @asynccontextmanager
    async def around(director: Any) -> AsyncIterator[None]:
        from contextlib import AsyncExitStack
        async with AsyncExitStack() as stack:
            for each in present:
                await stack.enter_async_context(each(director))
            yield
    return around


@runtime_checkable
class KeepsJournal(Protocol):
    """A director with a journal (:attr:`voicehost.host.director.Director.journal`)."""

    @property
    def journal(self) -> JudgeJournal | None: ...


class JudgeFollower:
    """The channel from game to game (``serve``: the idle table starts one director after
    another): each new director gets a channel of its own, which tells its deal once (a resumed
    game's too) and keeps each line in that game's journal, channel ``judge``, as ``run`` does."""

    def __init__(self, speak: Speak, book: Phrasebook) -> None:
        self.speak = speak
        self.book = book
        self.channel: JudgeChannel | None = None
        self._director: Watched | None = None

    def follow(self, director: Watched | None) -> None:
        """``IdleTable.on_change``: a game began (its director) or the table is idle (None)."""
        if self.channel is not None and self._director is not None:
            self._director.unwatch(self.channel.notice)
            self.channel.close()
        self.channel, self._director = None, director
        if director is not None:
            journal = director.journal if isinstance(director, KeepsJournal) else None
            self.channel = JudgeChannel(director.game, self.book, director.clock, self.speak, journal)
            director.watch(self.channel.notice)
            self.channel.start()
