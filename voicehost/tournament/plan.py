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
   Once the tables are fixed this is solved exactly, not searched: giving seats is colouring
   the edges of the bipartite graph players–games with the 10 seats so that no game and no
   player has a seat twice, and by König's theorem a bipartite graph whose degrees are at most
   10 has such a colouring. A player with more than 10 games is split into one vertex per 10 of
   his games (in round order), so nobody sits in one seat more than ⌈games / 10⌉ times — the
   least possible — and everyone with 10 or more games sits in all ten seats.

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
    _assign_seats(rng, schedule)
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


def _assign_seats(rng: random.Random, schedule: list[Round]) -> None:
    """Reorder each game so that no player sits in one seat more than ⌈his games / 10⌉ times:
    a proper edge colouring of the bipartite graph (player, block of 10 of his games) – game
    with the 10 seats as colours, built edge by edge (in a seeded order) by König's method."""
    games = [game for round_ in schedule for game in round_]
    played: dict[int, int] = {}
    edges: list[tuple[tuple[int, int], int]] = []      # ((player, block), game index)
    for index, game in enumerate(games):
        for player in game:
            block = played.get(player, 0) // SEATS
            played[player] = played.get(player, 0) + 1
            edges.append(((player, block), index))
    rng.shuffle(edges)
    colouring = _EdgeColouring(len(games))
    for vertex, index in edges:
        colouring.add(rng, vertex, index)
    for index, game in enumerate(games):
        game[:] = [colouring.by_game[index][seat][0] for seat in range(SEATS)]


class _EdgeColouring:
    """A proper colouring (no colour twice at a vertex) of a bipartite graph's edges with
    ``SEATS`` colours, grown one edge at a time; every vertex has at most ``SEATS`` edges."""

    def __init__(self, games: int) -> None:
        self.by_game: list[dict[int, tuple[int, int]]] = [{} for _game in range(games)]  # seat → player vertex
        self.by_player: dict[tuple[int, int], dict[int, int]] = {}                          # seat → game

    def add(self, rng: random.Random, player: tuple[int, int], game: int) -> None:
        at_player = self.by_player.setdefault(player, {})
        at_game = self.by_game[game]
        a = rng.choice([c for c in range(SEATS) if c not in at_player])
        if a in at_game:
            b = rng.choice([c for c in range(SEATS) if c not in at_game])
            self._flip(game, a, b)   # a is free at the game now, and still at the player
        at_player[a] = game
        at_game[a] = player

    def _flip(self, game: int, a: int, b: int) -> None:
        """Swap colours a and b along the path that starts at ``game`` with colour a and
        alternates b, a, b … (it cannot reach a player vertex where a is free)."""
        path: list[tuple[tuple[int, int], int, int]] = []
        colour, at_game, current_game = a, True, game
        current_player: tuple[int, int] | None = None
        while True:
            if at_game:
                found = self.by_game[current_game].get(colour)
                if found is None:
                    break
                path.append((found, current_game, colour))
                current_player = found
            else:
                assert current_player is not None
                next_game = self.by_player[current_player].get(colour)
                if next_game is None:
                    break
                path.append((current_player, next_game, colour))
                current_game = next_game
            at_game = not at_game
            colour = b if colour == a else a
        for player, index, old in path:
            del self.by_player[player][old]
            del self.by_game[index][old]
        for player, index, old in path:
            new = b if old == a else a
            self.by_player[player][new] = index
            self.by_game[index][new] = player
