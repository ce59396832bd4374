"""A plausible game from a seed, written down as a table script — so ``voicehost demo --seed``
plays a fresh game each time, and a club can keep the script of any game it liked.

The people are invented as the game asks for them: when a request comes, they decide (the
mafia agree on a victim most nights, some speakers nominate, every voter picks a candidate)
and the decision is written into the script before :class:`ScriptPlayer` reads it. So the
script is, by construction, one the engine plays the same way again.
"""

from __future__ import annotations

import random
from typing import Any

from voicehost.config import load_ruleset
from voicehost.host.dealing import shuffled_deal
from voicehost.language.russian import cardinal
from voicehost.rules import GAMES
from voicehost.rules.requests import AwaitAction, AwaitLift, AwaitShots, AwaitSpeech, AwaitVotes, Request
from voicehost.simulation.engine_level import ROUND_KEYS, SPOKEN_TURNS, Acts, ScriptPlayer
from voicehost.simulation.script import Day, Script, ScriptNight, script_from_data

NAMES = ("Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ирина", "Кирилл", "Лида", "Максим",
         "Нина", "Олег", "Полина", "Роман", "Софья", "Тимур", "Ульяна", "Филипп")
AGREE = 0.85        # how often the shooters agree on one victim
NOMINATE = 0.4      # how often a speaker who may nominate does
PASSING = ("спасибо", "пас", "у меня всё спасибо")
MAX_PHASES = 40     # a game that has not ended by then stops (sport splits can go on)


def random_script(ruleset_name: str, seed: int, seats: int | None = None,
                  options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The script (as data, ready for JSON) of one invented game."""
    rng = random.Random(seed)
    ruleset = load_ruleset(ruleset_name)
    chosen = ruleset.resolve(options or {}, "options")
    seats = seats or ruleset.seats[0]
    deal = shuffled_deal(ruleset, chosen, seats, rng)
    data: dict[str, Any] = {"ruleset": ruleset_name, "seats": seats, "options": dict(options or {}),
                            "roles": {str(s): r.value for s, r in enumerate(deal, 1) if r.value != "citizen"}}
    if GAMES[ruleset_name].requires_names:
        data["names"] = {str(s): NAMES[s - 1] for s in range(1, seats + 1)}
    inventor = _Inventor(script_from_data(data), rng)
    inventor.play()
    data["nights"] = [_night_data(n) for n in inventor.script.nights]
    data["days"] = [_day_data(d) for d in inventor.script.days]
    return data


class _Inventor(ScriptPlayer):
    """Plays the engine level, writing each decision into the script just before it is read."""

    answers_directly = False  # it decides in _answer

    def __init__(self, script: Script, rng: random.Random) -> None:
        super().__init__(script)
        self.rng = rng
        self.horizon = MAX_PHASES

    def _night(self, number: int) -> ScriptNight:
        while len(self.script.nights) < number:
            self.script.nights.append(ScriptNight())
        return self.script.nights[number - 1]

    def _day(self) -> Day:
        while len(self.script.days) < self.game.day:
            self.script.days.append(Day())
        return self.script.days[self.game.day - 1] if self.game.day else Day()

    def _answer(self, request: Request) -> Acts:
        self.invent(request)
        yield from super()._answer(request)

    # ---- the people's decisions ------------------------------------------------------------

    def invent(self, request: Request) -> None:
        if isinstance(request, AwaitShots):
            self._shoot(request, self._night(request.night))
        elif isinstance(request, AwaitAction) and request.by is not None:
            self._act(request, self._night(request.night))
        elif isinstance(request, AwaitSpeech):
            self._speak(request, self._day())
        elif isinstance(request, AwaitVotes):
            ballot: dict[int, int] = getattr(self._day(), ROUND_KEYS[request.round])
            if not ballot:  # a key two rounds share keeps the first round's votes
                ballot.update({v: self.rng.choice(request.candidates) for v in request.voters
                               if self.game.is_alive(v)})
        elif isinstance(request, AwaitLift):
            self._day().lift[:] = [v for v in request.voters if self.rng.random() < 0.5]

    def _others(self, *exclude: int) -> list[int]:
        return [s for s in self.game.alive_seats() if s not in exclude]

    def _shoot(self, request: AwaitShots, night: ScriptNight) -> None:
        victims = [s for s in request.called if self.game.is_alive(s) and s not in request.shooters]
        if not victims or not request.shooters:
            return
        agreed = self.rng.choice(victims)
        for shooter in request.shooters:
            night.shots[shooter] = (agreed if self.rng.random() < AGREE else self.rng.choice(victims),)

    def _act(self, request: AwaitAction, night: ScriptNight) -> None:
        by = request.by
        assert by is not None
        if "join" in request.actions:
            night.join[by] = self.rng.choice(("black", "solo"))
            return
        action = request.actions[0]
        if "kill" in request.actions and action != "kill" and self.rng.random() < 0.15:
            action = "kill"  # the club Sheriff shoots instead of checking
        targets = list(request.targets) if request.targets is not None else self._others(by)
        if targets:
            getattr(night, action)[by] = self.rng.choice(targets)

    def _speak(self, request: AwaitSpeech, day: Day) -> None:
        seat = request.seat
        if request.turn == "nominate" and self._others(seat):
            day.nominate[seat] = self.rng.choice(self._others(seat))
        elif request.turn == "blood_name" and self._others(seat):
            day.blood_name[seat] = self.rng.choice(self._others(seat))
        elif request.turn in SPOKEN_TURNS and seat not in day.speeches:
            words = [self.rng.choice(PASSING)]
            if request.may_nominate and self.rng.random() < NOMINATE and self._others(seat):
                words.insert(0, f"выставляю игрока номер {cardinal(self.rng.choice(self._others(seat)))}")
            day.speeches[seat] = words
        if request.turn == "speech" and "extra_word" in type(self.game).day_keys and not day.extra_word \
                and self.rng.random() < 0.3:
            day.extra_word.append(self.rng.choice(self._others(seat) or [seat]))


def _night_data(night: ScriptNight) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if night.shots:
        data["shots"] = {str(s): list(t) if len(t) > 1 else t[0] for s, t in night.shots.items()}
    for key in ("check", "heal", "visit", "kill", "join"):
        if getattr(night, key):
            data[key] = {str(s): v for s, v in getattr(night, key).items()}
    return data


def _day_data(day: Day) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if day.speeches:
        data["speeches"] = {str(s): words for s, words in day.speeches.items()}
    for key in ("nominate", "votes", "prevote", "revote", "mayor", "blood_name"):
        if getattr(day, key):
            data[key] = {str(s): v for s, v in getattr(day, key).items()}
    for key in ("lift", "extra_word"):
        if getattr(day, key):
            data[key] = list(getattr(day, key))
    return data

