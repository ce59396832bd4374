"""Playing a table script: the script says what people would do if asked; the player walks
the game's requests and answers each from the matching part of the script. Entries the game
never asks for are reported under ``ignored`` with their place.

:class:`ScriptPlayer` turns what people do straight into inputs (the engine level); its
``table_*`` methods are where :class:`voicehost.table_sim.TablePlayer` routes the same acts
through the voice, the seat buttons and the ears instead (the table level).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .intents import EndIntent, Intent, NominateIntent, WithdrawIntent
from .parser import parse
from .journal import Journal, JournalEntry
from .rules import Game, IllegalInput, InputError, new_game
from .rules.events import Event
from .rules.flow import request_night
from .rules.inputs import (
    BloodName, Check, CloseVoting, Dawn, Deal, EndSpeech, Foul, Heal, Input, Join, Kill, Lift, Nominate,
    RaiseHand, Remove, Shots, Visit, Vote, Withdraw,
)
from .rules.requests import AwaitAction, AwaitDawn, AwaitLift, AwaitShots, AwaitSpeech, AwaitVotes, Request
from .script import Day, Night, Script, Timed


@dataclass
class Simulation:
    """The finished game, plus what the script said that was never asked for."""

    script: Script
    game: Game
    ignored: list[dict[str, str]] = field(default_factory=list)
    player: object = None


def simulate(script: Script, journal: Journal | None = None, replayed: list[JournalEntry] | None = None,
             player: type[ScriptPlayer] | None = None) -> Simulation:
    """Play ``script`` through the engine (or, with ``player=TablePlayer``, through the table).

    With a ``journal`` every input is on disk before it takes effect. ``replayed`` (from a
    journal being resumed) are the inputs already taken: the play is deterministic, so it
    runs again from the start, checks each input against the journal instead of writing
    it, and carries on writing after the last one — the exact state, bookkeeping included.
    """
    return (player or ScriptPlayer)(script, journal, replayed or []).play()


def phase_index(game: Game, request: Request) -> int:
    """Night n → 2n-2, day d → 2d-1: the order phases happen in."""
    night = request_night(request)
    return 2 * game.day - 1 if night is None else 2 * night - 2


# Turns whose words come from the script's ``speeches``.
SPOKEN_TURNS = frozenset({"speech", "silent", "short"})

# A voting round → the day key of the script that answers it.
ROUND_KEYS = {"main": "votes", "final": "votes", "revote": "revote", "acquittal": "revote",
              "prevote": "prevote", "mayor": "mayor"}

# A night action → the script key that answers it and the input it becomes.
ACTIONS: dict[str, type[Check | Heal | Visit | Kill]] = {"check": Check, "heal": Heal, "visit": Visit, "kill": Kill}


class ScriptPlayer:
    def __init__(self, script: Script, journal: Journal | None, replayed: list[JournalEntry]) -> None:
        self.script = script
        self.journal = journal
        self.replayed = replayed
        self.pushed = 0
        self.game = new_game(script.ruleset, script.options, script.seats)
        self.game.names = dict(script.names)
        self.used: set[str] = set()
        self.reasons: dict[str, str] = {}
        self.horizon = max(2 * len(script.nights) - 2, 2 * len(script.days) - 1, 0)
        self.started: set[int] = set()
        self.voting_seen: set[int] = set()
        self.after_vote_done: set[int] = set()
        self.hands_raised: set[int] = set()

    def before_answer(self, request: Request) -> None:
        """Hook: the host calls the step (the table level speaks here)."""

    def push(self, item: Input, source: str = "script") -> None:
        """Every input goes through here: journaled (or checked against the journal) first."""
        index = self.pushed
        self.pushed += 1
        if index < len(self.replayed):
            if self.replayed[index].input != item:
                raise InputError(f"journal input {index}", f"the script now gives {item.kind}, the journal has "
                                                           f"{self.replayed[index].input.kind}: not the same game")
        elif self.journal is not None:
            self.journal.append(index, self.clock(), source, item)
        start = len(self.game.events)
        self.game.push(item)
        self.after_push(self.game.events[start:])

    def clock(self) -> float:
        return 0.0

    def after_push(self, events: list[Event]) -> None:
        """Hook: what the host says and shows after an input took effect (the table level)."""

    def play(self) -> Simulation:
        self.push(Deal(self.script.roles), "deal")
        while (request := self.game.request) is not None:
            index = phase_index(self.game, request)
            if index > self.horizon:
                break
            if index not in self.started:
                self.started.add(index)
                self._phase_start(request)
                if self.game.request is not request:
                    continue
            self.before_answer(request)
            self._answer(request)
        ignored = [
            {"at": place, "why": self.reasons.get(place, "not asked for")}
            for place in self.script.places if place not in self.used
        ]
        return Simulation(self.script, self.game, ignored, self)

    # ---- one request ------------------------------------------------------------

    def _answer(self, request: Request) -> None:
        if isinstance(request, AwaitShots):
            self._shots(request, self._night(request.night))
        elif isinstance(request, AwaitAction):
            self._action(request, self._night(request.night))
        elif isinstance(request, AwaitDawn):
            self._dawn(request)
        elif isinstance(request, AwaitSpeech):
            self._speech(request, self._day())
        elif isinstance(request, AwaitVotes):
            self._votes(request, self._day())
        elif isinstance(request, AwaitLift):
            self._lift(request, self._day())
        else:  # AwaitDeal cannot come back after the deal
            raise AssertionError(request)

    def _phase_start(self, request: Request) -> None:
        if request_night(request) is not None:
            self._after_vote(self._day())
            night = self._night(request.night)
            for seat, place in night.fouls:
                self._push_or_ignore(Foul(seat, "script"), place)
        else:
            self._timed(self._day(), lambda t: t.at == "morning")

    def _night(self, number: int) -> Night:
        nights = self.script.nights
        return nights[number - 1] if number <= len(nights) else Night()

    def _day(self) -> Day:
        days = self.script.days
        return days[self.game.day - 1] if 1 <= self.game.day <= len(days) else Day()

    def _shots(self, request: AwaitShots, night: Night) -> None:
        taps = []
        for shooter, targets in night.shots.items():
            place = f"nights[{request.night - 1}].shots.{shooter}"
            if shooter in request.shooters:
                taps.append((shooter, targets))
                self.used.add(place)
            else:
                self.reasons[place] = f"seat {shooter} is out"
        self.push(self.table_shots(request, taps), "seats")

    def _action(self, request: AwaitAction, night: Night) -> None:
        """The first of the role's actions the script has an entry for; else it does nothing."""
        by = request.by
        if "join" in request.actions:
            side = night.join.get(by, "solo") if by is not None else "solo"
            if by in night.join:
                self.used.add(f"nights[{request.night - 1}].join.{by}")
            self.push(self.table_join(request, side), "seats")
            return
        for action in request.actions:
            entries: dict[int, int] = getattr(night, action)
            if by is not None and by in entries:
                place = f"nights[{request.night - 1}].{action}.{by}"
                target = entries[by]
                if request.targets is not None and target not in request.targets:
                    self.reasons[place] = f"seat {target} is not among the night's victims"
                    break
                self.used.add(place)
                self.push(self.table_action(request, action, target), "seats")
                return
        self.push(self.table_action(request, request.actions[0], None), "seats")

    def _dawn(self, request: AwaitDawn) -> None:
        self.push(Dawn(), "host")

    def _speech(self, request: AwaitSpeech, day: Day) -> None:
        seat = request.seat
        if request.turn == "nominate":
            self._answer_with(request, day.nominate, "nominate", Nominate)
        elif request.turn == "blood_name":
            self._answer_with(request, day.blood_name, "blood_name", BloodName)
        elif seat in day.speeches and request.turn in SPOKEN_TURNS:
            self._say(request, day.speeches[seat])
        if request.turn == "speech" and self.game.day not in self.hands_raised:
            self.hands_raised.add(self.game.day)
            self._raise_hands(day)
        if request.turn == "last_word" and self.game.day in self.voting_seen:
            self._after_vote(day)
        if request.turn != "tie" and request.turn != "last_word":
            self._timed(day, lambda t: t.after_speech == seat)
        if self.game.request == request:
            self.push(self.table_end(request), "ears")

    def _answer_with(self, request: AwaitSpeech, entries: dict[int, int], key: str,
                     make: type[Nominate] | type[BloodName]) -> None:
        if request.seat in entries:
            self.used.add(f"days[{self.game.day - 1}].{key}.{request.seat}")
            self.push(self.table_answer(request, make, entries[request.seat]), "ears")

    def _raise_hands(self, day: Day) -> None:
        """``extra_word`` (club): the hands go up during the discussion round."""
        for j, seat in enumerate(day.extra_word):
            place = f"days[{self.game.day - 1}].extra_word[{j}]"
            if self.game.is_alive(seat):
                self.used.add(place)
                self.push(self.table_hand(seat), "seats")
            else:
                self.reasons[place] = f"seat {seat} is out"

    def _say(self, request: AwaitSpeech, utterances: list[str]) -> None:
        place = f"days[{self.game.day - 1}].speeches.{request.seat}"
        self.used.add(place)
        for text in utterances:
            for intent in self.table_words(request, text):
                if self.game.request != request:
                    return
                if isinstance(intent, EndIntent):
                    return
                if not request.may_nominate:
                    continue  # no nominations in this turn (or this ruleset): words only
                item: Input = (Nominate(request.seat, intent.seat) if isinstance(intent, NominateIntent)
                               else Withdraw(request.seat, intent.seat))
                assert isinstance(intent, (NominateIntent, WithdrawIntent))
                self.push(item, "ears")

    def _votes(self, request: AwaitVotes, day: Day) -> None:
        if request.round != "mayor" and self.game.day not in self.voting_seen:
            self.voting_seen.add(self.game.day)
            self._timed(day, lambda t: t.at == "voting")
            if self.game.request != request:
                return
        key = ROUND_KEYS[request.round]
        ballot: dict[int, int] = getattr(day, key)
        wanted = []
        for voter, candidate in ballot.items():
            place = f"days[{self.game.day - 1}].{key}.{voter}"
            if voter in request.voters and candidate in request.candidates and self.game.is_alive(voter):
                wanted.append((voter, candidate))
                self.used.add(place)
            elif place not in self.used:
                self.reasons[place] = f"seat {candidate} is not on the ballot" if voter in request.voters \
                    else f"seat {voter} does not vote in this round"
        for vote in self.table_votes(request, wanted):
            self.push(vote, "seats")
            if self.game.request != request:
                return
        self.push(CloseVoting(), "seats")

    def _lift(self, request: AwaitLift, day: Day) -> None:
        yes = []
        for j, voter in enumerate(day.lift):
            if voter in request.voters and self.game.is_alive(voter):
                yes.append(voter)
                self.used.add(f"days[{self.game.day - 1}].lift[{j}]")
        for lift in self.table_lifts(request, yes):
            self.push(lift, "seats")
            if self.game.request != request:
                return
        self.push(CloseVoting(), "seats")

    def _after_vote(self, day: Day) -> None:
        """``at: after_vote`` entries: during the first last word after the result, else at nightfall."""
        if self.game.day == 0 or self.game.day in self.after_vote_done:
            return
        self.after_vote_done.add(self.game.day)
        self._timed(day, lambda t: t.at == "after_vote")

    def _timed(self, day: Day, when: Callable[[Timed], bool]) -> None:
        for entry in day.fouls:
            if when(entry):
                self._push_or_ignore(Foul(entry.seat, "script"), entry.place)
        for entry in day.removals:
            if when(entry):
                self._push_or_ignore(Remove(entry.seat, "script"), entry.place)

    def _push_or_ignore(self, item: Foul | Remove, place: str) -> None:
        if self.game.is_over:
            return
        try:
            self.push(item, "console")
            self.used.add(place)
        except IllegalInput as err:
            self.reasons[place] = str(err)

    # ---- the table: how what people do becomes inputs. At the engine level, directly;
    # ---- voicehost.table_sim overrides these to go through voice, seat buttons and ears.

    def table_shots(self, request: AwaitShots, taps: list[tuple[int, tuple[int, ...]]]) -> Shots:
        return Shots(tuple(taps))

    def table_join(self, request: AwaitAction, side: str) -> Input:
        return Join(request.by, side)

    def table_action(self, request: AwaitAction, action: str, target: int | None) -> Input:
        return ACTIONS[action](request.by, target)

    def table_words(self, request: AwaitSpeech, text: str) -> list[Intent]:
        return parse(text)

    def table_answer(self, request: AwaitSpeech, make: type[Nominate] | type[BloodName], target: int) -> Input:
        return make(request.seat, target)

    def table_hand(self, seat: int) -> Input:
        return RaiseHand(seat)

    def table_end(self, request: AwaitSpeech) -> Input:
        return EndSpeech(request.seat)

    def table_votes(self, request: AwaitVotes, wanted: list[tuple[int, int]]) -> list[Input]:
        return [Vote(voter, candidate) for voter, candidate in wanted]

    def table_lifts(self, request: AwaitLift, voters: list[int]) -> list[Input]:
        return [Lift(voter) for voter in voters]
