"""A generated sport tournament for the rating sites' tests: random legal games (removals on a
4th foul and by the judge, fouls by day and by night, best moves, the judge's points, draws by
quiet rounds), one annulled game, every game tagged with its round and table, stored in the
records with the tournament and its site ids."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from voicehost.config import load_ruleset
from voicehost.host.dealing import shuffled_deal
from voicehost.records.games import GameRecord, record_from_protocol
from voicehost.records.sites.settings import store_settings
from voicehost.records.store import Records
from voicehost.records.tournament import create_tournament, new_tournament
from voicehost.rules import IllegalInput, new_game
from voicehost.rules.inputs import BestMove, Deal, JudgePoints, Remove, end_speech, foul
from voicehost.rules.protocol import build_protocol
from voicehost.rules.requests import AwaitSpeech
from voicehost.simulation.random_games import random_input

NAME = "Кубок рейтингов"
PLAYERS = [f"Игрок {k:02d}" for k in range(1, 21)]
SETTINGS: dict[str, dict[str, int | str]] = {
    "mafiaratings": {"club": 41, "event": 9001, "moderator": 25, "rules": "0000000000000"},
    "polemica": {"master": 54070, "scoring_type": 1, "version": 4}}


def sport_protocol(seed: int, names: dict[int, str]) -> dict[str, Any]:
    """One finished sport game from ``seed``: fouls at random moments (each input 3% a foul),
    the judge removing someone now and then, the first killed naming a best move, the judge's
    points for two seats."""
    ruleset = load_ruleset("sport")
    options = ruleset.resolve({"best_move": True, "judge_points": True, "quiet_rounds_to_draw": 2 + seed % 2})
    rng = random.Random(seed)
    game = new_game(ruleset, options, 10)
    game.push(Deal(shuffled_deal(ruleset, options, 10, rng)))
    game.push(foul(rng.randint(1, 10)))   # a foul at the arrangement night
    quiet_first_day = seed % 2 == 0   # nobody nominated on day 1: the first to leave may be killed at night
    for _step in range(5000):
        if game.is_over:
            break
        request = game.request
        if quiet_first_day and isinstance(request, AwaitSpeech) and len(game.alive_seats()) == 10:
            game.push(end_speech(request.seat))
            continue
        try:
            game.push(random_input(game, rng))
        except IllegalInput:
            continue
    assert game.is_over
    for seat, hundredths in ((rng.randint(1, 10), 50), (rng.randint(1, 10), -25)):
        game.push(JudgePoints(seat, hundredths, "судья"))
    name_best_move(game, rng)
    return build_protocol(game, None, names)


def name_best_move(game: Any, rng: random.Random) -> None:
    """The first to leave, if the night killed him, names one to three seats (after the game)."""
    eliminations = build_protocol(game)["eliminations"]
    if eliminations and eliminations[0]["cause"] == "killed":
        first = eliminations[0]["seat"]
        others = [s for s in range(1, 11) if s != first]
        game.push(BestMove(first, tuple(rng.sample(others, rng.randint(1, 3)))))


def removal_protocol(seed: int, names: dict[int, str]) -> dict[str, Any]:
    """A game where the judge removes a player at the first speech (the ``Remove`` input)."""
    ruleset = load_ruleset("sport")
    options = ruleset.resolve({"best_move": True, "judge_points": True})
    rng = random.Random(seed)
    game = new_game(ruleset, options, 10)
    game.push(Deal(shuffled_deal(ruleset, options, 10, rng)))
    removed = False
    for _step in range(5000):
        if game.is_over:
            break
        if not removed and isinstance(game.request, AwaitSpeech):
            game.push(Remove(rng.choice(game.alive_seats())))
            removed = True
            continue
        try:
            game.push(random_input(game, rng))
        except IllegalInput:
            continue
    assert game.is_over and removed
    name_best_move(game, rng)
    return build_protocol(game, None, names)


def foul_times(protocol: dict[str, Any]) -> list[dict[str, Any]]:
    """Each foul dated 90 seconds after the one before, in the order of the phases."""
    start = datetime.strptime(protocol["started"], "%Y-%m-%dT%H:%M:%SZ")
    phases = sorted([(n["night"], 0, n) for n in protocol["nights"]] + [(d["day"], 1, d) for d in protocol["days"]],
                    key=lambda item: item[:2])
    fouls = [entry["seat"] for _n, _k, phase in phases for entry in phase.get("fouls", [])]
    return [{"seat": seat, "at": (start + timedelta(seconds=90 * (k + 1))).strftime("%Y-%m-%dT%H:%M:%SZ")}
            for k, seat in enumerate(fouls)]


def draw_protocol(seed: int, names: dict[int, str]) -> dict[str, Any]:
    """A draw (two quiet rounds in a row): the first seed from ``seed`` on that plays one."""
    while True:
        protocol = sport_protocol(seed * 7, names)
        if protocol["winner"] == "nobody":
            return protocol
        seed += 1


def stored_tournament(records: Records, rounds: int = 4, tables: int = 2, seed: int = 1) -> list[GameRecord]:
    """The tournament in ``records``: ``rounds`` × ``tables`` games, the last one annulled."""
    schedule: dict[int, dict[int, dict[int, str]]] = {}
    stored = []
    rng = random.Random(seed)
    for r in range(1, rounds + 1):
        order = rng.sample(PLAYERS, len(PLAYERS))
        for t in range(1, tables + 1):
            names = {s: order[(t - 1) * 10 + s - 1] for s in range(1, 11)}
            schedule.setdefault(r, {})[t] = names
            number = seed * 1000 + r * 10 + t
            protocol = removal_protocol(number, names) if (r + t) % 3 == 0 else sport_protocol(number, names)
            if (r, t) == (1, 2):
                protocol = draw_protocol(number, names)
            protocol["tournament"] = {"name": NAME, "round": r, "table": t}
            protocol["started"] = f"2026-12-05T{10 + r:02d}:{10 * t:02d}:00Z"
            protocol["ended"] = f"2026-12-05T{10 + r:02d}:{10 * t + 45:02d}:00Z" if t < 2 else None
            if protocol["ended"] is None:
                del protocol["ended"]
            else:   # as a table's journal dates them (voicehost.host.journal_clock); table 2 has none
                protocol["foul_times"] = foul_times(protocol)
            if t == 1:
                protocol["best_player"] = 1 + (r + seed) % 10
            if r == rounds and t == tables:
                protocol["result"] = "annulled"   # the judge annulled it: no site gets it
            stored.append(record_from_protocol(protocol, "generated", datetime(2026, 12, 5), place="generated"))
    create_tournament(records, new_tournament(NAME, "seed001", schedule=schedule))
    records.add(stored)
    store_settings(records, NAME, SETTINGS)
    return stored
