"""A vote at a live table: a window per candidate opened at the onset of the question and
closed at the onset of «Спасибо», thumbs read from the seat buttons, the lift vote — and every
press kept as a ballot (:mod:`~voicehost.host.ballots`): told the moment its button goes down
(:class:`~voicehost.host.notices.BallotPressed`: the stream's overlay shows it), journaled beside
the vote's inputs, shown to the judge as the windows close and to the table once the count is said."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, cast

from hw.capture import Ballot, Press, Window, count_votes, read_lift
from voicehost.host.ballots import VoteBallots
from voicehost.host.notices import BallotPressed, BallotsCast, LineSaid, Notice, VoteCorrected, WindowChanged
from voicehost.host.stage import Stage
from voicehost.language.host_lines import question_key
from voicehost.rules.events import LiftCounted, MorningCame, VotesCounted
from voicehost.rules.flow import CountedVote, TableGame
from voicehost.rules.inputs import CloseVoting, Foul, Lift, Vote
from voicehost.rules.requests import AwaitLift, AwaitVotes

LIFT_QUESTION = "all_leave_question"   # «Кто за то, чтобы все голосуемые покинули игру?»
EARLY_S = 1.0   # presses this many table seconds before a vote's first window are kept as ballots (outside)


class Voting:
    """The day's votes. It holds the onset of the lift question, which the host says with the
    last round's result (an input's line), until the lift vote reads the thumbs from there."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        self.game = stage.game
        self.ports = stage.ports
        self.lift_asked_at: float | None = None
        """When «… покинули игру?» was last said (the loop's clock), not yet read by a lift vote."""
        self.read_until: float | None = None
        """Where the last vote's reading of the buttons ended (no press is a ballot of two votes)."""
        self.last_vote: VoteBallots | None = None
        """The ballots of the last round a ``vote V C`` may correct (a resumed game's, from its journal)."""
        if stage.journal is not None:
            self.last_vote = next((v for v in reversed(stage.journal.resumed_ballots) if v.round != "lift"), None)
        stage.watch(self._heard)

    def close(self) -> None:
        self.stage.unwatch(self._heard)

    def _heard(self, notice: Notice) -> None:
        if isinstance(notice, LineSaid) and notice.key == LIFT_QUESTION:
            self.lift_asked_at = notice.onset
        elif isinstance(notice, VoteCorrected) and self.last_vote is not None:
            self.last_vote = self.last_vote.corrected(notice.voter, notice.before, notice.candidate, "console",
                                                      self.ports.clock())
            self.stage.notify(BallotsCast(self.last_vote, True))

    def _presses(self, opens: float) -> list[Press]:
        """The presses of a vote whose first window opened at ``opens``: from a moment before it
        (a thumb that came too early is a ballot too, outside) until now."""
        since = opens - self.stage.clock.span(EARLY_S)
        if self.read_until is not None:
            since = min(opens, max(since, self.read_until))   # the window itself is always read
        self.read_until = self.ports.clock()
        return self.ports.presses(since, self.read_until + 1e-9)

    def _which_vote(self) -> int:
        """The vote's place among the day's votes (1: the first), counted from the game's events."""
        counted = 0
        for event in reversed(self.game.events):
            if isinstance(event, MorningCame):
                break
            counted += isinstance(event, (VotesCounted, LiftCounted))
        return counted + 1

    def _ballots(self, round_: str, at: int, windows: list[Window], presses: list[Ballot],
                 counted: Sequence[CountedVote] = (), non_voters: tuple[int, str] | None = None) -> VoteBallots:
        """The vote's ballots, journaled before its count (``CloseVoting``) is taken; ``counted``
        adds the votes the rules give and weighs each ballot as the count will."""
        vote = VoteBallots.of(self.game.day, self._which_vote(), round_, at, len(self.game.inputs), windows,
                              presses).given(counted, non_voters)
        if self.stage.journal is not None:
            self.stage.journal.ballots(self.ports.clock(), vote)
        return vote

    def _pressed(self, since: float, now: float) -> list[Press]:
        """The presses from ``since`` as they stand at ``now``: a button that comes up later (a
        simulated table knows it ahead) is still held."""
        return [p if p.up is None or p.up <= now else replace(p, up=None)
                for p in self.ports.presses(since, now + 1e-9)]

    def _so_far(self, round_: str, windows: Sequence[Window], presses: list[Ballot]) -> VoteBallots:
        """The vote being taken, as far as its windows go (not journaled: its ballots are once it is read)."""
        return VoteBallots.of(self.game.day, self._which_vote(), round_, len(self.game.inputs), 0, windows, presses)

    async def _taking(self, seconds: float, window: Window, so_far: Callable[[float], VoteBallots]) -> None:
        """The open window's ``seconds`` (table seconds), each of its ballots told as its button
        goes down (:class:`BallotPressed`): a vote is open, hands raised, so a ballot is public
        the moment it is cast. A real panel's edges stir the ports as they come (and are polled
        as a speech polls them, for the panel's settling); a simulated table's are known ahead:
        the wait wakes at each. The window lasts exactly ``seconds`` whatever the presses."""
        timer = asyncio.ensure_future(self.stage.wait(seconds))
        stirred: asyncio.Future[Any] | None = None
        told: set[tuple[int, float]] = set()
        try:
            while True:
                self.ports.stirred.clear()
                now = self.ports.clock()
                vote = so_far(now)
                for ballot in vote.ballots:
                    key = (ballot.voter, ballot.t or 0.0)
                    if ballot.pressed == window.candidate and ballot.t is not None and key not in told:
                        told.add(key)   # a candidate has one window a vote: its presses are this window's
                        self.stage.notify(BallotPressed(ballot, vote))
                if timer.done():
                    return
                ahead = [p.down - now for p in self.ports.presses(now, window.closes) if p.down > now]
                if self.ports.poll_s is not None:
                    ahead.append(self.ports.poll_s)
                stirred = asyncio.ensure_future(self.ports.stirred.wait())
                await asyncio.wait([timer, stirred], timeout=min(ahead, default=None),
                                   return_when=asyncio.FIRST_COMPLETED)
                stirred.cancel()
        finally:   # a game stopped mid-window leaves no task behind
            timer.cancel()
            if stirred is not None:
                stirred.cancel()

    async def window(self, request: AwaitVotes, closed: Sequence[Window], key: str, **values: Any) -> Window:
        """One candidate's window (``closed``: the vote's windows before it); his LED pulses
        while it is open, and each ballot is told as its button goes down."""
        candidate = int(values.get("seat", 0))
        self.stage.lights.window(candidate)
        self.stage.notify(WindowChanged(candidate))
        opens = (await self.stage.say([(key, values)]))[0]
        self.ports.cue("vote_open")
        closing = self.stage.clock.table_span(self.ports.cue_length("vote_close"))
        seconds = self.game.ruleset.timers.get("vote_window_s", 2) - closing
        until = self.ports.clock() + self.stage.clock.span(max(0.0, seconds))   # when it is due to close

        def so_far(now: float) -> VoteBallots:
            windows = [*closed, Window(candidate, opens, until)]
            result = count_votes(windows, self._pressed(windows[0].opens, now), request.voters)
            return self._so_far(request.round, windows, result.ballots)
        await self._taking(seconds, Window(candidate, opens, until), so_far)
        self.ports.cue("vote_close")   # ends as the window does: «Спасибо» comes the window's length after the question
        closes = (await self.stage.say([("thanks", {})]))[0]
        self.stage.notify(WindowChanged(None))
        self.stage.lights.restore(candidate)
        return Window(candidate, opens, closes)

    async def votes(self, request: AwaitVotes) -> None:
        """A window per candidate the ruleset asks about (sport: all but the last). The judge
        sees the ballots as each window closes; the table, once the count is said."""
        question = question_key(request.round)
        windows: list[Window] = []
        vote: VoteBallots | None = None
        for c in cast(TableGame, self.game).windowed(request):
            windows.append(await self.window(request, windows, question, seat=c,
                                             name=self.game.names.get(c, str(c))))
            result = count_votes(windows, self.ports.presses(windows[0].opens, self.ports.clock() + 1e-9),
                                 request.voters)
            self.stage.notify(BallotsCast(self._so_far(request.round, windows, result.ballots), False))
        at = len(self.game.inputs)
        presses: list[Ballot] = []
        if windows:
            result = count_votes(windows, self._presses(windows[0].opens), request.voters)
            window_of = {w.candidate: k for k, w in enumerate(windows)}
            for voter, candidate in sorted(result.votes.items(), key=lambda vote: (window_of[vote[1]], vote[0])):
                await self.stage.push(Vote(voter, candidate), "seats")  # window by window, seat by seat
            for seat, reason in result.fouls:
                if self.game.is_alive(seat) and self.game.request is not None:
                    await self.stage.push(Foul(seat, reason), "seats")
            presses = result.ballots
        if self.game.request == request:
            # Every vote the count will count, the rules' own among them: a round with no window
            # (sport's single candidate) has ballots too, every one given by the rules.
            game = cast(TableGame, self.game)
            vote = self._ballots(request.round, at, windows, presses, game.counted_votes(request),
                                 game.non_voters_go_to(request))
        self.last_vote = vote
        if self.game.request == request:
            await self.stage.push(CloseVoting(), "host")
        if vote is not None:
            self.stage.notify(BallotsCast(vote, True))   # the count is said: the table sees who voted for whom

    async def lift(self, request: AwaitLift) -> None:
        """«Кто за то, чтобы все голосуемые покинули игру?», said with the last round's result,
        opened the window; a resumed game (its vote interrupted) asks it again."""
        opens, self.lift_asked_at = self.lift_asked_at, None
        if opens is None:
            opens = (await self.stage.say([(LIFT_QUESTION, {})]))[0]
            self.lift_asked_at = None
        self.stage.notify(WindowChanged(0))
        seconds = self.game.ruleset.timers.get("vote_window_s", 2)
        until = self.ports.clock() + self.stage.clock.span(max(0.0, seconds))

        def so_far(now: float) -> VoteBallots:
            window = Window(0, opens, until)
            return self._so_far("lift", [window], read_lift(window, self._pressed(opens, now), request.voters))
        await self._taking(seconds, Window(0, opens, until), so_far)
        closes = (await self.stage.say([("thanks", {})]))[0]
        self.stage.notify(WindowChanged(None))
        # Every press in the window is a thumb, in the order pressed; the game judges a
        # seat's second thumb (ignored, a foul) as it judges every second vote.
        window = Window(0, opens, closes)
        ballots = read_lift(window, self._presses(opens), request.voters)
        thumbs: dict[int, int] = {}
        for ballot in ballots:
            if ballot.mark in ("vote", "second_vote"):
                thumbs[ballot.voter] = thumbs.get(ballot.voter, 0) + 1
        at = len(self.game.inputs)
        # Seat by seat (presses that land together have no order of their own), second thumbs last.
        for _, voter in sorted((k, seat) for seat, n in thumbs.items() for k in range(n)):
            if self.game.request != request:
                return  # a foul removed a player and the vote is gone
            await self.stage.push(Lift(voter), "seats")
        if self.game.request == request:
            vote = self._ballots("lift", at, [window], ballots)
            await self.stage.push(CloseVoting(), "host")
            self.stage.notify(BallotsCast(vote, True))
