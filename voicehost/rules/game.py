"""The game model every ruleset shares: seats, roles, alive, fouls, push/pop and the outcome.

Like python-chess's ``Board``: inputs are pushed one at a time and return the events
they caused; ``pop()`` undoes the last input. Undo replays the remaining inputs from the
start, which keeps every handler free of undo bookkeeping and makes "undo restores the
exact previous state" true by construction (games are a few hundred inputs long).

A ruleset is a subclass that supplies the flow (:meth:`Game._begin`) and the win check
(:meth:`Game._winner`); everything a club may tune comes from its :class:`Ruleset` data.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from .errors import (
    CardsAlreadyDealt,
    CardsNotDealt,
    DidNotVote,
    GameIsOver,
    IllegalInput,
    InputError,
    NotACandidate,
    NotAsked,
    NoVoteToCorrect,
    SeatNotAtTable,
)
from .events import Cause, Ending, Event, GameOver, RolesDealt, Winner, eliminated, foul_given
from .input_error import N_, Phrase
from .inputs import CloseVoting, Deal, Foul, Input, Remove, Vote
from .options import Options
from .records import quicken
from .requests import AwaitDeal, AwaitLift, AwaitSpeech, AwaitVotes, Request
from .roles import Role, Team
from .ruleset import WARNING_LINES, HostLines, Ruleset

Handler = Any  # an unbound method (self, request, input) -> None


@dataclass(frozen=True)
class Outcome:
    """Who won and why (a :data:`~.events.Winner` and an :data:`~.events.Ending`: the ids in
    docs/scripts.md). ``count``: for a technical result, how many nights (misses) or days
    (repeat ties) in a row led to it."""

    winner: Winner
    reason: Ending
    count: int = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> Outcome:
        return self  # immutable (and compiled, a frozen class copy cannot rebuild field by field)


quicken(Outcome)  # the quick constructor and == (see quicken; compiled, it keeps mypyc's own)


class Game:
    """Base of every ruleset's game. Subclasses implement the flow; see module docstring."""

    name: ClassVar[str] = ""
    required_timers: ClassVar[tuple[str, ...]] = ()
    fouls_to_remove: ClassVar[int] = 4
    # Which script keys this ruleset uses: night action → the roles that have it, and day keys.
    night_actions: ClassVar[Mapping[str, frozenset[Role]]] = {}
    day_keys: ClassVar[frozenset[str]] = frozenset()
    # (input type, request type) → the method that takes that input while the game waits for
    # that request: how nearly every input is applied (see :meth:`push`).
    handlers: ClassVar[Mapping[tuple[type[Input], type[Any]], Handler]] = {}
    # What the host says where this ruleset differs from the others (see HostLines).
    lines: ClassVar[HostLines] = HostLines()

    def __init__(self, ruleset: Ruleset, options: Options, seats: int) -> None:
        self.ruleset = ruleset
        self.options = options
        self.seats = seats
        self.cast, self.spare_cards = self.deck(ruleset, options, seats)
        self.names: dict[int, str] = {}  # the roster, where the ruleset calls players by name
        self.inputs: list[Input] = []
        self._accepts = _by_request(type(self))
        self._start_events()
        self._reset()

    requires_names: ClassVar[bool] = False

    @classmethod
    def deck(cls, ruleset: Ruleset, options: Options, seats: int) -> tuple[Mapping[Role, int], int]:
        """The special cards dealt at a table of ``seats`` and how many cards stay unused."""
        return ruleset.cast_for(seats), 0

    # ---- what the host says, where it depends on the game's state --------------

    def warning_for(self, request: AwaitSpeech, seconds: float | None = None) -> tuple[int, str] | None:
        """The speaker's warning: ``(seconds left, line key)``, or None when the turn is not longer
        than the warning (canonical's 15-second «кого вы выдвигаете?» gets no one-minute warning).
        ``seconds`` is the time he is given, when not the turn's own (a speech taken back goes on
        with what was left). The length is the ruleset's ``warning_s``: 60 s says «Осталась одна
        минута», 10 s «Десять секунд»."""
        left = self.ruleset.timers.get("warning_s", 10)
        given = request.seconds if seconds is None else seconds
        if given <= left:
            return None
        return left, WARNING_LINES.get(left, "status_time_left")

    def last_word_line(self, seat: int, seconds: int) -> str:
        """The line that gives ``seat`` his last word: a shortened one (option ``last_word_s``) says so."""
        return "last_word_short" if seconds < self.full_last_word() else "last_word"

    def full_last_word(self) -> int:
        """A last word's full length, where an option sets it (``last_word_s``; 60 s elsewhere)."""
        return 60

    # ---- the public interface -------------------------------------------------

    def push(self, item: Input) -> list[Event]:
        """Apply one input; return the events it caused. IllegalInput leaves the game unchanged.

        An input that answers the current request goes straight to its handler; the deal, the
        judge's penalties and refusals take the long way (:meth:`_apply`). Games are pushed a
        few hundred inputs at a time by every simulation: the common case is two dict lookups."""
        start = len(self.events)
        self.take(item)
        return self.events[start:]

    def take(self, item: Input) -> None:
        """:meth:`push` for a caller that does not read the events an input caused (the script
        player): the same, without copying them out, about ninety times a game."""
        request = self.request
        try:
            handler = self._accepts[type(request)].get(type(item))
            if handler is None:
                self._apply(item)
            else:
                handler(self, request, item)
        except IllegalInput:
            self._replay(list(self.inputs))
            raise
        self.inputs.append(item)

    def pop(self) -> Input:
        """Undo the last input and return it."""
        if not self.inputs:
            raise IndexError("pop from a game with no inputs")
        last = self.inputs[-1]
        self._replay(self.inputs[:-1])
        return last

    def splice(self, at: int, remove: int, insert: Sequence[Input] = ()) -> None:
        """Replace ``inputs[at:at+remove]`` by ``insert`` and play the rest again: how a human
        host corrects a vote the buttons got wrong after the count. Every later input must
        still be legal; if one is not, IllegalInput and nothing changes."""
        if not 0 <= at <= at + remove <= len(self.inputs):
            raise IndexError(f"splice {at}+{remove} outside the {len(self.inputs)} inputs")
        before = list(self.inputs)
        try:
            self._replay(before[:at] + list(insert) + before[at + remove:])
        except IllegalInput:
            self._replay(before)
            raise

    def correct_vote(self, voter: int, candidate: int) -> tuple[int, int, list[Input]]:
        """The human host's «vote V C»: in the last voting round, ``voter`` voted for
        ``candidate`` (0: for nobody — in sport, for the last candidate). Returns the splice
        made, for the journal. Refused (IllegalInput) when it does not fit the round or the
        game that followed."""
        start, close, ballot = self._last_vote_round()
        if voter not in ballot.voters:
            raise IllegalInput(DidNotVote(voter))
        if candidate and candidate not in ballot.candidates:
            raise IllegalInput(NotACandidate(candidate))
        kept = [item for item in self.inputs[start:close] if not (isinstance(item, Vote) and item.voter == voter)]
        new = kept + ([Vote(voter, candidate)] if candidate else [])
        self.splice(start, close - start, new)
        return start, close - start, new

    def open_vote_inputs(self) -> int:
        """How many of the last inputs are votes of a round still open — what a crash in the
        middle of a vote leaves. A resumed game takes that vote again from its start."""
        if not isinstance(self.request, (AwaitVotes, AwaitLift)):
            return 0
        answered = self._requests_answered()
        return len(answered) - self._run_start(answered, len(answered))

    def _last_vote_round(self) -> tuple[int, int, AwaitVotes]:
        """[start, close) of the inputs answering the last AwaitVotes."""
        answered = self._requests_answered()
        for close in reversed(range(len(self.inputs))):
            ballot = answered[close]
            if isinstance(ballot, AwaitVotes) and isinstance(self.inputs[close], CloseVoting):
                return self._run_start(answered, close), close, ballot
        raise IllegalInput(NoVoteToCorrect())

    def _requests_answered(self) -> list[Request | None]:
        """The request each input answered, found by replaying the game."""
        probe = type(self)(self.ruleset, self.options, self.seats)
        answered = []
        for item in self.inputs:
            answered.append(probe.request)
            probe._apply(item)
            probe.inputs.append(item)
        return answered

    def _run_start(self, answered: list[Request | None], end: int) -> int:
        """Where the inputs answering the same request as input ``end`` (or, at the end, the
        current request) began."""
        request = answered[end] if end < len(answered) else self.request
        start = end
        while start > 0 and answered[start - 1] == request:
            start -= 1
        return start

    def outcome(self) -> Outcome | None:
        return self._outcome

    def after_game_inputs(self) -> tuple[type[Input], ...]:
        """The inputs this ruleset still takes once the game is over (the judge's points, the best
        move: :attr:`handlers` keyed by ``type(None)``); they never change the outcome."""
        return tuple(self._accepts[type(None)])

    @property
    def is_over(self) -> bool:
        return self._outcome is not None

    def is_alive(self, seat: int) -> bool:
        return seat in self.alive

    def role(self, seat: int) -> Role:
        return self.roles[seat]

    def team(self, seat: int) -> Team:
        return _TEAM_OF[self.roles[seat]]  # (Role.team is a property: the dict spares its call)

    def alive_seats(self) -> tuple[int, ...]:
        return self._alive_in_order

    def seats_with(self, *roles: Role) -> tuple[int, ...]:
        return tuple(sorted(s for role in roles for s in self.role_seats.get(role, ())))

    def state(self) -> dict[str, Any]:
        """Everything that makes up the position, deep-copied: equal states play on identically."""
        skip = {"ruleset", "options", "cast", "inputs", "events", "_emit", "names", "turn_seconds", "_accepts"}
        attributes = cast(dict[str, Any], self.__getstate__())  # vars(self), also where compiled (no __dict__)
        return {k: copy.deepcopy(v) for k, v in attributes.items() if k not in skip}

    def scores(self) -> dict[int, float]:
        """Points per seat under the club's scoring scheme; all zero until the game ends."""
        return {seat: 0.0 for seat in range(1, self.seats + 1)}

    # ---- machinery for subclasses --------------------------------------------

    def _reset(self) -> None:
        self.roles: dict[int, Role] = {}
        self.alive: set[int] = set()
        self._alive_in_order: tuple[int, ...] = ()
        self.team_seats: dict[Team, frozenset[int]] = {}
        self.role_seats: dict[Role, tuple[int, ...]] = {}  # by the cards dealt, alive or not
        self.fouls: dict[int, int] = {seat: 0 for seat in range(1, self.seats + 1)}
        self.night = 0
        self.day = 0
        self.request: Request | None = AwaitDeal(self.seats)
        self._outcome: Outcome | None = None

    def _replay(self, inputs: list[Input]) -> None:
        self._start_events()
        self.inputs = []
        self._reset()
        for item in inputs:
            self._apply(item)
            self.inputs.append(item)

    def _apply(self, item: Input) -> None:
        if self._outcome is not None:
            after = self._accepts[type(None)].get(type(item))  # what a ruleset takes after the end
            if after is None:
                raise IllegalInput(GameIsOver())
            after(self, None, item)
            return
        kind = type(item)  # exact types: inputs are final dataclasses, and this is the hot path
        if kind is Deal:
            self._deal(item)  # type: ignore[arg-type]
        elif type(self.request) is AwaitDeal:
            raise IllegalInput(CardsNotDealt())
        elif isinstance(item, (Foul, Remove)):
            self._penalty(item)
        else:
            handler = self._accepts[type(self.request)].get(type(item))
            if handler is None:
                raise IllegalInput(NotAsked(item.kind))
            handler(self, self.request, item)

    def _deal(self, deal: Deal) -> None:
        if not isinstance(self.request, AwaitDeal):
            raise IllegalInput(CardsAlreadyDealt())
        validate_deal(deal.roles, self.cast, self.seats, "roles", self.spare_cards)
        self.roles = dict(enumerate(deal.roles, start=1))
        self.alive = set(self.roles)
        self._alive_in_order = tuple(self.roles)
        by_role: dict[Role, list[int]] = {role: [] for role in _ROLES}
        by_team: dict[Team, list[int]] = {team: [] for team in _TEAMS}
        for seat, role in self.roles.items():
            by_role[role].append(seat)
            by_team[_TEAM_OF[role]].append(seat)
        self.role_seats = {role: tuple(seats) for role, seats in by_role.items()}
        self.team_seats = {team: frozenset(seats) for team, seats in by_team.items()}
        self._emit(RolesDealt(deal.roles))
        self._begin()

    def _penalty(self, item: Foul | Remove) -> None:
        """A judge's foul or removal; a ruleset may hold it for a later moment (the night's until
        the morning)."""
        self._apply_penalty(item)

    def _apply_penalty(self, item: Foul | Remove) -> None:
        if isinstance(item, Foul):
            self._foul(item.seat, item.reason)
        else:
            self._require_alive(item.seat)
            self._remove(item.seat, item.reason)

    def _at_night(self) -> bool:
        """Whether the game is in a night (a removal now is dated by the night)."""
        return False

    def _foul_night(self) -> int | None:
        """The night a foul given now belongs to (a night's, applied at the morning), or None."""
        return None

    def _require_alive(self, seat: int) -> None:
        if seat not in self.alive:
            raise IllegalInput(SeatNotAtTable(seat))

    def _foul(self, seat: int, reason: str) -> None:
        self._require_alive(seat)
        count = self.fouls[seat] = self.fouls[seat] + 1
        self._emit(foul_given(seat, count, reason, self._foul_night()))
        self._after_foul(seat, count)
        if count >= self.fouls_to_remove:
            self._remove(seat, "fouls")

    def _eliminate(self, seat: int, cause: Cause, check: bool = True) -> None:
        """Take a seat out and check for a winner (RULES: "checked after every elimination");
        ``check=False`` when several leave together and the check waits for the last
        (:meth:`_eliminate_group`). The night's kills and anything during a night are dated by
        the night, the rest by the day."""
        self.alive.discard(seat)
        self._alive_in_order = tuple(sorted(self.alive))
        in_day = cause != "killed" and not self._at_night()
        self._emit(eliminated(seat, cause, self.day if in_day else None, None if in_day else self.night))
        self._on_eliminated(seat)
        if check:
            self._check_winner()

    def _eliminate_group(self, seats: tuple[int, ...], cause: Cause) -> None:
        """Players who leave together (a night's victims, «все голосуемые покидают игру») are
        one group: every one of them is out, then the win check runs once (RULES, "Things every
        ruleset shares")."""
        for seat in seats:
            self._eliminate(seat, cause, check=False)
        if seats:
            self._check_winner()

    def _on_eliminated(self, seat: int) -> None:
        """Hook: what a ruleset does when a seat leaves (reveal the card, elect a new mayor)."""

    def _check_winner(self) -> None:
        if self._outcome is None:
            found = self._winner()
            if found is not None:
                self._finish(found)

    def _finish(self, outcome: Outcome) -> None:
        self._outcome = outcome
        self.request = None
        self._emit(GameOver(outcome.winner, outcome.reason, outcome.count))

    def _start_events(self) -> None:
        """A fresh event list; ``_emit`` appends to it (a bound ``list.append``: every rule
        emits through it, several times per input, so it skips a Python-level call)."""
        self.events: list[Event] = []
        self._emit: Callable[[Event], None] = self.events.append

    def _count(self, team: Team) -> int:
        return len(self.alive & self.team_seats[team])

    # ---- what a ruleset supplies ------------------------------------------------

    def _begin(self) -> None:
        raise NotImplementedError

    def _winner(self) -> Outcome | None:
        raise NotImplementedError

    def _remove(self, seat: int, reason: str) -> None:
        raise NotImplementedError

    def _after_foul(self, seat: int, count: int) -> None:
        """Hook for a ruleset's foul consequences short of removal."""


HandlerTable = dict[type[Any], dict[type[Input], Handler]]
_TABLES: dict[type[Game], HandlerTable] = {}


def _by_request(game: type[Game]) -> HandlerTable:
    """A ruleset's :attr:`Game.handlers` by request type (every one, and None's once the game
    is over), then input type: what :meth:`Game.push` looks up for every input, without
    building a key tuple each time. Made once per ruleset."""
    table = _TABLES.get(game)
    if table is None:
        table = _TABLES[game] = {kind: {} for kind in (*Request.__args__, type(None))}
        for (item, request), handler in game.handlers.items():
            table[request][item] = handler
    return table


# Iterating an Enum class runs a generator in enum.py, and Role.team is a property: the deal
# reads these instead.
_ROLES = tuple(Role)
_TEAMS = tuple(Team)
_TEAM_OF = {role: role.team for role in Role}
_SPECIAL_ROLES = tuple(role for role in Role if role is not Role.CITIZEN)


def validate_deal(roles: tuple[Role, ...], cast: Mapping[Role, int], seats: int, place: str, spare: int = 0) -> None:
    """The dealt cards must be the ruleset's deck for this table (citizens fill up); with
    ``spare`` cards left face down (``extra_card``), any ``spare`` of the deck may be missing."""
    if len(roles) != seats:
        raise InputError(place, N_("{cards} cards for {seats} seats"), {"cards": len(roles), "seats": seats})
    have: dict[Role, int] = {}
    for role in roles:
        have[role] = have.get(role, 0) + 1
    have.pop(Role.CITIZEN, None)
    want: dict[Role, int] = {role: count for role, count in cast.items() if count and role is not Role.CITIZEN}
    if not spare:
        fits = want == have
    else:
        missing = sum(want.values()) - sum(have.values())
        fits = all(count <= want.get(role, 0) for role, count in have.items()) and 0 <= missing <= spare
    if not fits:
        raise InputError(place, N_("the table needs {want} (one of them may stay face down); the deal has {have}")
                         if spare else N_("the table needs {want}; the deal has {have}"),
                         {"want": _cards(want), "have": _cards(have)})


def _cards(counts: Mapping[Role, int]) -> Phrase:
    """The special cards counted, in the order roles are listed (each role said in the user's
    language at the edge: a record word of the catalog)."""
    listed = [Phrase(N_("{count} {role}"), {"count": counts[role], "role": role.value})
              for role in _SPECIAL_ROLES if counts.get(role)]
    return Phrase.listed(listed) if listed else Phrase(N_("no special cards"))
