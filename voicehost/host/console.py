"""The human host's console at a live table: typed commands that foul, remove, correct a vote
or the cards, undo, pause, repeat and report — each checked by the game and journaled (a
correction as a splice) before anything is said about it.

The console is typed by people in a hurry, on a Pi's keyboard or (later) from the web, so a
line is read strictly: the command's exact arguments, ASCII digits only, printable text only.
Anything else is refused with a typed refusal (:mod:`voicehost.host.refusals`: a kind and its
fields, printed in Russian), and a refused line changes nothing. Every line, typed at the
terminal or sent from the judge's phone, is answered by its id: done, refused or held. What
the host says in answer (``status``, ``vote``, ``repeat``, ``pause``/``resume``) is printed on
the terminal too, for a table without a speaker.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, cast

from voicehost.host.ballots import ballot_changed
from voicehost.host.clock import SpeechTimer
from voicehost.host.commands import (
    MAX_LINE,
    REGISTRY,
    BestMoveCommand,
    BloodCommand,
    BonusCommand,
    Command,
    EndCommand,
    FoulCommand,
    HandCommand,
    JudgeControl,
    NominateCommand,
    PauseCommand,
    PenaltyCommand,
    RemoveCommand,
    RepeatCommand,
    ResumeCommand,
    RolesCommand,
    StatusCommand,
    UndoCommand,
    UnfoulCommand,
    VoteCommand,
    WithdrawCommand,
    read_command,
)
from voicehost.host.dealing import typed_deal
from voicehost.host.judging import FloorControl, JudgeControls
from voicehost.host.notices import ConsoleAnswered, Paused, VoteCorrected
from voicehost.host.ports import Typed
from voicehost.host.refusals import (
    AlreadyPaused,
    AnswerOutcome,
    BestAfterTheGame,
    CardsDoNotFit,
    ConsoleAnswer,
    DealCannotBeUndone,
    FoulNoLongerFits,
    NoCardsYet,
    NoFoulToTakeBack,
    NominationNotTaken,
    NominationReason,
    NothingSaidYet,
    NotNow,
    NotPaused,
    Refused,
    VerdictGiven,
    VoteCorrectionTooLate,
    Waiting,
    WithdrawalNotTaken,
)
from voicehost.host.stage import Stage
from voicehost.i18n import _
from voicehost.language.host_lines import event_lines, spoken, status_lines
from voicehost.language.read_lines import has_line, read_line
from voicehost.language.refusals import refusal_text
from voicehost.rules import IllegalInput, InputError, Refusal
from voicehost.rules.errors import (
    DidNotVote,
    GameIsOver,
    NotACandidate,
    NotAsked,
    NoVoteToCorrect,
    TournamentOptionOff,
)
from voicehost.rules.events import (
    DayBegan,
    Eliminated,
    Event,
    GameOver,
    LiftAsked,
    MorningCame,
    NightFell,
    NominationRefused,
    SpeechBegan,
    WithdrawalRefused,
)
from voicehost.rules.inputs import (
    BestMove,
    BloodName,
    Dawn,
    Foul,
    Input,
    JudgePoints,
    Nominate,
    Proceed,
    RaiseHand,
    Remove,
    Vote,
    Withdraw,
)
from voicehost.rules.requests import (
    AwaitAction,
    AwaitDawn,
    AwaitDeal,
    AwaitLift,
    AwaitMorning,
    AwaitNightfall,
    AwaitShots,
    AwaitSpeech,
    AwaitVotes,
    Request,
)

COUNT_ENDS = (SpeechBegan, LiftAsked, NightFell, MorningCame, DayBegan)   # a corrected count is said up to these

Answer = tuple[str, dict[str, Any]]
"""What a carried-out line did: a key of ``answers.`` (read_lines) and its values."""


@dataclass(frozen=True)
class Spliced:
    """A splice the judge made: where, how many inputs it put in, the ones it took out, what
    its undo answers, and the game (inputs, judge records) right after it."""

    at: int
    inserted: int
    removed: list[Input]
    undone: Answer
    after: tuple[list[Input], int]


ANSWERED_IN_A_PAUSE = frozenset(name for name, command in REGISTRY.items() if command.pauses)
WAITING_FOR: dict[type, Waiting] = {
    AwaitDeal: "deal", AwaitShots: "shots", AwaitAction: "action", AwaitDawn: "dawn", AwaitMorning: "morning",
    AwaitNightfall: "nightfall", AwaitSpeech: "speech", AwaitVotes: "votes", AwaitLift: "lift"}


def shown(line: str) -> str:
    """A typed line as it can be printed back: control characters (an arrow key's escape
    sequence) made visible instead of echoed raw."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else "?" for c in line)[:MAX_LINE]


def undone_answer(item: Input) -> Answer:
    """What ``undo`` took back, for the judge: ``undone_<kind>`` with the input's fields."""
    values = {name: ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else value
              for name, value in item.to_dict().items() if name != "type"}
    if isinstance(item, JudgePoints):
        values["points"] = russian_points(item.hundredths)
    return (f"undone_{item.kind}", values)


def last_foul(inputs: list[Input], seat: int) -> int | None:
    """The place of the seat's last foul in the game, if he has one."""
    for at in range(len(inputs) - 1, -1, -1):
        item = inputs[at]
        if isinstance(item, Foul) and item.seat == seat:
            return at
    return None


def russian_points(hundredths: int) -> str:
    """Points as a Russian judge writes them: 1, 0,25, -0,5."""
    return f"{hundredths / 100:g}".replace(".", ",")


def why_not_now(refusal: Refusal, request: Request | None) -> Refusal:
    """The game's refusal as one about the game: an input the game does not wait for is «not
    now» and what it waits for (never a request class's name)."""
    if isinstance(refusal, NotAsked):
        return GameIsOver() if request is None else NotNow(WAITING_FOR.get(type(request), "other"))
    return refusal


class Console:
    """The judge's console: the typed lines waiting, a pause and the lines held through it, and
    what was refused. It reads the floor's timer (``status``) and holds it through a pause."""

    def __init__(self, stage: Stage, timer: SpeechTimer, floor: FloorControl | None = None) -> None:
        self.stage = stage
        self.game = stage.game
        self.ports = stage.ports
        self.timer = timer
        self.held: list[Typed] = []
        """Lines typed during a pause, carried out after ``resume``."""
        self.paused = False
        self.refusals: list[IllegalInput] = []
        """The game's refusals of console commands."""
        self.refused: list[tuple[str, str]] = []
        """Every typed line refused, and why."""
        self.echo_replies = True
        """The console's answers are printed too (off when every line is printed anyway)."""
        self.floor = floor
        """The floor, which gives a speech back (``back``) and is told each input ``undo`` took back."""
        self.in_speech = False
        """The lines are read during a speech (``end`` ends it; elsewhere it has nothing to end)."""
        self.answer: Answer | None = None
        """What the line being carried out did, for its answer (a key of ``answers.`` (read_lines) and its values)."""
        self.spliced: Spliced | None = None
        """The judge's last splice (``unfoul``, a late ``withdraw``), which ``undo`` reverses while
        nothing has followed it."""
        self.correction: tuple[int, int, tuple[list[Input], int]] | None = None
        """The last vote correction (voter, his ballot before, the inputs and judge records after
        it): ``undo`` takes it back while nothing has followed it."""
        self.controls = JudgeControls(stage, timer, floor, self.reply)
        """The judge's own controls: the speaker's clock, notes, a verdict, the best player."""

    @property
    def stopped(self) -> bool:
        """The judge annulled or stopped the game: the host plays no further."""
        return self.controls.verdict is not None

    async def run(self, in_speech: bool = False) -> bool:
        """Carry out the typed lines waiting (see :data:`~voicehost.host.commands.REGISTRY`). Returns True when the
        current speech was ended from the console. A line is refused — with a sentence and
        the usage, the game unchanged — rather than guessed at, and nothing typed kills it."""
        ended, self.in_speech = False, in_speech
        while self.held or not self.ports.console.empty():
            typed = self.held.pop(0) if self.held else self.ports.console.get_nowait()
            if typed.line.strip():
                ended = await self._carry_out(typed) or ended
            await asyncio.sleep(0)  # let whoever typed this see it done and type the next line
        return ended

    async def _carry_out(self, typed: Typed) -> bool:
        """One typed line carried out and answered, or refused; True: it ended the speech."""
        line = typed.line
        try:
            ended = await self.command(line, typed)
        except Refused as err:
            self.refuse_line(typed, err.refusal)
        except IllegalInput as err:
            self.refusals.append(err)
            self.refuse_line(typed, why_not_now(err.refusal, self.game.request), err)
        except InputError as err:  # roles that do not fit the cast
            self.refuse_line(typed, CardsDoNotFit(str(err)))
        else:
            if line.split()[0].lower() != "pause":  # a pause is answered as it begins (see pause)
                self.done_line(typed)
            return ended
        return False

    def answer_line(self, typed: Typed, outcome: AnswerOutcome, refusal: Refusal | None = None,
                    illegal: IllegalInput | None = None, text: str = "") -> None:
        """The answer to one typed line, for whoever typed it (the web matches it by id)."""
        self.stage.notify(ConsoleAnswered(ConsoleAnswer(typed.id, typed.line, outcome, refusal, text), illegal))

    def done_line(self, typed: Typed) -> None:
        """Carried out: the judge reads what was done (or taken back), an ``answers.`` line
        (:mod:`voicehost.language.read_lines`) about this very command, on the terminal and on his
        phone, in the language in use."""
        key, values = self.answer or ("done", {})
        self.answer = None
        if not has_line("answers", key):   # an input no answer names (a night's action)
            key, values = ("undone_input" if key.startswith("undone_") else "done"), {}
        text = read_line("answers", key, **values)
        self.stage.log(_("console: «{line}»: {answer}").format(line=shown(typed.line.strip()), answer=text))
        self.answer_line(typed, "done", text=text)

    def refuse_line(self, typed: Typed, refusal: Refusal, illegal: IllegalInput | None = None) -> None:
        """Refused: the judge reads the sentence in his language (Russian unless ``--lang en``);
        ``refused`` keeps the English."""
        self.refused.append((typed.line, str(refusal)))
        why = refusal_text(refusal)
        self.stage.log(_("console: «{line}» refused: {why}").format(line=shown(typed.line.strip()), why=why))
        self.answer_line(typed, "refused", refusal, illegal)

    async def command(self, line: str, typed: Typed | None = None) -> bool:
        """Carry out one line (``typed``: the queued line it came as, whose id a pause answers);
        :attr:`answer` says what was done."""
        command = read_command(line.strip(), self.game.seats)
        self._check_when(command)
        self.answer = (command.name, {})
        match command:
            case EndCommand():
                self.answer = ("end_after_game" if self.controls.after_game else "end" if self.in_speech
                               else "end_no_speech", {})
                return True
            case JudgeControl():
                self.answer = await self.controls.command(command, typed.by if typed is not None else "console")
                return self.stopped
            case RolesCommand(cards=cards):
                self._set_roles(cards)
            case FoulCommand(seat=seat):
                before = self.game.fouls.get(seat, 0)
                await self.stage.push(Foul(seat, "host"), "console")
                n = self.game.fouls.get(seat, 0)
                self.answer = ("foul" if n > before else "foul_not_counted", {"seat": seat, "n": n})
            case RemoveCommand(seat=seat):
                await self.stage.push(Remove(seat, "host"), "console")
                self.answer = ("remove", {"seat": seat})
            case NominateCommand(by=by, target=target):
                item = Nominate(by, target)
                self._refuse_untaken(item)
                await self.stage.push(item, "console")
                self.answer = ("nominate", {"by": by, "target": target})
            case WithdrawCommand(by=by, target=target):
                await self._withdraw(by, target)
            case BloodCommand(by=by, target=target):
                await self.stage.push(BloodName(by, target), "console")
                self.answer = ("blood", {"by": by, "target": target})
            case HandCommand(seat=seat):
                await self.stage.push(RaiseHand(seat), "console")
                self.answer = ("hand", {"seat": seat})
            case BestMoveCommand() | BonusCommand() | PenaltyCommand():
                await self._tournament(command)
            case UnfoulCommand(seat=seat):
                await self._unfoul(seat)
            case UndoCommand():
                self.answer = await self._undo()
            case VoteCommand(voter=voter, candidate=candidate):
                await self._correct_vote(voter, candidate)
            case RepeatCommand():
                await self._repeat()
            case StatusCommand():
                await self.reply(self.status())
            case PauseCommand():
                await self.pause(typed or Typed(0, line))
            case ResumeCommand():
                raise Refused(NotPaused())
        return False

    def _check_when(self, command: Command) -> None:
        """Refused when the game is past it (after the game only what the command declares) or
        not yet at it (``best``: the table's vote after the game)."""
        if not self.controls.after_game:
            if not command.in_game:
                raise Refused(BestAfterTheGame())
            return
        if command.after_game == "yes" or (command.after_game == "points" and self.points_after_game()):
            return
        raise Refused(GameIsOver() if self.controls.verdict is None else VerdictGiven())

    async def _repeat(self) -> None:
        if not self.stage.last_line:
            raise Refused(NothingSaidYet())
        self.answer = ("repeat", {"line": self.stage.last_line})
        await self.say_text(self.stage.last_line)

    async def _tournament(self, command: BestMoveCommand | BonusCommand | PenaltyCommand) -> None:
        """«bestmove A B C» (the author is the game's first player killed at night), «bonus N P why»,
        «penalty N P why»: refused where the ruleset has no such option."""
        option = command.option
        if option is None or option not in self.game.options:
            raise Refused(TournamentOptionOff(str(option)))
        match command:
            case BestMoveCommand(seats=seats):
                by = int(getattr(self.game, "first_killed", 0))
                item: Input = BestMove(by, seats)
                self.answer = ("bestmove", {"by": by, "seats": ", ".join(map(str, seats))})
            case BonusCommand(seat=seat, points=points, reason=why):
                item = JudgePoints(seat, points.hundredths, why)
                self.answer = ("bonus", {"seat": seat, "points": russian_points(points.hundredths), "reason": why})
            case PenaltyCommand(seat=seat, points=points, reason=why):
                item = JudgePoints(seat, -points.hundredths, why)
                self.answer = ("penalty", {"seat": seat, "points": russian_points(points.hundredths), "reason": why})
        await self.stage.push(item, "console")

    def _refuse_untaken(self, item: Input) -> None:
        """A typed nomination (or withdrawal) the game would answer «не принято» is refused, not
        done: tried on the game and taken back, so nothing is journaled or said for it."""
        if not isinstance(item, (Nominate, Withdraw)):
            return
        events = self.game.push(item)
        self.game.pop()
        for event in events:
            if isinstance(event, NominationRefused) and (event.by, event.target) == (item.by, item.target):
                raise Refused(NominationNotTaken(item.by, item.target, cast(NominationReason, event.reason)))
            if isinstance(event, WithdrawalRefused):
                raise Refused(WithdrawalNotTaken(item.by, item.target))

    async def _undo(self) -> Answer:
        """The newest thing the judge or the game did, taken back; the answer says what. Whoever
        owns what it did is told (the floor gives back a speech whose end was undone)."""
        if self.controls.after_game and self._given_after_the_end():   # a bonus, a penalty, a best move
            return undone_answer(self.stage.pop_last("undo", shown=False))
        if self.correction is not None and self.correction[2] == (list(self.game.inputs), len(self.controls.judged)):
            voter, before, _ = self.correction   # the vote correction is the newest: the ballot as it was
            self.correction = None
            await self._correct_vote(voter, before, undoing=True)
            return ("undone_correction", {"voter": voter})
        if self.spliced is not None and self.spliced.after == (list(self.game.inputs), len(self.controls.judged)):
            return self._unsplice(self.spliced)
        taken = await self.controls.undo()   # the judge's own record was the newest
        if taken is not None:
            return taken
        if len(self.game.inputs) <= 1:
            raise Refused(DealCannotBeUndone())
        undone = self.stage.pop_last("undo", shown=False)
        if self.floor is not None:
            await self.floor.undone(undone, len(self.game.inputs))
        return undone_answer(undone)

    async def _withdraw(self, by: int, target: int) -> None:
        """«withdraw A B»: in A's speech, the game's withdrawal; after it, the nomination A made
        today is taken back (a splice: the game replayed without it), refused only when none
        stands or what followed no longer fits."""
        item = Withdraw(by, target)
        try:
            self._refuse_untaken(item)
        except Refused:
            at = self._standing_nomination(by, target)
            if at is None:
                raise
            self._splice(at, 1, [], f"withdraw {by} {target}", WithdrawalNotTaken(by, target),
                         ("undone_withdrawn", {"by": by, "target": target}))
        else:
            await self.stage.push(item, "console")
        self.answer = ("withdraw", {"by": by, "target": target})

    async def _unfoul(self, seat: int) -> None:
        """«unfoul N»: the seat's last foul is taken out of the game wherever it is (a splice: the
        game replayed without it, so the count and whatever it caused follow)."""
        at = last_foul(self.game.inputs, seat)
        if at is None:
            raise Refused(NoFoulToTakeBack(seat))
        self._splice(at, 1, [], f"unfoul {seat}", FoulNoLongerFits(seat), ("undone_unfoul", {"seat": seat}))
        self.answer = ("unfoul", {"seat": seat, "n": self.game.fouls.get(seat, 0)})

    def _splice(self, at: int, remove: int, insert: list[Input], why: str, misfit: Refusal, undone: Answer) -> None:
        """The game's inputs ``[at, at+remove)`` replaced by ``insert`` and the rest replayed, then
        journaled; refused (``misfit``) when what followed no longer fits. ``undo`` reverses it."""
        removed = list(self.game.inputs[at:at + remove])
        try:
            self.game.splice(at, remove, insert)
        except IllegalInput:
            raise Refused(misfit) from None
        self.stage.journal_splice(at, remove, insert, why, shown=False)
        self.stage.lights.relight()
        self.spliced = Spliced(at, len(insert), removed, undone, (list(self.game.inputs), len(self.controls.judged)))

    def _unsplice(self, spliced: Spliced) -> Answer:
        """The judge's last splice reversed (nothing has followed it)."""
        self.spliced = None
        self.game.splice(spliced.at, spliced.inserted, spliced.removed)
        self.stage.journal_splice(spliced.at, spliced.inserted, spliced.removed, "undo splice", shown=False)
        self.stage.lights.relight()
        key, values = spliced.undone
        seat = values.get("seat")
        return key, {**values, "n": self.game.fouls.get(seat, 0) if isinstance(seat, int) else 0}

    def _standing_nomination(self, by: int, target: int) -> int | None:
        """The place of today's nomination of ``target`` by ``by``, while it stands (no night since,
        no withdrawal, no vote begun)."""
        for at in range(len(self.game.inputs) - 1, -1, -1):
            item = self.game.inputs[at]
            if isinstance(item, (Vote, Dawn, Proceed)) or (isinstance(item, Withdraw) and item.target == target):
                return None
            if isinstance(item, Nominate) and (item.by, item.target) == (by, target):
                return at
        return None

    async def _correct_vote(self, voter: int, candidate: int, undoing: bool = False) -> None:
        """«vote V C»: the correction and the corrected round's count are said — never what has
        happened since (the night, the morning, a floor given), which stands — and, when the count
        changed who is out, who comes back and who leaves, the game's end if it came, and the
        floor if it is someone else's now. The game goes on from where it is."""
        out_before, request_before, over_before = self._out(), self.game.request, self.game.is_over
        inputs_before = list(self.game.inputs)
        try:
            at, removed, new = self.game.correct_vote(voter, candidate)
        except IllegalInput as err:
            if isinstance(err.refusal, (DidNotVote, NotACandidate, NoVoteToCorrect)):
                raise   # the correction itself does not fit the round
            raise Refused(VoteCorrectionTooLate(voter)) from None   # a later input (a last word) no longer fits
        before = next((item.candidate for item in inputs_before[at:at + removed]
                       if isinstance(item, Vote) and item.voter == voter), 0)   # the ballot it changes
        self.stage.journal_splice(at, removed, new, f"vote {voter} {candidate}",
                                  ballot={"voter": voter, "before": before, "after": candidate}, shown=False)
        self.stage.lights.relight()
        if not undoing:
            self.correction = (voter, before, (list(self.game.inputs), len(self.controls.judged)))
        said: list[tuple[str, dict[str, Any]]] = [("vote_corrected", {"seat": voter, "target": candidate})
                                                  if candidate else ("vote_removed", {"seat": voter})]
        recount = self._recount(at + len(new))
        for event in recount:
            said += event_lines(event, self.game)
        out_now = self._out()
        returned, left = tuple(sorted(out_before - out_now)), tuple(sorted(out_now - out_before))
        said += [("seat_returns", {"seat": seat}) for seat in returned]
        for event in self.game.events:
            if isinstance(event, Eliminated) and event.seat in left and event not in recount:
                said += event_lines(event, self.game)
        if self.game.is_over and not over_before:
            said += [line for e in self.game.events if isinstance(e, GameOver) and e not in recount
                     for line in event_lines(e, self.game)]
        said += self._floor_now(request_before)
        await self.reply(said)
        lines = spoken(said, self.stage.book, self.game.ruleset.name)
        self.answer = ("vote", {"ballot": ballot_changed(voter, before, candidate),
                                "said": " ".join(lines)})
        self.stage.notify(VoteCorrected(voter, candidate, returned, left,
                                        tuple(lines), before))

    async def reply(self, said: list[tuple[str, dict[str, Any]]]) -> None:
        """Said aloud and printed on the terminal (a table may have no speaker)."""
        if self.echo_replies:
            for text in spoken(said, self.stage.book, self.game.ruleset.name):
                self.stage.log(_("host: {text}").format(text=text))
        await self.stage.say(said)

    def _out(self) -> set[int]:
        return {seat for seat in range(1, self.game.seats + 1) if not self.game.is_alive(seat)}

    def _recount(self, close: int) -> list[Event]:
        """What the corrected round's close (the input at ``close``) told the table: the count
        and its result, up to whatever began next (a floor, the lift question, the night)."""
        probe = type(self.game)(self.game.ruleset, self.game.options, self.game.seats)
        for item in self.game.inputs[:close]:
            probe.push(item)
        counted = []
        for event in probe.push(self.game.inputs[close]):
            if isinstance(event, COUNT_ENDS):
                break
            counted.append(event)
        return counted

    def _floor_now(self, request_before: Request | None) -> list[tuple[str, dict[str, Any]]]:
        """The floor, when the correction gave it to someone else (a last word now another's)."""
        request = self.game.request
        if request == request_before or not isinstance(request, AwaitSpeech):
            return []
        begun = next((e for e in reversed(self.game.events) if isinstance(e, SpeechBegan)), None)
        if begun is None or (begun.seat, begun.turn) != (request.seat, request.turn):
            return []
        return list(event_lines(begun, self.game))

    def _set_roles(self, typed: str) -> None:
        """«roles 3=don,5=mafia,…» in the middle of a game: the cards were learned wrong. The
        deal is replaced and the game replayed (refused if what followed no longer fits).
        Nothing is said: the roles are secret."""
        if not self.game.inputs:
            raise Refused(NoCardsYet())
        deal = typed_deal(typed, self.game, "roles")
        self.game.splice(0, 1, [deal])
        self.stage.journal_splice(0, 1, [deal], "roles corrected", shown=False)
        self.stage.lights.relight()
        self.answer = ("roles", {})

    async def pause(self, pausing: Typed) -> None:
        """Everything waits until the console types ``resume``; a running speech keeps the
        time it had left. Lines typed meanwhile are held and carried out after ``resume``."""
        paused_at = self.stage.clock.now()
        self.paused = True
        self.stage.notify(Paused(True))
        self.answer = ("pause", {})
        self.done_line(pausing)
        await self.reply([("paused", {})])
        while (typed := await self.ports.console.get()).line.strip().lower() != "resume":
            if typed.line.strip().lower() == "pause":
                self.refuse_line(typed, AlreadyPaused())
            elif typed.line.split()[:1] and typed.line.split()[0].lower() in ANSWERED_IN_A_PAUSE:   # status, repeat
                await self._carry_out(typed)
            elif typed.line.strip():
                self.held.append(typed)
                self.stage.log(_("console: «{line}» held until resume").format(line=shown(typed.line.strip())))
                self.answer_line(typed, "held")
        self.paused = False
        self.timer.hold(self.stage.clock.now() - paused_at)
        self.stage.notify(Paused(False))
        self.answer = ("resume", {})
        self.done_line(typed)
        await self.reply([("resumed", {})])

    async def after_game(self, seconds: float) -> bool:
        """``voicehost run`` once the host is done: for ``seconds`` table seconds (or until the
        table's ``best N``; where the judge's points or the best move still count, until ``end``)
        the console still takes the judge's ``best``, ``note``, ``annul``, ``bonus``, ``penalty``,
        ``bestmove`` and an ``undo`` of his last record. True when that undo took back the game's verdict: the
        game goes on."""
        self.controls.after_game = True
        clock, stopped = self.stage.clock, self.stopped
        deadline = clock.now() + seconds
        try:
            while (self.controls.best is None or self.points_after_game()) and not clock.reached(deadline):
                try:
                    typed = await asyncio.wait_for(self.ports.console.get(), clock.span(deadline - clock.now()))
                except TimeoutError:
                    break
                self.held.append(typed)
                ended = await self.run()
                if stopped and not self.stopped:
                    return True
                if ended and not self.stopped:   # «end»: the judge has given everything
                    break
        finally:
            self.controls.after_game = False
        return False

    def _given_after_the_end(self) -> bool:
        """The game's last input is one given after it was over (and newer than the judge's last
        record): ``undo`` takes it back after the game too, never the input that ended it."""
        judged, inputs = self.controls.judged, self.game.inputs
        if not inputs or type(inputs[-1]) not in self.game.after_game_inputs() \
                or (judged and judged[-1]["i"] == len(inputs)):
            return False
        last = self.game.pop()
        over = self.game.is_over
        self.game.push(last)
        return over

    def points_after_game(self) -> bool:
        """The game is over, with no verdict, and its ruleset still takes the judge's points or the
        best move (:meth:`~voicehost.rules.Game.after_game_inputs`, under their options): the judge
        often gives them just after the end, so the after-game window waits for them too."""
        if not self.game.is_over or self.stopped:
            return False
        taken, options = self.game.after_game_inputs(), self.game.options
        points = JudgePoints in taken and options.get("judge_points") is True
        best_move = BestMove in taken and options.get("best_move") is True \
            and bool(getattr(self.game, "first_killed", 0))
        return points or best_move

    async def say_text(self, text: str) -> None:
        if self.echo_replies:
            self.stage.log(_("host: {text}").format(text=text))
        await self.ports.utter(text)

    def status(self) -> list[tuple[str, dict[str, Any]]]:
        """«status» aloud: who is nominated, the fouls of the seats still playing, the time left."""
        nominated = [n for _, n in getattr(self.game, "nominations", [])]
        said = status_lines(tuple(nominated))
        said += [("fouls_status", {"seat": s, "n": n}) for s, n in sorted(self.game.fouls.items())
                 if n and self.game.is_alive(s)]   # a seat out of the game has no fouls at the table
        if (left := self.timer.left()) is not None:
            said.append(("status_time_left", {"n": max(0, round(left))}))
        return said
