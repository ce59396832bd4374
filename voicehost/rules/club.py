"""``club``: club rules with the Doctor and the Maniac (docs/rules.md, `club`).

Flow: night 1 (roles show themselves; the maniac picks his side) → day 1, the 30-second
introduction round → night (mafia, Don, Sheriff checks or shoots, maniac, Doctor) → day
(testaments, speeches, raised hands, voting against anyone with the once-per-game
acquittal) → night … until :meth:`ClubGame._winner`.
"""

from __future__ import annotations

from .catalog import find_variant
from .errors import IllegalInput, NoHandsNow, NoSuchSide
from .events import (
    Acquitted,
    ActionTaken,
    AllStay,
    DayBegan,
    HandRaised,
    NoVote,
    Saved,
    SideChosen,
    TieDeclared,
    VotesCounted,
    check_answered,
    morning_came,
)
from .flow import Queued, Step, TableGame, with_pauses
from .game import Outcome
from .inputs import Check, CloseVoting, Dawn, EndSpeech, Heal, Join, Kill, RaiseHand, Shots, Vote
from .options import ClubOptions, Options
from .requests import AwaitAction, AwaitDawn, AwaitShots, AwaitSpeech, AwaitVotes
from .roles import Role, Team
from .ruleset import HostLines, Ruleset

MAFIA_ROLES = frozenset({Role.DON, Role.MAFIA})


class ClubGame(TableGame):
    name = "club"
    night_actions = {
        "shots": MAFIA_ROLES, "check": frozenset({Role.DON, Role.SHERIFF}),
        "kill": frozenset({Role.SHERIFF, Role.MANIAC}), "heal": frozenset({Role.DOCTOR}),
        "join": frozenset({Role.MANIAC}),
    }
    day_keys = frozenset({"speeches", "votes", "revote", "extra_word", "fouls", "removals"})
    required_timers = find_variant("club").timers
    options: ClubOptions
    lines = HostLines(first_night="night_one", first_dawn=("maniac_sleeps",), doctor_hears_victims=True,
                      first_morning="introduction", opener_on_day_one=False)

    def last_word_line(self, seat: int, seconds: int) -> str:
        """A player out by day speaks his testament when his turn is the testament's length (a
        night's victim), «последнее слово» otherwise (voted out: option ``last_word_s``)."""
        if self.phase == "day" and not self.is_alive(seat):
            return "testament" if seconds == self.ruleset.timers["testament_s"] else "last_word"
        return super().last_word_line(seat, seconds)

    def _reset(self) -> None:
        super()._reset()
        self.maniac_side = "solo"
        self.victims: list[int] = []
        self.saved: set[int] = set()
        self.acquitted: set[int] = set()
        self.raised: list[int] = []
        self.first_count = 0
        self.top: tuple[int, ...] = ()

    def team(self, seat: int) -> Team:
        """The maniac who joined the mafia is black everywhere (docs/rules.md, `club` «End»)."""
        role = self.roles[seat]
        if role is Role.MANIAC and self.maniac_side == "black":
            return Team.BLACK
        return role.team

    def _count(self, team: Team) -> int:
        return len(self.alive & self._members(team))

    def _members(self, team: Team) -> frozenset[int]:
        """A team's seats as dealt, the maniac who joined the mafia among the black (as :meth:`team`)."""
        if self.maniac_side != "black" or team not in (Team.BLACK, Team.MANIAC):
            return self.team_seats[team]
        return self.team_seats[Team.BLACK] | self.team_seats[Team.MANIAC] if team is Team.BLACK else frozenset()

    def _begin(self) -> None:
        self._begin_night()

    # ---- nights ------------------------------------------------------------------------------

    def _night_order(self) -> list[Step]:
        """Night 1: the roles show themselves, the maniac chooses a side. Later nights: mafia →
        Don → Sheriff (check or shoot) → maniac → Doctor (saves one of the victims)."""
        if self.night == 1:
            return [("action", "maniac", "join"), ("dawn",)]
        return [("shots", "black"), ("action", "don", "check"), ("action", "sheriff", "check", "kill"),
                ("action", "maniac", "kill"), ("action", "doctor", "heal"), ("dawn",)]

    def _on_night(self) -> None:
        self.victims = []

    def _shooters(self, team: str) -> tuple[int, ...]:
        """All mafia players, the Don included; never the maniac, who wakes on his own."""
        return tuple([s for s in self.alive_seats() if self.roles[s] in MAFIA_ROLES])

    def _targets(self, role: Role) -> tuple[int, ...] | None:
        return tuple(self.victims) if role is Role.DOCTOR else None

    def _join(self, request: AwaitAction, item: Join) -> None:
        self._check_actor(request, item, item.by, None)
        if item.side not in ("black", "solo"):
            raise IllegalInput(NoSuchSide(item.side))
        if item.by is not None:
            self.maniac_side = item.side
            self._emit(SideChosen(item.by, item.side))
        self._next_night_step()

    def _shoot(self, request: AwaitShots, shots: Shots) -> None:
        """The mafia agree on one player within 10 s, or «Мафия не договорилась»."""
        self._add_victim(self._resolve_shots(request, shots, request.shooters))
        self._next_night_step()

    def _add_victim(self, seat: int | None) -> None:
        if seat is not None and seat in self.alive and seat not in self.victims:
            self.victims.append(seat)

    def _check(self, request: AwaitAction, check: Check) -> None:
        """Don: yes for the Sheriff. Sheriff: yes for a mafia card (a maniac with the mafia is red to him)."""
        self._check_actor(request, check, check.by, check.target)
        if check.by is not None and check.target is not None:
            if request.role is Role.DON:
                result = self.roles[check.target] is Role.SHERIFF
            else:
                result = self.roles[check.target].team is Team.BLACK
            self._emit(check_answered(self.night, request.role, check.by, check.target, result))
        self._next_night_step()

    def _kill(self, request: AwaitAction, kill: Kill) -> None:
        """The Sheriff's shot (instead of a check) or the maniac's kill joins the night's victims."""
        self._check_actor(request, kill, kill.by, kill.target)
        if kill.by is not None and kill.target is not None:
            self._emit(ActionTaken(self.night, request.role, "kill", kill.by, kill.target, True))
            self._add_victim(kill.target)
        self._next_night_step()

    def _heal(self, request: AwaitAction, heal: Heal) -> None:
        """Each player can be saved once a game; an already-saved choice saves the other victim."""
        self._check_actor(request, heal, heal.by, heal.target)
        if heal.by is not None and heal.target is not None:
            saved = heal.target
            if saved in self.saved:
                saved = next((v for v in self.victims if v != heal.target and v not in self.saved), 0)
            if saved:
                self.saved.add(saved)
                self.victims.remove(saved)
                self._emit(Saved(self.night, saved, heal.target))
        self._next_night_step()

    # ---- days --------------------------------------------------------------------------------

    def _begin_day(self) -> None:
        """Testament of 30 s for the killed, except the Sheriff and black players (silent exit)."""
        self.phase = "day"
        self.day += 1
        self.raised = []
        killed = tuple([v for v in self.victims if v in self.alive])
        self._emit(morning_came(self.day, killed))
        speaking = [seat for seat in killed if not self._leaves_silently(seat)]
        self._eliminate_group(killed, "killed")  # the night's victims leave together
        self._apply_held()
        if self.is_over:
            return
        if self.day == 1:
            self._morning([], then="introduction")
        else:
            self._morning([(seat, "last_word") for seat in speaking], then="speeches")

    def _leaves_silently(self, seat: int) -> bool:
        return self.roles[seat] is Role.SHERIFF or self.team(seat) is Team.BLACK

    def _then_introduction(self) -> None:
        """«Знакомство начинаем с игрока под номером один»: 30 s each, from seat 1."""
        order = self.alive_seats()
        self._emit(DayBegan(self.day, order[0], order))
        self._queue([(seat, "intro") for seat in order], then="night")

    @classmethod
    def _turn_seconds(cls, ruleset: Ruleset, options: Options) -> dict[str, int]:
        """A killed player's last word is his testament; a voted-out player's is an option."""
        assert isinstance(options, ClubOptions)
        return {**super()._turn_seconds(ruleset, options), "last_word": ruleset.timers["testament_s"],
                "voted_word": options.last_word_s}

    def rotation(self) -> str:
        return self.options.rotation

    def full_last_word(self) -> int:
        return self.options.last_word_s

    def _then_speeches(self) -> None:
        """Day 2 (the first discussion) opens with seat 2, then the opener moves on as in sport."""
        order = self._speaking_order(2)
        self._emit(DayBegan(self.day, self.opener, order))
        self._queue([(seat, "speech") for seat in order], then="extra")

    def _raise_hand(self, request: AwaitSpeech, item: RaiseHand) -> None:
        """A raised hand during the round earns 30 s after everyone has spoken, once a day."""
        if request.turn != "speech" or item.seat not in self.alive:
            raise IllegalInput(NoHandsNow())
        if item.seat not in self.raised:
            self.raised.append(item.seat)
            self._emit(HandRaised(item.seat))

    def _then_extra(self) -> None:
        self._queue([(seat, "extra") for seat in self.raised], then="voting")

    def _then_voting(self) -> None:
        self._open_round("main", self.alive_seats(), self.alive_seats())


    def _count_votes(self, ballot: AwaitVotes, _: CloseVoting) -> None:
        """Option ``non_voter_foul``: a player who did not vote loses his vote (and gets a foul)."""
        counts = self._counts(ballot)
        missing = tuple([v for v in ballot.voters if v in self.alive and v not in self.votes])
        must_vote = ballot.round != "acquittal"
        self._emit(VotesCounted(self.day, ballot.round, tuple(counts.items()), ()))
        if must_vote and self.options.non_voter_foul:
            for voter in missing:
                if voter in self.alive and not self.is_over:
                    self._foul(voter, "did_not_vote")
        if self.is_over or self.request is not ballot:
            return
        {"main": self._after_main, "acquittal": self._after_acquittal, "revote": self._after_revote}[
            ballot.round](counts)

    def _after_main(self, counts: dict[int, int]) -> None:
        """One leader: a minute of defence and the acquittal revote (or out at once if he was
        acquitted before). Two: a minute each and a revote. Three or more: nobody leaves."""
        leaders = self.leaders(counts)
        if len(leaders) >= 3 or not any(counts.values()):
            self._all_stay("three_way_tie")
        elif len(leaders) == 2:
            self._emit(TieDeclared(self.day, leaders))
            self.top = leaders
            self._queue([(seat, "defence") for seat in leaders], then="revote")
        elif leaders[0] in self.acquitted:
            self._voted_out(leaders[0])
        else:
            self.top, self.first_count = leaders, counts[leaders[0]]
            self._queue([(leaders[0], "defence")], then="acquittal")

    def _then_acquittal(self) -> None:
        self._open_round("acquittal", self.top, self.alive_seats())

    def _then_revote(self) -> None:
        self._open_round("revote", self.top, self.alive_seats())

    def _after_acquittal(self, counts: dict[int, int]) -> None:
        seat = self.top[0]
        if counts[seat] < self.first_count:
            self.acquitted.add(seat)
            self._emit(Acquitted(self.day, seat))
            self._end_day()
        else:
            self._voted_out(seat)

    def _after_revote(self, counts: dict[int, int]) -> None:
        """Decision: a repeat tie between the two leaves both in the game."""
        leaders = self.leaders(counts)
        if len(leaders) == 1:
            self._voted_out(leaders[0])
        else:
            self._all_stay("repeat_tie")

    def _all_stay(self, reason: str) -> None:
        self._emit(AllStay(self.day, reason))
        self._end_day()

    def _voted_out(self, seat: int) -> None:
        """Option ``last_word_s`` (0: none, as the club rules give none: docs/rules.md, `club`)."""
        self._eliminate(seat, "voted")
        if self.is_over:
            return
        words: list[tuple[int, Queued]] = [(seat, "voted_word")] if self.options.last_word_s else []
        self._queue(words, then="night")

    def _then_night(self) -> None:
        self._end_day()

    def _end_day(self) -> None:
        self._nightfall()

    # ---- removal and the end ---------------------------------------------------------------

    def _voting_now(self, request: object) -> bool:
        return isinstance(request, AwaitVotes) or self.after_turns in ("acquittal", "revote")

    def _vote_interrupted(self, request: object) -> None:
        """The whole vote starts again without him."""
        self.turns = []
        self._emit(NoVote(self.day, "restarted"))
        self._then_voting()

    def _winner(self) -> Outcome | None:
        """In this order: a lone maniac with at most one other player; red with no black and no
        lone maniac; black at parity (a lone maniac is on neither side)."""
        lone_maniac = self._count(Team.MANIAC) > 0
        black, red = self._count(Team.BLACK), self._count(Team.RED)
        if lone_maniac and len(self.alive) <= 2:
            return Outcome("maniac", "maniac_last_two")
        if black == 0 and not lone_maniac:
            return Outcome("red", "no_black_left")
        if black >= red and black > 0:
            return Outcome("black", "black_parity")
        return None


ClubGame.handlers = with_pauses({
    (Join, AwaitAction): ClubGame._join,
    (Shots, AwaitShots): ClubGame._shoot,
    (Check, AwaitAction): ClubGame._check,
    (Kill, AwaitAction): ClubGame._kill,
    (Heal, AwaitAction): ClubGame._heal,
    (Dawn, AwaitDawn): ClubGame._dawn,
    (EndSpeech, AwaitSpeech): ClubGame._end_speech,
    (RaiseHand, AwaitSpeech): ClubGame._raise_hand,
    (Vote, AwaitVotes): ClubGame._vote,
    (CloseVoting, AwaitVotes): ClubGame._count_votes,
})
