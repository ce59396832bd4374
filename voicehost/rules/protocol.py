"""The protocol (docs/scripts.md «The protocol»): what the game produced, built from its events alone — and,
where the table's buttons kept them, each vote's ballots beside the day's counts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from . import Game
from .events import (
    Acquitted,
    ActionTaken,
    BestMoveNamed,
    BloodNamed,
    CheckAnswered,
    DayBegan,
    Eliminated,
    Event,
    FoulGiven,
    HandRaised,
    LiftCounted,
    MayorElected,
    MorningCame,
    NightFell,
    NominationAccepted,
    NominationsTallied,
    NominationWithdrawn,
    NoVote,
    PointsGiven,
    RoleRevealed,
    Saved,
    ShootingResolved,
    SideChosen,
    VotesCounted,
)
from .roles import ROLE_NAMES, Team


def build_protocol(game: Game, ignored: list[dict[str, str]] | None = None,
                   names: Mapping[int, str] | None = None,
                   ballots: Iterable[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The protocol of ``game``; ``names`` (the roster) adds each seat's name, ``ballots`` each
    vote's ballots (see :func:`add_ballots`)."""
    outcome = game.outcome()
    builder = _Builder()
    adds = _ADDS.get  # events are final dataclasses: their exact type picks what they add (most add nothing)
    for event in game.events:
        add = adds(type(event))
        if add is not None:
            add(builder, event)
    if not game.is_over:
        builder.today()  # the morning passed and the game goes on: the day has begun
    seats: dict[str, Any] = {}
    for seat in range(1, game.seats + 1):
        entry: dict[str, Any] = {"role": ROLE_NAMES[game.roles[seat]], "fouls": game.fouls[seat]}
        if names and seat in names:
            entry["name"] = names[seat]
        if seat in builder.out:
            entry["out"] = builder.out[seat]
        seats[str(seat)] = entry
    protocol = {
        "ruleset": game.ruleset.name,
        "options": game.options.changed(),  # the rest are the declared defaults (Ruleset.played)
        "winner": outcome.winner if outcome else None,
        "reason": outcome.reason if outcome else None,
        "seats": seats,
        "eliminations": builder.eliminations,
        "days": builder.days,
        "nights": builder.nights,
        "scores": {str(seat): points for seat, points in game.scores().items()},
        "revealed": builder.revealed,
        "ignored": list(ignored or []),
    }
    protocol.update(_tournament(builder, game))
    return add_ballots(protocol, ballots) if ballots is not None else protocol


def add_ballots(protocol: Mapping[str, Any], ballots: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``protocol`` with each vote's ballots under its day's ``ballots``, in the order of the
    day's votes. A vote's ballots are ``{"day", "vote", "round", "windows", "ballots"}`` (as
    :mod:`voicehost.host.ballots` makes them); a day's ``ballots`` is replaced, not added to, so
    the same ballots added twice are listed once. Ballots of a day the protocol does not list
    (none should be) are kept at the top, under ``ballots``, rather than lost."""
    by_day: dict[int, list[dict[str, Any]]] = {}
    for vote in ballots:
        entry = dict(vote)
        by_day.setdefault(int(entry.pop("day")), []).append(entry)
    days = []
    for day in protocol.get("days", []):
        votes = by_day.pop(day.get("day"), None)
        days.append(day if votes is None else {**day, "ballots": sorted(votes, key=lambda v: int(v["vote"]))})
    result = {**protocol, "days": days}
    unplaced = [{"day": day, **vote} for day, votes in sorted(by_day.items()) for vote in votes]
    if unplaced:
        result["ballots"] = unplaced
    return result


def _tournament(builder: _Builder, game: Game) -> dict[str, Any]:
    """The best move (its seats and how many of them are black) and the judge's points, where
    the game had them (docs/rules.md "Tournament scoring"): a game without them keeps the keys
    it always had."""
    extra: dict[str, Any] = {}
    if builder.best_move is not None:
        by, seats = builder.best_move
        black = len([seat for seat in seats if game.roles[seat].team is Team.BLACK])
        extra["best_move"] = {"by": by, "seats": list(seats), "black": black}
    if builder.judge_points:
        extra["judge_points"] = builder.judge_points
    return extra


class _Builder:
    def __init__(self) -> None:
        self.days: list[dict[str, Any]] = []
        self.nights: list[dict[str, Any]] = []
        self.eliminations: list[dict[str, Any]] = []
        self.out: dict[int, dict[str, Any]] = {}
        self.at_night = True
        self.revealed: list[dict[str, Any]] = []
        self.morning: dict[str, Any] | None = None  # a day announced, listed once it happens
        self.best_move: tuple[int, tuple[int, ...]] | None = None  # the last one named stands
        self.judge_points: list[dict[str, Any]] = []

    def _best_move(self, event: BestMoveNamed) -> None:
        self.best_move = (event.by, event.seats)

    def _points_given(self, event: PointsGiven) -> None:
        self.judge_points.append({"seat": event.seat, "points": event.hundredths / 100, "reason": event.reason})

    def today(self) -> dict[str, Any] | None:
        """The current day's entry: a morning's day is listed from its first event on, so a game
        that ends at the morning (its kill, its night's removals, a technical result) lists no
        day that never happened."""
        if self.morning is not None:
            self.days.append(self.morning)
            self.morning = None
        return self.days[-1] if self.days else None

    def _night_fell(self, event: NightFell) -> None:
        self.today()  # a day the night ends happened, whatever it held
        self.at_night = True
        self.nights.append({"night": event.night, "killed": [], "missed": False, "checks": []})

    def _role_revealed(self, event: RoleRevealed) -> None:
        self.revealed.append({"seat": event.seat, "role": event.role.value})

    def _morning(self, event: MorningCame) -> None:
        self.at_night = False
        self.nights[-1]["killed"] = list(event.killed)
        self.today()
        self.morning = {"day": event.day, "opener": None, "nominations": [], "withdrawn": [],
                        "votes": {}, "revotes": [], "vote": None, "eliminated": []}

    def _foul(self, event: FoulGiven) -> None:
        """A night's foul (given at night, applied at the morning) goes to its night."""
        day = None if event.night is not None or self.at_night else self.today()
        phase = self.nights[-1] if day is None else day
        phase.setdefault("fouls", []).append({"seat": event.seat, "count": event.count})

    # Each event a night or a day records has a method of its own, found by the event's exact type
    # in _ADDS: one dict lookup per event, where a chain of isinstance checks cost up to a dozen.

    def _shooting_resolved(self, event: ShootingResolved) -> None:
        night = self.nights[-1]
        shots = night.setdefault("shots", {})
        shots[event.team] = event.target
        night["missed"] = shots.get("black", 0) is None

    def _check_answered(self, event: CheckAnswered) -> None:
        self.nights[-1]["checks"].append({"by": event.by, "target": event.target, "result": event.result})

    def _action_taken(self, event: ActionTaken) -> None:
        self.nights[-1].setdefault("actions", []).append({"role": event.role.value, "action": event.action,
                                                          "by": event.by, "target": event.target,
                                                          "effective": event.effective})

    def _saved(self, event: Saved) -> None:
        self.nights[-1].setdefault("saved", []).append(event.seat)

    def _side_chosen(self, event: SideChosen) -> None:
        self.nights[-1]["maniac_side"] = event.side

    def _eliminated(self, event: Eliminated) -> None:
        when = {"night": event.night} if event.night is not None else {"day": event.day}
        self.eliminations.append({"seat": event.seat, "cause": event.cause, **when})
        self.out[event.seat] = {"cause": event.cause, **when}
        day = self.today() if event.day is not None else None
        if day is not None:
            day["eliminated"].append(event.seat)

    def _day_began(self, event: DayBegan) -> None:
        day = self.today()
        if day is not None:
            day["opener"] = event.opener

    def _nomination_accepted(self, event: NominationAccepted) -> None:
        day = self.today()
        if day is not None:
            day["nominations"].append([event.by, event.target])

    def _nomination_withdrawn(self, event: NominationWithdrawn) -> None:
        day = self.today()
        if day is not None:
            day["nominations"].remove([event.by, event.target])
            day["withdrawn"].append([event.by, event.target])

    def _votes_counted(self, event: VotesCounted) -> None:
        day = self.today()
        if day is None:
            return
        counts = {str(seat): votes for seat, votes in event.counts}
        if event.round != "mayor":
            day["vote"] = "held"  # until then None: no vote (yet) that day
        if event.round in ("main", "final") and not day["votes"]:
            day["votes"] = counts
        elif event.round in ("prevote", "mayor"):
            day[event.round if event.round == "prevote" else "mayor_votes"] = counts
        else:
            day["revotes"].append(counts)

    def _lift_counted(self, event: LiftCounted) -> None:
        day = self.today()
        if day is not None:
            day["lift"] = {"yes": event.yes, "needed": event.needed, "passed": event.passed}

    def _no_vote(self, event: NoVote) -> None:
        day = self.today()
        if day is not None:
            day["vote"] = event.reason

    def _day_extra(self, event: Event) -> None:
        day = self.today()
        if day is None:
            return
        if isinstance(event, MayorElected):
            day["mayor"] = event.seat
        elif isinstance(event, Acquitted):
            day.setdefault("acquitted", []).append(event.seat)
        elif isinstance(event, BloodNamed):
            day.setdefault("blood_names", {})[str(event.by)] = event.target
        elif isinstance(event, HandRaised):
            day.setdefault("extra_word", []).append(event.seat)
        elif isinstance(event, NominationsTallied):
            day["points"] = {str(seat): n for seat, n in event.points}
            day["ballot"] = list(event.ballot)


# Each event type the protocol records → how it records it.
_ADDS: dict[type[Event], Callable[[_Builder, Any], None]] = {
    NightFell: _Builder._night_fell,
    RoleRevealed: _Builder._role_revealed,
    MorningCame: _Builder._morning,
    Eliminated: _Builder._eliminated,
    FoulGiven: _Builder._foul,
    BestMoveNamed: _Builder._best_move,
    PointsGiven: _Builder._points_given,
    ShootingResolved: _Builder._shooting_resolved,
    CheckAnswered: _Builder._check_answered,
    ActionTaken: _Builder._action_taken,
    Saved: _Builder._saved,
    SideChosen: _Builder._side_chosen,
    DayBegan: _Builder._day_began,
    NominationAccepted: _Builder._nomination_accepted,
    NominationWithdrawn: _Builder._nomination_withdrawn,
    VotesCounted: _Builder._votes_counted,
    LiftCounted: _Builder._lift_counted,
    NoVote: _Builder._no_vote,
    **dict.fromkeys((MayorElected, Acquitted, BloodNamed, HandRaised, NominationsTallied), _Builder._day_extra),
}
