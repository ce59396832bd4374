"""Turning button presses into votes and night taps, exactly as docs/rules.md «How the
table talks to the host» says. Pure code over timestamps: the seat panel feeds it edges, tests feed
it edges they make up, and the result keeps every press for the protocol and protests.

Times are monotonic seconds. A window is half-open, [opens, closes): ``closes`` is the
onset of the spoken «Спасибо», and a press that starts at or after it does not count.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .edges import Edge


@dataclass(frozen=True)
class Press:
    seat: int
    down: float
    up: float | None  # None: still held when the record was taken


@dataclass(frozen=True)
class Window:
    """One candidate's vote: from the onset of the question line to the onset of «Спасибо»."""

    candidate: int
    opens: float
    closes: float


# What a press was to the vote: ``vote`` (counted), ``early_release`` (counted, and a foul),
# ``second_vote`` (ignored, a foul), ``not_a_voter`` (a seat that does not vote this round),
# ``outside_windows`` (inside no candidate's window: ignored).
Mark = Literal["vote", "early_release", "second_vote", "not_a_voter", "outside_windows"]
COUNTED_MARKS: frozenset[str] = frozenset({"vote", "early_release"})


@dataclass(frozen=True)
class Ballot:
    """One press as the vote judged it, kept so that a protest can be settled from the record:
    who pressed, for whom (whose window it started in), when, and what it counted for."""

    voter: int
    candidate: int | None
    """The candidate whose window the press started in (0: the lift vote); None: in no window."""
    down: float
    up: float | None
    mark: Mark

    @property
    def counted(self) -> bool:
        return self.mark in COUNTED_MARKS


@dataclass
class VoteResult:
    """Who voted for whom, the fouls the presses earned, and every press for the record."""

    votes: dict[int, int] = field(default_factory=dict)
    fouls: list[tuple[int, str]] = field(default_factory=list)
    presses: list[Press] = field(default_factory=list)
    ignored: list[tuple[Press, str]] = field(default_factory=list)
    ballots: list[Ballot] = field(default_factory=list)
    """Every press, in the order pressed, with what it counted for."""


def presses_from(edges: Iterable[Edge]) -> list[Press]:
    """Pair each seat's downs and ups into presses, in the order they started."""
    open_: dict[int, float] = {}
    done: list[Press] = []
    for edge in sorted(edges, key=lambda e: e.t):
        if edge.pressed and edge.seat not in open_:
            open_[edge.seat] = edge.t
        elif not edge.pressed and edge.seat in open_:
            done.append(Press(edge.seat, open_.pop(edge.seat), edge.t))
    done.extend(Press(seat, t, None) for seat, t in open_.items())
    return sorted(done, key=lambda p: (p.down, p.seat))


def count_votes(windows: Sequence[Window], presses: Iterable[Press], voters: Iterable[int]) -> VoteResult:
    """A press that starts inside a candidate's window is a vote for him; released before the
    window closes it is a foul and still counts; a second vote in the round is ignored and a
    foul. Presses outside every window, and seats that do not vote, are recorded and ignored."""
    allowed = set(voters)
    result = VoteResult()
    for press in presses:
        result.presses.append(press)
        window = next((w for w in windows if w.opens <= press.down < w.closes), None)
        mark: Mark = "vote"
        if window is None:
            mark = "outside_windows"
            result.ignored.append((press, mark))
        elif press.seat not in allowed:
            mark = "not_a_voter"
            result.ignored.append((press, mark))
        elif press.seat in result.votes:
            mark = "second_vote"
            result.ignored.append((press, mark))
            result.fouls.append((press.seat, mark))
        else:
            result.votes[press.seat] = window.candidate
            if press.up is not None and press.up < window.closes:
                mark = "early_release"
                result.fouls.append((press.seat, mark))
        result.ballots.append(Ballot(press.seat, window.candidate if window else None, press.down, press.up, mark))
    return result


def read_lift(window: Window, presses: Iterable[Press], voters: Iterable[int]) -> list[Ballot]:
    """The lift vote («все покидают?»): every press inside the window is a thumb for it; a
    seat's first is its vote and any further one a second vote (the game judges it as one);
    presses outside the window, and seats that do not vote, are recorded and ignored. An early
    release is no foul here: the lift asks for a yes, not a held thumb."""
    allowed = set(voters)
    thumbed: set[int] = set()
    ballots = []
    for press in presses:
        mark: Mark = "vote"
        if not window.opens <= press.down < window.closes:
            mark = "outside_windows"
        elif press.seat not in allowed:
            mark = "not_a_voter"
        elif press.seat in thumbed:
            mark = "second_vote"
        if mark == "vote":
            thumbed.add(press.seat)
        inside = mark != "outside_windows"
        ballots.append(Ballot(press.seat, window.candidate if inside else None, press.down, press.up, mark))
    return ballots


@dataclass(frozen=True)
class Call:
    """The host calls ``number`` aloud from ``t`` (onset of the word) until the next call."""

    number: int
    t: float


@dataclass
class TapResult:
    taps: dict[int, tuple[int, ...]] = field(default_factory=dict)
    noise: list[tuple[int, float, str]] = field(default_factory=list)


def read_taps(calls: Sequence[Call], ends: float, taps: Iterable[Press], actors: Iterable[int]) -> TapResult:
    """While the host counts the seats aloud, a tap belongs to the number being called: the
    last call whose onset is at or before the tap (a tap right on a boundary goes to the new
    number). Taps before the first call or after ``ends``, and taps from seats with no
    action tonight, are noise at night and recorded as such."""
    allowed = set(actors)
    result = TapResult()
    for tap in sorted(taps, key=lambda p: p.down):
        if tap.seat not in allowed:
            result.noise.append((tap.seat, tap.down, "no_action_tonight"))
            continue
        call = next((c for c in reversed(calls) if c.t <= tap.down), None)
        if call is None or tap.down >= ends:
            result.noise.append((tap.seat, tap.down, "outside_the_count"))
            continue
        result.taps[tap.seat] = result.taps.get(tap.seat, ()) + (call.number,)
    return result
