"""``canonical``: the old student game (docs/rules.md, `canonical`). Mafia and citizens only,
called by name; the mafia kills from the first night; a free discussion, a nomination
round with points, a simple-majority vote, and the executed player's card is shown.
"""

from __future__ import annotations

from collections.abc import Mapping

from .catalog import find_variant
from .events import (
    AllStay,
    DayBegan,
    NominationsTallied,
    RoleRevealed,
    TieDeclared,
    VotesCounted,
    morning_came,
    nomination_accepted,
    nomination_refused,
)
from .flow import Step, TableGame, with_pauses
from .game import Outcome
from .inputs import CloseVoting, Dawn, EndSpeech, Nominate, Shots, Vote
from .options import CanonicalOptions, Options
from .requests import AwaitDawn, AwaitShots, AwaitSpeech, AwaitVotes
from .roles import Role, Team
from .ruleset import HostLines, Ruleset

LEAD = 2  # docs/rules.md, `canonical`, decision: a clear leader has at least 2 points more than anyone outside


class CanonicalGame(TableGame):
    name = "canonical"
    second_vote_is_a_foul = False
    requires_names = True
    nominating_turns = frozenset({"nominate"})
    night_actions = {"shots": frozenset({Role.MAFIA})}
    day_keys = frozenset({"nominate", "votes", "revote", "fouls", "removals"})
    required_timers = find_variant("canonical").timers
    options: CanonicalOptions
    # Called by name: the count, the nominations, the runoff and the sentence; a card shown says only its side.
    lines = HostLines(count="name_call", nomination="nominated", revote="runoff", voted_out="sentence",
                      card_by_team=True)

    @classmethod
    def deck(cls, ruleset: Ruleset, options: Options, seats: int) -> tuple[Mapping[Role, int], int]:
        """Option ``ratio`` (mafia : town = 1:5, 1:4, 1:3): the nearest whole number of mafia, at least one."""
        assert isinstance(options, CanonicalOptions)
        ruleset.cast_for(seats)  # the table size check
        town_per_mafia = int(options.ratio.split(":")[1])
        return {Role.MAFIA: max(1, round(seats / (town_per_mafia + 1)))}, 0

    def _reset(self) -> None:
        super()._reset()
        self.night_target: int | None = None
        self.nominated: dict[int, int] = {}
        self.ballot: tuple[int, ...] = ()

    def _begin(self) -> None:
        self._begin_night()

    def _night_order(self) -> list[Step]:
        """«В полночь просыпается МАФИЯ и выбирает жертву» — from the first night on."""
        return [("shots", "black"), ("dawn",)]

    def _on_night(self) -> None:
        self.night_target = None

    def _shoot(self, request: AwaitShots, shots: Shots) -> None:
        """All mafia tap the same name while the host reads the names; else nobody dies."""
        self.night_target = self._resolve_shots(request, shots, request.shooters)
        self._next_night_step()

    def _begin_day(self) -> None:
        """«Все просыпаются, кроме [Имя]». No last word."""
        self.phase = "day"
        self.day += 1
        self.nominated = {}
        killed = (self.night_target,) if self.night_target in self.alive else ()
        self._emit(morning_came(self.day, killed))
        self._eliminate_group(killed, "killed")
        self._apply_held()  # the night's fouls and removals, after its victims
        if self.is_over:
            return
        self._morning([], then="discussion")

    def _then_discussion(self) -> None:
        self._emit(DayBegan(self.day, 0, self.alive_seats()))
        self._queue([(0, "free")], then="nominations")

    @classmethod
    def _turn_seconds(cls, ruleset: Ruleset, options: Options) -> dict[str, int]:
        """The free discussion («free») runs on the discussion timer."""
        return {**super()._turn_seconds(ruleset, options), "free": ruleset.timers["discussion_s"]}

    def _then_nominations(self) -> None:
        """The host asks each alive player in turn whom he nominates."""
        self._queue([(seat, "nominate") for seat in self.alive_seats()], then="ballot")

    def _nominate(self, request: AwaitSpeech, item: Nominate) -> None:
        reason = None
        if request.turn != "nominate" or item.by != request.seat:
            reason = "not_your_turn"
        elif not 1 <= item.target <= self.seats:
            reason = "not_a_seat"
        elif item.target not in self.alive:
            reason = "seat_out"
        elif item.by in self.nominated:
            reason = "one_per_speech"
        if reason is not None:
            self._emit(nomination_refused(item.by, item.target, reason))
            return
        self.nominated[item.by] = item.target
        self._emit(nomination_accepted(item.by, item.target))

    def _then_ballot(self) -> None:
        points = {seat: 0 for seat in self.alive_seats()}
        for target in self.nominated.values():
            if target in points:
                points[target] += 1
        self.ballot = self.ballot_from(points)
        nominees = tuple([(s, n) for s, n in sorted(points.items(), key=lambda p: (-p[1], p[0])) if n])
        self._emit(NominationsTallied(self.day, nominees, self.ballot))
        self._open_round("main", self.ballot, self.alive_seats())

    @staticmethod
    def ballot_from(points: Mapping[int, int]) -> tuple[int, ...]:
        """Decision (docs/rules.md, `canonical`): the smallest top group of 1–3 whose every member has at least
        2 points more than every player outside it (unnominated players count 0); none → all."""
        ranked = sorted(points, key=lambda seat: (-points[seat], seat))
        for size in (1, 2, 3):  # ranked by points: the group's last member against the first outside it
            if size < len(ranked) and points[ranked[size - 1]] >= points[ranked[size]] + LEAD:
                return tuple(sorted(ranked[:size]))
        return tuple(sorted(points))


    def _count_votes(self, ballot: AwaitVotes, _: CloseVoting) -> None:
        """Simple majority; a tie between 2–3 goes to a second round, a tie again (or between
        more) executes nobody. Decision: a ballot of one needs more than half of the voters."""
        counts = self._counts(ballot)
        self._emit(VotesCounted(self.day, ballot.round, tuple(counts.items()), ()))
        leaders = self.leaders(counts)
        voters = len([v for v in ballot.voters if v in self.alive])
        if len(leaders) == 1 and (len(counts) > 1 or 2 * counts[leaders[0]] > voters):
            self._execute(leaders[0])
        elif ballot.round == "main" and 2 <= len(leaders) <= 3:
            self._emit(TieDeclared(self.day, leaders))
            self._open_round("revote", leaders, self.alive_seats())
        else:
            self._emit(AllStay(self.day, "no_execution"))
            self._end_day()

    def _execute(self, seat: int) -> None:
        """«Высший суд города приговорил к смерти [Имя]» — and the card is shown."""
        self._emit(RoleRevealed(seat, self.roles[seat]))
        self._eliminate(seat, "voted")
        if not self.is_over:
            self._end_day()

    def _end_day(self) -> None:
        """Decision: the mafia wins when, after a day, mafia alive ≥ town alive."""
        if self._count(Team.BLACK) >= self._count(Team.RED):
            self._finish(Outcome("black", "black_parity"))
        else:
            self._nightfall()

    def _winner(self) -> Outcome | None:
        """The town wins when all mafia are dead (checked after every elimination)."""
        return Outcome("red", "no_black_left") if self._count(Team.BLACK) == 0 else None


CanonicalGame.handlers = with_pauses({
    (Shots, AwaitShots): CanonicalGame._shoot,
    (Dawn, AwaitDawn): CanonicalGame._dawn,
    (Nominate, AwaitSpeech): CanonicalGame._nominate,
    (EndSpeech, AwaitSpeech): CanonicalGame._end_speech,
    (Vote, AwaitVotes): CanonicalGame._vote,
    (CloseVoting, AwaitVotes): CanonicalGame._count_votes,
})
