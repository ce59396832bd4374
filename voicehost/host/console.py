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
from typing import Any, cast

from voicehost.host.ballots import ballot_changed
from voicehost.host.clock import SpeechTimer
from voicehost.host.commands import (
    MAX_LINE,
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
    BestAfterTheGame,
    CardsDoNotFit,
    ConsoleAnswer,
    DealCannotBeUndone,
    NoCardsYet,
    NominationNotTaken,
    NominationReason,
    NothingSaidYet,
    NotNow,
    NotPaused,
    Outcome,
    Refused,
    VerdictGiven,
    VoteCorrectionTooLate,
    Waiting,
    WithdrawalNotTaken,
)
from voicehost.host.stage import Stage
from voicehost.language.host_lines import event_lines, spoken, status_lines
from voicehost.language.i18n import _
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
    Foul,
    Input,
    JudgePoints,
    Nominate,
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

WAITING_FOR: dict[type, Waiting] = {
    AwaitDeal: "deal", AwaitShots: "shots", AwaitAction: "action", AwaitDawn: "dawn", AwaitMorning: "morning",
    AwaitNightfall: "nightfall", AwaitSpeech: "speech", AwaitVotes: "votes", AwaitLift: "lift"}


def shown(line: str) -> str:
    """A typed line as it can be printed back: control characters (an arrow key's escape
    sequence) made visible instead of echoed raw."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else "?" for c in line)[:MAX_LINE]


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
        ended = False
        while self.held or not self.ports.console.empty():
            typed = self.held.pop(0) if self.held else self.ports.console.get_nowait()
            line = typed.line
            if not line.strip():
                continue
            try:
                ended = await self.command(line, typed) or ended
            except Refused as err:
                self.refuse_line(typed, err.refusal)
            except IllegalInput as err:
                self.refusals.append(err)
                self.refuse_line(typed, why_not_now(err.refusal, self.game.request), err)
            except InputError as err:  # roles that do not fit the cast
                self.refuse_line(typed, CardsDoNotFit(str(err)))
            else:
                if line.split()[0].lower() != "pause":  # a pause is answered as it begins (see pause)
                    self.answer_line(typed, "done")
            await asyncio.sleep(0)  # let whoever typed this see it done and type the next line
        return ended

    def answer_line(self, typed: Typed, outcome: Outcome, refusal: Refusal | None = None,
                    illegal: IllegalInput | None = None) -> None:
        """The answer to one typed line, for whoever typed it (the web matches it by id)."""
        self.stage.notify(ConsoleAnswered(ConsoleAnswer(typed.id, typed.line, outcome, refusal), illegal))

    def refuse_line(self, typed: Typed, refusal: Refusal, illegal: IllegalInput | None = None) -> None:
        """Refused: the judge reads the Russian sentence; ``refused`` keeps the English."""
        self.refused.append((typed.line, str(refusal)))
        self.stage.log(_("console: «{line}» refused: {why}").format(line=shown(typed.line.strip()),
                                                                    why=refusal_text(refusal, self.stage.book)))
        self.answer_line(typed, "refused", refusal, illegal)

    async def command(self, line: str, typed: Typed | None = None) -> bool:
        """Carry out one line (``typed``: the queued line it came as, whose id a pause answers)."""
        command = read_command(line.strip(), self.game.seats)
        self._check_when(command)
        match command:
            case EndCommand():
                return True
            case JudgeControl():
                await self.controls.command(command, typed.by if typed is not None else "console")
                return self.stopped
            case RolesCommand(cards=cards):
                self._set_roles(cards)
            case FoulCommand(seat=seat):
                await self.stage.push(Foul(seat, "host"), "console")
            case RemoveCommand(seat=seat):
                await self.stage.push(Remove(seat, "host"), "console")
            case NominateCommand(by=by, target=target) | WithdrawCommand(by=by, target=target):
                item = (Nominate if isinstance(command, NominateCommand) else Withdraw)(by, target)
                self._refuse_untaken(item)
                await self.stage.push(item, "console")
            case BloodCommand(by=by, target=target):
                await self.stage.push(BloodName(by, target), "console")
            case HandCommand(seat=seat):
                await self.stage.push(RaiseHand(seat), "console")
            case BestMoveCommand() | BonusCommand() | PenaltyCommand():
                await self._tournament(command)
            case UndoCommand():
                await self._undo()
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
        await self.say_text(self.stage.last_line)

    async def _tournament(self, command: BestMoveCommand | BonusCommand | PenaltyCommand) -> None:
        """«bestmove A B C» (the author is the game's first player killed at night), «bonus N P why»,
        «penalty N P why»: refused where the ruleset has no such option."""
        option = command.option
        if option is None or option not in self.game.options:
            raise Refused(TournamentOptionOff(str(option)))
        match command:
            case BestMoveCommand(seats=seats):
                item: Input = BestMove(int(getattr(self.game, "first_killed", 0)), seats)
            case BonusCommand(seat=seat, hundredths=points, reason=why):
                item = JudgePoints(seat, points, why)
            case PenaltyCommand(seat=seat, hundredths=points, reason=why):
                item = JudgePoints(seat, -points, why)
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

    async def _undo(self) -> None:
        """The last input taken back; whoever owns what it did is told (:attr:`on_undo`: the
        floor gives back a speech whose end was undone)."""
        if self.controls.after_game and self._given_after_the_end():   # a bonus, a penalty, a best move
            self.stage.pop_last("undo")
            return
        if await self.controls.undo():   # the judge's own record was the newest
            return
        if len(self.game.inputs) <= 1:
            raise Refused(DealCannotBeUndone())
        undone = self.stage.pop_last("undo")
        if self.floor is not None:
            await self.floor.undone(undone, len(self.game.inputs))

    async def _correct_vote(self, voter: int, candidate: int) -> None:
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
                                  ballot={"voter": voter, "before": before, "after": candidate})
        self.stage.log(f"console: {ballot_changed(self.stage.book, voter, before, candidate)}")
        self.stage.lights.relight()
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
        self.stage.notify(VoteCorrected(voter, candidate, returned, left,
                                        tuple(spoken(said, self.stage.book, self.game.ruleset.name)), before))

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
        self.stage.journal_splice(0, 1, [deal], "roles corrected")
        self.stage.lights.relight()

    async def pause(self, pausing: Typed) -> None:
        """Everything waits until the console types ``resume``; a running speech keeps the
        time it had left. Lines typed meanwhile are held and carried out after ``resume``."""
        paused_at = self.stage.clock.now()
        self.paused = True
        self.stage.notify(Paused(True))
        self.answer_line(pausing, "done")
        await self.reply([("paused", {})])
        while (typed := await self.ports.console.get()).line.strip().lower() != "resume":
            if typed.line.strip().lower() == "pause":
                self.refuse_line(typed, AlreadyPaused())
            elif typed.line.strip():
                self.held.append(typed)
                self.stage.log(_("console: «{line}» held until resume").format(line=shown(typed.line.strip())))
                self.answer_line(typed, "held")
        self.paused = False
        self.timer.hold(self.stage.clock.now() - paused_at)
        self.stage.notify(Paused(False))
        self.answer_line(typed, "done")
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
