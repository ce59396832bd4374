"""The table's rhythm every ruleset shares: nights made of steps, days made of turns, and
voting rounds. Rulesets subclass :class:`TableGame` and say *which* steps, turns and
rounds they have; the bookkeeping of getting from one to the next lives here once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from .errors import (
    DoesNotShoot,
    IllegalInput,
    LeavesAtMorning,
    NobodyAtTable,
    NoSuchSeat,
    NotATarget,
    NotAVoter,
    NotOnBallot,
    NotTheRolesAction,
    NotTheRolesSeat,
    NotTheSpeaker,
)
from .events import (
    VotingBegan,
    foul_given,
    night_fell,
    shooting_resolved,
    speech_began,
    speech_ended,
    vote_ignored,
)
from .game import Game, Handler
from .inputs import Dawn, EndSpeech, Foul, Input, Proceed, Remove, Shots, Vote
from .options import Options
from .requests import (
    AwaitAction,
    AwaitDawn,
    AwaitMorning,
    AwaitNightfall,
    AwaitShots,
    AwaitSpeech,
    AwaitVotes,
    Request,
    Round,
    Turn,
    await_action,
    await_dawn,
    await_morning,
    await_nightfall,
    await_speech,
)
from .roles import Role, Team
from .ruleset import Ruleset

# A night step's role or team name → the enum member (calling Role(name) or Team(name) is slow).
_ROLES = {role.value: role for role in Role}
_TEAMS = {team.value: team for team in Team}
# What a ruleset queues: a turn, or a kind of its own that its ``_turn_length`` makes a turn
# (the club's ``voted_word``: a last word, on the voted-out player's timer).
Queued = Turn | Literal["voted_word"]
AFTER_DEATH: frozenset[Queued] = frozenset({"last_word", "voted_word", "blood_name"})  # turns of players who just left
Phase = Literal["night", "day"]  # the game's half: the night's fouls and removals wait for the morning
Step = tuple[str, ...]  # ("shots", team) | ("action", role, action, ...) | ("dawn",)


Given = Literal["", "last_candidate", "last_accused", "blood_name"]


@dataclass(frozen=True)
class CountedVote:
    """One vote a count counts: whose, for whom, how many votes it is worth (``classic``'s mayor:
    two) and, for a vote the voter did not give himself, the rule that gave it: ``last_candidate``
    (``sport``: a non-voter's vote goes to the last candidate), ``last_accused`` (``classic``
    with ``etiquette``: to the last accused still on the ballot), ``blood_name`` (``classic``:
    a name written in blood adds one in the final vote). The count is these summed, and the
    ballots list every one of them (voicehost.host.ballots), so the two always agree."""

    voter: int
    candidate: int
    weight: int = 1
    given: Given = ""


class TableGame(Game):
    """Nights, turns and rounds. ``handlers`` maps (input type, request type) to a method."""

    nominating_turns: ClassVar[frozenset[Turn]] = frozenset()
    second_vote_is_a_foul: ClassVar[bool] = True  # «многократное голосование» (sport, club)
    # What follows a queue of turns: ``then`` → the ruleset's ``_then_<then>`` method, found
    # once per class rather than by name after every queue (a day has several).
    continuations: ClassVar[dict[str, Callable[[Any], None]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.continuations = {name.removeprefix("_then_"): getattr(cls, name)
                             for name in dir(cls) if name.startswith("_then_")}

    def __init__(self, ruleset: Ruleset, options: Options, seats: int) -> None:
        self.turn_seconds = self._turn_seconds(ruleset, options)
        super().__init__(ruleset, options, seats)

    @classmethod
    def _turn_seconds(cls, ruleset: Ruleset, options: Options) -> dict[str, int]:
        """How long each kind of turn lasts at this table: the ``<kind>_s`` timers, which a
        ruleset may adjust by its options. Worked out once a game; turns begin on every speech."""
        return {key.removesuffix("_s"): seconds for key, seconds in ruleset.timers.items()}

    def _reset(self) -> None:
        super()._reset()
        self.phase: Phase = "night"
        self.turns: list[tuple[int, Queued]] = []
        self.after_turns = ""
        self.night_steps: list[Step] = []
        self.votes: dict[int, int] = {}
        self.opener = 0
        self.closer = 0
        self.held: list[Foul | Remove] = []  # the night's fouls and removals, until the morning
        self.held_night = 0  # while the morning applies them: the night they belong to
        self.struck: set[int] = set()  # seats the night killed that the morning then removed: no last word
        self.morning_turns: tuple[list[tuple[int, Queued]], str] = ([], "")

    # ---- nights ---------------------------------------------------------------------------

    def _night_order(self) -> list[Step]:
        """The steps of the coming night, ending with ("dawn",)."""
        raise NotImplementedError

    def _begin_night(self) -> None:
        self.phase = "night"
        self.night += 1
        self._emit(night_fell(self.night))
        self._on_night()
        self.night_steps = self._night_order()
        self._next_night_step()

    def _on_night(self) -> None:
        """Hook: reset the night's choices."""

    def _next_night_step(self) -> None:
        step = self.night_steps.pop(0)
        kind = step[0]
        if kind == "action":
            role = _ROLES[step[1]]
            self.request = await_action(self.night, role, step[2:], self._alive_with(role), self._targets(role))
        elif kind == "shots":
            self.request = AwaitShots(self.night, step[1], self._shooters(step[1]), self._called())
        else:
            self._night_done()
            self.request = await_dawn(self.night)

    def _night_done(self) -> None:
        """Hook: every action of the night is in (classic resolves its shots and visits here)."""

    # ---- the judge's fouls and removals at night ---------------------------------------------

    def _at_night(self) -> bool:
        """At night, or at the morning applying the night's fouls and removals (dated by the night)."""
        return self.phase == "night" or self.held_night != 0

    def _penalty(self, item: Foul | Remove) -> None:
        """RULES, "Things every ruleset shares": night fouls and removals take effect at the
        morning, after the night's actions — a removed shooter's shot (or its absence) still
        counts, and the night's victims leave first. Held until :meth:`_apply_held`."""
        if self.phase != "night":
            self._apply_penalty(item)
            return
        self._require_alive(item.seat)
        if self._leaving_at_morning(item.seat):
            raise IllegalInput(LeavesAtMorning(item.seat))
        self.held.append(item)

    def _leaving_at_morning(self, seat: int) -> bool:
        fouls = self.fouls[seat] + sum(1 for held in self.held if isinstance(held, Foul) and held.seat == seat)
        removed = any(isinstance(held, Remove) and held.seat == seat for held in self.held)
        return removed or fouls >= self.fouls_to_remove

    def _apply_held(self) -> None:
        """The morning, once the night's victims have left and the win check has run: the
        night's fouls and removals in the order given, each removal followed by its own win
        check. A foul to a seat the night killed still counts (his third shortens his last word,
        a fourth, like a removal, takes it away); he cannot leave twice."""
        if not self.held:
            return
        held, self.held = self.held, []
        self.held_night = self.night
        for item in held:
            if self.is_over:
                break
            if item.seat in self.alive:
                self._apply_penalty(item)
            elif isinstance(item, Foul):
                self._foul_after_death(item.seat, item.reason)
            else:
                self.struck.add(item.seat)
        self.held_night = 0

    def _foul_after_death(self, seat: int, reason: str) -> None:
        count = self.fouls[seat] = self.fouls[seat] + 1
        self._emit(foul_given(seat, count, reason, self.held_night))
        self._after_foul(seat, count)
        if count >= self.fouls_to_remove:
            self.struck.add(seat)

    def _foul_night(self) -> int | None:
        return self.held_night or None

    def _called(self) -> tuple[int, ...]:
        return self.alive_seats()

    def _targets(self, role: Role) -> tuple[int, ...] | None:
        return None

    def _shooters(self, team: str) -> tuple[int, ...]:
        """Who shoots for ``team`` tonight: its alive players (a ruleset may narrow it)."""
        return self._alive_in(_TEAMS[team])

    def _alive_in(self, team: Team) -> tuple[int, ...]:
        """The alive players of a team as dealt (a ruleset whose teams change overrides :meth:`_shooters`)."""
        members = self.team_seats[team]
        return tuple([s for s in self._alive_in_order if s in members])

    def _alive_with(self, role: Role) -> int | None:
        for seat in self.role_seats[role]:
            if seat in self.alive:
                return seat
        return None

    def _check_actor(self, request: AwaitAction, item: Input, by: int | None, target: int | None) -> None:
        """The input must be one of the called role's actions, by that role's seat, on a seat."""
        if item.kind not in request.actions:
            raise IllegalInput(NotTheRolesAction(request.role, item.kind))
        if by != request.by:
            raise IllegalInput(NotTheRolesSeat(request.role, request.by, by))
        if target is not None and not 1 <= target <= self.seats:
            raise IllegalInput(NoSuchSeat(target))
        if target is not None and request.targets is not None and target not in request.targets:
            raise IllegalInput(NotATarget(target, request.targets))

    @staticmethod
    def consensus(shooters: tuple[int, ...], shots: Shots) -> int | None:
        """The seat hit when every shooter tapped exactly once and all on the same seat."""
        taps = dict(shots.taps)
        for shooter in taps:
            if shooter not in shooters:
                raise IllegalInput(DoesNotShoot(shooter))
        target = None
        for seat in shooters:
            tapped = taps.get(seat, ())
            if len(tapped) != 1 or target is not None and tapped[0] != target:
                return None
            target = tapped[0]
        return target

    def _resolve_shots(self, request: AwaitShots, shots: Shots, shooters: tuple[int, ...]) -> int | None:
        target = self.consensus(shooters, shots)
        if target is not None and (target not in self.alive or target not in request.called):
            target = None
        self._emit(shooting_resolved(self.night, target, request.team))
        return target

    def _dawn(self, _: AwaitDawn, __: Dawn) -> None:
        self._begin_day()

    def _begin_day(self) -> None:
        raise NotImplementedError

    # ---- the pauses between night and day ----------------------------------------------------

    def _morning(self, turns: list[tuple[int, Queued]], then: str) -> None:
        """The morning is announced; before anyone has the floor the judge may still act (a
        seat removed now never opens the day). Then ``turns`` (last words …), then ``then``;
        a killed seat the night's fouls or removals struck out has no last word."""
        struck, self.struck = self.struck, set()
        self.morning_turns = ([turn for turn in turns if turn[0] not in struck], then)
        self.turns, self.after_turns = [], ""
        self.request = await_morning(self.day)

    def _give_floor(self, _: AwaitMorning, __: Proceed) -> None:
        turns, then = self.morning_turns
        self.morning_turns = ([], "")
        self._queue(turns, then)

    def _nightfall(self) -> None:
        """The day's business is over; fouls and removals given now still belong to the day."""
        self.turns, self.after_turns = [], ""
        self.request = await_nightfall(self.day)

    def _night_falls(self, _: AwaitNightfall, __: Proceed) -> None:
        self._begin_night()

    # ---- turns --------------------------------------------------------------------------------

    def _queue(self, turns: list[tuple[int, Queued]], then: str) -> None:
        """Give the floor to ``turns`` in order, then call ``_then_<then>()``."""
        self.turns = turns
        self.after_turns = then
        self._next_turn()

    def _next_turn(self) -> None:
        turns, alive = self.turns, self.alive
        while turns and self._outcome is None:
            seat, kind = turns.pop(0)
            if seat not in alive and seat != 0 and kind not in AFTER_DEATH:
                continue
            turn, seconds = self._turn_length(seat, kind)
            self.request = await_speech(seat, seconds, turn, turn in self.nominating_turns)
            self._emit(speech_began(seat, seconds, turn))
            return
        if self._outcome is None:
            self.continuations[self.after_turns](self)

    def _turn_length(self, seat: int, kind: Queued) -> tuple[Turn, int]:
        """The turn ``kind`` gives ``seat`` and its length (a ruleset may shorten or silence it)."""
        return ("last_word" if kind == "voted_word" else kind), self.turn_seconds[kind]

    def _end_speech(self, request: AwaitSpeech, item: EndSpeech) -> None:
        if item.seat != request.seat:
            raise IllegalInput(NotTheSpeaker(request.seat, item.seat))
        self._emit(speech_ended(item.seat))
        self._next_turn()

    def rotation(self) -> str:
        """How the opener moves from day to day, where an option says (``rotation``): ``first`` elsewhere."""
        return "first"

    def _speaking_order(self, first_opener: int) -> tuple[int, ...]:
        """The first discussion opens at ``first_opener``; option ``rotation`` (``first`` when a
        ruleset has no such option) moves the opener on by one seat a day, ``last`` the closer."""
        rotation = self.rotation()
        if self.opener == 0:
            opener = self._next_alive(first_opener)
        elif rotation == "first":
            opener = self._next_alive(self.opener + 1)
        else:
            opener = self._next_alive(self._next_alive(self.closer + 1) + 1)
        alive = self.alive_seats()
        start = alive.index(opener)
        order = alive[start:] + alive[:start]
        self.opener, self.closer = order[0], order[-1]
        return order

    def _next_alive(self, seat: int) -> int:
        for step in range(self.seats):
            candidate = (seat - 1 + step) % self.seats + 1
            if candidate in self.alive:
                return candidate
        raise IllegalInput(NobodyAtTable())

    # ---- removal -------------------------------------------------------------------------------

    def _remove(self, seat: int, reason: str) -> None:
        """Out at once, no last word. A night's removal (only ever at the morning, after its
        victims left: :meth:`_apply_held`) is dated by the night and touches no day; during a
        vote the ruleset decides (:meth:`_vote_interrupted`); a removed speaker's turn ends."""
        request = self.request
        self._eliminate(seat, "removed")
        if self.is_over or self._at_night():
            return
        self._removed_by_day(seat)
        if self._voting_now(request):
            self._vote_interrupted(request)
        elif isinstance(request, AwaitSpeech) and request.seat == seat:
            self._emit(speech_ended(seat))
            self._next_turn()

    def _removed_by_day(self, seat: int) -> None:
        """Hook: what a removal during the day does to the day (sport may cancel its vote)."""

    def _voting_now(self, request: Request | None) -> bool:
        return isinstance(request, AwaitVotes)

    def _vote_interrupted(self, request: Request | None) -> None:
        """A removal during a vote: by default the round starts again without him."""
        assert isinstance(request, AwaitVotes)
        candidates = tuple([c for c in request.candidates if c in self.alive]) or self.alive_seats()
        self._open_round(request.round, candidates, tuple([v for v in request.voters if v in self.alive]))

    # ---- voting rounds ---------------------------------------------------------------------

    def _open_round(self, round_name: Round, candidates: tuple[int, ...], voters: tuple[int, ...]) -> None:
        self.votes = {}
        self.request = AwaitVotes(self.day, round_name, candidates, voters)
        self._emit(VotingBegan(self.day, round_name, candidates))

    def _vote(self, ballot: AwaitVotes, item: Vote) -> None:
        """One vote a round; a second one is ignored (and, where the ruleset says so, a foul)."""
        voter = item.voter
        if voter not in ballot.voters or voter not in self.alive:
            raise IllegalInput(NotAVoter(voter))
        if item.candidate not in ballot.candidates:
            raise IllegalInput(NotOnBallot(item.candidate))
        if voter in self.votes:
            self._emit(vote_ignored(item.voter, item.candidate, "second_vote"))
            if self.second_vote_is_a_foul:
                self._foul(item.voter, "second_vote")
            return
        self.votes[item.voter] = item.candidate

    def non_voters_go_to(self, ballot: AwaitVotes) -> tuple[int, Given] | None:
        """Whom the rules give the vote of a voter who gives none, and that rule's mark (None:
        his vote is lost)."""
        return None

    def counted_votes(self, ballot: AwaitVotes) -> tuple[CountedVote, ...]:
        """Every vote the count of ``ballot`` counts as the game stands now: each voter's own, in
        the order taken, then those the rules give (see :class:`CountedVote`)."""
        return tuple([CountedVote(voter, candidate) for voter, candidate in self.votes.items()])

    def _counts(self, ballot: AwaitVotes, counted: tuple[CountedVote, ...] | None = None) -> dict[int, int]:
        """Each candidate's votes, in ballot order: :meth:`counted_votes` summed (``counted``:
        those votes, where the caller has them already)."""
        counts = {c: 0 for c in ballot.candidates}
        for vote in self.counted_votes(ballot) if counted is None else counted:
            counts[vote.candidate] += vote.weight
        return counts

    def windowed(self, ballot: AwaitVotes) -> tuple[int, ...]:
        """The candidates the host opens a vote window for (all, unless the ruleset says otherwise)."""
        return ballot.candidates

    @staticmethod
    def leaders(counts: dict[int, int]) -> tuple[int, ...]:
        """Candidates with the most votes, in ballot order."""
        top = max(counts.values(), default=0)
        return tuple([c for c, n in counts.items() if n == top])


# The pauses every table has, answered by the host's Proceed.
PAUSES: dict[tuple[type[Input], type[Any]], Handler] = {
    (Proceed, AwaitMorning): TableGame._give_floor,
    (Proceed, AwaitNightfall): TableGame._night_falls,
}


def with_pauses(own: dict[tuple[type[Input], type[Any]], Handler]) -> dict[tuple[type[Input], type[Any]], Handler]:
    """A ruleset's handlers plus the pauses every table has: one table, so that
    :meth:`Game.push` finds any input's handler in one lookup."""
    return {**PAUSES, **own}


NIGHT_REQUESTS = frozenset({AwaitShots, AwaitAction, AwaitDawn})  # what a night waits for


def request_night(request: Request | None) -> int | None:
    """The night a request belongs to, or None for a day request."""
    if type(request) in NIGHT_REQUESTS:
        return request.night  # type: ignore[union-attr]
    return None
