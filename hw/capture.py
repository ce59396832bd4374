"""Turning button presses into votes and night taps, exactly as RULES.md «How gestures
become inputs» says. Pure code over timestamps: the seat panel feeds it edges, tests feed
it edges they make up, and the result keeps every press for the protocol and protests.

Times are monotonic seconds. A window is half-open, [opens, closes): ``closes`` is the
onset of the spoken «Спасибо», and a press that starts at or after it does not count.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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


@dataclass
class VoteResult:
    """Who voted for whom, the fouls the presses earned, and every press for the record."""

    votes: dict[int, int] = field(default_factory=dict)
    fouls: list[tuple[int, str]] = field(default_factory=list)
    presses: list[Press] = field(default_factory=list)
    ignored: list[tuple[Press, str]] = field(default_factory=list)


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
        if window is None:
            result.ignored.append((press, "outside_windows"))
        elif press.seat not in allowed:
            result.ignored.append((press, "not_a_voter"))
        elif press.seat in result.votes:
            result.ignored.append((press, "second_vote"))
            result.fouls.append((press.seat, "second_vote"))
        else:
            result.votes[press.seat] = window.candidate
            if press.up is not None and press.up < window.closes:
                result.fouls.append((press.seat, "early_release"))
    return result


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
