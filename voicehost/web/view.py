"""What a browser is shown: the public table state, and the judge's state on top of it.

The public state is built from the game's public events (never one of
:data:`~voicehost.rules.events.PRIVATE_EVENTS`), the seats' fouls and who is alive, the
director's floor and timer, and the lines the host said aloud — things everyone at the table
already hears or sees. It has no field that could carry a role: the judge's state adds the
cards, the night's actions and the checks in separate keys that only the judge's endpoints send.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from voicehost.host import (
    REGISTRY,
    VERDICT_LINES,
    BallotPressed,
    BallotsCast,
    Director,
    FloorChanged,
    LineSaid,
    NotesChanged,
    Notice,
    Paused,
    TableClock,
    VoteCorrected,
    WindowChanged,
    ballot_changed,
    ballots_view,
    offered,
)
from voicehost.language.narrate import narrate, public_lines
from voicehost.language.read_lines import has_line, read_line
from voicehost.language.record_words import record_word
from voicehost.rules import Game
from voicehost.rules.events import (
    PRIVATE_EVENTS,
    AllStay,
    DayBegan,
    Eliminated,
    Event,
    GameOver,
    LiftCounted,
    MorningCame,
    NightFell,
    NominationAccepted,
    NominationWithdrawn,
    NoVote,
    TieDeclared,
    VotesCounted,
    VotingBegan,
)
from voicehost.rules.inputs import Vote
from voicehost.rules.requests import AwaitSpeech, AwaitVotes

SUBTITLES = 12      # the host's last lines shown as subtitles
LINES_KEPT = 300    # … and kept, so a console command's answer can quote everything it made the host say
LOG_TAIL = 40       # public log lines kept in the state
# The host's lines of the judge's verdict: the display says it as the game's result until the next
# game (serve keeps the last result while idle) or until undo takes it back.
VERDICT_KEYS = frozenset(VERDICT_LINES.values())
RESULT_EVENTS = (Eliminated, NoVote, TieDeclared, AllStay, LiftCounted, VotesCounted, GameOver)
FIELD_KINDS = {"text": "text", "reason": "text", "seats": "text", "points": "text"}   # every other field: a seat


class TableView:
    """Follows one director through its notices: the lines it said (for subtitles), the floor
    and its timer, the vote window it has open and whether the game is paused."""

    def __init__(self, director: Director) -> None:
        self.game: Game = director.game
        self.clock: TableClock = director.clock
        self.lines: deque[dict[str, Any]] = deque(maxlen=LINES_KEPT)
        self.said = 0
        self.window: int | None = None   # the candidate whose vote window is open (0: the lift vote)
        self.floor = FloorChanged(None, None)   # the floor open now, and when its time is up
        self.given = 0.0   # the table seconds the open floor was given (a speech taken back: what was left)
        self.paused = False
        self.correction: dict[str, Any] | None = None   # the judge's last vote correction, for his screen
        self.notes = director.notes()   # the judge's notes: his screen only, never the public state
        self.ballots: BallotsCast | None = None   # the last vote's ballots: the judge's during the count, all after
        self.verdict: str | None = None   # «Игра аннулирована.»: the judge's verdict, until it is undone

    def heard(self, notice: Notice) -> None:
        """A director watcher: keeps what the view needs beyond the game itself."""
        if isinstance(notice, LineSaid):
            self.said += 1
            self.lines.append({"n": self.said, "text": notice.text})
            if notice.key in VERDICT_KEYS:
                self.verdict = notice.text
            elif notice.key == "resumed":   # the verdict undone: the game goes on
                self.verdict = None
        elif isinstance(notice, WindowChanged):
            self.window = notice.candidate
        elif isinstance(notice, FloorChanged):
            if notice.request is not None and notice.deadline is not None and self.floor.request is None:
                self.given = notice.deadline - self.clock.now()   # told as the timer starts (a pause keeps it)
            self.floor = notice
        elif isinstance(notice, Paused):
            self.paused = notice.on
        elif isinstance(notice, NotesChanged):
            self.notes = notice.notes
        elif isinstance(notice, VoteCorrected):
            self.correction = {"text": " ".join(notice.lines), "returned": list(notice.returned),
                               "left": list(notice.left),
                               "ballot": ballot_changed(notice.voter, notice.before, notice.candidate)}
        elif isinstance(notice, BallotsCast):
            self.ballots = notice
        elif isinstance(notice, BallotPressed):   # the vote so far: the judge and the stream see each press
            self.ballots = BallotsCast(notice.so_far, False)

    # ---- the public state --------------------------------------------------------------------------

    def public(self) -> dict[str, Any]:
        game = self.game
        public_events = [e for e in game.events if not isinstance(e, PRIVATE_EVENTS)]
        return {
            "ruleset": game.ruleset.name,
            "phase": _phase(public_events, game),
            "seats": self._seats(public_events),
            "speaker": self._speaker(),
            "nominations": _nominations(public_events),
            "vote": self._vote(public_events),
            "result": self.verdict or _last_result(public_events, game.names),
            "subtitles": list(self.lines)[-SUBTITLES:],
            "log": _last_lines(public_events, game.names),
            "paused": self.paused,
            "speed": self.clock.speed,
            "ballots": self._ballots(public=True),
        }

    def _ballots(self, public: bool) -> dict[str, Any] | None:
        """The last vote's ballots, today's only; the table sees them once the count is said."""
        cast = self.ballots
        if cast is None or (public and not cast.complete) or cast.ballots.day != self.game.day \
                or self.game.night > cast.ballots.day:
            return None
        return ballots_view(cast.ballots, cast.complete, self.clock.speed)

    def _seats(self, events: list[Event]) -> list[dict[str, Any]]:
        game = self.game
        out = {e.seat: e for e in events if isinstance(e, Eliminated)}
        nominated = {n["target"] for n in _nominations(events)}
        seats = []
        for seat in range(1, game.seats + 1):
            gone = out.get(seat)
            seats.append({
                "seat": seat,
                "name": game.names.get(seat, ""),
                "alive": gone is None,
                "out": None if gone is None else _how_out(gone),
                "fouls": game.fouls.get(seat, 0),
                "nominated": seat in nominated,
                "speaking": seat == self.floor.speaker,
            })
        return seats

    def _speaker(self) -> dict[str, Any] | None:
        request, deadline = self.game.request, self.floor.deadline
        if not isinstance(request, AwaitSpeech) or deadline is None:
            return None
        held = self.floor.held_left
        left = max(0.0, held if held is not None else deadline - self.clock.now())
        return {"held": held is not None,
                "seat": request.seat, "name": self.game.names.get(request.seat, ""), "turn": request.turn,
                "turn_text": _label("turn", request.turn), "seconds": request.seconds,
                "left": round(left, 2), "warning_s": self._warning_s(request)}

    def _warning_s(self, request: AwaitSpeech) -> int | None:
        """Seconds left when the timer shows the warning colour: when the ruleset's warning is said
        (:meth:`~voicehost.rules.Game.warning_for`); None when this turn has no warning."""
        warning = self.game.warning_for(request, self.given)
        return None if warning is None else warning[0]

    def _vote(self, events: list[Event]) -> dict[str, Any] | None:
        """Today's last vote: its ballot, the open window, the thumbs taken so far, the count."""
        began = None
        for event in reversed(events):
            if isinstance(event, (NightFell, MorningCame)):
                break
            if isinstance(event, VotingBegan):
                began = event
                break
        if began is None:
            return None
        counted = next((e for e in reversed(events) if isinstance(e, VotesCounted)
                        and e.day == began.day and e.round == began.round), None)
        counts = dict(counted.counts) if counted else self._thumbs_so_far()
        return {"round": began.round, "candidates": list(began.candidates), "open": self.window,
                "counts": [[c, counts.get(c, 0)] for c in began.candidates], "counted": counted is not None,
                "defaulted": list(counted.defaulted) if counted else []}

    def _thumbs_so_far(self) -> dict[int, int]:
        """The votes of the round being taken (they arrive as the windows close)."""
        if not isinstance(self.game.request, AwaitVotes):
            return {}
        counts: dict[int, int] = {}
        for item in reversed(self.game.inputs):
            if not isinstance(item, Vote):
                break
            counts[item.candidate] = counts.get(item.candidate, 0) + 1
        return counts

    # ---- the judge's state -------------------------------------------------------------------------

    def _note_line(self, seat: int, text: str) -> str:
        """A judge's note as his page lists it (seat 0: the game's)."""
        return read_line("web", "tool_note_of_seat", seat=seat, text=text) if seat else \
            read_line("web", "tool_note_of_game", text=text)

    def judge(self) -> dict[str, Any]:
        """The public state plus what only the judge may see: the cards, the night's actions and
        checks (as the judge's log has them), and what the game waits for."""
        game = self.game
        state = self.public()
        roles = getattr(game, "roles", {}) or {}
        state["roles"] = {str(seat): record_word(role.value) for seat, role in roles.items()}
        state["role_kinds"] = {str(seat): role.value for seat, role in roles.items()}   # the cards' colours
        state["commands"] = offered_commands(game)
        private = [e for e in game.events if isinstance(e, PRIVATE_EVENTS)]
        state["night_log"] = _last_lines(private, game.names)
        state["judge_log"] = _last_lines(game.events, game.names)
        state["waiting_for"] = type(game.request).__name__ if game.request is not None else None
        state["correction"] = self.correction
        state["notes"] = [{"seat": seat, "text": text, "line": self._note_line(seat, text)}
                          for seat, text in self.notes]
        state["ballots"] = self._ballots(public=False)
        state["final"] = final_score(game)
        state["tools"] = judge_tools(state["commands"])
        return state


def offered_commands(game: Game) -> list[str]:
    """The commands only some games take (:attr:`~voicehost.host.Command.needs`, under their
    :attr:`~voicehost.host.Command.option`) that this game takes; every other console command is
    offered by every ruleset."""
    inputs = {item for item, _ in game.handlers}
    return [name for name, command in REGISTRY.items()
            if (command.needs is not None or command.option is not None) and offered(command, inputs, game.options)]


def judge_tools(commands: list[str]) -> dict[str, Any]:
    """The judge's own controls as his page draws them, every text from ``[web]``: each command's
    buttons and forms as it declares them (one a game may not take only where
    :func:`offered_commands` has it)."""
    def text(key: str) -> str:
        return read_line("web", f"tool_{key}")
    buttons = [{"command": button.line, "label": text(button.key), "help": text(f"{button.key}_help")}
               for command in REGISTRY.values() for button in command.buttons]
    forms = [{"command": name, "label": text(name), "help": text(f"{name}_help"), "danger": command.form.danger,
              "fields": [{"name": field, "label": text(f"field_{field}"), "kind": FIELD_KINDS.get(field, "seat")}
                         for field in command.form.fields]}
             for name, command in REGISTRY.items()
             if command.form is not None and (command.needs is None and command.option is None or name in commands)]
    return {"title": text("title"), "clock": text("clock"), "buttons": buttons, "forms": forms,
            "send": text("send"), "notes": text("notes"), "logout": text("logout")}


def final_score(game: Game) -> dict[str, Any] | None:
    """A finished game's points per seat, for the judge's page: the total (``Game.scores``, as
    the protocol's ``scores``) and, where the game had them, the best move's and the judge's
    parts of it (the protocol's ``best_move`` and ``judge_points``). None before the end."""
    if not game.is_over:
        return None
    scores = game.scores()
    first_killed = int(getattr(game, "first_killed", 0) or 0)
    best_move = tuple(getattr(game, "best_move", ()) or ())
    black = int(game.best_move_black()) if best_move and hasattr(game, "best_move_black") else 0
    judge: dict[int, float] = {}
    for seat, hundredths, _ in getattr(game, "judge_points", []) or []:
        judge[seat] = judge.get(seat, 0.0) + hundredths / 100
    rows = []
    for seat in range(1, game.seats + 1):
        parts = []
        if best_move and seat == first_killed:
            parts.append(read_line("web", "final_best_move", seats=", ".join(map(str, best_move)), black=black))
        if seat in judge:
            parts.append(read_line("web", "final_judge", points=_points(judge[seat])))
        rows.append({"seat": seat, "name": game.names.get(seat, ""), "points": scores.get(seat, 0.0),
                     "text": read_line("web", "final_row", points=_points(scores.get(seat, 0.0)))
                     + (f" ({'; '.join(parts)})" if parts else "")})
    return {"title": read_line("web", "final_title"), "rows": rows}


def _points(value: float) -> str:
    """Points as a Russian judge writes them: 1, 0,25, -0,5 (never 1.0 or 0.30000000000000004)."""
    return f"{round(value, 2):g}".replace(".", ",")


def _last_lines(events: list[Event], names: dict[int, str]) -> list[str]:
    """The last :data:`LOG_TAIL` lines :func:`narrate` makes of ``events``. Each event makes
    its own line, so only the newest are narrated: a state is built on every change, and
    narrating the whole game each time made a long game's states ever slower to build."""
    newest_first = []
    for line in narrate(reversed(events), names):
        newest_first.append(line)
        if len(newest_first) == LOG_TAIL:
            break
    return newest_first[::-1]


def _phase(events: list[Event], game: Game) -> dict[str, Any]:
    for event in reversed(events):
        if isinstance(event, GameOver):
            return {"kind": "over", "number": 0, "text": read_line("web", "phase_over")}
        if isinstance(event, NightFell):
            return {"kind": "night", "number": event.night, "text": read_line("web", "phase_night", night=event.night)}
        if isinstance(event, (DayBegan, MorningCame)):
            return {"kind": "day", "number": event.day, "text": read_line("web", "phase_day", day=event.day)}
    if not game.inputs:
        return {"kind": "deal", "number": 0, "text": read_line("web", "phase_deal")}
    return {"kind": "night", "number": 1, "text": read_line("web", "phase_night", night=1)}


def _nominations(events: list[Event]) -> list[dict[str, Any]]:
    """Today's nominations in order (a withdrawn one leaves the list; none once the game is
    over), each with its ``text`` «4 выставил 3»."""
    today: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, (NightFell, MorningCame, GameOver)):
            today = []
        elif isinstance(event, NominationAccepted):
            today.append({"by": event.by, "target": event.target,
                          "text": read_line("web", "nominated", by=event.by, target=event.target)})
        elif isinstance(event, NominationWithdrawn):
            today = [n for n in today if n["target"] != event.target]
    return today


def _how_out(event: Eliminated) -> dict[str, Any]:
    when = (read_line("web", "out_on_day", day=event.day) if event.day is not None
            else read_line("web", "out_at_night", night=event.night))
    return {"cause": event.cause, "text": read_line("web", "out", cause=_label("out", event.cause), when=when)}


def _label(prefix: str, code: str) -> str:
    """A code's label from ``[web]`` (``turn_speech`` «речь», ``out_voted`` «заголосован»); the code
    itself when the phrasebook has none (a ruleset's new turn still shows)."""
    key = f"{prefix}_{code}"
    return read_line("web", key) if has_line("web", key) else code


def _last_result(events: list[Event], names: dict[int, str]) -> str | None:
    """The last outcome the table was told of (a count, a tie, who left, the winner)."""
    for event in reversed(events):
        if isinstance(event, RESULT_EVENTS) and not (isinstance(event, Eliminated) and event.cause == "killed"):
            lines = public_lines([event], names)
            if lines:
                return lines[-1]
    return None
