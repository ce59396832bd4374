"""The judge's own controls at the console: the speaker's clock (``time ±S``, ``restart``,
``back``, ``hold``/``release``), notes (``note N …``), the game annulled or stopped (``annul …``,
``stop …``) and the table's best player after the game (``best N``).

None of these is an input of the game: each is a ``judge`` record of the journal
(:data:`~voicehost.host.journal.JUDGE_RECORDS`), written before anything is said or shown,
and the console's ``undo`` takes the newest of them back when it is newer than the game's last
input. A resumed journal carries the records still standing, so the speech that was running
resumes with the time the judge gave it (held, if he held it), the notes stay, and an annulled
or stopped game stays so. What the protocol keeps of them: :func:`judge_protocol`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from voicehost.host.clock import SpeechTimer
from voicehost.host.commands import (
    REGISTRY,
    UNDO_RECORD,
    AnnulCommand,
    BackCommand,
    BestCommand,
    HoldCommand,
    JudgeControl,
    NoteCommand,
    ReleaseCommand,
    RestartCommand,
    StopCommand,
    TimeCommand,
)
from voicehost.host.journal import JournalFile, judged_onto, load_journal
from voicehost.host.notices import NotesChanged
from voicehost.host.refusals import (
    BestAfterTheGame,
    NoFloorNow,
    NoJudgeRecordToUndo,
    NotHeld,
    NothingToGiveBack,
    Refused,
    SpeechAlreadyHeld,
    TimeRunsOut,
    VerdictGiven,
)
from voicehost.rules import Game, InputError
from voicehost.rules.inputs import EndSpeech, Input

if TYPE_CHECKING:
    from voicehost.host.stage import Stage

TIMER_ACTIONS = frozenset(cls.record.action for cls in REGISTRY.values()
                          if cls.record is not None and cls.undo in ("clock", "floor"))
"""The judge records that set the speaker's clock (a resumed speech opens as they left it)."""
VERDICT_LINES = {"annulled": "game_annulled", "stopped": "game_stopped"}
Answer = tuple[str, dict[str, Any]]
"""What a control did, for the judge: a key of ``answers.`` (read_lines) and its values."""
Reply = Callable[[list[tuple[str, dict[str, Any]]]], Awaitable[None]]
"""Said aloud and printed for the judge (:meth:`~voicehost.host.console.Console.reply`)."""


def standing_speech(judged: Sequence[dict[str, Any]], inputs: int) -> tuple[int, float, bool] | None:
    """The speech a resumed journal was in, as the judge left its clock: (seat, seconds left,
    held) from the timer records made at this very input count; None when there are none."""
    found: tuple[int, float, bool] | None = None
    for record in judged:
        if record["action"] in TIMER_ACTIONS and record["i"] == inputs:
            held = record["action"] == "hold" or (found is not None and found[2] and record["action"] != "release")
            found = (int(record["seat"]), float(record["left"]), held)
        elif record["i"] != inputs and record["action"] in TIMER_ACTIONS:
            found = None
    return found


def notes_of(judged: Sequence[dict[str, Any]]) -> tuple[tuple[int, str], ...]:
    return tuple((int(r["seat"]), str(r["text"])) for r in judged if r["action"] == "note")


def verdict_of(judged: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    return next(({"result": r["result"], "reason": r["reason"], "by": r["by"]}
                 for r in reversed(judged) if r["action"] == "verdict"), None)


def judge_protocol(judged: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What the protocol keeps of the judge's records: his notes (seat 0: the game's), and an
    annulled or stopped game's ``result`` and ``verdict`` (why, and who said so)."""
    added: dict[str, Any] = {}
    notes = notes_of(judged)
    if notes:
        added["notes"] = [{"seat": seat, "text": text} for seat, text in notes]
    verdict = verdict_of(judged)
    if verdict is not None:
        added["result"] = verdict["result"]
        added["verdict"] = verdict
    return added


def best_points(game: Game) -> float | None:
    """The best-player award of the scoring scheme the game is played under, if it has one."""
    scheme = game.options.get("scoring")
    points = game.ruleset.scoring.get(str(scheme), {}).get("best_player") if scheme is not None else None
    return float(points) if points else None


def judged_results(journal: Path, judged: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What a finished (or annulled, or stopped) game's protocol adds from its journal: the
    judge's records (:func:`judge_protocol`; ``judged``: those the host kept, when the journal
    file holds none, as ``/dev/null`` does) and the table's best-player vote."""
    try:
        read: JournalFile | None = load_journal(journal)
    except (InputError, OSError):
        read = None
    added = judge_protocol(judged if judged is not None else read.judged if read is not None else [])
    if read is not None and "best_player" in read.header and "verdict" not in added:
        added["best_player"] = read.header["best_player"]
    return added


class FloorControl(Protocol):
    """What ``back`` and ``undo`` need of the floor (:class:`~voicehost.host.speeches.Floor`)."""

    time_left: dict[int, float]

    def give_back(self) -> tuple[int, float]: ...

    async def undone(self, item: Input, index: int) -> None: ...


class JudgeControls:
    """The judge's own controls (:class:`~voicehost.host.commands.JudgeControl`), carried out for
    the console with what they act on: the stage (game, journal, voice), the speaker's timer, the
    floor (``back``) and the console's reply."""

    def __init__(self, stage: Stage, timer: SpeechTimer, floor: FloorControl | None, reply: Reply) -> None:
        self.stage, self.timer, self.floor, self.reply = stage, timer, floor, reply
        journal = stage.journal
        self.judged: list[dict[str, Any]] = journal.judged if journal is not None else []
        """The judge's records still standing (the journal's own list when there is one)."""
        self.after_game = False
        """The game is over (at ``voicehost run``, the table votes for its best player now)."""

    @property
    def verdict(self) -> dict[str, Any] | None:
        return verdict_of(self.judged)

    def _record(self, action: str, **fields: Any) -> dict[str, Any]:
        """On disk (when there is a journal) before anything follows from it."""
        stage = self.stage
        at = len(stage.game.inputs)
        if stage.journal is not None:
            return stage.journal.judge(stage.ports.clock(), "console", at, action, **fields)
        record = {"type": "judge", "t": stage.ports.clock(), "source": "console", "i": at, "action": action,
                  **fields}
        judged_onto(record, self.judged, "judge")
        return record

    def _record_of(self, command: JudgeControl, **fields: Any) -> dict[str, Any]:
        """The command's judge record, with exactly the fields it declares
        (:attr:`~voicehost.host.commands.Command.record`): the journal's reader reads the same."""
        declared = command.record
        assert declared is not None and declared.fields <= set(fields) <= declared.fields | declared.optional, fields
        return self._record(declared.action, **fields)

    async def command(self, command: JudgeControl, by: str) -> Answer:
        """Carry ``command`` out; what it did, for the judge (a key of ``answers.`` (read_lines), its values)."""
        match command:
            case BestCommand(seat=seat):
                await self._best(seat)
                return ("best", {"seat": seat})
            case NoteCommand(seat=seat, text=text):
                self._record_of(command, seat=seat, text=text)
                self._notes_changed()
                return ("note" if seat else "note_on_game", {"seat": seat, "text": text})
            case AnnulCommand(reason=reason) | StopCommand(reason=reason):
                await self._verdict(command, reason, by)
                return (command.name, {"reason": reason})
            case BackCommand():
                seat, left = await self._back()
                return ("back", {"seat": seat, "left": round(left)})
            case TimeCommand() | RestartCommand() | HoldCommand() | ReleaseCommand():
                return await self._clock(command)
        raise AssertionError(command)   # every JudgeControl has its case

    async def _clock(self, command: TimeCommand | RestartCommand | HoldCommand | ReleaseCommand) -> Answer:
        """The speaker's clock: more or less time, the whole time again, held or running again."""
        timer = self.timer
        request = timer.request
        if request is None or timer.deadline is None:
            raise Refused(NoFloorNow())
        seat, left = request.seat, timer.now_left()
        key, n = f"judge_{command.name}", 0
        match command:
            case TimeCommand(seconds=seconds):
                if left + seconds < 1:
                    raise Refused(TimeRunsOut(max(0, round(left)), -seconds))
                self._record_of(command, seat=seat, seconds=seconds, left=round(left + seconds, 3))
                timer.add(seconds)
                key, n = "judge_time_" + ("more" if seconds > 0 else "less"), abs(seconds)
            case RestartCommand():
                self._record_of(command, seat=seat, left=request.seconds, was=round(left, 3))
                timer.restart(request.seconds)
            case HoldCommand():
                if timer.held_left is not None:
                    raise Refused(SpeechAlreadyHeld())
                self._record_of(command, seat=seat, left=round(left, 3))
                timer.hold_speech()
            case ReleaseCommand():
                if timer.held_left is None:
                    raise Refused(NotHeld())
                self._record_of(command, seat=seat, left=round(left, 3))
                timer.release()
        await self.reply([(key, {"seat": seat, "n": n})])
        return (command.name, {"seat": seat, "seconds": f"{n if key.endswith('more') else -n:+d}",
                               "left": round(timer.now_left())})

    async def _back(self) -> tuple[int, float]:
        """The last speaker gets the floor back with the time he had left (his end journaled as
        taken back, then this record: a resume gives him that time)."""
        floor = self.floor
        if floor is None:
            raise Refused(NothingToGiveBack())
        seat, left = floor.give_back()
        self._record_of(BackCommand(), seat=seat, left=round(left, 3))
        await self.stage.say([("go_on", {"seat": seat})])
        return seat, left

    async def _verdict(self, command: AnnulCommand | StopCommand, reason: str, by: str) -> None:
        result = "annulled" if isinstance(command, AnnulCommand) else "stopped"
        if self.verdict is not None:
            raise Refused(VerdictGiven())
        speech = {} if self.timer.request is None or self.timer.deadline is None else \
            {"seat": self.timer.request.seat, "left": round(self.timer.now_left(), 3)}   # to go on from, if undone
        self._record_of(command, result=result, reason=reason, by=by, **speech)
        await self.reply([(VERDICT_LINES[result], {"reason": reason})])

    async def _best(self, seat: int) -> None:
        """The table's best player, voted after the game (an ``award`` line; the last one counts)."""
        stage = self.stage
        if not self.after_game or self.verdict is not None:
            raise Refused(BestAfterTheGame())
        if stage.journal is not None:
            stage.journal.award(stage.ports.clock(), "console", seat)
        self.best = seat
        await self.reply([("best_player_is", {"seat": seat})])

    best: int | None = None
    """The seat the table voted the best player (``best N`` after the game)."""

    def _notes_changed(self) -> None:
        self.stage.notify(NotesChanged(notes_of(self.judged)))

    async def undo(self) -> Answer | None:
        """The judge's ``undo``, when his own last record is newer than the game's last input:
        it is taken back (journaled as an ``undo`` record) and the answer says what. None: the
        game's input is the newer."""
        game = self.stage.game
        if not self.judged or self.judged[-1]["i"] != len(game.inputs):
            if self.after_game:
                raise Refused(NoJudgeRecordToUndo())
            return None
        last = self.judged[-1]
        self._record(UNDO_RECORD.action, undone=last["action"])
        action, seat = last["action"], int(last.get("seat", 0))
        if action == "note":
            self._notes_changed()
        elif action == "back":
            await self.stage.push(EndSpeech(seat), "console")
        elif action in TIMER_ACTIONS:
            self._clock_undone(last)
        elif action == "verdict":
            await self._verdict_undone(last)
        values = {name: last.get(name, "") for name in ("seat", "text", "result")}
        return (f"undone_{action}", {**values, "seconds": f"{int(last.get('seconds', 0)):+d}"})

    async def _verdict_undone(self, record: dict[str, Any]) -> None:
        """The game goes on, and the table is told so; the speech it stopped resumes with the time
        it had then (``seat``/``left`` of the verdict), not a time of an older record."""
        if "seat" in record and self.floor is not None:
            self.floor.time_left[int(record["seat"])] = float(record["left"])
        await self.reply([("resumed", {})])

    def _clock_undone(self, record: dict[str, Any]) -> None:
        """The speaker's clock as it was before ``record`` (his floor now, or given back to come)."""
        timer, floor = self.timer, self.floor
        action, seat = record["action"], int(record["seat"])
        waiting = floor.time_left if floor is not None else {}
        if seat in waiting:   # his floor is given back and not open yet
            if action == "time":
                waiting[seat] -= float(record["seconds"])
            elif action == "restart":
                waiting[seat] = float(record["was"])
            return
        if timer.request is None or timer.request.seat != seat:
            return
        if action == "time":
            timer.add(-float(record["seconds"]))
        elif action == "restart":   # the old deadline again, as if the speech had never restarted
            ran = 0.0 if timer.held_left is not None else self.stage.clock.since(float(record["t"]))
            timer.restart(max(1.0, float(record["was"]) - ran))
        elif action == "hold" and timer.held_left is not None:
            timer.release()
        elif action == "release" and timer.held_left is None:
            timer.hold_speech()
