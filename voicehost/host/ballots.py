"""A vote's ballots: every press the seat buttons gave during one vote, with what it counted for.

The count says how many; the ballots say who pressed for whom, when, and whether the press fell
inside the candidate's window — so a protest about a vote can be settled from the protocol
alone. :mod:`~voicehost.host.voting` makes them from the presses (:func:`hw.capture.count_votes`,
:func:`hw.capture.read_lift`), the journal keeps them as a ``ballots`` record beside the vote's
inputs (:mod:`~voicehost.host.journal`), the protocol lists them under each day's ``ballots``
(:func:`voicehost.rules.protocol.add_ballots`), and the judge's ``vote V C`` changes one of them.

A vote the rules give rather than a press (``sport``: a non-voter's vote goes to the last
candidate; ``classic``: to the last accused under ``etiquette``, a name written in blood) is a
ballot too, with no time and its rule as its mark (:data:`GIVEN`), and a mayor's ballot weighs
two: the counted ballots always add up to the count, because both are the game's
:meth:`~voicehost.rules.flow.TableGame.counted_votes`.

Times are on the journal's clock (each record's ``t``: the loop's clock, where presses and
onsets are stamped), to the millisecond; the pages show them as table seconds since the vote's
first window opened.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, get_args

from hw.capture import Ballot, Mark, Window
from voicehost.i18n import _
from voicehost.language.read_lines import read_line
from voicehost.rules import InputError
from voicehost.rules.flow import CountedVote, Given

GIVEN: tuple[str, ...] = tuple(given for given in get_args(Given) if given)
"""The marks of the ballots the rules give (:class:`~voicehost.rules.flow.CountedVote`)."""
MARKS: tuple[str, ...] = (*get_args(Mark), "typed", *GIVEN)
"""A press's mark (:data:`hw.capture.Mark`), ``typed``: a ballot the judge gave (``vote V C``)
for a voter who pressed for nobody, or the rule that gave the vote (:data:`GIVEN`)."""
COUNTING = frozenset({"vote", "early_release", "typed", *GIVEN})
NON_VOTERS = ("last_candidate", "last_accused")
"""The marks of a vote the rules give a voter who gave none (:meth:`TableGame.non_voters_go_to`)."""
MAX_WEIGHT = 2   # the most votes one ballot counts for (classic's mayor)
ROUNDS = ("main", "revote", "acquittal", "mayor", "prevote", "final", "lift")


def _ms(t: float) -> float:
    return round(t, 3)


@dataclass(frozen=True)
class Correction:
    """The judge's ``vote V C`` on this ballot: the candidate before (0: none) and after (0: the
    vote taken off), who corrected it and when (the journal's clock)."""

    before: int
    after: int
    by: str
    t: float

    def to_dict(self) -> dict[str, Any]:
        return {"before": self.before, "after": self.after, "by": self.by, "t": self.t}


@dataclass(frozen=True)
class CastBallot:
    """One voter's press as recorded, and what it counts for now."""

    voter: int
    pressed: int | None
    """The candidate whose window the press started in (0: the lift); None: no window (or typed)."""
    candidate: int | None
    """Whom it counts for now: ``pressed``, or what the judge corrected it to."""
    t: float | None
    """When the button went down (None: a ballot the judge typed)."""
    up: float | None
    """When it came up (None: still held when the vote was read, or typed)."""
    mark: str
    corrections: tuple[Correction, ...] = ()
    weight: int = 1
    """How many votes it counts for (``classic``'s mayor: two)."""

    @property
    def counted(self) -> bool:
        return self.mark in COUNTING and not (self.corrections and self.corrections[-1].after == 0)

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"voter": self.voter, "candidate": self.candidate, "pressed": self.pressed,
                                 "t": self.t, "up": self.up, "inside": self.pressed is not None,
                                 "mark": self.mark, "counted": self.counted}
        if self.corrections:
            entry["corrected"] = [c.to_dict() for c in self.corrections]
        if self.weight != 1:
            entry["weight"] = self.weight
        return entry


@dataclass(frozen=True)
class VoteBallots:
    """The ballots of one vote: which vote (its day, its place among the day's votes, its
    round — ``lift`` for «все покидают?»), the windows (candidate, opens, closes), every press.
    ``at`` and ``close`` are the game's inputs the vote stands beside: its first input and its
    ``CloseVoting`` (how the journal keeps them in step with undo and corrections)."""

    day: int
    vote: int
    round: str
    at: int
    close: int
    windows: tuple[Window, ...]
    ballots: tuple[CastBallot, ...]
    non_voters: tuple[int, str] | None = None
    """Whom the rules give a non-voter's vote, and that rule's mark (None: it is lost); what a
    judge's ``vote V 0`` makes of V's ballot."""

    @classmethod
    def of(cls, day: int, vote: int, round_: str, at: int, close: int, windows: Sequence[Window],
           presses: Sequence[Ballot]) -> VoteBallots:
        """From the presses as :mod:`hw.capture` judged them, the times to the millisecond."""
        return cls(day, vote, round_, at, close,
                   tuple(Window(w.candidate, _ms(w.opens), _ms(w.closes)) for w in windows),
                   tuple(CastBallot(b.voter, b.candidate, b.candidate, _ms(b.down),
                                    None if b.up is None else _ms(b.up), b.mark) for b in presses))

    def given(self, counted: Sequence[CountedVote], non_voters: tuple[int, str] | None = None) -> VoteBallots:
        """With the votes the rules give as ballots of their own, and each voter's ballot
        weighed as the count weighs his vote (``counted``: the game's
        :meth:`~voicehost.rules.flow.TableGame.counted_votes` as the vote closes;
        ``non_voters``: its :meth:`~voicehost.rules.flow.TableGame.non_voters_go_to`)."""
        weights = {vote.voter: vote.weight for vote in counted if not vote.given}
        pressed = tuple(replace(b, weight=weights[b.voter]) if b.counted and weights.get(b.voter, 1) != 1 else b
                        for b in self.ballots)
        given = tuple(CastBallot(vote.voter, None, vote.candidate, None, None, vote.given, (), vote.weight)
                      for vote in counted if vote.given)
        return replace(self, ballots=(*pressed, *given), non_voters=non_voters)

    def corrected(self, voter: int, before: int, after: int, by: str, t: float) -> VoteBallots:
        """The judge's ``vote V C``: the voter's counted ballot now counts for ``after`` (0:
        taken off); a voter who pressed for nobody gets a typed ballot, in place of a vote the
        rules gave him. A voter left with no vote gets the one the rules give a non-voter
        (sport: the last candidate's), one with a vote loses it. A name written in blood is no
        voter's ballot."""
        change = Correction(before, after, by, _ms(t))
        ballots = list(self.ballots)
        own = next((k for k, b in enumerate(ballots) if b.voter == voter and b.mark not in GIVEN
                    and (b.counted or b.corrections)), None)
        given = next((k for k, b in enumerate(ballots) if b.voter == voter and b.mark in NON_VOTERS), None)
        weight = ballots[own].weight if own is not None else ballots[given].weight if given is not None else 1
        if own is not None:
            ballots[own] = replace(ballots[own], candidate=after, corrections=(*ballots[own].corrections, change))
        elif given is not None and after:
            ballots[given] = replace(ballots[given], candidate=after, mark="typed", corrections=(change,))
        else:
            ballots.append(CastBallot(voter, None, after, None, None, "typed", (change,), weight))
        ballots = [b for b in ballots if not (b.voter == voter and b.mark in NON_VOTERS)]
        if not after and self.non_voters is not None:
            candidate, mark = self.non_voters
            ballots.append(CastBallot(voter, None, candidate, None, None, mark, (), weight))
        return replace(self, ballots=tuple(ballots))

    def shifted(self, by: int) -> VoteBallots:
        return replace(self, at=self.at + by, close=self.close + by)

    def entry(self) -> dict[str, Any]:
        """As the protocol lists it under the day's ``ballots``."""
        return {"vote": self.vote, "round": self.round,
                "windows": [{"candidate": w.candidate, "opens": w.opens, "closes": w.closes} for w in self.windows],
                "ballots": [b.to_dict() for b in self.ballots]}

    def record(self) -> dict[str, Any]:
        """As the journal keeps it (beside ``type``, ``t`` and ``source``)."""
        kept = {"day": self.day, "at": self.at, "close": self.close, **self.entry()}
        if self.non_voters is not None:
            kept["non_voters"] = {"candidate": self.non_voters[0], "mark": self.non_voters[1]}
        return kept

    @classmethod
    def from_record(cls, data: dict[str, Any], place: str) -> VoteBallots:
        """A journal's ``ballots`` record, checked field by field (one line on the first problem)."""
        def bad(what: str) -> InputError:
            return InputError(place, _("not a valid ballots record ({what})").format(what=what))
        for key in ("day", "vote", "at", "close"):
            if not _whole(data.get(key)):
                raise bad(f"{key} must be a whole number")
        if data.get("round") not in ROUNDS:
            raise bad(f"round {data.get('round')!r} is not one of {', '.join(ROUNDS)}")
        windows, ballots = data.get("windows"), data.get("ballots")
        if not isinstance(windows, list) or not isinstance(ballots, list):
            raise bad("windows and ballots must be lists")
        non_voters = data.get("non_voters")
        if non_voters is not None and not (isinstance(non_voters, dict) and _whole(non_voters.get("candidate"))
                                           and non_voters.get("mark") in NON_VOTERS):
            raise bad("non_voters is {candidate, mark}")
        return cls(data["day"], data["vote"], data["round"], data["at"], data["close"],
                   tuple(_window(w, bad) for w in windows), tuple(_ballot(b, bad) for b in ballots),
                   None if non_voters is None else (non_voters["candidate"], non_voters["mark"]))


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _time(value: Any, empty: bool = False) -> bool:
    if value is None:
        return empty
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _window(data: Any, bad: Any) -> Window:
    if not isinstance(data, dict) or not _whole(data.get("candidate")) or not _time(data.get("opens")) \
            or not _time(data.get("closes")):
        raise bad("a window is {candidate, opens, closes}")
    return Window(data["candidate"], float(data["opens"]), float(data["closes"]))


def _ballot(data: Any, bad: Any) -> CastBallot:
    if not isinstance(data, dict) or not _whole(data.get("voter")) or data.get("mark") not in MARKS:
        raise bad("a ballot is {voter, candidate, pressed, t, up, mark}")
    for key in ("candidate", "pressed"):
        if data.get(key) is not None and not _whole(data.get(key)):
            raise bad(f"a ballot's {key} must be a seat number or null")
    if not _time(data.get("t"), empty=True) or not _time(data.get("up"), empty=True):
        raise bad("a ballot's t and up must be times or null")
    changes = data.get("corrected", [])
    if not isinstance(changes, list) or not all(
            isinstance(c, dict) and _whole(c.get("before")) and _whole(c.get("after"))
            and isinstance(c.get("by"), str) and _time(c.get("t")) for c in changes):
        raise bad("a ballot's corrections are {before, after, by, t}")
    weight = data.get("weight", 1)
    if not _whole(weight) or not 1 <= weight <= MAX_WEIGHT:
        raise bad(f"a ballot's weight must be a whole number from 1 to {MAX_WEIGHT}")
    return CastBallot(data["voter"], data.get("pressed"), data.get("candidate"), data.get("t"), data.get("up"),
                      data["mark"], tuple(Correction(c["before"], c["after"], c["by"], float(c["t"])) for c in changes),
                      weight)


# ---- on the pages ----------------------------------------------------------------------------------


def candidate_text(candidate: int | None, round_: str) -> str:
    """«за игрока 5», «за то, чтобы все покинули игру», «ни за кого»."""
    if round_ == "lift" and candidate == 0:
        return read_line("web", "ballot_for_lift")
    if not candidate:
        return read_line("web", "ballot_for_nobody")
    return read_line("web", "ballot_for", seat=candidate)


def ballot_changed(voter: int, before: int, after: int) -> str:
    """The judge's answer to ``vote V C``: which ballot it changed, before → after."""
    return read_line("web", "ballot_corrected", seat=voter, before=candidate_text(before, "main"),
                     after=candidate_text(after, "main"))


def ballots_view(vote: VoteBallots, complete: bool, speed: float = 1.0) -> dict[str, Any]:
    """What the pages show of a vote's ballots: who pressed for whom, the press's time in table
    seconds since the vote's first window opened, what it counted for; and per candidate, the
    voters it counts (the way a sport table shows who raised a hand for whom). ``speed``: the
    table clock's (:class:`~voicehost.host.clock.TableClock`), a demo's timers run faster."""
    origin = vote.windows[0].opens if vote.windows else 0.0

    def since(t: float | None) -> float | None:
        return None if t is None else round((t - origin) * speed, 3)

    rows = []
    for ballot in vote.ballots:
        at = since(ballot.t)
        mark = read_line("web", f"ballot_{ballot.mark}")
        when = read_line("web", "ballot_when", seconds=f"{at:.3f}".replace(".", ",")) if at is not None else ""
        whom = candidate_text(ballot.candidate, vote.round) if ballot.candidate is not None \
            else read_line("web", "ballot_no_window")
        if ballot.weight != 1:
            mark = read_line("web", "ballot_weighted", mark=mark, weight=ballot.weight)
        text = read_line("web", "ballot_row", voter=ballot.voter, whom=whom, when=when, mark=mark).replace("  ", " ")
        if ballot.corrections:
            text += " " + read_line("web", "ballot_was", whom=candidate_text(ballot.pressed, vote.round))
        rows.append({"voter": ballot.voter, "candidate": ballot.candidate, "pressed": ballot.pressed, "at": at,
                     "inside": ballot.pressed is not None, "mark": ballot.mark, "counted": ballot.counted,
                     "given": ballot.mark in GIVEN, "weight": ballot.weight,
                     "corrected": bool(ballot.corrections), "text": text})
    groups = []
    opened = {w.candidate: w for w in vote.windows}
    typed = [b.candidate for b in vote.ballots if b.counted and b.candidate is not None and b.candidate not in opened]
    for candidate in [*opened, *dict.fromkeys(typed)]:   # a typed or given ballot may be for one with no window
        window = opened.get(candidate)
        counted = [b for b in vote.ballots if b.counted and b.candidate == candidate]
        groups.append({"candidate": candidate, "voters": [b.voter for b in counted],
                       "given": [b.voter for b in counted if b.mark in GIVEN],
                       "votes": sum(b.weight for b in counted),
                       "opens": since(window.opens) if window else None,
                       "closes": since(window.closes) if window else None,
                       "text": read_line("web", "ballot_group", whom=candidate_text(candidate, vote.round),
                                         voters=_voters_text(counted))})
    title = read_line("web", "ballots_title", day=vote.day, round=read_line("web", f"ballots_round_{vote.round}"))
    return {"day": vote.day, "vote": vote.vote, "round": vote.round, "complete": complete, "title": title,
            "groups": groups, "rows": rows, "details": read_line("web", "ballots_details")}


def _voters_text(counted: Sequence[CastBallot]) -> str:
    """A candidate's voters: the presses' first, then each rule's given votes under its own mark
    («4, 7 (×2); не голосовали, по правилам: 1, 3»); «—» for none."""
    parts = [", ".join(_voter_text(b) for b in counted if b.mark not in GIVEN)]
    for mark in GIVEN:
        given = [_voter_text(b) for b in counted if b.mark == mark]
        if given:
            parts.append(read_line("web", f"ballot_voters_{mark}", voters=", ".join(given)))
    shown = [part for part in parts if part]
    text = shown[0] if shown else "—"
    for part in shown[1:]:
        text = read_line("web", "ballot_group_part", part=text, next=part)
    return text


def _voter_text(ballot: CastBallot) -> str:
    """A voter in a candidate's list: «3», or «5 (×2)» for a ballot that counts twice."""
    voter = str(ballot.voter)
    return voter if ballot.weight == 1 else read_line("web", "ballot_voter_weighted", voter=voter, weight=ballot.weight)
