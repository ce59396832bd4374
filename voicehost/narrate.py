"""A judge's readable account of a game, in Russian, from its events (private ones included:
this log is for the judge and the protocol, not for the table)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .phrasebook import Phrasebook
from .rules.events import (
    AllStay, CheckAnswered, DayBegan, Eliminated, Event, FoulGiven, GameOver, LiftAsked, LiftCounted,
    MorningCame, NightFell, NominationAccepted, NominationRefused, NominationWithdrawn, NoVote,
    RolesDealt, ShootingResolved, SpeechBegan, SpeechEnded, TieDeclared, VoteIgnored, VotesCounted,
    VotingBegan, WithdrawalRefused,
)


def _seats(seats: Iterable[int]) -> str:
    return ", ".join(str(s) for s in seats)


def narrate(events: Iterable[Event], book: Phrasebook) -> Iterator[str]:
    """One line per event worth a line in the judge's log."""
    for event in events:
        line = _line(event, book)
        if line is not None:
            yield line


def _line(event: Event, book: Phrasebook) -> str | None:  # noqa: C901 - a flat table of cases
    log = lambda key, **kw: book.line("log", key, **kw)  # noqa: E731
    if isinstance(event, RolesDealt):
        return log("roles_dealt")
    if isinstance(event, NightFell):
        return log("night_fell", night=event.night)
    if isinstance(event, ShootingResolved):
        return log("shooting_hit", target=event.target) if event.target else log("shooting_miss")
    if isinstance(event, CheckAnswered):
        answer = log(f"check_{'yes' if event.result else 'no'}_{event.role.value}")
        return log(f"check_{event.role.value}", target=event.target, answer=answer)
    if isinstance(event, MorningCame):
        if event.killed:
            return log("morning_killed", day=event.day, list=_seats(event.killed))
        return log("morning_quiet", day=event.day)
    if isinstance(event, DayBegan):
        return log("day_began", day=event.day, opener=event.opener)
    if isinstance(event, SpeechBegan):
        key = "speech" if event.turn == "speech" else f"speech_{event.turn}"
        return log(key, seat=event.seat, seconds=event.seconds)
    if isinstance(event, SpeechEnded):
        return None
    if isinstance(event, NominationAccepted):
        return log("nominated", by=event.by, target=event.target)
    if isinstance(event, NominationRefused):
        return log(f"refused_{event.reason}", by=event.by, target=event.target)
    if isinstance(event, NominationWithdrawn):
        return log("withdrawn", by=event.by, target=event.target)
    if isinstance(event, WithdrawalRefused):
        return log("withdraw_refused", by=event.by, target=event.target)
    if isinstance(event, VotingBegan):
        return log(f"voting_{event.round}", list=_seats(event.candidates))
    if isinstance(event, NoVote):
        return log(f"no_vote_{event.reason}")
    if isinstance(event, VoteIgnored):
        return log("vote_ignored", voter=event.voter)
    if isinstance(event, VotesCounted):
        counts = "; ".join(f"№{seat} — {votes}" for seat, votes in event.counts)
        text = log("votes_counted", list=counts)
        if event.defaulted:
            text += " " + log("votes_defaulted", list=_seats(event.defaulted))
        return text
    if isinstance(event, TieDeclared):
        return log("tie", list=_seats(event.seats))
    if isinstance(event, LiftAsked):
        return log("lift_asked", list=_seats(event.candidates))
    if isinstance(event, LiftCounted):
        return log("lift_counted", yes=event.yes, needed=event.needed)
    if isinstance(event, AllStay):
        return log(f"all_stay_{event.reason}")
    if isinstance(event, FoulGiven):
        return log("foul", seat=event.seat, count=event.count)
    if isinstance(event, Eliminated):
        return log(f"eliminated_{event.cause}", seat=event.seat)
    if isinstance(event, GameOver):
        return log("game_over", winner=log(f"winner_{event.winner}"), reason=log(f"reason_{event.reason}"))
    return None
