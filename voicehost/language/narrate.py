"""A judge's readable account of a game, in the language in use, from its events (private ones included:
this log is for the judge and the protocol, not for the table)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from voicehost.language.read_lines import read_line
from voicehost.language.record_words import record_word
from voicehost.rules.events import (
    PRIVATE_EVENTS,
    Acquitted,
    ActionTaken,
    AllStay,
    BestMoveNamed,
    BloodNamed,
    CheckAnswered,
    DayBegan,
    Eliminated,
    Event,
    FoulGiven,
    GameOver,
    HandRaised,
    LiftAsked,
    LiftCounted,
    MayorElected,
    MorningCame,
    NightFell,
    NominationAccepted,
    NominationRefused,
    NominationsTallied,
    NominationWithdrawn,
    NoVote,
    PointsGiven,
    RoleRevealed,
    RolesDealt,
    Saved,
    ShootingResolved,
    SideChosen,
    SpeechBegan,
    TieDeclared,
    VoteIgnored,
    VotesCounted,
    VotingBegan,
    WithdrawalRefused,
)
from voicehost.rules.sport import shown_points

Line = tuple[str, dict[str, Any]]


SEAT_KEYS = frozenset({"seat", "by", "target", "opener", "chosen", "voter"})


def _seats(seats: Iterable[int]) -> tuple[int, ...]:
    """A list of seats; :func:`narrate` writes it out with the roster's names."""
    return tuple(seats)


class Labels:
    """How a seat is written: its number, with the roster's name when there is one («6 (Егор)»)."""

    def __init__(self, names: Mapping[int, str] | None = None) -> None:
        self.names = dict(names or {})

    def __call__(self, seat: int) -> str:
        name = self.names.get(seat)
        return f"{seat} ({name})" if name else str(seat)

    def fill(self, values: dict[str, Any]) -> dict[str, Any]:
        return {k: self._fill(k, v) for k, v in values.items()}

    def _fill(self, key: str, value: Any) -> Any:
        if isinstance(value, tuple):
            return ", ".join(self(s) for s in value)
        if key in SEAT_KEYS and isinstance(value, int):
            return self(value)
        return value


def _shooting(e: ShootingResolved) -> Line:
    return ("shooting_hit", {"target": e.target}) if e.target else ("shooting_miss", {})


def _morning(e: MorningCame) -> Line:
    if e.killed:
        key = "morning_killed" if len(e.killed) == 1 else "morning_killed_many"
        return key, {"day": e.day, "list": _seats(e.killed)}
    return "morning_quiet", {"day": e.day}


def _voting(e: VotingBegan) -> Line:
    """A main vote of one candidate (sport on a later day, a canonical ballot of one) says «Кандидат»."""
    if e.round == "main" and len(e.candidates) == 1:
        return "voting_main_one", {"seat": e.candidates[0]}
    return f"voting_{e.round}", {"list": _seats(e.candidates)}


def _speech(e: SpeechBegan) -> Line:
    return ("speech" if e.turn == "speech" else f"speech_{e.turn}"), {"seat": e.seat, "seconds": e.seconds}


# Event class → (line key, placeholders). Events not listed (speech ends) get no line.
_LINES: dict[type[Event], Callable[[Any], Line]] = {
    RolesDealt: lambda e: ("roles_dealt", {}),
    NightFell: lambda e: ("night_fell", {"night": e.night}),
    ShootingResolved: _shooting,
    MorningCame: _morning,
    DayBegan: lambda e: ("day_began" if e.opener else "day_began_free", {"day": e.day, "opener": e.opener}),
    SpeechBegan: _speech,
    NominationAccepted: lambda e: ("nominated", {"by": e.by, "target": e.target}),
    NominationRefused: lambda e: (f"refused_{e.reason}", {"by": e.by, "target": e.target}),
    NominationWithdrawn: lambda e: ("withdrawn", {"by": e.by, "target": e.target}),
    WithdrawalRefused: lambda e: ("withdraw_refused", {"by": e.by, "target": e.target}),
    VotingBegan: _voting,
    NoVote: lambda e: (f"no_vote_{e.reason}", {}),
    VoteIgnored: lambda e: ("vote_ignored", {"voter": e.voter}),
    TieDeclared: lambda e: ("tie", {"list": _seats(e.seats)}),
    LiftAsked: lambda e: ("lift_asked", {"list": _seats(e.candidates)}),
    LiftCounted: lambda e: ("lift_counted", {"yes": e.yes, "needed": e.needed}),
    AllStay: lambda e: (f"all_stay_{e.reason}", {}),
    FoulGiven: lambda e: ("foul", {"seat": e.seat, "count": e.count}),
    Eliminated: lambda e: (f"eliminated_{e.cause}", {"seat": e.seat}),
    SideChosen: lambda e: (f"side_chosen_{e.side}", {"seat": e.seat}),
    Saved: lambda e: ("saved" if e.seat == e.chosen else "saved_other", {"seat": e.seat, "chosen": e.chosen}),
    HandRaised: lambda e: ("hand_raised", {"seat": e.seat}),
    Acquitted: lambda e: ("acquitted", {"seat": e.seat}),
    MayorElected: lambda e: ("mayor_elected", {"seat": e.seat}),
    BloodNamed: lambda e: ("blood_named", {"by": e.by, "target": e.target}),
    BestMoveNamed: lambda e: ("best_move_named", {"by": e.by, "list": _seats(e.seats)}),
    PointsGiven: lambda e: ("points_given" if e.hundredths > 0 else "points_taken",
                            {"seat": e.seat, "points": shown_points(abs(e.hundredths)), "reason": e.reason}),
}


def narrate(events: Iterable[Event], names: Mapping[int, str] | None = None) -> Iterator[str]:
    """One line per event worth a line in the judge's log; seats carry the roster's names."""
    labels = Labels(names)
    for event in events:
        line = _line(event, labels)
        if line is not None:
            yield line


def public_lines(events: Iterable[Event], names: Mapping[int, str] | None = None) -> list[str]:
    """The log anyone at the table may read: private events (roles, checks, the night's
    actions) left out."""
    return list(narrate((e for e in events if not isinstance(e, PRIVATE_EVENTS)), names))


def public_log_printer(names: Mapping[int, str], show: Callable[[str], None]
                       ) -> Callable[[list[Event]], None]:
    """For a terminal at the table: each public line as its events happen."""
    def print_public(events: list[Event]) -> None:
        for line in public_lines(events, names):
            show(line)
    return print_public


def _line(event: Event, label: Labels) -> str | None:
    """Events whose line is built from other lines (checks, counts, the end) are spelled out here."""
    if isinstance(event, CheckAnswered):
        role = event.role.value
        answer = read_line("log", f"check_{'yes' if event.result else 'no'}_{role}")
        return read_line("log", f"check_{role}", target=label(event.target), answer=answer)
    if isinstance(event, VotesCounted):
        counts = "; ".join(f"№{label(seat)} — {votes}" for seat, votes in event.counts)
        text = read_line("log", "votes_counted", list=counts)
        if event.defaulted:
            key = "votes_defaulted_one" if len(event.defaulted) == 1 else "votes_defaulted"
            text += " " + read_line("log", key, **label.fill({"list": event.defaulted}))
        return text
    if isinstance(event, ActionTaken):
        role = record_word(event.role.value).capitalize()
        text = read_line("log", f"action_{event.action}", role=role, by=label(event.by), target=label(event.target))
        return text if event.effective else text + read_line("log", "action_blocked")
    if isinstance(event, RoleRevealed):
        role = record_word(event.role.value)
        return read_line("log", "role_revealed", seat=label(event.seat), role=role)
    if isinstance(event, NominationsTallied):
        points = ", ".join(f"№{label(seat)} — {n}" for seat, n in event.points) or read_line("log", "nominations_none")
        return read_line("log", "nominations_tallied", list=points, ballot=label.fill({"b": event.ballot})["b"])
    if isinstance(event, GameOver):
        return read_line("log", "game_over", winner=read_line("log", f"winner_{event.winner}"),
                         reason=read_line("log", f"reason_{event.reason}", n=event.count))
    build = _LINES.get(type(event))
    if build is None:
        return None
    key, values = build(event)
    return read_line("log", key, **label.fill(values))
