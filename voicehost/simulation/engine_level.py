"""Playing a table script: the script says what people would do if asked; the player walks
the game's requests and works out, from the matching part of the script, what the people do
— as :class:`Act` s. Entries the game never asks for are reported under ``ignored`` with their
place.

The acts come from one generator, :meth:`ScriptPlayer.acts`, and two drivers carry them out:
:meth:`ScriptPlayer.play` pushes each act's input straight into the engine (the engine level);
:mod:`voicehost.simulation.table_level` makes the people at a simulated table do them — taps, presses,
words — for the live :class:`~voicehost.host.director.Director` to capture (the table level).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar, Literal

from voicehost.host.journal import Journal, JournalEntry, Source
from voicehost.i18n import _
from voicehost.language.intents import EndIntent, NominateIntent, WithdrawIntent
from voicehost.language.parser import normalize, parse
from voicehost.rules import Game, IllegalInput, InputError, new_game
from voicehost.rules.flow import NIGHT_REQUESTS, request_night
from voicehost.rules.inputs import (
    ACTIONS,
    BloodName,
    CloseVoting,
    Dawn,
    Deal,
    Foul,
    Input,
    Join,
    Lift,
    Nominate,
    Proceed,
    RaiseHand,
    Remove,
    Shots,
    Withdraw,
    end_speech,
    nominate,
    vote,
)
from voicehost.rules.records import quicken
from voicehost.rules.requests import (
    AwaitAction,
    AwaitDawn,
    AwaitLift,
    AwaitMorning,
    AwaitNightfall,
    AwaitShots,
    AwaitSpeech,
    AwaitVotes,
    Request,
    Round,
    Turn,
)
from voicehost.simulation.script import Day, Script, ScriptNight


@dataclass
class Simulation:
    """The finished game, plus what the script said that was never asked for."""

    script: Script
    game: Game
    ignored: list[dict[str, str]] = field(default_factory=list)
    table: Any = None   # the table level's record of public outputs (voicehost.simulation.table_level.TableRecord)


# How a person at the table does an act (``Act.via``).
Via = Literal["deal", "taps", "vote", "lift", "hand", "words", "heard", "answer", "console", "host"]


@dataclass(frozen=True)
class Act:
    """One thing a person at the table does: the input it must become and how it happens.

    ``via`` (one of :data:`Via`): ``deal`` (the cards), ``taps`` (a night tap while the host
    counts), ``vote`` and ``lift`` (a thumb in a window), ``hand`` (a held button), ``words``
    (said in a speech — the director parses them; the intents the player expects follow as
    ``heard`` acts), ``heard`` (an input the director takes from words already said),
    ``answer`` (a name or number said when asked for one), ``console`` (typed by the judge),
    ``host`` (the host's own step: the end of a speech, closing a vote, dawn). ``source``: who
    the journal says gave the input (:data:`~voicehost.host.journal.Source`)."""

    via: Via
    item: Input | None = None
    source: Source = "host"
    words: str = ""


quicken(Act)


# The acts a table does again and again, each built once: made from the seats alone, they skip
# hashing an input in Python, as interning the Act itself would.
@lru_cache(maxsize=4096)
def speech_ends(seat: int) -> Act:
    """The host ends seat's turn (his time is up, or he said «спасибо»)."""
    return Act("host", end_speech(seat), "ears")


@lru_cache(maxsize=4096)
def thumb(voter: int, candidate: int) -> Act:
    """A voter's thumb in a candidate's window."""
    return Act("vote", vote(voter, candidate), "seats")


DAWN_INPUT, PROCEED_INPUT = Dawn(), Proceed()
DAWN, PROCEED, CLOSE = Act("host", DAWN_INPUT), Act("host", PROCEED_INPUT), Act("host", CloseVoting(), "seats")

Acts = Generator[list[Act], None, None]


@lru_cache(maxsize=4096)
def heard(text: str, seat: int) -> tuple[Act, ...]:
    """The nominations and withdrawals the director hears when ``seat`` says ``text`` in a
    turn that takes them. Scripts say the same few phrases over and over: each is parsed once."""
    return tuple(Act("heard", nominate(seat, intent.seat) if isinstance(intent, NominateIntent)
                     else Withdraw(seat, intent.seat), "ears")
                 for intent in parse(text) if isinstance(intent, (NominateIntent, WithdrawIntent)))


def simulate(script: Script, journal: Journal | None = None, replayed: list[JournalEntry] | None = None) -> Simulation:
    """Play ``script`` through the engine.

    With a ``journal`` every input is on disk before anything follows from it. ``replayed`` (from a
    journal being resumed) are the inputs already taken: the play is deterministic, so it
    runs again from the start, checks each input against the journal instead of writing
    it, and carries on writing after the last one — the exact state, bookkeeping included.
    """
    return ScriptPlayer(script, journal, replayed or []).play()


def phase_index(game: Game, request: Request) -> int:
    """Night n → 2n-2, day d → 2d-1: the order phases happen in."""
    night = request_night(request)
    return 2 * game.day - 1 if night is None else 2 * night - 2


# Turns whose words come from the script's ``speeches``.
SPOKEN_TURNS: frozenset[Turn] = frozenset({"speech", "silent", "short"})
# Turns that ask the speaker for a name (the answer ends the turn).
ASKED_TURNS: frozenset[Turn] = frozenset({"nominate", "blood_name"})

# A voting round → the day key of the script that answers it.
ROUND_KEYS: dict[Round, str] = {"main": "votes", "final": "votes", "revote": "revote", "acquittal": "revote",
                                "prevote": "prevote", "mayor": "mayor"}



class ScriptPlayer:
    """Walks its game's requests and yields what the script's people do (:meth:`acts`); at
    the engine level it also pushes them (:meth:`play`)."""

    # Whether the engine level may answer a request without :meth:`_answer` (see :meth:`_play_bare`):
    # not for a player that decides in it (the script inventor writes the script there).
    answers_directly: ClassVar[bool] = True

    def __init__(self, script: Script, journal: Journal | None = None,
                 replayed: list[JournalEntry] | None = None) -> None:
        self.script = script
        self.journal = journal
        self.replayed = replayed or []
        self.journal_name = str(journal.path) if journal is not None else "journal"
        self.game = new_game(script.ruleset, script.options, script.seats)
        self.game.names = dict(script.names)
        self.used: set[str] = set()
        self.reasons: dict[str, str] = {}
        self.not_taken: dict[str, list[str]] = {}  # what a used entry said that the host does not take
        self.horizon = max(2 * len(script.nights) - 2, 2 * len(script.days) - 1, 0)
        self.started: set[int] = set()
        self.voting_seen: set[int] = set()
        self.after_vote_done: set[int] = set()
        self.hands_raised: set[int] = set()
        self.words_heard = True  # the words said, as acts of their own: for a table that listens

    # ---- the engine level: every act's input pushed as it comes -------------------------------

    def play(self) -> Simulation:
        """The engine level has nobody who listens: the words said are not acts of their own
        (only the inputs the director would hear in them are)."""
        self.words_heard = False
        if self.journal is None and not self.replayed and self.answers_directly:
            self._play_bare()
        else:
            drive(self.acts(), self.push_batch)
        return self.finish()

    def _play_bare(self) -> None:
        """:meth:`acts` carried out as it goes, for a game with no journal to write or check
        (every script, replay and benchmark at the engine level): the same requests answered by
        the same generators, but the answers that are one fixed input (the end of a turn the
        script says nothing in, dawn, the host's «proceed») are pushed at once, and each
        request's generator is driven on its own, not through an outer one (a generator
        resumed at every act cost a fifth of a script's time)."""
        game, started, push = self.game, self.started, self.push_batch
        game.take(Deal(self.script.roles))
        while (request := game.request) is not None:
            kind = type(request)
            index = 2 * request.night - 2 if kind in NIGHT_REQUESTS else 2 * game.day - 1  # type: ignore[union-attr]
            if index > self.horizon:
                return
            if index not in started:
                started.add(index)
                drive(self._phase_start(request), push)
                if game.request is not request:
                    continue
            if kind is AwaitSpeech:
                day = self._day()
                if self._only_ends(request, day):  # type: ignore[arg-type]
                    game.take(end_speech(request.seat))  # type: ignore[union-attr]
                else:
                    drive(self._speech(request, day), push)  # type: ignore[arg-type]
            elif kind is AwaitDawn:
                game.take(DAWN_INPUT)
            elif kind is AwaitMorning:
                game.take(PROCEED_INPUT)
            else:  # votes, shots, a night action, nightfall, the lift: each a generator
                drive(self._answer(request), push)  # type: ignore[arg-type]

    def push_batch(self, batch: list[Act]) -> None:
        game = self.game
        request = game.request
        bare = self.journal is None and not self.replayed   # nothing to check or write: straight in
        if bare and len(batch) == 1:  # most batches: one act, and nothing left to stop
            item = batch[0].item
            if item is not None:
                game.take(item)
            return
        for act in batch:
            item = act.item
            if item is not None:
                if bare:
                    game.take(item)
                else:
                    self.push(item, act.source)
            if game.request is not request and game.request != request:  # `is`: most acts change nothing
                return

    def _asks(self, request: Request) -> bool:
        """Whether the game still asks for ``request``: the same one, most often (an identity,
        where ``==`` would call the records' Python-level comparison), or an equal one."""
        current = self.game.request
        return current is request or current == request

    @property
    def pushed(self) -> int:
        """How many inputs the game has taken so far."""
        return len(self.game.inputs)

    def push(self, item: Input, source: Source = "script") -> None:
        """Every input goes through here: checked against the journal being resumed, or — once
        the game took it (it may refuse a judge's foul) — journaled, before anything follows.
        (A game with neither takes its inputs straight from :meth:`push_batch`.)"""
        index = len(self.game.inputs)
        self.game.push(item)
        if index < len(self.replayed) and self.replayed[index].input != item:
            raise InputError(self.journal_place(index), _("the journal has {input}, the script now gives {item}: "
                                                          "not the same game").format(
                                                            input=self.replayed[index].input, item=item))
        if index >= len(self.replayed) and self.journal is not None:
            self.journal.append(index, 0.0, source, item)

    def journal_place(self, index: int) -> str:
        """Where the journal being resumed holds input ``index``: its file and line."""
        name = self.journal_name
        return f"{name}:{self.replayed[index].record}" if index < len(self.replayed) else str(name)

    def finish(self) -> Simulation:
        if self.pushed < len(self.replayed):
            extra = self.replayed[self.pushed].input
            raise InputError(self.journal_place(self.pushed),
                             _("the journal goes on ({extra}) where the script stops: not the same game").format(
                                 extra=extra))
        ignored = []
        used, reasons, not_taken = self.used, self.reasons, self.not_taken
        for place in self.script.places:  # a few dozen a game, nearly all used
            if place not in used:
                ignored.append({"at": place, "why": reasons.get(place, "not asked for")})
            if place in not_taken:  # (rare: a word the host does not take)
                ignored.extend({"at": place, "why": why} for why in not_taken[place])
        return Simulation(self.script, self.game, ignored)

    # ---- what the people do ------------------------------------------------------------------

    def acts(self) -> Acts:
        yield [Act("deal", Deal(self.script.roles), "deal")]
        game, started = self.game, self.started
        while (request := game.request) is not None:
            # phase_index, inlined: once per request
            index = 2 * request.night - 2 if type(request) in NIGHT_REQUESTS else 2 * game.day - 1  # type: ignore[union-attr]
            if index > self.horizon:
                break
            if index not in started:
                started.add(index)
                yield from self._phase_start(request)
                if self.game.request is not request:
                    continue
            yield from self._answer(request)

    def _answer(self, request: Request) -> Iterable[list[Act]]:
        """What the people do for ``request``: the generator that works it out (a plain
        function, not one more generator in the chain every act passes through)."""
        kind = type(request)   # exact types: requests are final dataclasses
        if kind is AwaitSpeech:
            day = self._day()
            if self._only_ends(request, day):  # type: ignore[arg-type]
                return ([speech_ends(request.seat)],)  # type: ignore[union-attr]
            return self._speech(request, day)  # type: ignore[arg-type]
        if kind is AwaitVotes:
            return self._votes(request, self._day())  # type: ignore[arg-type]
        if kind is AwaitShots:
            return self._shots(request, self._night(request.night))  # type: ignore[arg-type,union-attr]
        if kind is AwaitAction:
            return self._action(request, self._night(request.night))  # type: ignore[arg-type,union-attr]
        if kind is AwaitDawn:
            return ([DAWN],)
        if kind is AwaitMorning:
            return ([PROCEED],)
        if kind is AwaitNightfall:
            return self._nightfall(request)  # type: ignore[arg-type]
        if kind is AwaitLift:
            return self._lift(request, self._day())  # type: ignore[arg-type]
        raise AssertionError(request)  # AwaitDeal cannot come back after the deal

    def _nightfall(self, request: AwaitNightfall) -> Acts:
        yield from self._after_vote(self._day())
        if self._asks(request):
            yield [PROCEED]

    def _phase_start(self, request: Request) -> Acts:
        number = request_night(request)
        if number is not None:
            night = self._night(number)
            for seat, place in night.fouls:
                yield from self._console(Foul(seat), place)
        else:
            yield from self._timed(self._day(), at="morning")

    def _night(self, number: int) -> ScriptNight:
        nights = self.script.nights
        return nights[number - 1] if number <= len(nights) else ScriptNight()

    def _day(self) -> Day:
        days = self.script.days
        return days[self.game.day - 1] if 1 <= self.game.day <= len(days) else Day()

    def _shots(self, request: AwaitShots, night: ScriptNight) -> Acts:
        taps = []
        for shooter, targets in night.shots.items():
            place = f"nights[{request.night - 1}].shots.{shooter}"
            # A tap lands on a number the host calls, and the host calls in order: taps listed
            # high-to-low (or twice on one number) are the taps a table would read.
            called = tuple(sorted((t for t in targets if t in request.called), key=request.called.index))
            if shooter not in request.shooters:
                self.reasons[place] = f"seat {shooter} is out"
            elif not called:
                self.reasons[place] = f"seat {targets[0]} is not called (out of the game)"
            else:
                taps.append((shooter, called))
                self.used.add(place)
        yield [Act("taps", Shots(tuple(sorted(taps))), "seats")]

    def _action(self, request: AwaitAction, night: ScriptNight) -> Acts:
        """The first of the role's actions the script has an entry for; else it does nothing."""
        by = request.by
        if "join" in request.actions:
            side = night.join.get(by, "solo") if by is not None else "solo"
            if by in night.join:
                self.used.add(f"nights[{request.night - 1}].join.{by}")
            yield [Act("taps", Join(by, side), "seats")]
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
                yield [Act("taps", ACTIONS[action](by, target), "seats")]
                return
        yield [Act("taps", ACTIONS[request.actions[0]](by, None), "seats")]

    def _speech(self, request: AwaitSpeech, day: Day) -> Acts:
        seat = request.seat
        if request.turn == "speech" and self.game.day not in self.hands_raised:
            self.hands_raised.add(self.game.day)
            yield from self._raise_hands(day)  # hands go up as the discussion round begins
        if request.turn in ("nominate", "blood_name"):
            # One name answers the question and ends the turn (the host moves on as he hears
            # it); a judge's foul «after_speech» comes after it.
            entries, make = (day.nominate, Nominate) if request.turn == "nominate" else (day.blood_name, BloodName)
            yield from self._answer_with(request, entries, request.turn, make)
            if self._asks(request):
                yield [speech_ends(seat)]
            yield from self._timed(day, after_speech=seat)
            return
        elif seat in day.speeches and request.turn in SPOKEN_TURNS and not request.seconds:
            self.used.add(f"days[{self.game.day - 1}].speeches.{seat}")  # a turn without time: no words
        elif seat in day.speeches and request.turn in SPOKEN_TURNS:
            # Judges' fouls «after_speech» are given before the words that end the speech.
            yield from self._say(request, day, day.speeches[seat])
        if request.turn == "last_word" and self.game.day in self.voting_seen:
            yield from self._after_vote(day)
        if request.turn != "tie" and request.turn != "last_word":
            yield from self._timed(day, after_speech=seat)
        if self._asks(request):
            yield [speech_ends(seat)]

    def _only_ends(self, request: AwaitSpeech, day: Day) -> bool:
        """Whether all the script does in this turn, at the engine level, is to end it: most
        turns (a pass, a tie speech, a last word) on a day without the judge's fouls or
        removals. Then :meth:`_speech` would only note the words read and end the speech; its
        generator (a third of the script player's time) is spared. Not where the words are
        acts of their own (a table that listens), a name is asked for or a hand may go up."""
        if self.words_heard or day.fouls or day.removals or request.turn in ASKED_TURNS \
                or (day.extra_word and request.turn == "speech"):
            return False
        seat = request.seat
        lines = day.speeches.get(seat)
        if lines is not None and request.turn in SPOKEN_TURNS:
            if request.seconds and request.may_nominate and not all([names_nobody(text) for text in lines]):
                return False
            self.used.add(f"days[{self.game.day - 1}].speeches.{seat}")
        return True

    def _answer_with(self, request: AwaitSpeech, entries: dict[int, int], key: str,
                     make: type[Nominate] | type[BloodName]) -> Acts:
        if request.seat in entries:
            self.used.add(f"days[{self.game.day - 1}].{key}.{request.seat}")
            yield [Act("answer", make(request.seat, entries[request.seat]), "ears")]

    def _raise_hands(self, day: Day) -> Acts:
        """``extra_word`` (club): the hands go up during the discussion round."""
        for j, seat in enumerate(day.extra_word):
            place = f"days[{self.game.day - 1}].extra_word[{j}]"
            if self.game.is_alive(seat):
                self.used.add(place)
                yield [Act("hand", RaiseHand(seat), "seats")]
            else:
                self.reasons[place] = f"seat {seat} is out"

    def _say(self, request: AwaitSpeech, day: Day, utterances: list[str]) -> Acts:
        """Each utterance is said, then the inputs the director will hear in it. Before the
        words that end the speech come the judge's fouls given during it."""
        place = f"days[{self.game.day - 1}].speeches.{request.seat}"
        self.used.add(place)
        for text in utterances:
            body, end = split_end(text)
            if body:  # the words that do not end the speech, then the nominations heard in them
                if self.words_heard:
                    yield [Act("words", None, "ears", body)]
                for nomination in heard(body, request.seat) if request.may_nominate else ():
                    if not self._asks(request):
                        break
                    if not self._a_seat(nomination, place):
                        break   # the host asks again and takes nothing more of these words
                    yield [nomination]
            if end:
                yield from self._timed(day, after_speech=request.seat)  # after its every word, before its end
                if self.words_heard and self._asks(request):
                    yield [Act("words", None, "ears", end)]
                return
            if not self._asks(request):
                return

    def _a_seat(self, nomination: Act, place: str) -> bool:
        """A number no seat at this table has is not taken (the host asks for it again, as
        :meth:`voicehost.host.speeches.Speeches._nomination` does): it is listed under ``ignored``."""
        item = nomination.item
        assert isinstance(item, (Nominate, Withdraw))
        if 1 <= item.target <= self.script.seats:
            return True
        verb = "nominates" if isinstance(item, Nominate) else "withdraws"
        self.not_taken.setdefault(place, []).append(
            f"{verb} seat {item.target}: there is no seat {item.target} at a {self.script.seats}-seat table")
        return False

    def _votes(self, request: AwaitVotes, day: Day) -> Acts:
        if request.round != "mayor" and self.game.day not in self.voting_seen:
            self.voting_seen.add(self.game.day)
            yield from self._timed(day, at="voting")
            if not self._asks(request):
                return
        key = ROUND_KEYS[request.round]
        ballot: dict[int, int] = getattr(day, key)
        wanted = []
        for voter, candidate in ballot.items():
            place = f"days[{self.game.day - 1}].{key}.{voter}"
            if voter in request.voters and candidate in request.candidates and self.game.is_alive(voter):
                wanted.append(thumb(voter, candidate))
                self.used.add(place)
            elif place not in self.used:
                self.reasons[place] = f"seat {candidate} is not on the ballot" if voter in request.voters \
                    else f"seat {voter} does not vote in this round"
        yield from self._ballot(request, in_window_order(self.game.windowed(request), wanted))

    def _lift(self, request: AwaitLift, day: Day) -> Acts:
        """Thumbs in the lift's one window, in the order the seat panel sees them: every
        voter's first press seat by seat, then the second presses of seats listed twice
        (a second vote: the game ignores it and gives a foul)."""
        yes = []
        presses: dict[int, int] = {}
        for j, voter in enumerate(day.lift):
            if voter in request.voters and self.game.is_alive(voter):
                presses[voter] = presses.get(voter, 0) + 1
                yes.append((presses[voter], voter))
                self.used.add(f"days[{self.game.day - 1}].lift[{j}]")
        yield from self._ballot(request, [Act("lift", Lift(voter), "seats") for _, voter in sorted(yes)])

    def _ballot(self, request: Request, thumbs: list[Act]) -> Acts:
        if thumbs:
            yield thumbs
            if not self._asks(request):
                return
        yield [CLOSE]

    def _after_vote(self, day: Day) -> Acts:
        """``at: after_vote`` entries: during the first last word after the result, else at
        nightfall — always within the day, whatever the script says of the nights after it."""
        if self.game.day == 0 or self.game.day in self.after_vote_done:
            return
        self.after_vote_done.add(self.game.day)
        yield from self._timed(day, at="after_vote")

    def _timed(self, day: Day, at: str | None = None, after_speech: int | None = None) -> Iterable[list[Act]]:
        """The judge's fouls and removals of ``day`` that fall now: ``at`` a moment or during
        seat ``after_speech``'s speech (most days have none)."""
        if not day.fouls and not day.removals:
            return ()
        return self._timed_entries(day, at, after_speech)

    def _timed_entries(self, day: Day, at: str | None, after_speech: int | None) -> Acts:
        for entry in day.fouls:
            if entry.at == at and entry.after_speech == after_speech:
                yield from self._console(Foul(entry.seat), entry.place)
        for entry in day.removals:
            if entry.at == at and entry.after_speech == after_speech:
                yield from self._console(Remove(entry.seat), entry.place)

    def _console(self, item: Foul | Remove, place: str) -> Acts:
        """The judge types it; the game may refuse it (then it is reported, with the reason)."""
        if self.game.is_over or place in self.used or place in self.reasons:
            return
        try:
            yield [Act("console", item, "console")]
            self.used.add(place)
        except IllegalInput as err:
            self.reasons[place] = str(err)


@lru_cache(maxsize=4096)
def names_nobody(text: str) -> bool:
    """Whether the words of ``text`` (before those that end the speech) nominate or withdraw
    nobody: said in a turn, they change nothing but its end."""
    return not heard(split_end(text)[0], 0)


@lru_cache(maxsize=4096)  # parses the utterance several times: once per phrase is enough
def split_end(text: str) -> tuple[str, str]:
    """An utterance as (the words of the speech, the words that end it: «спасибо», «пас» …).
    A judge's foul «after the speech» falls between the two, so it follows every nomination
    said in the same breath. ("", "") for silence; (text, "") when it does not end the speech."""
    if not any(isinstance(intent, EndIntent) for intent in parse(text)):
        return text, ""
    tokens = normalize(text)
    for k in range(len(tokens) - 1, -1, -1):
        body = " ".join(tokens[:k])
        said = parse(body)
        if not any(isinstance(intent, EndIntent) for intent in said):
            if said != [i for i in parse(text) if not isinstance(i, EndIntent)]:
                break  # the end words change what was said before them: keep the utterance whole
            return body, " ".join(tokens[k:])
    return "", text


def in_window_order(windowed: tuple[int, ...], votes: list[Act]) -> list[Act]:
    """The votes the host's windows capture, in the order the seat panel sees them: window by
    window, seat by seat. A vote for a candidate without a window (sport's last one) is not
    cast: it is his anyway when the vote closes."""
    order = {candidate: k for k, candidate in enumerate(windowed)}
    cast = [act for act in votes if act.item.candidate in order]  # type: ignore[union-attr]
    return sorted(cast, key=lambda act: (order[act.item.candidate], act.item.voter))  # type: ignore[union-attr]


class Feed:
    """The acts, batch by batch; an input the game refused (a judge's foul for a seat already
    out) goes back into the script, which reports it and carries on."""

    def __init__(self, acts: Acts) -> None:
        self.acts = acts
        self.error: IllegalInput | None = None

    def __iter__(self) -> Feed:
        return self

    def __next__(self) -> list[Act]:
        error, self.error = self.error, None
        return self.acts.throw(error) if error is not None else next(self.acts)

    def refuse(self, error: IllegalInput) -> None:
        self.error = error


def drive(acts: Acts, carry_out: Callable[[list[Act]], None]) -> None:
    """Carry out each batch of acts in turn; an input the game refused (a judge's foul for a
    seat already out) goes back into the script, which reports it and carries on. (The
    :class:`Feed` without its per-batch method call: every engine-level game runs through here.)"""
    batch = next(acts, None)
    while batch is not None:
        try:
            carry_out(batch)
        except IllegalInput as err:
            try:
                batch = acts.throw(err)
            except StopIteration:
                return
        else:
            batch = next(acts, None)
