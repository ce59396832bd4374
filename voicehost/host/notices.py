"""What leaves the director: one typed stream of frozen notices, in the order things happened.

The phone display (:mod:`voicehost.web.view`), the subtitles (:mod:`voicehost.host.subtitles`),
the public log in a terminal and the simulated people of the table level
(:mod:`voicehost.simulation.table_level`) all follow a table through these notices and read
nothing else of the director. A watcher is any callable that takes one notice
(:class:`TableWatcher`); :meth:`~voicehost.host.director.Director.watch` adds one. A watcher
runs on the loop, inside the director's step: it must not block, and it must not raise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from voicehost.host.ballots import CastBallot, VoteBallots
from voicehost.host.journal import Source
from voicehost.host.refusals import ConsoleAnswer
from voicehost.rules import IllegalInput
from voicehost.rules.events import Event
from voicehost.rules.inputs import Input
from voicehost.rules.requests import AwaitSpeech


@dataclass(frozen=True)
class LineSaid:
    """The host said a line (the notice comes once it has been heard to its end)."""

    key: str
    """The phrasebook's key (``thanks``, ``count``, ``nomination_accepted`` …)."""
    values: dict[str, Any]
    """What was put into the line (a seat, a name, a list)."""
    text: str
    """The line as said, in Russian."""
    onset: float
    """When the line began, on the loop's clock (where button presses are stamped)."""
    t: float
    """The same instant in table seconds since the host took the table (the subtitles' clock)."""


@dataclass(frozen=True)
class InputsTaken:
    """The game took an input (it is journaled already) and this is what followed from it."""

    item: Input
    source: Source
    """Who gave it (:data:`~voicehost.host.journal.Source`): ``seats``, ``ears``, ``host``,
    ``console``, ``deal``, ``script``."""
    events: tuple[Event, ...]


@dataclass(frozen=True)
class FloorChanged:
    """A floor was given (``request`` is its turn), its timer moved (a pause), or it was closed (None)."""

    request: AwaitSpeech | None
    deadline: float | None
    """When the turn's time is up, in table seconds (:class:`~voicehost.host.clock.TableClock`)."""
    held_left: float | None = None
    """The judge holds this speech's clock (``hold``): the table seconds it keeps meanwhile."""

    @property
    def speaker(self) -> int | None:
        """The seat whose LED shows the floor (None for the whole table's turn or a closed floor)."""
        return self.request.seat if self.request is not None and self.request.seat else None


@dataclass(frozen=True)
class WindowChanged:
    """A vote window opened for ``candidate`` (0: the lift vote) or closed (None)."""

    candidate: int | None


@dataclass(frozen=True)
class Paused:
    """The judge paused the game (``on``) or resumed it."""

    on: bool


@dataclass(frozen=True)
class ConsoleAnswered:
    """The console answered a typed line: carried out, refused (a typed refusal the judge
    reads in Russian) or held until ``resume``."""

    answer: ConsoleAnswer
    """Which line (its id, for whoever typed it), what became of it and why not."""
    illegal: IllegalInput | None = None
    """The game's own refusal, when it was the game that refused the line."""


@dataclass(frozen=True)
class VoteCorrected:
    """The judge corrected a vote of the last round (``vote V C``): who is back in the game and
    who is out because of it, and what the host said about it (the judge's screen shows it)."""

    voter: int
    candidate: int
    """0: the vote was taken off."""
    returned: tuple[int, ...]
    left: tuple[int, ...]
    lines: tuple[str, ...]
    """What the host said: the correction, the new count and what follows from it, in Russian."""
    before: int = 0
    """Whom the voter's ballot counted for before (0: nobody — in sport, the last candidate)."""


@dataclass(frozen=True)
class BallotsCast:
    """A vote's ballots (:class:`~voicehost.host.ballots.VoteBallots`): every press, for whom,
    when, and what it counted for. Told as each window closes (``complete`` False: the judge's
    console shows them as they come), once the count is said (``complete``: the table's display
    shows them too), and again after a ``vote V C`` changed one of them."""

    ballots: VoteBallots
    complete: bool


@dataclass(frozen=True)
class BallotPressed:
    """A seat's button went down inside an open vote window: its ballot, the moment it is cast.

    Every ruleset's vote is open (a thumb on the table, docs/rules.md), so a ballot is public as
    it is cast; only a vote's presses are ever told (a night's taps never are). ``ballot`` is the
    press as the count will read it so far: ``vote``, or ``second_vote`` / ``not_a_voter``
    (ignored by the count); a release before «Спасибо» is a foul and still counts, so a ballot
    is never withdrawn. ``so_far`` is the vote with it: the closed windows' ballots and the open
    window's up to this press (that window's ``closes``: when it is due to close). The ballots
    as counted follow as the window closes (:class:`BallotsCast`)."""

    ballot: CastBallot
    so_far: VoteBallots


@dataclass(frozen=True)
class MusicChanged:
    """The night music came on or went off; ``t`` in table seconds."""

    on: bool
    t: float


@dataclass(frozen=True)
class NotesChanged:
    """The judge's notes (``note N …``; seat 0: the game's) as they stand now — the judge's own
    screen shows them; the public display never does."""

    notes: tuple[tuple[int, str], ...]


Notice = (LineSaid | InputsTaken | FloorChanged | WindowChanged | Paused | ConsoleAnswered | VoteCorrected
          | MusicChanged | NotesChanged | BallotsCast | BallotPressed)


class TableWatcher(Protocol):
    """Anything that follows the table: called with each notice as it happens."""

    def __call__(self, notice: Notice, /) -> None: ...


class Notices:
    """The director's watchers, told each notice in the order they were added."""

    def __init__(self) -> None:
        self._watchers: list[TableWatcher] = []

    def watch(self, watcher: TableWatcher) -> None:
        self._watchers.append(watcher)

    def unwatch(self, watcher: TableWatcher) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)

    def send(self, notice: Notice) -> None:
        for watcher in list(self._watchers):
            watcher(notice)


def events_to(react: Callable[[list[Event]], None]) -> TableWatcher:
    """A watcher that hands each input's events to ``react`` (the public log printed in a terminal)."""
    def watcher(notice: Notice) -> None:
        if isinstance(notice, InputsTaken):
            react(list(notice.events))
    return watcher
