"""The human host's console at a live table: typed commands that foul, remove, correct a vote
or the cards, undo, pause, repeat and report — each checked by the game and journaled (a
correction as a splice) before anything is said about it."""

from __future__ import annotations

import asyncio
from typing import Any

from voicehost.host.dealing import typed_deal
from voicehost.host.stage import Stage
from voicehost.language.host_lines import event_lines
from voicehost.rules import IllegalInput
from voicehost.rules.inputs import BloodName, Foul, Input, Nominate, RaiseHand, Remove, Withdraw


class Console(Stage):
    """Mixed into :class:`~voicehost.host.director.Director`."""

    async def console(self, in_speech: bool = False) -> bool:
        """Commands typed by a human host: ``foul N``, ``remove N``, ``end``, ``nominate A B``,
        ``withdraw A B``, ``blood A B``, ``hand N``, ``vote V C`` (V voted for C in the last
        round; ``vote V 0``: for nobody), ``roles 3=don,…`` (the cards corrected), ``undo``,
        ``pause``/``resume``, ``repeat``, ``status``. Returns True when the current speech was
        ended from the console."""
        ended = False
        while not self.ports.console.empty():
            words = self.ports.console.get_nowait().split()
            if not words:
                continue
            try:
                ended = await self.command(words) or ended
            except (IllegalInput, ValueError, IndexError) as err:
                self.log(f"console: {' '.join(words)}: {err}")
                if isinstance(err, IllegalInput):
                    self.refusals.append(err)
                    self.progress.set()
            await asyncio.sleep(0)  # let whoever typed this see it done and type the next line
        return ended

    async def command(self, words: list[str]) -> bool:
        name, args = words[0], [int(w) for w in words[1:] if w.isdigit()]
        if name == "end":
            return True
        if name == "roles":
            self._set_roles(" ".join(words[1:]))
            return False
        if name in ("foul", "remove"):
            await self.push((Foul if name == "foul" else Remove)(args[0], "host"), "console")
        elif name in ("nominate", "withdraw", "blood"):
            make = {"nominate": Nominate, "withdraw": Withdraw, "blood": BloodName}[name]
            await self.push(make(args[0], args[1]), "console")
        elif name == "hand":
            await self.push(RaiseHand(args[0]), "console")
        elif name == "undo":
            if len(self.game.inputs) <= 1:
                raise IllegalInput("the deal cannot be undone (correct the cards with: roles 3=don,…)")
            undone = self.game.inputs[-1]
            self.game.pop()
            self._journal_splice(len(self.game.inputs), 1, [], f"undo {undone.kind}")
            self._relight()
        elif name == "vote":
            voter, candidate = args[0], args[1] if len(args) > 1 else 0
            at, removed, new = self.game.correct_vote(voter, candidate)
            self._journal_splice(at, removed, new, f"vote {voter} {candidate}")
            await self.say([("vote_corrected", {"seat": voter, "target": candidate}) if candidate
                            else ("vote_removed", {"seat": voter})])
            await self._announce_since(at + len(new))
        elif name == "repeat":
            await self.say_text(self.last_line)
        elif name == "status":
            await self.say(self.status())
        elif name == "pause":
            await self.pause()
        else:
            raise ValueError("unknown command (foul, remove, end, nominate, withdraw, blood, hand, vote, roles, "
                             "undo, repeat, status, pause)")
        return False

    async def _announce_since(self, index: int) -> None:
        """The corrected vote's result, said again from the count on, and the LEDs relit."""
        probe = type(self.game)(self.game.ruleset, self.game.options, self.game.seats)
        for item in self.game.inputs[:index]:
            probe.push(item)
        self._relight()
        for event in self.game.events[len(probe.events):]:
            await self.say(event_lines(event, self.game))

    def _set_roles(self, typed: str) -> None:
        """«roles 3=don,5=mafia,…» in the middle of a game: the cards were learned wrong. The
        deal is replaced and the game replayed (refused if what followed no longer fits).
        Nothing is said: the roles are secret."""
        if not self.game.inputs:
            raise IllegalInput("no cards are dealt yet")
        deal = typed_deal(typed, self.game, "roles")
        self.game.splice(0, 1, [deal])
        self._journal_splice(0, 1, [deal], "roles corrected")
        self._relight()

    async def pause(self) -> None:
        """Everything waits until the console types ``resume``; a running speech keeps the
        time it had left."""
        paused_at = self.ports.clock()
        await self.say([("paused", {})])
        while (await self.ports.console.get()).strip() != "resume":
            self.log("console: paused — type resume")
        if self.deadline is not None:
            self.deadline += self.ports.clock() - paused_at
        await self.say([("resumed", {})])

    def _journal_splice(self, at: int, removed: int, new: list[Input], why: str) -> None:
        """A correction is checked against the whole game first (the splice replays it), then
        on disk before anything is said about it."""
        self.log(f"console: {why}")
        if self.journal is not None:
            self.journal.splice(self.ports.clock(), "console", at, removed, new, why)

    async def say_text(self, text: str) -> None:
        await self.ports.utter(text)

    def status(self) -> list[tuple[str, dict[str, Any]]]:
        """«status» aloud: who is nominated, and the fouls."""
        nominated = [n for _, n in getattr(self.game, "nominations", [])]
        said: list[tuple[str, dict[str, Any]]] = [("status_nominated", {"list": tuple(nominated)})] if nominated \
            else [("status_nobody_nominated", {})]
        said += [("fouls_status", {"seat": s, "n": n}) for s, n in sorted(self.game.fouls.items()) if n]
        if self.deadline is not None:
            left = max(0, round((self.deadline - self.ports.clock()) * self.ports.speed))
            said.append(("status_time_left", {"n": left}))
        return said
