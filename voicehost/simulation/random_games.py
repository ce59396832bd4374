"""Random legal games: the property tests' game generator and the engine benchmark's load.

Part of :mod:`voicehost.simulation`: like :mod:`~voicehost.simulation.scriptgen` it invents
play, but input by input straight into the engine (no script, no table).
"""

from __future__ import annotations

import random

from voicehost.host.dealing import shuffled_deal
from voicehost.rules import Game, IllegalInput, Options, Ruleset, new_game
from voicehost.rules.inputs import (
    ACTIONS,
    BloodName,
    CloseVoting,
    Dawn,
    Deal,
    EndSpeech,
    Foul,
    Input,
    Join,
    Lift,
    Nominate,
    Proceed,
    RaiseHand,
    Shots,
    Vote,
    Withdraw,
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
)


def random_input(game: Game, rng: random.Random) -> Input:
    """One input the game accepts now, chosen at random (a few fouls thrown in)."""
    request = game.request
    roll = rng.random()
    if roll < 0.01:
        return Foul(rng.choice(game.alive_seats()))
    if isinstance(request, AwaitSpeech):
        return _random_word(game, request, roll, rng)
    if isinstance(request, AwaitVotes):
        if roll < 0.15:
            return CloseVoting()
        return Vote(rng.choice(request.voters), rng.choice(request.candidates))
    if isinstance(request, AwaitShots):
        return Shots(_random_taps(request.shooters, game.seats, rng))
    if isinstance(request, AwaitAction):
        if "join" in request.actions:
            return Join(request.by, rng.choice(["black", "solo"]))
        action = ACTIONS[rng.choice(request.actions)]
        if request.by is None:
            return action(None, None)
        choices = tuple(range(1, game.seats + 1)) if request.targets is None else request.targets
        return action(request.by, rng.choice(choices) if choices and roll < 0.9 else None)
    if isinstance(request, AwaitDawn):
        return Dawn()
    if isinstance(request, (AwaitMorning, AwaitNightfall)):
        return Proceed()
    if isinstance(request, AwaitLift):
        return CloseVoting() if roll < 0.3 else Lift(rng.choice(request.voters))
    raise AssertionError(f"no random input for {request!r}")


def _random_word(game: Game, request: AwaitSpeech, roll: float, rng: random.Random) -> Input:
    """Something said or pressed during a turn, among what this ruleset listens for."""
    accepts = getattr(type(game), "handlers", {})
    if request.may_nominate and roll < 0.35:
        return Nominate(request.seat, rng.randint(1, game.seats + 1))
    if request.may_nominate and roll < 0.4 and (Withdraw, AwaitSpeech) in accepts:
        return Withdraw(request.seat, rng.randint(1, game.seats))
    if request.turn == "speech" and roll < 0.1 and (RaiseHand, AwaitSpeech) in accepts:
        return RaiseHand(rng.choice(game.alive_seats()))
    if request.turn == "blood_name" and roll < 0.7:
        return BloodName(request.seat, rng.randint(1, game.seats))
    return EndSpeech(request.seat)


def _random_taps(shooters: tuple[int, ...], seats: int, rng: random.Random) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Mostly a consensus on one seat; sometimes a stray number or a shooter who does not tap."""
    target = rng.randint(1, seats)
    taps = []
    for shooter in shooters:
        roll = rng.random()
        taps.append((shooter, (target,) if roll < 0.85 else (rng.randint(1, seats),) if roll < 0.95 else ()))
    return tuple(taps)


def random_game(ruleset: Ruleset, options: Options, rng: random.Random, max_inputs: int = 5000) -> Game:
    """Play one game of random legal inputs until it ends (or ``max_inputs`` are spent)."""
    seats = rng.choice(ruleset.seats)
    game = new_game(ruleset, options, seats)
    game.push(Deal(shuffled_deal(ruleset, options, seats, rng)))
    for _ in range(max_inputs):
        if game.is_over:
            break
        item = random_input(game, rng)
        if type(item) is Vote and item.voter not in game.alive:
            continue  # the voter was removed during this round (a 4th foul)
        try:
            game.push(item)
        except IllegalInput:
            if type(item) is not Foul:
                raise  # a night's fouls wait for the morning: a seat four of them remove takes no more
    return game
