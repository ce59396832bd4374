"""A vote at a live table: a window per candidate opened at the onset of the question and
closed at the onset of «Спасибо», thumbs read from the seat buttons, the lift vote."""

from __future__ import annotations

from typing import Any, cast

from hw.capture import Window, count_votes
from voicehost.host.notices import LineSaid, Notice, WindowChanged
from voicehost.host.stage import Stage
from voicehost.language.host_lines import question_key
from voicehost.rules.flow import TableGame
from voicehost.rules.inputs import CloseVoting, Foul, Lift, Vote
from voicehost.rules.requests import AwaitLift, AwaitVotes

LIFT_QUESTION = "all_leave_question"   # «Кто за то, чтобы все голосуемые покинули игру?»


class Voting:
    """The day's votes. It holds the onset of the lift question, which the host says with the
    last round's result (an input's line), until the lift vote reads the thumbs from there."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        self.game = stage.game
        self.ports = stage.ports
        self.lift_asked_at: float | None = None
        """When «… покинули игру?» was last said (the loop's clock), not yet read by a lift vote."""
        stage.watch(self._heard)

    def close(self) -> None:
        self.stage.unwatch(self._heard)

    def _heard(self, notice: Notice) -> None:
        if isinstance(notice, LineSaid) and notice.key == LIFT_QUESTION:
            self.lift_asked_at = notice.onset

    async def window(self, key: str, **values: Any) -> Window:
        """One candidate's window; his LED pulses while it is open."""
        candidate = int(values.get("seat", 0))
        self.stage.lights.window(candidate)
        self.stage.notify(WindowChanged(candidate))
        opens = (await self.stage.say([(key, values)]))[0]
        self.ports.cue("vote_open")
        closing = self.stage.clock.table_span(self.ports.cue_length("vote_close"))
        await self.stage.wait(self.game.ruleset.timers.get("vote_window_s", 2) - closing)
        self.ports.cue("vote_close")   # ends as the window does: «Спасибо» comes the window's length after the question
        closes = (await self.stage.say([("thanks", {})]))[0]
        self.stage.notify(WindowChanged(None))
        self.stage.lights.restore(candidate)
        return Window(candidate, opens, closes)

    async def votes(self, request: AwaitVotes) -> None:
        """A window per candidate the ruleset asks about (sport: all but the last)."""
        question = question_key(request.round)
        windows = [await self.window(question, seat=c, name=self.game.names.get(c, str(c)))
                   for c in cast(TableGame, self.game).windowed(request)]
        if windows:
            result = count_votes(windows, self.ports.presses(windows[0].opens, windows[-1].closes),
                                 request.voters)
            window_of = {w.candidate: k for k, w in enumerate(windows)}
            for voter, candidate in sorted(result.votes.items(), key=lambda vote: (window_of[vote[1]], vote[0])):
                await self.stage.push(Vote(voter, candidate), "seats")  # window by window, seat by seat
            for seat, reason in result.fouls:
                if self.game.is_alive(seat) and self.game.request is not None:
                    await self.stage.push(Foul(seat, reason), "seats")
        if self.game.request == request:
            await self.stage.push(CloseVoting(), "host")

    async def lift(self, request: AwaitLift) -> None:
        """«Кто за то, чтобы все голосуемые покинули игру?», said with the last round's result,
        opened the window; a resumed game (its vote interrupted) asks it again."""
        opens, self.lift_asked_at = self.lift_asked_at, None
        if opens is None:
            opens = (await self.stage.say([(LIFT_QUESTION, {})]))[0]
            self.lift_asked_at = None
        self.stage.notify(WindowChanged(0))
        await self.stage.wait(self.game.ruleset.timers.get("vote_window_s", 2))
        closes = (await self.stage.say([("thanks", {})]))[0]
        self.stage.notify(WindowChanged(None))
        # Every press in the window is a thumb, in the order pressed; the game judges a
        # seat's second thumb (ignored, a foul) as it judges every second vote.
        thumbs: dict[int, int] = {}
        for press in self.ports.presses(opens, closes):
            if press.seat in request.voters:
                thumbs[press.seat] = thumbs.get(press.seat, 0) + 1
        # Seat by seat (presses that land together have no order of their own), second thumbs last.
        for _, voter in sorted((k, seat) for seat, n in thumbs.items() for k in range(n)):
            if self.game.request != request:
                return  # a foul removed a player and the vote is gone
            await self.stage.push(Lift(voter), "seats")
        if self.game.request == request:
            await self.stage.push(CloseVoting(), "host")
