"""The judge's own controls at the console: the speaker's clock (``time ±S``, ``restart``,
``back``, ``hold``/``release``), notes (``note N …``), the game annulled or stopped (``annul …``,
``stop …``) and the table's best player after the game (``best N``).

None of these is an input of the game: each is a ``judge`` record of the journal
(:data:`~voicehost.host.journal.JUDGE_FIELDS`), written before anything is said or shown,
and the console's ``undo`` takes the newest of them back when it is newer than the game's last
input. A resumed journal carries the records still standing, so the speech that was running
resumes with the time the judge gave it (held, if he held it), the notes stay, and an annulled
or stopped game stays so. What the protocol keeps of them: :func:`judge_protocol`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from voicehost.rules.errors import GameIsOver
from voicehost.rules.inputs import EndSpeech

if TYPE_CHECKING:
    from voicehost.host.console import Console

JUDGE_COMMANDS = ("time", "restart", "back", "hold", "release", "note", "annul", "stop", "best")
TEXT_COMMANDS = ("note", "annul", "stop")   # a command whose words after it are the judge's text
TIMER_ACTIONS = ("time", "restart", "back", "hold", "release")
DEFAULT_TIME_S = 30
_SECONDS = re.compile(r"[+-]?[0-9]{1,3}")
VERDICT_LINES = {"annulled": "game_annulled", "stopped": "game_stopped"}


def read_seconds(words: Sequence[str]) -> str | None:
    """``time`` → ``+30``; ``time +15`` / ``time 15`` → ``+15``; ``time -15`` → ``-15``; else None."""
    if not words:
        return f"+{DEFAULT_TIME_S}"
    if len(words) != 1 or not _SECONDS.fullmatch(words[0]) or int(words[0]) == 0:
        return None
    return f"{int(words[0]):+d}"


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


class JudgeControls:
    """The judge's commands of :data:`JUDGE_COMMANDS`, carried out for the console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        journal = console.stage.journal
        self.judged: list[dict[str, Any]] = journal.judged if journal is not None else []
        """The judge's records still standing (the journal's own list when there is one)."""
        self.after_game = False
        """The game is over (at ``voicehost run``, the table votes for its best player now)."""

    @property
    def verdict(self) -> dict[str, Any] | None:
        return verdict_of(self.judged)

    def _record(self, action: str, **fields: Any) -> dict[str, Any]:
        """On disk (when there is a journal) before anything follows from it."""
        stage = self.console.stage
        at = len(stage.game.inputs)
        if stage.journal is not None:
            return stage.journal.judge(stage.ports.clock(), "console", at, action, **fields)
        record = {"type": "judge", "t": stage.ports.clock(), "source": "console", "i": at, "action": action,
                  **fields}
        judged_onto(record, self.judged, "judge")
        return record

    async def command(self, name: str, args: list[int], rest: str, by: str) -> None:
        if name == "best":
            await self._best(args[0])
            return
        if self.after_game and name not in ("note", "annul"):
            raise Refused(GameIsOver() if self.verdict is None else VerdictGiven())
        if name in ("note",):
            self._record("note", seat=args[0], text=rest)
            self._notes_changed()
        elif name in ("annul", "stop"):
            await self._verdict("annulled" if name == "annul" else "stopped", rest, by)
        elif name == "back":
            await self._back()
        else:
            await self._clock(name, rest)

    async def _clock(self, name: str, rest: str) -> None:
        """The speaker's clock: more or less time, the whole time again, held or running again."""
        timer = self.console.timer
        request = timer.request
        if request is None or timer.deadline is None:
            raise Refused(NoFloorNow())
        seat, left = request.seat, timer.now_left()
        if name == "time":
            seconds = int(rest)
            if left + seconds < 1:
                raise Refused(TimeRunsOut(max(0, round(left)), -seconds))
            self._record("time", seat=seat, seconds=seconds, left=round(left + seconds, 3))
            timer.add(seconds)
        elif name == "restart":
            self._record("restart", seat=seat, left=request.seconds, was=round(left, 3))
            timer.restart(request.seconds)
        elif name == "hold":
            if timer.held_left is not None:
                raise Refused(SpeechAlreadyHeld())
            self._record("hold", seat=seat, left=round(left, 3))
            timer.hold_speech()
        else:
            if timer.held_left is None:
                raise Refused(NotHeld())
            self._record("release", seat=seat, left=round(left, 3))
            timer.release()
        key = f"judge_{name}" if name != "time" else "judge_time_" + ("more" if int(rest) > 0 else "less")
        await self.console.reply([(key, {"seat": seat, "n": abs(int(rest or 0))})])

    async def _back(self) -> None:
        """The last speaker gets the floor back with the time he had left (his end journaled as
        taken back, then this record: a resume gives him that time)."""
        floor = self.console.floor
        if floor is None:
            raise Refused(NothingToGiveBack())
        seat, left = floor.give_back()
        self._record("back", seat=seat, left=round(left, 3))
        await self.console.stage.say([("go_on", {"seat": seat})])

    async def _verdict(self, result: str, reason: str, by: str) -> None:
        if self.verdict is not None:
            raise Refused(VerdictGiven())
        self._record("verdict", result=result, reason=reason, by=by)
        await self.console.reply([(VERDICT_LINES[result], {"reason": reason})])

    async def _best(self, seat: int) -> None:
        """The table's best player, voted after the game (an ``award`` line; the last one counts)."""
        stage = self.console.stage
        if not self.after_game or self.verdict is not None:
            raise Refused(BestAfterTheGame())
        if stage.journal is not None:
            stage.journal.award(stage.ports.clock(), "console", seat)
        self.best = seat
        await self.console.reply([("best_player_is", {"seat": seat})])

    best: int | None = None
    """The seat the table voted the best player (``best N`` after the game)."""

    def _notes_changed(self) -> None:
        self.console.stage.notify(NotesChanged(notes_of(self.judged)))

    async def undo(self) -> bool:
        """The judge's ``undo``, when his own last record is newer than the game's last input:
        it is taken back (journaled as an ``undo`` record). False: the game's input is the newer."""
        game = self.console.game
        if not self.judged or self.judged[-1]["i"] != len(game.inputs):
            if self.after_game:
                raise Refused(NoJudgeRecordToUndo())
            return False
        last = self.judged[-1]
        self._record("undo", undone=last["action"])
        action, seat = last["action"], int(last.get("seat", 0))
        if action == "note":
            self._notes_changed()
        elif action == "back":
            await self.console.stage.push(EndSpeech(seat), "console")
        elif action in TIMER_ACTIONS:
            self._clock_undone(last)
        return True

    def _clock_undone(self, record: dict[str, Any]) -> None:
        """The speaker's clock as it was before ``record`` (his floor now, or given back to come)."""
        timer, floor = self.console.timer, self.console.floor
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
            ran = 0.0 if timer.held_left is not None else self.console.stage.clock.since(float(record["t"]))
            timer.restart(max(1.0, float(record["was"]) - ran))
        elif action == "hold" and timer.held_left is not None:
            timer.release()
        elif action == "release" and timer.held_left is None:
            timer.hold_speech()
