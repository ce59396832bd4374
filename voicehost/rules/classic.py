"""``classic``: the party game with Doctor, Putana and Commissar (docs/rules.md, `classic`)
and its six modifications as options: ``open``, ``no_host``, ``extra_card``,
``blood_name``, ``mayor``, ``three_sides``.

Flow: night (mafia [, yakuza], Doctor, Putana, Commissar) → morning (the dead, no
details; a mayor election when there is no mayor) → discussion → preliminary vote →
the accused defend themselves → final vote → night …
"""

from __future__ import annotations

from collections.abc import Mapping

from .catalog import find_variant
from .errors import IllegalInput, InputError, NotBloodNameTurn
from .events import (
    ActionTaken,
    AllStay,
    BloodNamed,
    DayBegan,
    Ending,
    MayorElected,
    RoleRevealed,
    VotesCounted,
    Winner,
    check_answered,
    morning_came,
)
from .flow import CountedVote, Given, Queued, Step, TableGame, with_pauses
from .game import Outcome
from .input_error import N_
from .inputs import BloodName, Check, CloseVoting, Dawn, EndSpeech, Heal, Shots, Visit, Vote
from .options import ClassicOptions, Options
from .requests import AwaitAction, AwaitDawn, AwaitShots, AwaitSpeech, AwaitVotes, Turn
from .roles import Role, Team
from .ruleset import HostLines, Ruleset

# Team id → the winner id in protocols and the reason when it is the last team standing.
WINNERS: dict[Team, tuple[Winner, Ending]] = {Team.RED: ("red", "no_black_left"),
                                              Team.BLACK: ("black", "only_mafia_left"),
                                              Team.YAKUZA: ("yakuza", "only_yakuza_left")}


class ClassicGame(TableGame):
    name = "classic"
    second_vote_is_a_foul = False
    night_actions = {
        "shots": frozenset({Role.MAFIA, Role.YAKUZA}), "check": frozenset({Role.COMMISSAR}),
        "heal": frozenset({Role.DOCTOR}), "visit": frozenset({Role.PUTANA}),
    }
    day_keys = frozenset({"speeches", "prevote", "votes", "mayor", "blood_name", "fouls", "removals"})
    required_timers = find_variant("classic").timers
    options: ClassicOptions
    lines = HostLines(voted_out="jailed")

    @classmethod
    def deck(cls, ruleset: Ruleset, options: Options, seats: int) -> tuple[Mapping[Role, int], int]:
        """``three_sides`` adds the yakuza (counts in the ruleset file); ``extra_card`` deals one
        card more than players, face down, and needs at least 2 mafia."""
        assert isinstance(options, ClassicOptions)
        cast = dict(ruleset.cast_for(seats))
        if options.three_sides:
            cast.update(ruleset.variant_cast("three_sides", seats))
        spare = 1 if options.extra_card else 0
        if spare and cast.get(Role.MAFIA, 0) < 2:
            raise InputError("options.extra_card", N_("needs at least 2 mafia at the table"))
        if sum(cast.values()) > seats + spare:
            raise InputError("seats", N_("{seats} seats are too few for {cards} special cards"),
                             {"seats": seats, "cards": sum(cast.values())})
        return cast, spare

    def _reset(self) -> None:
        super()._reset()
        self.taps: dict[str, Shots] = {}
        self.healed: int | None = None
        self.visited: int | None = None
        self.grounded: int | None = None
        self.mayor: int | None = None
        self.killed_last_night: tuple[int, ...] = ()
        self.victims: tuple[int, ...] = ()
        self.blood: dict[int, int] = {}
        self.accused: tuple[int, ...] = ()
        self.silenced: set[int] = set()

    def _begin(self) -> None:
        self._begin_night()

    # ---- night ------------------------------------------------------------------------------

    def _night_order(self) -> list[Step]:
        """Mafia → (yakuza) → Doctor → Putana → Commissar, every night."""
        teams: list[Step] = [("shots", "black")]
        if self.options.three_sides:
            teams.append(("shots", "yakuza"))
        return [*teams, ("action", "doctor", "heal"), ("action", "putana", "visit"),
                ("action", "commissar", "check"), ("dawn",)]

    def _on_night(self) -> None:
        self.taps, self.healed, self.visited = {}, None, None

    def _shoot(self, request: AwaitShots, shots: Shots) -> None:
        """Kept until dawn: a visited mafioso's shot does not count, so the Putana comes first."""
        self.consensus(request.shooters, shots)  # rejects taps from seats that do not shoot
        self.taps[request.team] = shots
        self._next_night_step()

    def _heal(self, request: AwaitAction, heal: Heal) -> None:
        self._check_actor(request, heal, heal.by, heal.target)
        self.healed = heal.target if heal.by is not None else None
        self._next_night_step()

    def _visit(self, request: AwaitAction, visit: Visit) -> None:
        self._check_actor(request, visit, visit.by, visit.target)
        self.visited = visit.target if visit.by is not None else None
        self._next_night_step()

    def _check(self, request: AwaitAction, check: Check) -> None:
        """Commissar: yes for mafia (or yakuza); a visited Commissar gets no answer."""
        self._check_actor(request, check, check.by, check.target)
        if check.by is not None and check.target is not None:
            if check.by == self.visited:
                self._emit(ActionTaken(self.night, Role.COMMISSAR, "check", check.by, check.target, False))
            else:
                result = self.team(check.target) in (Team.BLACK, Team.YAKUZA)
                self._emit(check_answered(self.night, Role.COMMISSAR, check.by, check.target, result))
        self._next_night_step()

    def _night_victims(self) -> tuple[int, ...]:
        """Putana decision: the visited survives and his own action that night has no effect."""
        victims: list[int] = []
        for team, shots in self.taps.items():
            shooters = tuple([s for s in self._shooters(team) if s != self.visited])
            counted = Shots(tuple([(s, taps) for s, taps in shots.taps if s in shooters]))
            request = AwaitShots(self.night, team, shooters, self._called())
            target = self._resolve_shots(request, counted, shooters)
            if target is not None and target not in victims:
                victims.append(target)
        doctor = self._alive_with(Role.DOCTOR)
        healed = self.healed if doctor is not None and doctor != self.visited else None
        if self.healed is not None and doctor is not None:
            self._emit(ActionTaken(self.night, Role.DOCTOR, "heal", doctor, self.healed, healed is not None))
        if self.visited is not None and (putana := self._alive_with(Role.PUTANA)) is not None:
            self._emit(ActionTaken(self.night, Role.PUTANA, "visit", putana, self.visited, True))
        return tuple([v for v in victims if v not in (healed, self.visited)])

    # ---- morning ------------------------------------------------------------------------------

    def _night_done(self) -> None:
        """The shots, heal and visit are settled before the night's fouls and removals apply."""
        self.victims = self._night_victims()

    def _begin_day(self) -> None:
        """The dead are named without details; the last two teams may fall together."""
        killed = tuple([v for v in self.victims if v in self.alive])
        self.phase = "day"
        self.day += 1
        self.grounded = self.visited
        self.blood = {}
        self.killed_last_night = killed
        self._emit(morning_came(self.day, killed))
        self._eliminate_group(killed, "killed")
        self._apply_held()  # the night's fouls and removals, after its victims
        if self.is_over:
            return
        words: list[tuple[int, Queued]] = ([(seat, "blood_name") for seat in killed] if self.options.blood_name
                                           else [])
        self._morning(words, then="mayor")

    def _blood_name(self, request: AwaitSpeech, item: BloodName) -> None:
        """«Имя кровью»: the named seat gets one vote in today's final vote."""
        if request.turn != "blood_name" or item.by != request.seat or not 1 <= item.target <= self.seats:
            raise IllegalInput(NotBloodNameTurn())
        self.blood[item.by] = item.target
        self._emit(BloodNamed(item.by, item.target))

    def _voters(self) -> tuple[int, ...]:
        """Putana decision: the player she visited may not vote the next day."""
        alive = self.alive_seats()
        return alive if self.grounded not in alive else tuple([s for s in alive if s != self.grounded])

    def _then_mayor(self) -> None:
        """``mayor``: elected on the first morning, again after he leaves; a tie waits a morning."""
        if self.options.mayor and (self.mayor is None or self.mayor not in self.alive):
            self.mayor = None
            self._open_round("mayor", self.alive_seats(), self._voters())
        else:
            self._start_discussion()

    def _start_discussion(self) -> None:
        """Option ``discussion``: free (the whole table, one timer) or in turns."""
        if self.options.discussion == "free":
            self._emit(DayBegan(self.day, 0, self.alive_seats()))
            self._queue([(0, "free")], then="prevote")
        else:
            order = self._speaking_order(1)
            self._emit(DayBegan(self.day, self.opener, order))
            self._queue([(seat, "speech") for seat in order], then="prevote")

    @classmethod
    def _turn_seconds(cls, ruleset: Ruleset, options: Options) -> dict[str, int]:
        """The free discussion («free») runs on the discussion timer."""
        return {**super()._turn_seconds(ruleset, options), "free": ruleset.timers["discussion_s"]}

    def _turn_length(self, seat: int, kind: Queued) -> tuple[Turn, int]:
        """With ``etiquette``, the 3rd foul silences the player's next turn in the discussion."""
        if kind == "speech" and seat in self.silenced:
            self.silenced.discard(seat)
            return "silent", 0
        return super()._turn_length(seat, kind)

    def _after_foul(self, seat: int, count: int) -> None:
        if count == 3 and self.options.etiquette:
            self.silenced.add(seat)

    # ---- voting ---------------------------------------------------------------------------------

    def _then_prevote(self) -> None:
        self._open_round("prevote", self.alive_seats(), self._voters())


    def non_voters_go_to(self, ballot: AwaitVotes) -> tuple[int, Given] | None:
        """With ``etiquette``, in the final vote: the last accused still on the ballot."""
        standing = [seat for seat in self.accused if seat in ballot.candidates]
        return (standing[-1], "last_accused") if ballot.round == "final" and self.options.etiquette and standing \
            else None

    def counted_votes(self, ballot: AwaitVotes) -> tuple[CountedVote, ...]:
        """The mayor's vote counts twice; with ``etiquette`` a non-voter's vote goes to the last
        accused (docs/rules.md, `classic` options) still on the ballot in the final vote (one removed during
        the defence speeches can take no vote); each blood name adds one in the final vote."""
        votes: list[tuple[int, int, Given]] = [(voter, candidate, "") for voter, candidate in self.votes.items()]
        to = self.non_voters_go_to(ballot)
        if to is not None:
            votes += [(voter, to[0], to[1]) for voter in ballot.voters
                      if voter in self.alive and voter not in self.votes]
        counted = [CountedVote(voter, candidate, 2 if voter == self.mayor and ballot.round != "mayor" else 1, given)
                   for voter, candidate, given in votes]
        if ballot.round == "final":
            counted += [CountedVote(by, named, 1, "blood_name") for by, named in self.blood.items()
                        if named in ballot.candidates]
        return tuple(counted)

    def _count_votes(self, ballot: AwaitVotes, _: CloseVoting) -> None:
        counts = self._counts(ballot)
        defaulted = tuple([vote.voter for vote in self.counted_votes(ballot) if vote.given == "last_accused"])
        self._emit(VotesCounted(self.day, ballot.round, tuple(counts.items()), defaulted))
        leaders = self.leaders(counts)
        single = leaders[0] if len(leaders) == 1 and counts[leaders[0]] > 0 else None
        if ballot.round == "mayor":
            if single is not None:
                self.mayor = single
                self._emit(MayorElected(self.day, single))
            self._start_discussion()
        elif ballot.round == "prevote":
            accused = sorted((c for c in counts if counts[c]), key=lambda c: (-counts[c], c))
            self.accused = tuple(accused)
            self._queue([(seat, "defence") for seat in accused], then="final")
        elif single is not None:
            self._eliminate(single, "voted")  # jailed: leaves without a word
            if not self.is_over:
                self._nightfall()
        else:
            self._emit(AllStay(self.day, "split"))  # «слив голосования»
            self._nightfall()

    def _then_final(self) -> None:
        """The final vote: anyone may be voted against; votes may change from the prevote."""
        self._open_round("final", self.alive_seats(), self._voters())

    # ---- removal and the end ----------------------------------------------------------------

    def _on_eliminated(self, seat: int) -> None:
        """``open``: the eliminated show their card."""
        if self.options.open != "no":
            self._emit(RoleRevealed(seat, self.roles[seat]))

    def _winner(self) -> Outcome | None:
        """Red: no mafia (and no yakuza) left. A criminal team: the only team left.
        Decision (three sides): the last two teams falling together leaves no winner."""
        teams = [team for team, members in self.team_seats.items() if not members.isdisjoint(self.alive)]
        if not teams:
            return Outcome("nobody", "mutual_destruction")
        if len(teams) == 1:
            winner, reason = WINNERS[teams[0]]
            return Outcome(winner, reason)
        return None


ClassicGame.handlers = with_pauses({
    (Shots, AwaitShots): ClassicGame._shoot,
    (Heal, AwaitAction): ClassicGame._heal,
    (Visit, AwaitAction): ClassicGame._visit,
    (Check, AwaitAction): ClassicGame._check,
    (Dawn, AwaitDawn): ClassicGame._dawn,
    (BloodName, AwaitSpeech): ClassicGame._blood_name,
    (EndSpeech, AwaitSpeech): ClassicGame._end_speech,
    (Vote, AwaitVotes): ClassicGame._vote,
    (CloseVoting, AwaitVotes): ClassicGame._count_votes,
})
