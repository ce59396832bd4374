"""Random legal games: the property tests' game generator and the engine benchmark's load.

Part of :mod:`voicehost.simulation`: like :mod:`~voicehost.simulation.scriptgen` it invents
play, but input by input straight into the engine (no script, no table).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from voicehost.host.dealing import shuffled_deal
from voicehost.rules import Game, IllegalInput, Options, Ruleset, new_game
from voicehost.rules.inputs import (
    ACTIONS,
    BloodName,
    Deal,
    Foul,
    Input,
    Join,
    RaiseHand,
    Shots,
    Vote,
    Withdraw,
    close_voting,
    dawn,
    end_speech,
    foul,
    lift,
    nominate,
    proceed,
    vote,
)
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
)

T = TypeVar("T")
Answer = Callable[[Game, Any, float, random.Random], Input]


def random_input(game: Game, rng: random.Random) -> Input:
    """One input the game accepts now, chosen at random (a few fouls thrown in)."""
    roll = rng.random()
    if roll < 0.01:
        return foul(_pick(game.alive_seats(), rng))
    request = game.request
    if request is None:
        raise AssertionError("the game is over: no input answers it")
    answer = _answers(type(game)).get(type(request))
    if answer is None:
        raise AssertionError(f"no random input for {request!r}")
    return answer(game, request, roll, rng)


def _pick(choices: Sequence[T], rng: random.Random) -> T:
    """``rng.choice``, three times as fast: the property tests and ``bench engine`` draw
    hundreds of thousands of these, and ``choice`` checks its argument every time."""
    return choices[int(rng.random() * len(choices))]


def _seat(seats: int, rng: random.Random) -> int:
    """A seat number from 1 to ``seats``."""
    return 1 + int(rng.random() * seats)


def _word_answer(withdraws: bool, raises_hands: bool) -> Answer:
    """Something said or pressed during a turn, among what this ruleset listens for."""

    def random_word(game: Game, request: AwaitSpeech, roll: float, rng: random.Random) -> Input:
        if request.may_nominate and roll < 0.35:
            return nominate(request.seat, _seat(game.seats + 1, rng))  # now and then a seat no table has
        if request.may_nominate and roll < 0.4 and withdraws:
            return Withdraw(request.seat, _seat(game.seats, rng))
        if request.turn == "speech" and roll < 0.1 and raises_hands:
            return RaiseHand(_pick(game.alive_seats(), rng))
        if request.turn == "blood_name" and roll < 0.7:
            return BloodName(request.seat, _seat(game.seats, rng))
        return end_speech(request.seat)

    return random_word


def _random_vote(game: Game, request: AwaitVotes, roll: float, rng: random.Random) -> Input:
    if roll < 0.15:
        return close_voting()
    voters, candidates, draw = request.voters, request.candidates, rng.random  # _pick, inlined: a vote an input
    return vote(voters[int(draw() * len(voters))], candidates[int(draw() * len(candidates))])


def _random_shots(game: Game, request: AwaitShots, roll: float, rng: random.Random) -> Input:
    return Shots(_random_taps(request.shooters, game.seats, rng))


def _random_action(game: Game, request: AwaitAction, roll: float, rng: random.Random) -> Input:
    if "join" in request.actions:
        return Join(request.by, _pick(("black", "solo"), rng))
    action = ACTIONS[_pick(request.actions, rng)]
    if request.by is None:
        return action(None, None)
    if request.targets is None:
        return action(request.by, _seat(game.seats, rng) if roll < 0.9 else None)
    return action(request.by, _pick(request.targets, rng) if request.targets and roll < 0.9 else None)


def _random_lift(game: Game, request: AwaitLift, roll: float, rng: random.Random) -> Input:
    return close_voting() if roll < 0.3 else lift(_pick(request.voters, rng))


_ANSWERS: dict[type[Game], dict[type[Request], Answer]] = {}


def _answers(kind: type[Game]) -> dict[type[Request], Answer]:
    """What the table may do, by what the game waits for (the roll decides among the choices);
    a turn's words are the ones this ruleset listens for (withdrawals, raised hands). Made once
    per ruleset class."""
    if kind not in _ANSWERS:
        _ANSWERS[kind] = _answers_of(kind)
    return _ANSWERS[kind]


def _answers_of(kind: type[Game]) -> dict[type[Request], Answer]:
    accepts = kind.handlers
    random_word = _word_answer((Withdraw, AwaitSpeech) in accepts, (RaiseHand, AwaitSpeech) in accepts)
    return {
        AwaitSpeech: random_word, AwaitVotes: _random_vote, AwaitShots: _random_shots, AwaitAction: _random_action,
        AwaitLift: _random_lift, AwaitDawn: lambda *_: dawn(), AwaitMorning: lambda *_: proceed(),
        AwaitNightfall: lambda *_: proceed(),
    }


def _random_taps(shooters: tuple[int, ...], seats: int, rng: random.Random) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Mostly a consensus on one seat; sometimes a stray number or a shooter who does not tap."""
    target = _seat(seats, rng)
    taps = []
    for shooter in shooters:
        roll = rng.random()
        taps.append((shooter, (target,) if roll < 0.85 else (_seat(seats, rng),) if roll < 0.95 else ()))
    return tuple(taps)


def random_game(ruleset: Ruleset, options: Options, rng: random.Random, max_inputs: int = 5000) -> Game:
    """Play one game of random legal inputs until it ends (or ``max_inputs`` are spent)."""
    seats = rng.choice(ruleset.seats)
    game = new_game(ruleset, options, seats)
    game.push(Deal(shuffled_deal(ruleset, options, seats, rng)))
    draw, answers = rng.random, _answers(cast("type[Game]", type(game)))  # every TableGame is a Game
    for _ in range(max_inputs):
        request = game.request
        if request is None:  # the game is over
            break
        roll = draw()
        item: Input
        if roll < 0.01:
            item = foul(_pick(game.alive_seats(), rng))
        else:  # the same draws as random_input, without its checks: this loop is bench engine's
            item = answers[type(request)](game, request, roll, rng)
            if type(item) is Vote and item.voter not in game.alive:
                continue  # the voter was removed during this round (a 4th foul)
        try:
            game.push(item)
        except IllegalInput:
            if type(item) is not Foul:
                raise  # a night's fouls wait for the morning: a seat four of them remove takes no more
    return game
