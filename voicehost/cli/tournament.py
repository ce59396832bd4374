"""``voicehost tournament …``: a tournament evening (see :mod:`voicehost.tournament` and
docs/tournament.md). Each subcommand is added by its own function, so that the group grows
without its commands touching each other."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from voicehost.cli.args import Commands, positive, print_json
from voicehost.language.i18n import _, ngettext
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.tournament.plan import Balance, Plan


def add_commands(commands: Commands) -> None:
    tournament = commands.add_parser("tournament", help=_("a tournament evening: the seating plan"))
    sub = tournament.add_subparsers(dest="tournament_command", required=True, parser_class=type(tournament))
    add_plan_command(sub)


def add_plan_command(sub: Any) -> None:
    plan = sub.add_parser("plan", help=_("the seating: round, table, seat and player, balanced"))
    plan.add_argument("--players", type=positive, default=None,
                      help=_("how many players (default: as many as --names lists)"))
    plan.add_argument("--tables", type=positive, required=True, help=_("tables of 10 seats played at once"))
    plan.add_argument("--rounds", type=positive, required=True, help=_("rounds of the tournament"))
    plan.add_argument("--seed", type=int, default=1, help=_("the same seed, the same plan (default 1)"))
    plan.add_argument("--names", default=None, metavar="FILE",
                      help=_("the player list: one name per line; blank lines and # comments are skipped"))
    plan.add_argument("--random", action="store_true",
                      help=_("a plain random shuffle instead, to compare its balance"))
    plan.add_argument("--json", action="store_true", help=_("the plan and its figures as JSON"))
    plan.set_defaults(run=_plan)


def player_names(args: argparse.Namespace) -> list[str]:
    """The names from ``--names``, or numbered players; their count agrees with ``--players``."""
    if args.names is None:
        if args.players is None:
            raise InputError("--players", _("give the number of players or a player list (--names FILE)"))
        return [_("player {number}").format(number=n) for n in range(1, args.players + 1)]
    from voicehost.files import read_text
    from voicehost.tournament.players import parse_names

    names = parse_names(read_text(args.names, "player list"), args.names)
    if args.players is not None and args.players != len(names):
        raise InputError(args.names, _("it lists {count} players, --players says {players}").format(
            count=len(names), players=args.players))
    return names


def _plan(args: argparse.Namespace) -> int:
    from voicehost.tournament.plan import balance, check_size, plan_tournament, random_plan

    names = player_names(args)
    problem = check_size(len(names), args.tables, args.rounds)
    if problem is not None:
        raise InputError(*problem)
    make = random_plan if args.random else plan_tournament
    plan = make(len(names), args.tables, args.rounds, args.seed)
    figures = balance(plan)
    shuffled = figures if args.random else balance(random_plan(len(names), args.tables, args.rounds, args.seed))
    if args.json:
        print_json(plan_json(plan, names, args, figures, shuffled))
        return 0
    for line in plan_lines(plan, names):
        print(line)
    print()
    print(_("Balance ({method}): players {players}, tables {tables}, rounds {rounds}, seed {seed}").format(
        method=_("random shuffle") if args.random else _("optimised plan"), players=len(names), tables=args.tables,
        rounds=args.rounds, seed=args.seed))
    for line in balance_lines(figures):
        print("  " + line)
    if not args.random:
        print("  " + _("a random shuffle with the same seed: {figures}").format(figures=short_figures(shuffled)))
    return 0


def plan_json(plan: Plan, names: list[str], args: argparse.Namespace, figures: Balance,
              shuffled: Balance) -> dict[str, Any]:
    return {"players": names, "tables": args.tables, "rounds": args.rounds, "seed": args.seed,
            "method": "random" if args.random else "optimised",
            "schedule": [{"round": r, "tables": [{"table": t, "seats": [{"seat": s, "player": names[p]}
                                                                        for s, p in enumerate(game, start=1)]}
                                                 for t, game in enumerate(games, start=1)],
                          "sitting_out": [names[p] for p in plan.sitting_out[r - 1]]}
                         for r, games in enumerate(plan.rounds, start=1)],
            "balance": figures.as_dict(), "random_balance": shuffled.as_dict()}


def plan_lines(plan: Plan, names: list[str]) -> list[str]:
    """The plan as an organiser reads it: each round, each table's seats in order, the sit-outs."""
    lines: list[str] = []
    for r, games in enumerate(plan.rounds, start=1):
        lines.append(_("Round {number} of {rounds}").format(number=r, rounds=len(plan.rounds)))
        for t, game in enumerate(games, start=1):
            seats = ", ".join(f"{s}. {names[p]}" for s, p in enumerate(game, start=1))
            lines.append("  " + _("Table {number} — {seats}").format(number=t, seats=seats))
        if plan.sitting_out[r - 1]:
            lines.append("  " + _("Sitting out: {names}").format(
                names=", ".join(names[p] for p in plan.sitting_out[r - 1])))
    return lines


def balance_lines(figures: Balance) -> list[str]:
    """The balance figures, each against its target."""
    seat = ngettext("the same seat at most {count} time", "the same seat at most {count} times",
                    figures.same_seat_max).format(count=figures.same_seat_max)
    return [_("games per player: min {low}, max {high}").format(low=figures.games_min, high=figures.games_max),
            _("meetings per pair: min {low}, max {high} (average {average:.2f}; target: at most {target})").format(
                low=figures.meetings_min, high=figures.meetings_max, average=figures.meetings_average,
                target=figures.meetings_target),
            _("seats: {seat}; every player who plays gets at least {used} different seats").format(
                seat=seat, used=figures.seats_used_min)]


def short_figures(figures: Balance) -> str:
    return _("games {games_low}–{games_high}, meetings {low}–{high}, most in one seat {seat}").format(
        games_low=figures.games_min, games_high=figures.games_max, low=figures.meetings_min,
        high=figures.meetings_max, seat=figures.same_seat_max)


def bench_plan(repeat: int = 3, seed: int = 1) -> list[str]:
    """``voicehost bench plan``: the planning time for 60 players, 6 tables and 12 rounds (CPU
    time, the best of ``repeat`` runs), and the balance against a plain shuffle for those and
    for the 30 players, 3 tables and 10 rounds of the issue's target, over ten seeds each."""
    from voicehost.tournament.plan import balance, plan_tournament, random_plan

    times = []
    for _run in range(repeat):
        start = time.process_time()
        plan_tournament(60, 6, 12, seed)
        times.append(time.process_time() - start)
    lines = [_("plan: 60 players, 6 tables, 12 rounds planned in {seconds:.2f} s CPU (the best of {repeat})").format(
        seconds=min(times), repeat=repeat)]
    for size in ((30, 3, 10), (60, 6, 12), (27, 2, 10)):
        seeds = range(seed, seed + 10)
        for method, make in ((_("optimised plan"), plan_tournament), (_("random shuffle"), random_plan)):
            worst = [balance(make(*size, s)) for s in seeds]
            lines.append(_("plan: {players}/{tables}/{rounds}, {method}, the worst of 10 seeds: games {games_low}–"
                           "{games_high}, meetings max {high} (target {target}), most in one seat {seat}")
                         .format(players=size[0], tables=size[1], rounds=size[2], method=method,
                                 games_low=min(b.games_min for b in worst), games_high=max(b.games_max for b in worst),
                                 high=max(b.meetings_max for b in worst), target=worst[0].meetings_target,
                                 seat=max(b.same_seat_max for b in worst)))
    return lines
