"""The seating plan of a tournament: for every round, which players sit at which table in which
seat, and who sits the round out.

Three balances, in this order of strictness:

1. **Games.** Everyone plays the same number of games, or one game apart when the seats of a
   round (10 × tables) do not take every player. The sit-outs go round the players in a seeded
   order, ``players − seats`` a round, so nobody sits out a second time before everyone has sat
   out once: exact by construction, never traded against the other two.
2. **Meetings.** How often two players share a table. The rounds' tables are built greedily
   (each player, in a seeded order, joins the table where he has met the fewest so far), then
   improved by simulated annealing over swaps of two players between two tables of one round,
   minimising the sum over all pairs of a convex cost of their meetings: ``meetings²`` (with the
   total fixed, the spread around the average), plus ``PENALTY × 10^(m − ⌈average⌉ − 1)`` for a
   pair that meets m > ⌈average⌉ times and ``PENALTY × (⌊average⌋ − 1 − m)²`` for one that meets
   too seldom. The square alone is not enough: for 30 players at 3 tables over 10 rounds it
   reaches its lower bound (4,590, when every two rounds' tables overlap 3/3/4) with pairs that
   meet 6 times; the steep term above the average trades those for pairs at 4 and 5.
3. **Seats.** How often a player sits in the same seat (seat 1 speaks first, seat 10 last).
   Once the tables are fixed, seats within each game are swapped by a second annealing that
   minimises the sum over players and seats of ``count²``.

Everything draws on one ``random.Random(seed)``: the same arguments give the same plan on any
machine. :func:`random_plan` is what a plain shuffle gives, for comparison.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from voicehost.language.i18n import _

SEATS = 10
MAX_PLAYERS = 400
MAX_TABLES = 40
MAX_ROUNDS = 40
# Annealing effort: moves per seat of the whole plan (players × rounds seated), and the
# temperature range in units of the objective (a swap typically changes it by 2 to 20).
TABLE_MOVES_PER_SEAT = 150
SEAT_MOVES_PER_SEAT = 100
HOT, COLD = 3.0, 0.05
PENALTY = 10

Game = list[int]            # player numbers (0-based) in seat order: game[0] sits in seat 1
Round = list[Game]          # the round's tables in order


@dataclass(frozen=True)
class Plan:
    """A seating plan: ``rounds[r][t][s]`` is the player (0-based) in seat s + 1 of table t + 1
    in round r + 1; ``sitting_out[r]`` the players who do not play round r + 1."""
    players: int
    tables: int
    rounds: list[Round]
    sitting_out: list[list[int]]


@dataclass(frozen=True)
class Balance:
    """The plan's balance figures (see the module's docstring)."""
    games_min: int
    games_max: int
    meetings_min: int
    meetings_max: int
    meetings_average: float       # the theoretical average: table pairs in the plan / pairs of players
    same_seat_max: int            # the most times any player sits in one seat
    seats_used_min: int           # the fewest different seats any player who plays gets

    @property
    def meetings_target(self) -> int:
        """The most any pair should meet: the average rounded up, plus one."""
        return math.ceil(self.meetings_average - 1e-9) + 1

    def as_dict(self) -> dict[str, Any]:
        return {"games_per_player": {"min": self.games_min, "max": self.games_max},
                "meetings_per_pair": {"min": self.meetings_min, "max": self.meetings_max,
                                      "average": round(self.meetings_average, 3), "target_max": self.meetings_target},
                "same_seat_max": self.same_seat_max, "seats_used_min": self.seats_used_min}


def check_size(players: int, tables: int, rounds: int) -> tuple[str, str] | None:
    """Why these numbers cannot make a plan (the option at fault, what is wrong), or None."""
    if not 1 <= tables <= MAX_TABLES:
        return "--tables", _("{tables} is not between 1 and {limit}").format(tables=tables, limit=MAX_TABLES)
    if not 1 <= rounds <= MAX_ROUNDS:
        return "--rounds", _("{rounds} is not between 1 and {limit}").format(rounds=rounds, limit=MAX_ROUNDS)
    if players > MAX_PLAYERS:
        return "--players", _("{players} is more than {limit}").format(players=players, limit=MAX_PLAYERS)
    if players < SEATS * tables:
        return "--players", _("{players} players cannot fill {tables} tables of {seats} seats").format(
            players=players, tables=tables, seats=SEATS)
    return None


def _check(players: int, tables: int, rounds: int) -> None:
    problem = check_size(players, tables, rounds)
    if problem is not None:
        raise ValueError(": ".join(problem))


def plan_tournament(players: int, tables: int, rounds: int, seed: int = 1) -> Plan:
    """The balanced plan for ``players`` at ``tables`` tables of 10 over ``rounds`` rounds."""
    _check(players, tables, rounds)
    rng = random.Random(seed)
    sitting_out, playing = _sit_outs(rng, players, tables, rounds)
    meetings = [[0] * players for _ in range(players)]
    cost = _MeetingCost.of(players, tables, rounds)
    schedule = [_greedy_round(rng, group, tables, meetings, cost) for group in playing]
    _anneal_tables(rng, schedule, meetings, cost, TABLE_MOVES_PER_SEAT * tables * SEATS * rounds)
    _anneal_seats(rng, schedule, players, SEAT_MOVES_PER_SEAT * tables * SEATS * rounds)
    return Plan(players, tables, schedule, sitting_out)


def random_plan(players: int, tables: int, rounds: int, seed: int = 1) -> Plan:
    """A plain shuffle each round: the first 10 × tables play, in the shuffled order."""
    _check(players, tables, rounds)
    rng = random.Random(seed)
    schedule: list[Round] = []
    sitting_out: list[list[int]] = []
    for _round in range(rounds):
        order = list(range(players))
        rng.shuffle(order)
        schedule.append([order[t * SEATS:(t + 1) * SEATS] for t in range(tables)])
        sitting_out.append(sorted(order[tables * SEATS:]))
    return Plan(players, tables, schedule, sitting_out)


def balance(plan: Plan) -> Balance:
    """The figures of a plan, counted from the plan alone."""
    n = plan.players
    games = [0] * n
    meetings = [[0] * n for _ in range(n)]
    seats = [[0] * SEATS for _ in range(n)]
    for game in (game for round_ in plan.rounds for game in round_):
        for seat, player in enumerate(game):
            games[player] += 1
            seats[player][seat] += 1
        for a, b in combinations(game, 2):
            meetings[a][b] += 1
            meetings[b][a] += 1
    pairs = [meetings[a][b] for a, b in combinations(range(n), 2)]
    total_pairs = len(plan.rounds) * plan.tables * SEATS * (SEATS - 1) // 2
    seated = [counts for counts, played in zip(seats, games, strict=True) if played]
    return Balance(games_min=min(games), games_max=max(games), meetings_min=min(pairs, default=0),
                   meetings_max=max(pairs, default=0), meetings_average=total_pairs / max(len(pairs), 1),
                   same_seat_max=max((max(counts) for counts in seated), default=0),
                   seats_used_min=min((sum(1 for c in counts if c) for counts in seated), default=0))


def _sit_outs(rng: random.Random, players: int, tables: int,
              rounds: int) -> tuple[list[list[int]], list[list[int]]]:
    """Who sits out and who plays each round: the sit-outs take the next ``players − seats``
    players of one seeded circular order, round after round."""
    order = list(range(players))
    rng.shuffle(order)
    idle = players - tables * SEATS
    sitting_out: list[list[int]] = []
    playing: list[list[int]] = []
    for r in range(rounds):
        out = {order[(r * idle + i) % players] for i in range(idle)}
        sitting_out.append(sorted(out))
        playing.append([p for p in order if p not in out])
    return sitting_out, playing


@dataclass(frozen=True)
class _MeetingCost:
    """The annealing's cost of a pair's meetings, as what one more (``up[m]``) and one fewer
    (``down[m]``) meeting changes it, for a pair that has met m times."""
    up: list[int]
    down: list[int]

    @classmethod
    def of(cls, players: int, tables: int, rounds: int) -> _MeetingCost:
        average = rounds * tables * SEATS * (SEATS - 1) / (players * (players - 1))
        high, low = math.ceil(average), math.floor(average) - 1

        def cost(m: int) -> int:
            return m * m + (PENALTY * 10 ** (m - high - 1) if m > high else 0) + PENALTY * max(0, low - m) ** 2

        values = [cost(m) for m in range(rounds + 2)]
        return cls(up=[values[m + 1] - values[m] for m in range(rounds + 1)],
                   down=[values[m - 1] - values[m] if m else 0 for m in range(rounds + 1)])


def _greedy_round(rng: random.Random, group: list[int], tables: int, meetings: list[list[int]],
                  cost: _MeetingCost) -> Round:
    """One round's tables: each player (in a seeded order) joins the open table where his
    meetings so far cost least; counts are updated."""
    order = list(group)
    rng.shuffle(order)
    games: Round = [[] for _ in range(tables)]
    for player in order:
        row = meetings[player]
        best = min((t for t in range(tables) if len(games[t]) < SEATS),
                   key=lambda t: (sum(cost.up[row[q]] for q in games[t]), rng.random()))
        games[best].append(player)
    for game in games:
        for a, b in combinations(game, 2):
            meetings[a][b] += 1
            meetings[b][a] += 1
    return games


def _temperature(step: int, steps: int) -> float:
    return float(HOT * (COLD / HOT) ** (step / max(steps - 1, 1)))


def _accept(rng: random.Random, delta: int, temperature: float) -> bool:
    return delta <= 0 or rng.random() < math.exp(-delta / temperature)


def _anneal_tables(rng: random.Random, schedule: list[Round], meetings: list[list[int]], cost: _MeetingCost,
                   steps: int) -> None:
    """Swap two players between two tables of one round when it lowers the meetings' cost
    (and, while the plan is hot, sometimes when it does not): ``meetings`` follows."""
    if len(schedule[0]) < 2:
        return
    tables = len(schedule[0])
    up, down = cost.up, cost.down
    for step in range(steps):
        games = schedule[rng.randrange(len(schedule))]
        x, y = rng.sample(range(tables), 2)
        i, j = rng.randrange(SEATS), rng.randrange(SEATS)
        table_x, table_y = games[x], games[y]
        a, b = table_x[i], table_y[j]
        row_a, row_b = meetings[a], meetings[b]
        delta = 0
        for u in table_x:
            if u != a:
                delta += down[row_a[u]] + up[row_b[u]]
        for u in table_y:
            if u != b:
                delta += down[row_b[u]] + up[row_a[u]]
        if not _accept(rng, delta, _temperature(step, steps)):
            continue
        for u in table_x:
            if u != a:
                _meet(meetings, a, u, -1)
                _meet(meetings, b, u, +1)
        for u in table_y:
            if u != b:
                _meet(meetings, b, u, -1)
                _meet(meetings, a, u, +1)
        table_x[i], table_y[j] = b, a


def _meet(meetings: list[list[int]], a: int, b: int, change: int) -> None:
    meetings[a][b] += change
    meetings[b][a] += change


def _anneal_seats(rng: random.Random, schedule: list[Round], players: int, steps: int) -> None:
    """Swap two players' seats within one game while it lowers the sum over players and seats
    of count² (sometimes, while hot, when it does not)."""
    counts = [[0] * SEATS for _ in range(players)]
    for game in (game for round_ in schedule for game in round_):
        for seat, player in enumerate(game):
            counts[player][seat] += 1
    games = [game for round_ in schedule for game in round_]
    for step in range(steps):
        game = games[rng.randrange(len(games))]
        i, j = rng.sample(range(SEATS), 2)
        a, b = game[i], game[j]
        delta = 2 * (counts[a][j] - counts[a][i] + counts[b][i] - counts[b][j]) + 4
        if not _accept(rng, delta, _temperature(step, steps)):
            continue
        counts[a][i] -= 1
        counts[a][j] += 1
        counts[b][j] -= 1
        counts[b][i] += 1
        game[i], game[j] = b, a
