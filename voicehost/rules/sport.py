"""``sport``: the tournament ruleset (docs/rules.md, `sport`). Every rule of that section lives in one method here.

Flow: night 1 (acquaintance, no actions) → day (morning, last word of the killed,
speeches with nominations, voting) → night (shooting count, Don check, Sheriff check)
→ day … until :meth:`SportGame._winner` or a technical result ends it.
"""

from __future__ import annotations

from .catalog import find_variant
from .errors import (
    BestMoveSeats,
    IllegalInput,
    NoBestMoveFor,
    NoBestMoveYet,
    NoReasonGiven,
    NoSuchSeat,
    NotAVoter,
    PointsOutOfRange,
    TournamentOptionOff,
)
from .events import (
    AllStay,
    BestMoveNamed,
    DayBegan,
    LiftAsked,
    LiftCounted,
    NominationWithdrawn,
    NoVote,
    PointsGiven,
    TieDeclared,
    VotesCounted,
    WithdrawalRefused,
    check_answered,
    morning_came,
    nomination_accepted,
    nomination_refused,
    vote_ignored,
)
from .flow import CountedVote, Given, Queued, Step, TableGame, with_pauses
from .game import Outcome
from .inputs import BestMove, Check, CloseVoting, Dawn, EndSpeech, JudgePoints, Lift, Nominate, Shots, Vote, Withdraw
from .options import Options, SportOptions
from .requests import (
    AwaitAction,
    AwaitDawn,
    AwaitDeal,
    AwaitLift,
    AwaitShots,
    AwaitSpeech,
    AwaitVotes,
    Request,
    Turn,
)
from .roles import TEAM_NAMES, Role, Team
from .ruleset import HostLines, Ruleset
from .scoring import GameFacts, SeatFacts, score_game

FIRST_SHOOTING_NIGHT = 2      # night 1 is the acquaintance (no shots)
BEST_MOVE_SEATS = 3          # «лучший ход»: at most three seats named
JUDGE_POINTS_LIMIT = 500     # the judge's bonus or penalty, in hundredths: at most 5 points either way


class SportGame(TableGame):
    name = "sport"
    night_actions = {"shots": frozenset({Role.DON, Role.MAFIA}), "check": frozenset({Role.DON, Role.SHERIFF})}
    day_keys = frozenset({"speeches", "votes", "revote", "lift", "fouls", "removals"})
    required_timers = find_variant("sport").timers
    options: SportOptions

    nominating_turns = frozenset({"speech", "silent", "short"})
    # Night 1 is the acquaintance, said step by step; a quiet later morning means the mafia missed.
    lines = HostLines(first_dawn=("mafia_acquaint", "mafia_sleeps", "don_wakes", "don_sleeps", "sheriff_meets",
                                  "sheriff_sleeps"),
                      shots="mafia_hunts", first_morning="morning", quiet_morning="morning_missed",
                      candidates_named=2, counts_said=True)

    def _reset(self) -> None:
        super()._reset()
        self.nominations: list[tuple[int, int]] = []
        self.penalized: set[int] = set()
        self.vote_over = False
        self.vote_cancelled = False
        self.day_split = False
        self.tied: tuple[int, ...] = ()
        self.lifts: set[int] = set()
        self.night_target: int | None = None
        self.misses = 0
        self.split_days = 0
        self.first_killed = 0  # the first player to leave, killed at night: his best move (0: none yet)
        self.first_killed_night = 0
        self.best_move: tuple[int, ...] = ()
        self.judge_points: list[tuple[int, int, str]] = []  # (seat, hundredths, reason), in the order given
        self.removed: set[int] = set()  # seats the judge (or a 4th foul) removed
        self.quiet_rounds = 0  # days and nights in a row without anyone leaving
        self.alive_at_morning = 0

    def _begin(self) -> None:
        self._begin_night()

    # ---- night ------------------------------------------------------------------------

    def _night_order(self) -> list[Step]:
        """Night 1 is the acquaintance (no shooting, no checks); later nights shoot, then check."""
        if self.night == 1:
            return [("dawn",)]
        return [("shots", "black"), ("action", "don", "check"), ("action", "sheriff", "check"), ("dawn",)]

    def _on_night(self) -> None:
        self.night_target = None

    def _called(self) -> tuple[int, ...]:
        """Option ``call_dead_seats``: the shooting count calls every seat, or only the alive."""
        return tuple(range(1, self.seats + 1)) if self.options.call_dead_seats else self.alive_seats()

    def _shoot(self, request: AwaitShots, shots: Shots) -> None:
        """Consensus: every alive black player tapped exactly once, all on the same alive seat."""
        self.night_target = self._resolve_shots(request, shots, request.shooters)
        self._next_night_step()

    def _check(self, request: AwaitAction, check: Check) -> None:
        """Don: yes if the target is the Sheriff. Sheriff: yes if the target is black."""
        self._check_actor(request, check, check.by, check.target)
        if check.target is not None and check.by is not None:
            if request.role is Role.DON:
                result = self.roles[check.target] is Role.SHERIFF
            else:
                result = self.team(check.target) is Team.BLACK
            self._emit(check_answered(self.night, request.role, check.by, check.target, result))
        self._next_night_step()

    # ---- morning and speeches ------------------------------------------------------

    def _begin_day(self) -> None:
        self.phase = "day"
        self.day += 1
        self.nominations = []
        self.vote_over = self.vote_cancelled = self.day_split = False
        killed = (self.night_target,) if self.night_target in self.alive else ()
        self._emit(morning_came(self.day, killed))
        if self.night > 1:
            self.misses = 0 if self.night_target is not None else self.misses + 1
        if killed and len(self.alive) == self.seats:
            self.first_killed, self.first_killed_night = killed[0], self.night
        self._eliminate_group(killed, "killed")
        self._apply_held()  # the night's fouls and removals, after its victims
        if self.is_over:
            return
        limit = self.options.misses_to_lose
        if limit and self.misses >= limit:
            self._finish(Outcome("red", "three_misses", self.misses))
            return
        if self._quiet_draw():
            return
        self._morning([(seat, "last_word") for seat in killed], then="speeches")

    def _quiet_draw(self) -> bool:
        """Option ``quiet_rounds_to_draw``: that many days and nights in a row (each a day and the
        night after it, counted at the morning) without anyone leaving end the game as a draw.
        Seed 001's ``misses_to_lose`` is checked first: three misses win for red."""
        alive = len(self.alive)
        if self.day > 1:
            self.quiet_rounds = self.quiet_rounds + 1 if alive == self.alive_at_morning else 0
        self.alive_at_morning = alive
        limit = self.options.quiet_rounds_to_draw
        if limit and self.quiet_rounds >= limit:
            self._finish(Outcome("nobody", "quiet_draw", self.quiet_rounds))
            return True
        return False

    def _then_speeches(self) -> None:
        order = self._speaking_order(1)
        self._emit(DayBegan(self.day, self.opener, order))
        self._queue([(seat, "speech") for seat in order], then="voting")

    @classmethod
    def _turn_seconds(cls, ruleset: Ruleset, options: Options) -> dict[str, int]:
        """A tie speech and a penalized speech have timers of their own; the last word's length
        is an option."""
        assert isinstance(options, SportOptions)
        timers = ruleset.timers
        return {"speech": timers["speech_s"], "tie": timers["tie_speech_s"], "short": timers["short_speech_s"],
                "silent": timers["silent_turn_s"], "last_word": options.last_word_s}

    def rotation(self) -> str:
        return self.options.rotation

    def full_last_word(self) -> int:
        return self.options.last_word_s

    def _turn_length(self, seat: int, kind: Queued) -> tuple[Turn, int]:
        """The 3rd foul (option ``three_fouls``): the next speech is silent (only nominations),
        or 30 s with 3–4 players alive; a last word right after it shrinks to 30 s."""
        turn, seconds = super()._turn_length(seat, kind)
        if turn == "tie" or seat not in self.penalized:
            return turn, seconds
        penalty = self.options.three_fouls
        if penalty == "none":
            return turn, seconds
        self.penalized.discard(seat)
        if turn == "last_word":
            return turn, min(seconds, self.turn_seconds["short"])
        if penalty == "lose_speech" and len(self.alive) > 4:
            return "silent", self.turn_seconds["silent"]
        return "short", self.turn_seconds["short"]

    def _after_foul(self, seat: int, count: int) -> None:
        if count == 3:
            self.penalized.add(seat)

    # ---- nominations -----------------------------------------------------------------

    def _nominate(self, turn: AwaitSpeech, item: Nominate) -> None:
        """Options ``nomination`` (first/last stands) and ``self_nomination``; one per speaker a day."""
        by, target = item.by, item.target
        reason = self._nomination_refusal(turn, by, target)
        own = self._standing_nomination(by)
        if reason is None and own is not None:
            if self.options.nomination == "first":
                reason = "one_per_speech"
            else:
                self.nominations.remove((by, own))
                self._emit(NominationWithdrawn(by, own))
        if reason is not None:
            self._emit(nomination_refused(by, target, reason))
            return
        self.nominations.append((by, target))
        self._emit(nomination_accepted(by, target))

    def _nomination_refusal(self, turn: AwaitSpeech, by: int, target: int) -> str | None:
        if not turn.may_nominate:
            return "no_nominations_now"
        if by != turn.seat:
            return "not_your_turn"
        if not 1 <= target <= self.seats:
            return "not_a_seat"
        if target not in self.alive:
            return "seat_out"
        if target == by and not self.options.self_nomination:
            return "self_nomination"
        for _, nominee in self.nominations:
            if nominee == target:
                return "already_nominated"
        return None

    def _standing_nomination(self, by: int) -> int | None:
        for nominator, nominee in self.nominations:
            if nominator == by:
                return nominee
        return None

    def _withdraw(self, turn: AwaitSpeech, item: Withdraw) -> None:
        by, target = item.by, item.target
        if by != turn.seat or not turn.may_nominate:
            self._emit(WithdrawalRefused(by, target, "not_your_turn"))
        elif self._standing_nomination(by) != target:
            self._emit(WithdrawalRefused(by, target, "not_yours"))
        else:
            self.nominations.remove((by, target))
            self._emit(NominationWithdrawn(by, target))

    # ---- voting ------------------------------------------------------------------------

    def _then_voting(self) -> None:
        self._begin_voting()

    def _begin_voting(self) -> None:
        """No candidate, or one on day 1: no vote. One on a later day is a vote like any other, with
        no window: every vote goes to the last (the only) candidate, after the judge had his say."""
        candidates = tuple([nominee for _, nominee in self.nominations if nominee in self.alive])
        if self.vote_cancelled:
            self._no_vote("cancelled")
        elif not candidates:
            self._no_vote("no_candidates")
        elif len(candidates) == 1 and self.day == 1:
            self._no_vote("single_on_day_one")
        else:  # a single candidate on a later day is a vote too: every vote is his (the last one's)
            self._open_round("main", candidates, self.alive_seats())

    def _no_vote(self, reason: str) -> None:
        self.vote_over = True
        self._emit(NoVote(self.day, reason))
        self._end_day()


    def windowed(self, ballot: AwaitVotes) -> tuple[int, ...]:
        """Non-voters' votes go to the last candidate, so the host never opens his window."""
        return ballot.candidates[:-1]

    def non_voters_go_to(self, ballot: AwaitVotes) -> tuple[int, Given] | None:
        """Non-voters' votes go to the last candidate."""
        return ballot.candidates[-1], "last_candidate"

    def counted_votes(self, ballot: AwaitVotes) -> tuple[CountedVote, ...]:
        """Every alive voter counts: his own vote, or the last candidate's (:meth:`non_voters_go_to`)."""
        voters = [v for v in ballot.voters if v in self.alive]
        to = self.non_voters_go_to(ballot)
        assert to is not None
        return (*[CountedVote(v, self.votes[v]) for v in voters if v in self.votes],
                *[CountedVote(v, to[0], 1, to[1]) for v in voters if v not in self.votes])

    def _count_votes(self, ballot: AwaitVotes, _: CloseVoting) -> None:
        """Non-voters' votes go to the last candidate; a tie leads to speeches and a revote."""
        counted = self.counted_votes(ballot)  # once: the count and its defaulted voters from the same votes
        counts = self._counts(ballot, counted)
        defaulted = tuple([vote.voter for vote in counted if vote.given])
        self._emit(VotesCounted(self.day, ballot.round, tuple(counts.items()), defaulted))
        top = max(counts.values())
        leaders = tuple([c for c in ballot.candidates if counts[c] == top])
        if len(leaders) == 1:
            self._voted_out(leaders)
        elif ballot.round == "main":
            self.tied = leaders
            self._emit(TieDeclared(self.day, leaders))
            self._queue([(seat, "tie") for seat in leaders], then="revote")
        else:
            self._repeat_tie(leaders)

    def _then_revote(self) -> None:
        """Option ``tied_vote_in_revote``: whether the tied players vote in the revote."""
        voters = self.alive_seats()
        if not self.options.tied_vote_in_revote:
            voters = tuple([v for v in voters if v not in self.tied])
        self._open_round("revote", self.tied, voters)

    def _repeat_tie(self, leaders: tuple[int, ...]) -> None:
        """At four players (option ``split_at_four = stay``) all stay; else «все покидают?»."""
        if len(self.alive) == 4 and self.options.split_at_four == "stay":
            self._all_stay("four_players")
            return
        self.lifts = set()
        self.request = AwaitLift(self.day, leaders, self.alive_seats())
        self._emit(LiftAsked(self.day, leaders))

    def _lift(self, ask: AwaitLift, item: Lift) -> None:
        voter = item.voter
        if voter not in ask.voters or voter not in self.alive:
            raise IllegalInput(NotAVoter(voter))
        if voter in self.lifts:
            self._emit(vote_ignored(voter, 0, "second_vote"))
            self._foul(voter, "second_vote")
            return
        self.lifts.add(voter)

    def _count_lift(self, ask: AwaitLift, _: CloseVoting) -> None:
        """All leave only with yes from more than half of the alive players."""
        yes = len(self.lifts & self.alive)
        needed = len(self.alive) // 2 + 1
        self._emit(LiftCounted(self.day, yes, needed, yes >= needed))
        if yes >= needed:
            self._voted_out(ask.candidates)
        else:
            self._all_stay("lift_failed")

    def _all_stay(self, reason: str) -> None:
        self.day_split = True
        self.vote_over = True
        self._emit(AllStay(self.day, reason))
        self._end_day()

    def _voted_out(self, seats: tuple[int, ...]) -> None:
        """One player, or all the tied after a passed «все покидают»: one group."""
        self.vote_over = True
        self._eliminate_group(seats, "voted")
        if self.is_over:
            return
        self._queue([(seat, "last_word") for seat in seats], then="night")

    def _then_night(self) -> None:
        self._end_day()

    def _end_day(self) -> None:
        """Technical result: three days in a row ending in a repeat tie at 3–4 players → black."""
        if self.day_split and len(self.alive) <= 4:
            self.split_days += 1
        else:
            self.split_days = 0
        if self.split_days >= 3:
            self._finish(Outcome("black", "split_deadlock", self.split_days))
            return
        self._nightfall()

    # ---- removal and the end ------------------------------------------------------------

    def _remove(self, seat: int, reason: str) -> None:
        """Kept for the scores: a removed player forfeits his win (option ``removal_forfeits``)."""
        self.removed.add(seat)
        super()._remove(seat, reason)

    def _removed_by_day(self, seat: int) -> None:
        """A removal during a day, before its vote is over, cancels that day's vote (option
        ``removal_cancels_vote``; otherwise the vote restarts without him)."""
        if not self.vote_over and self.options.removal_cancels_vote:
            self.vote_cancelled = True

    def _voting_now(self, request: object) -> bool:
        return not self.vote_over and (isinstance(request, (AwaitVotes, AwaitLift)) or self.after_turns == "revote")

    def _vote_interrupted(self, request: object) -> None:
        self.turns = []
        self._begin_voting()

    def _winner(self) -> Outcome | None:
        black, red = self._count(Team.BLACK), self._count(Team.RED)
        if black == 0:
            return Outcome("red", "no_black_left")
        if black >= red:
            return Outcome("black", "black_parity")
        return None

    # ---- tournament scoring: the best move and the judge's points ------------------------------

    def _best_move(self, _: Request | None, item: BestMove) -> None:
        """Option ``best_move`` («лучший ход»): the first player to leave the game, if the night
        killed him, names one to three other seats (at his last word). Named again, the new
        seats stand; also after the game is over. Scored by :meth:`best_move_black`."""
        if not self.options.best_move:
            raise IllegalInput(TournamentOptionOff("best_move"))
        if self.first_killed == 0:
            raise IllegalInput(NoBestMoveYet())
        if item.by != self.first_killed:
            raise IllegalInput(NoBestMoveFor(item.by))
        seats = item.seats
        if (not 1 <= len(seats) <= BEST_MOVE_SEATS or len(set(seats)) != len(seats)
                or any([type(s) is not int or not 1 <= s <= self.seats or s == item.by for s in seats])):
            raise IllegalInput(BestMoveSeats(seats))
        self.best_move = seats
        self._emit(BestMoveNamed(item.by, seats))

    def best_move_black(self) -> int:
        """How many of the best move's seats are black (0: no best move)."""
        return len([seat for seat in self.best_move if self.team(seat) is Team.BLACK])

    def _judge_points(self, _: Request | None, item: JudgePoints) -> None:
        """Option ``judge_points``: the judge's bonus (above 0) or penalty (below 0) for any seat,
        in or out of the game, with a reason, also after the game is over (never changing its
        outcome); each counts in the seat's points at the end."""
        if not self.options.judge_points:
            raise IllegalInput(TournamentOptionOff("judge_points"))
        if not 1 <= item.seat <= self.seats:
            raise IllegalInput(NoSuchSeat(item.seat))
        if item.hundredths == 0 or abs(item.hundredths) > JUDGE_POINTS_LIMIT:
            raise IllegalInput(PointsOutOfRange(shown_points(abs(item.hundredths)), shown_points(JUDGE_POINTS_LIMIT)))
        if not item.reason.strip():
            raise IllegalInput(NoReasonGiven())
        self.judge_points.append((item.seat, item.hundredths, item.reason))
        self._emit(PointsGiven(item.seat, item.hundredths, item.reason))

    def judge_total(self, seat: int) -> int:
        """The judge's points for ``seat``, in hundredths."""
        return sum([hundredths for given, hundredths, _ in self.judge_points if given == seat])

    def scores(self) -> dict[int, float]:
        """Option ``scoring``: ``seed001`` (alive, team won, Don/Sheriff alive), «SHOWTIME» or the
        tournament's, through the one scoring function (:func:`voicehost.rules.scoring.score_game`);
        the best move, the judge's points and a removal count under any scheme. The table's
        best-player vote (``seed001``: +2) comes after the game: the club records add it."""
        outcome = self._outcome
        scored = score_game(self.ruleset.scoring[self.options.scoring], self.scoring_facts(
            outcome.winner if outcome is not None else None))
        return {seat: scored[seat].total for seat in range(1, self.seats + 1)}

    def scoring_facts(self, winner: str | None) -> GameFacts:
        """What this game decided, as the scoring reads it (night 1 is the acquaintance: the
        first shooting night is night 2)."""
        return GameFacts(winner, tuple(self._seat_facts(seat) for seat in range(1, self.seats + 1)),
                         self.first_killed or None, self.best_move_black(),
                         {seat: self.judge_total(seat) / 100 for seat, _h, _r in self.judge_points},
                         FIRST_SHOOTING_NIGHT, forfeits_option=self.options.removal_forfeits)

    def _seat_facts(self, seat: int) -> SeatFacts:
        role = self.roles.get(seat, Role.CITIZEN)
        killed = seat == self.first_killed
        return SeatFacts(seat, role, TEAM_NAMES[self.team(seat) if seat in self.roles else role.team],
                         seat in self.alive, "removed" if seat in self.removed else "killed" if killed else None,
                         self.first_killed_night if killed else None, self.fouls.get(seat, 0))


def shown_points(hundredths: int) -> str:
    """Hundredths of a point as a person writes them: 25 → ``0.25``, 100 → ``1``, -50 → ``-0.5``."""
    sign = "-" if hundredths < 0 else ""
    whole, part = divmod(abs(hundredths), 100)
    return f"{sign}{whole}" + (f".{part:02d}".rstrip("0") if part else "")


SportGame.handlers = with_pauses({
    (Shots, AwaitShots): SportGame._shoot,
    (Check, AwaitAction): SportGame._check,
    (Dawn, AwaitDawn): SportGame._dawn,
    (Nominate, AwaitSpeech): SportGame._nominate,
    (Withdraw, AwaitSpeech): SportGame._withdraw,
    (EndSpeech, AwaitSpeech): SportGame._end_speech,
    (Vote, AwaitVotes): SportGame._vote,
    (Lift, AwaitLift): SportGame._lift,
    (CloseVoting, AwaitVotes): SportGame._count_votes,
    (CloseVoting, AwaitLift): SportGame._count_lift,
    # The best move and the judge's points come at any moment after the deal, and after the game
    # (request None): the judge often gives them once it is over; they change scores, never the outcome.
    **{(BestMove, request): SportGame._best_move for request in (*Request.__args__, type(None))
       if request is not AwaitDeal},
    **{(JudgePoints, request): SportGame._judge_points for request in (*Request.__args__, type(None))
       if request is not AwaitDeal},
})
