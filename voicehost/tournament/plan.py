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

from voicehost.i18n import _

SEATS = 10
MAX_PLAYERS = 400
MAX_TABLES = 40
MAX_ROUNDS = 40
# Annealing effort: moves per seat of the whole plan (players × rounds seated), and the
# temperature range in units of the objective (a swap typically changes it by 2 to 20).
TABLE_MOVES_PER_SEAT = 150
MAX_MOVES = 600_000         # the annealing's cap (the largest plans): about 2.5 s of CPU
# The repair search's effort, in pair counts looked at (each about half a microsecond): it
# stops sooner when no pair meets more than the bound.
REPAIR_BUDGET = 20_000_000
REPAIR_PER_SEAT = 50_000     # and at most this much per seat of the plan (tables × 10 × rounds)
ATTEMPTS = 2                # whole searches at most, while the most-met pair is above the target
OVER = 60                   # a pair one meeting further above the bound costs this many times more
TABU = 9                    # moves before a moved player may move back in that round
WALK = 0.5                  # the temperature at which a move that adds a pair above the bound is taken
STALL = 200                 # moves without a new best before the search is kicked …
KICK = 4                    # … with this many random swaps
IDLE_TRIES = 12             # sit-out exchanges looked at per repair move
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
    meetings_bound: int           # the least most-met count any plan of this size can have (meetings_bound())
    same_seat_max: int            # the most times any player sits in one seat
    seats_used_min: int           # the fewest different seats any player who plays gets

    @property
    def meetings_target(self) -> int:
        """The most any pair should meet: one above the lower bound (the average rounded up,
        unless counting proves more)."""
        return self.meetings_bound + 1

    @property
    def above_bound(self) -> int:
        """How far the most-met pair is from the lower bound (0: no plan can do better)."""
        return self.meetings_max - self.meetings_bound

    def as_dict(self) -> dict[str, Any]:
        return {"games_per_player": {"min": self.games_min, "max": self.games_max},
                "meetings_per_pair": {"min": self.meetings_min, "max": self.meetings_max,
                                      "average": round(self.meetings_average, 3), "bound": self.meetings_bound,
                                      "above_bound": self.above_bound, "target_max": self.meetings_target},
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
    target = meetings_bound(players, tables, rounds) + 1
    best: tuple[int, list[Round], list[list[int]]] | None = None
    for _attempt in range(ATTEMPTS):     # a search stuck above the target starts again (the same rng)
        schedule, sitting_out = _tables(rng, players, tables, rounds)
        most = _most_met(players, schedule)
        if best is None or most < best[0]:
            best = (most, schedule, sitting_out)
        if most <= target:
            break
    assert best is not None
    _assign_seats(rng, best[1])
    return Plan(players, tables, best[1], best[2])


def _tables(rng: random.Random, players: int, tables: int, rounds: int) -> tuple[list[Round], list[list[int]]]:
    """Who plays at which table each round, and who sits out: greedy, annealed, repaired."""
    sitting_out, playing = _sit_outs(rng, players, tables, rounds)
    meetings = [[0] * players for _ in range(players)]
    cost = _MeetingCost.of(players, tables, rounds)
    schedule = [_greedy_round(rng, group, tables, meetings, cost) for group in playing]
    _anneal_tables(rng, schedule, meetings, cost, min(TABLE_MOVES_PER_SEAT * tables * SEATS * rounds, MAX_MOVES))
    effort = min(REPAIR_BUDGET, REPAIR_PER_SEAT * tables * SEATS * rounds)
    return _Repair(rng, schedule, sitting_out, meetings, cost).run(effort)


def _most_met(players: int, schedule: list[Round]) -> int:
    met = [[0] * players for _ in range(players)]
    most = 0
    for game in (game for games in schedule for game in games):
        for a, b in combinations(game, 2):
            met[a][b] += 1
            most = max(most, met[a][b])
    return most


def meetings_bound(players: int, tables: int, rounds: int) -> int:
    """The lower bound of the most-met pair: the average meetings rounded up (the pairs'
    meetings add up to the plan's table pairs), or more where counting proves it
    (:func:`twice_bound`, :func:`pigeonhole_bound`)."""
    return max(average_bound(players, tables, rounds), twice_bound(players, tables, rounds),
               pigeonhole_bound(players, tables, rounds))


def pigeonhole_bound(players: int, tables: int, rounds: int) -> int:
    """The most k such that some pair must meet in k rounds: over any k rounds at least
    ``players − k × idle`` players play them all, and each has one of ``tables^k`` table
    sequences; more players than sequences, and two share one (31/3/3: 28 players, 27
    sequences, so a pair meets 3 times although ⌈average⌉ is 1)."""
    idle = players - tables * SEATS
    most = 1
    for k in range(2, rounds + 1):
        if tables ** k >= players:
            break
        if players - k * idle > tables ** k:
            most = k
    return most


def average_bound(players: int, tables: int, rounds: int) -> int:
    """⌈average⌉: the meetings of all pairs add up to rounds × tables × 45, so some pair meets
    at least the average, rounded up."""
    return math.ceil(rounds * tables * SEATS * (SEATS - 1) / (players * (players - 1)) - 1e-9)


def twice_bound(players: int, tables: int, rounds: int) -> int:
    """The least most-met count that counting "meeting twice" allows. For two rounds, the c
    players who play both are spread over tables × tables (table in one, table in the other)
    cells, and every two of them in one cell are a pair that met in both rounds: at least the
    sum of C(k, 2) over the cells, least when the c are spread evenly. Summed over all pairs of
    rounds this is at most Σ C(m, 2) over the pairs of players; with every m ≤ M and Σ m fixed,
    that sum is largest with as many pairs as possible at M. The least M it allows is a bound
    no plan can beat (it proves 3 for 40/4/8, where ⌈average⌉ is 2)."""
    both = max(0, 2 * tables * SEATS - players)          # at the least: the sit-outs of two rounds differ
    cells = tables * tables
    per, extra = divmod(both, cells)
    twice = math.comb(rounds, 2) * ((cells - extra) * math.comb(per, 2) + extra * math.comb(per + 1, 2))
    total = rounds * tables * math.comb(SEATS, 2)
    most = 1
    while (total // most) * math.comb(most, 2) + math.comb(total % most, 2) < twice:
        most += 1
    return most


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
                   meetings_bound=meetings_bound(n, plan.tables, len(plan.rounds)),
                   same_seat_max=max((max(counts) for counts in seated), default=0),
                   seats_used_min=min((sum(1 for c in counts if c) for counts in seated), default=0))


def _sit_outs(rng: random.Random, players: int, tables: int,
              rounds: int) -> tuple[list[list[int]], list[list[int]]]:
    """Who sits out and who plays each round: the sit-outs take the next ``players − seats``
    players of a seeded order, round after round; when everyone has sat out once more, a new
    order is drawn (the same order again would keep the same players idle together, so with
    one table the same pairs would meet every time)."""
    idle = players - tables * SEATS
    order = list(range(players))
    rng.shuffle(order)
    pool: list[int] = []
    sitting_out: list[list[int]] = []
    playing: list[list[int]] = []
    for _round in range(rounds):
        out: list[int] = []
        while len(out) < idle:
            if not pool:
                pool = list(range(players))
                rng.shuffle(pool)
            chosen = next(k for k, p in enumerate(pool) if p not in out)
            out.append(pool.pop(chosen))
        sitting_out.append(sorted(out))
        playing.append([p for p in order if p not in set(out)])
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


class _Repair:
    """The second search: a tabu search on the pairs that meet more than the bound
    ``⌈average⌉``. Each move takes one such pair, a round where they share a table, and moves
    one of the two – swapped with a player of another table of that round, or exchanging sit-outs
    with an idle player (he plays this round, sits out a later or earlier one of the first's) when
    that keeps the sit-outs' turn – to the best place not forbidden by the tabu list. A pair
    above the bound by k costs ``OVER^(k − 1)``, so one pair two above weighs as sixty one above:
    the search first brings every pair to ⌈average⌉ + 1, then as many as it can to ⌈average⌉.
    Ties go to the annealing's spread cost. After ``STALL`` moves without a new best, a few
    random swaps kick it out of its dead end (an iterated local search). The best plan seen is
    kept."""

    def __init__(self, rng: random.Random, schedule: list[Round], sitting_out: list[list[int]],
                 meetings: list[list[int]], cost: _MeetingCost) -> None:
        self.rng, self.schedule, self.meetings, self.cost = rng, schedule, meetings, cost
        self.players = len(meetings)
        rounds = len(schedule)
        self.bound = meetings_bound(self.players, len(schedule[0]), rounds)
        promise = self.bound + 1
        values = [0 if m <= self.bound else OVER ** (m - self.bound - 1 + 2 * max(0, m - promise))
                  for m in range(rounds + 2)]
        self.values = values
        self.spreads = [sum(cost.up[:m]) for m in range(rounds + 2)]
        self.up = [values[m + 1] - values[m] for m in range(rounds + 1)]
        self.down = [values[m - 1] - values[m] if m else 0 for m in range(rounds + 1)]
        self.idle = [list(out) for out in sitting_out]
        self.table_of = [[-1] * self.players for _round in schedule]
        for r, games in enumerate(schedule):
            for t, game in enumerate(games):
                for player in game:
                    self.table_of[r][player] = t
        # idle_before[b][p]: the rounds before round b (0-based) that p sat out.
        self.idle_before = [[0] * self.players]
        for out in sitting_out:
            row = list(self.idle_before[-1])
            for player in out:
                row[player] += 1
            self.idle_before.append(row)
        # how_many[b][k]: how many players sat out k of the rounds before round b.
        self.how_many = [_tally(row, len(schedule) + 1) for row in self.idle_before]
        self.hot: list[tuple[int, int]] = []
        self.hot_at: dict[tuple[int, int], int] = {}
        self.total = 0
        for a, b in combinations(range(self.players), 2):
            self.total += values[meetings[a][b]]
            if meetings[a][b] > self.bound:
                self._heat((a, b))
        self.looked = 0

    def run(self, budget: int) -> tuple[list[Round], list[list[int]]]:
        """The best plan found within ``budget`` pair counts looked at."""
        best = self.total
        kept = _copy(self.schedule), [sorted(out) for out in self.idle]
        tabu: dict[tuple[int, int], int] = {}
        step = improved = 0
        while self.hot and self.looked < budget:
            step += 1
            self.looked += SEATS            # a step that finds no move still spends the budget
            if step - improved > STALL:
                self._kick(tabu, step)
                improved = step
            a, b = self.hot[self.rng.randrange(len(self.hot))]
            shared = [r for r, row in enumerate(self.table_of) if row[a] == row[b] != -1]
            choices = [choice for r in shared for mover in (a, b) for choice in self._moves(mover, r, tabu, step, best)]
            if not choices:
                continue
            (over, _spread, _tie), move = min(choices, key=lambda choice: choice[0])
            if not _accept(self.rng, over, WALK):
                continue
            move()
            if self.total < best:
                best, improved = self.total, step
                kept = _copy(self.schedule), [sorted(out) for out in self.idle]
        return kept

    def _kick(self, tabu: dict[tuple[int, int], int], step: int) -> None:
        """Out of a dead end: a few random swaps, whatever they cost (the best plan is kept)."""
        tables = len(self.schedule[0])
        if tables < 2:
            return
        for _swap in range(KICK):
            r = self.rng.randrange(len(self.schedule))
            x, y = self.rng.sample(range(tables), 2)
            self._swap(r, self.rng.choice(self.schedule[r][x]), self.rng.choice(self.schedule[r][y]), tabu, step)

    def _moves(self, mover: int, r: int, tabu: dict[tuple[int, int], int], step: int,
               best: int) -> list[tuple[tuple[int, int, float], Any]]:
        """The allowed moves of ``mover`` out of his table in round ``r``: each with what it
        changes (above the bound, spread, a random tie-break) and a function that makes it."""
        choices: list[tuple[tuple[int, int, float], Any]] = []
        x = self.table_of[r][mover]
        for y, game in enumerate(self.schedule[r]):
            if y == x:
                continue
            for other in game:
                delta = self._swap_delta(r, mover, other)
                allowed = tabu.get((other, r), 0) < step and tabu.get((mover, r), 0) < step
                if allowed or self.total + delta[0] < best:
                    choices.append(((*delta, self.rng.random()), _bind(self._swap, r, mover, other, tabu, step)))
        idle = self.idle[r]
        for other in self.rng.sample(idle, min(IDLE_TRIES, len(idle))):
            for r2 in self._exchange_rounds(mover, other, r):
                delta = self._exchange_delta(r, r2, mover, other)
                if tabu.get((other, r), 0) < step or self.total + delta[0] < best:
                    choices.append(((*delta, self.rng.random()),
                                    _bind(self._exchange, r, r2, mover, other, tabu, step)))
                break
        return choices

    def _swap_delta(self, r: int, a: int, b: int) -> tuple[int, int]:
        """What swapping a and b (at two tables of round r) changes: (over the bound, spread)."""
        row_a, row_b = self.meetings[a], self.meetings[b]
        up, down, cup, cdown = self.up, self.down, self.cost.up, self.cost.down
        over = spread = 0
        for u in self.schedule[r][self.table_of[r][a]]:
            if u != a:
                over += down[row_a[u]] + up[row_b[u]]
                spread += cdown[row_a[u]] + cup[row_b[u]]
        for u in self.schedule[r][self.table_of[r][b]]:
            if u != b:
                over += down[row_b[u]] + up[row_a[u]]
                spread += cdown[row_b[u]] + cup[row_a[u]]
        self.looked += 4 * SEATS
        return over, spread

    def _swap(self, r: int, a: int, b: int, tabu: dict[tuple[int, int], int], step: int) -> None:
        x, y = self.table_of[r][a], self.table_of[r][b]
        self._leave(r, a, x, +1)
        self._leave(r, b, y, +1)
        self._join(r, b, x, a)
        self._join(r, a, y, b)
        self._mark(tabu, step, (a, r), (b, r))

    def _exchange_rounds(self, a: int, c: int, r: int) -> list[int]:
        """The rounds where ``a`` sits out and ``c`` plays, such that a sitting out in r and c
        in that round instead keeps the sit-outs' turn: at every round between, the counts of
        rounds sat out still differ by at most one. Looked for outwards from r: once a round
        between breaks that, every round beyond it does too."""
        found = []
        table_of = self.table_of
        for r2 in range(r + 1, len(table_of)):           # a sits out earlier: he gains one between
            if not self._turn_kept(r2, a, c):
                break
            if table_of[r2][a] == -1 and table_of[r2][c] != -1:
                found.append(r2)
        for r2 in range(r - 1, -1, -1):                   # a sits out later: he loses one between
            if not self._turn_kept(r2 + 1, c, a):
                break
            if table_of[r2][a] == -1 and table_of[r2][c] != -1:
                found.append(r2)
        self.looked += len(table_of)
        self.rng.shuffle(found)
        return found

    def _turn_kept(self, b: int, gains: int, loses: int) -> bool:
        """Whether, before round b, the sit-out counts stay within one of each other when
        ``gains`` has sat out once more and ``loses`` once less."""
        row, tally = self.idle_before[b], self.how_many[b]
        up, down = row[gains], row[loses]
        if down == 0:
            return False
        changed: dict[int, int] = {}
        for value, change in ((up, -1), (down, -1), (up + 1, +1), (down - 1, +1)):
            changed[value] = changed.get(value, 0) + change
        present = [v for v in range(len(tally)) if tally[v] + changed.get(v, 0) > 0]
        return present[-1] - present[0] <= 1

    def _exchange_delta(self, r: int, r2: int, a: int, c: int) -> tuple[int, int]:
        """a leaves his table of round r to c (idle in r) and takes c's table in round r2."""
        change: dict[tuple[int, int], int] = {}
        for u in self.schedule[r][self.table_of[r][a]]:
            if u != a:
                change[a, u] = change.get((a, u), 0) - 1
                change[c, u] = change.get((c, u), 0) + 1
        for u in self.schedule[r2][self.table_of[r2][c]]:
            if u != c:
                change[c, u] = change.get((c, u), 0) - 1
                change[a, u] = change.get((a, u), 0) + 1
        over = spread = 0
        values, spreads = self.values, self.spreads
        for (p, u), d in change.items():
            m = self.meetings[p][u]
            over += values[m + d] - values[m]
            spread += spreads[m + d] - spreads[m]
        self.looked += 10 * SEATS
        return over, spread

    def _exchange(self, r: int, r2: int, a: int, c: int, tabu: dict[tuple[int, int], int], step: int) -> None:
        x, y = self.table_of[r][a], self.table_of[r2][c]
        self._leave(r, a, x, +1)
        self._join(r, c, x, a)
        self._leave(r2, c, y, +1)
        self._join(r2, a, y, c)
        self.idle[r][self.idle[r].index(c)] = a
        self.idle[r2][self.idle[r2].index(a)] = c
        self.table_of[r][a], self.table_of[r2][c] = -1, -1
        sign = 1 if r < r2 else -1
        for b in range(min(r, r2) + 1, max(r, r2) + 1):
            row, tally = self.idle_before[b], self.how_many[b]
            for player, change in ((a, sign), (c, -sign)):
                tally[row[player]] -= 1
                row[player] += change
                tally[row[player]] += 1
        self._mark(tabu, step, (a, r), (c, r), (a, r2), (c, r2))

    def _leave(self, r: int, player: int, t: int, _sign: int) -> None:
        for u in self.schedule[r][t]:
            if u != player:
                self._meet(player, u, -1)

    def _join(self, r: int, player: int, t: int, replacing: int) -> None:
        """``player`` takes ``replacing``'s seat at table t of round r (who has left it)."""
        game = self.schedule[r][t]
        game[game.index(replacing)] = player
        self.table_of[r][player] = t
        for u in game:
            if u != player:
                self._meet(player, u, +1)

    def _meet(self, a: int, b: int, change: int) -> None:
        before = self.meetings[a][b]
        after = before + change
        self.meetings[a][b] = self.meetings[b][a] = after
        self.total += self.values[after] - self.values[before]
        pair = (a, b) if a < b else (b, a)
        if before > self.bound >= after:
            self._cool(pair)
        elif after > self.bound >= before:
            self._heat(pair)

    def _heat(self, pair: tuple[int, int]) -> None:
        self.hot_at[pair] = len(self.hot)
        self.hot.append(pair)

    def _cool(self, pair: tuple[int, int]) -> None:
        index = self.hot_at.pop(pair)
        last = self.hot.pop()
        if last != pair:
            self.hot[index] = last
            self.hot_at[last] = index

    def _mark(self, tabu: dict[tuple[int, int], int], step: int, *keys: tuple[int, int]) -> None:
        until = step + TABU + self.rng.randrange(3)
        for key in keys:
            tabu[key] = until


def _bind(function: Any, *args: Any) -> Any:
    return lambda: function(*args)


def _copy(schedule: list[Round]) -> list[Round]:
    return [[list(game) for game in games] for games in schedule]


def _tally(values: list[int], size: int) -> list[int]:
    counts = [0] * size
    for value in values:
        counts[value] += 1
    return counts
