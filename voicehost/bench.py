"""Random legal games: the engine benchmark and the property tests' game generator."""

from __future__ import annotations

import random
import time

from .rules import Game, Options, Role, Ruleset, new_game
from .rules.inputs import (
    Check, CloseVoting, Dawn, Deal, EndSpeech, Foul, Input, Lift, Nominate, Shots, Vote, Withdraw,
)
from .rules.requests import AwaitCheck, AwaitDawn, AwaitLift, AwaitShots, AwaitSpeech, AwaitVotes


def random_deal(ruleset: Ruleset, seats: int, rng: random.Random) -> tuple[Role, ...]:
    cards = [role for role, count in ruleset.cast_for(seats).items() for _ in range(count)]
    cards += [Role.CITIZEN] * (seats - len(cards))
    rng.shuffle(cards)
    return tuple(cards)


def random_input(game: Game, rng: random.Random) -> Input:
    """One input the game accepts now, chosen at random (a few fouls thrown in)."""
    request = game.request
    alive = game.alive_seats()
    if rng.random() < 0.01:
        return Foul(rng.choice(alive))
    seat_or_none = lambda: rng.choice([None, *range(1, game.seats + 1)])  # noqa: E731
    if isinstance(request, AwaitShots):
        target = rng.randint(1, game.seats)
        taps = []
        for shooter in request.shooters:
            roll = rng.random()
            taps.append((shooter, (target,) if roll < 0.85 else (rng.randint(1, game.seats),) if roll < 0.95 else ()))
        return Shots(tuple(taps))
    if isinstance(request, AwaitCheck):
        return Check(request.by, seat_or_none() if request.by is not None else None)
    if isinstance(request, AwaitDawn):
        return Dawn()
    if isinstance(request, AwaitSpeech):
        roll = rng.random()
        if request.may_nominate and roll < 0.35:
            return Nominate(request.seat, rng.randint(1, game.seats + 1))
        if request.may_nominate and roll < 0.4:
            return Withdraw(request.seat, rng.randint(1, game.seats))
        return EndSpeech(request.seat)
    if isinstance(request, AwaitVotes):
        voters = [v for v in request.voters if v in game.alive]
        if not voters or rng.random() < 0.15:
            return CloseVoting()
        return Vote(rng.choice(voters), rng.choice(request.candidates))
    if isinstance(request, AwaitLift):
        if rng.random() < 0.3:
            return CloseVoting()
        return Lift(rng.choice(request.voters))
    raise AssertionError(f"no random input for {request!r}")


def random_game(ruleset: Ruleset, options: Options, rng: random.Random, max_inputs: int = 5000) -> Game:
    """Play one game of random legal inputs until it ends (or ``max_inputs`` are spent)."""
    seats = rng.choice(ruleset.seats)
    game = new_game(ruleset, options, seats)
    game.push(Deal(random_deal(ruleset, seats, rng)))
    for _ in range(max_inputs):
        if game.is_over:
            break
        item = random_input(game, rng)
        if isinstance(item, (Vote, Lift, Foul)) and not game.is_alive(getattr(item, "voter", getattr(item, "seat", 0))):
            continue
        game.push(item)
    return game


def bench_engine(ruleset: Ruleset, games: int, seed: int) -> dict[str, float]:
    """Full random games per second on one core (the process is single-threaded)."""
    rng = random.Random(seed)
    options = ruleset.resolve({})
    inputs = finished = 0
    start = time.perf_counter()
    for _ in range(games):
        game = random_game(ruleset, options, rng)
        inputs += len(game.inputs)
        finished += game.is_over
    seconds = time.perf_counter() - start
    return {"games": games, "seconds": seconds, "games_per_second": games / seconds,
            "inputs_per_game": inputs / games, "finished": finished}
