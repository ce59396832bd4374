"""Property-based tests over random legal games and random scripts (hypothesis)."""

from __future__ import annotations

import random
from typing import Any, Protocol, TypeVar, get_args

from hypothesis import assume, given
from hypothesis import strategies as st

from voicehost.config import load_ruleset, ruleset_names
from voicehost.language.narrate import narrate
from voicehost.rules import Game
from voicehost.rules.events import (
    Cause,
    CheckAnswered,
    Eliminated,
    Ending,
    GameOver,
    NominationAccepted,
    ShootingResolved,
    SpeechBegan,
    VotesCounted,
    VotingBegan,
    Winner,
)
from voicehost.rules.flow import Phase, TableGame
from voicehost.rules.protocol import build_protocol
from voicehost.rules.requests import Round, Turn
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.random_games import random_game, random_input
from voicehost.simulation.script import script_from_data

# The closed sets the rules are typed with: a game never leaves them (mypy checks the code's
# literals; this checks what the games really produce, options and all).
WINNERS, REASONS = set(get_args(Winner)), set(get_args(Ending))
TURNS, ROUNDS, PHASES, CAUSES = set(get_args(Turn)), set(get_args(Round)), set(get_args(Phase)), set(get_args(Cause))
T = TypeVar("T")


def vote_bonus(game: Game, alive: set[int]) -> int:
    """Votes beyond one per player: the classic mayor's second vote, the blood names of the dead."""
    bonus = 1 if game.options.get("mayor") else 0
    return bonus + (game.seats - len(alive) if game.options.get("blood_name") else 0)


def check_consistency(game: Game) -> None:
    """Nobody out ever acts, counts add up, and the game ends at most once."""
    alive = set(range(1, game.seats + 1))
    over = False
    for event in game.events:
        assert not over, f"{event} after the game was over"
        if isinstance(event, Eliminated):
            assert event.seat in alive and event.cause in CAUSES
            alive.discard(event.seat)
        elif isinstance(event, SpeechBegan):
            assert event.turn in TURNS
            assert event.turn in ("last_word", "blood_name", "free") or event.seat in alive
        elif isinstance(event, NominationAccepted):
            assert event.by in alive and event.target in alive
        elif isinstance(event, CheckAnswered):
            assert event.by in alive
        elif isinstance(event, ShootingResolved) and event.target is not None:
            assert event.target in alive
        elif isinstance(event, VotingBegan):
            assert event.round in ROUNDS
        elif isinstance(event, VotesCounted):
            assert event.round in ROUNDS
            assert sum(n for _, n in event.counts) <= len(alive) + vote_bonus(game, alive)
            assert set(event.defaulted) <= alive
        elif isinstance(event, GameOver):
            assert event.winner in WINNERS and event.reason in REASONS
            over = True
    assert alive == set(game.alive)
    assert over == game.is_over
    assert not isinstance(game, TableGame) or game.phase in PHASES


@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(ruleset_names()))
def test_random_legal_games_end_cleanly_and_stay_consistent(seed: int, name: str) -> None:
    ruleset = load_ruleset(name)
    game = random_game(ruleset, ruleset.resolve({}), random.Random(seed))
    assert game.is_over, "a random game of default options should end within 5000 inputs"
    check_consistency(game)
    protocol = build_protocol(game)
    assert protocol["winner"] in WINNERS and protocol["reason"] in REASONS
    assert all(narrate(game.events))  # every event kind has its Russian line


OPTION_VALUES = {
    "nomination": st.sampled_from(["first", "last"]),
    "self_nomination": st.booleans(),
    "rotation": st.sampled_from(["first", "last"]),
    "tied_vote_in_revote": st.booleans(),
    "split_at_four": st.sampled_from(["stay", "vote"]),
    "removal_cancels_vote": st.booleans(),
    "three_fouls": st.sampled_from(["lose_speech", "short_speech", "none"]),
    "misses_to_lose": st.integers(0, 4),
    "call_dead_seats": st.booleans(),
}


@given(seed=st.integers(0, 2**32 - 1), options=st.fixed_dictionaries({}, optional=OPTION_VALUES))
def test_undo_restores_the_exact_previous_state(seed: int, options: dict[str, object]) -> None:
    ruleset = load_ruleset("sport")
    rng = random.Random(seed)
    game = random_game(ruleset, ruleset.resolve(options), rng, max_inputs=rng.randint(1, 120))
    if game.is_over:
        game.pop()
    state, events, inputs = game.state(), list(game.events), list(game.inputs)
    item = random_input(game, rng)
    try:
        game.push(item)
    except Exception:  # an input for a seat that is out: IllegalInput leaves the state as it was
        assert game.state() == state
        return
    assert game.pop() == item
    assert game.state() == state and game.events == events and game.inputs == inputs


seat = st.integers(1, 10)
speech = st.lists(st.sampled_from([
    "выставляю игрока номер {}", "отзываю {}", "пас", "спасибо", "выставляю {}-го спасибо", "я бы выставил {}",
]), max_size=3).map(lambda parts: [p.format(random.Random(len(p)).randint(1, 11)) for p in parts])
timed = st.one_of(
    st.fixed_dictionaries({"seat": seat, "after_speech": seat}),
    st.fixed_dictionaries({"seat": seat, "at": st.sampled_from(["morning", "voting", "after_vote"])}),
)
night = st.fixed_dictionaries({}, optional={
    "shots": st.fixed_dictionaries({}, optional={"3": seat, "5": seat, "9": seat}),
    "check": st.fixed_dictionaries({}, optional={"3": seat, "7": seat}),
    "fouls": st.lists(seat, max_size=2),
})
day = st.fixed_dictionaries({}, optional={
    "speeches": st.dictionaries(seat.map(str), speech, max_size=10),
    "votes": st.dictionaries(seat.map(str), seat, max_size=10),
    "revote": st.dictionaries(seat.map(str), seat, max_size=10),
    "lift": st.lists(seat, max_size=10, unique=True),
    "fouls": st.lists(timed, max_size=3),
    "removals": st.lists(timed, max_size=1),
})


@given(nights=st.lists(night, max_size=8), days=st.lists(day, max_size=8),
       options=st.fixed_dictionaries({}, optional=OPTION_VALUES))
def test_random_legal_scripts_end_or_run_out_cleanly(
        nights: list[dict[str, Any]], days: list[dict[str, Any]], options: dict[str, object]) -> None:
    script = {"ruleset": "sport", "options": options, "nights": nights, "days": days,
              "roles": {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}}
    result = simulate(script_from_data(script))
    check_consistency(result.game)
    protocol = build_protocol(result.game, result.ignored)
    assert (protocol["winner"] is None) == (protocol["reason"] is None)
    assert protocol["winner"] is None or protocol["winner"] in WINNERS
    horizon = max(2 * len(nights) - 2, 2 * len(days) - 1, 0)  # the last scripted phase
    assert len(protocol["days"]) <= horizon // 2 + 1  # a day's morning closes the night before it


OPTIONS_BY_RULESET: dict[str, st.SearchStrategy[dict[str, object]]] = {
    "sport": st.fixed_dictionaries({}, optional=OPTION_VALUES),
    "club": st.fixed_dictionaries({}, optional={"non_voter_foul": st.booleans(), "last_word_s": st.integers(0, 60),
                                                "rotation": st.sampled_from(["first", "last"])}),
    "classic": st.fixed_dictionaries({}, optional={
        "open": st.sampled_from(["no", "cards", "cards_and_night"]), "no_host": st.booleans(),
        "extra_card": st.booleans(), "blood_name": st.booleans(), "mayor": st.booleans(),
        "three_sides": st.booleans(), "discussion": st.sampled_from(["free", "turns"]), "etiquette": st.booleans()}),
    "canonical": st.fixed_dictionaries({}, optional={"ratio": st.sampled_from(["1:5", "1:4", "1:3"])}),
}
BALLOT_KEYS = ("votes", "prevote", "revote", "mayor", "nominate", "blood_name")


@given(data=st.data())
def test_random_legal_scripts_of_every_ruleset_end_or_run_out_cleanly(data: st.DataObject) -> None:
    from voicehost.host.dealing import shuffled_deal
    from voicehost.rules import GAMES

    name = data.draw(st.sampled_from(ruleset_names()), label="ruleset")
    ruleset, game_class = load_ruleset(name), GAMES[name]
    options = data.draw(OPTIONS_BY_RULESET[name], label="options")
    seats = data.draw(st.sampled_from(ruleset.seats), label="seats")
    deal = shuffled_deal(ruleset, ruleset.resolve(options), seats, random.Random(data.draw(st.integers(0, 999))))
    seat = st.integers(1, seats)
    targets = {key: st.dictionaries(seat.map(str), seat, max_size=seats) for key in BALLOT_KEYS}

    def actors(key: str) -> list[str]:
        return [str(s) for s, role in enumerate(deal, 1) if role in game_class.night_actions.get(key, ())]

    def night() -> dict[str, Any]:
        entries: dict[str, st.SearchStrategy[dict[str, object]]] = {}
        for key in game_class.night_actions:
            value = st.sampled_from(["black", "solo"]) if key == "join" else seat
            entries[key] = st.fixed_dictionaries({}, optional={a: value for a in actors(key)})
        return data.draw(st.fixed_dictionaries({}, optional=entries))

    def day() -> dict[str, Any]:
        entries: dict[str, st.SearchStrategy[object]] = {
            key: targets[key] for key in BALLOT_KEYS if key in game_class.day_keys}
        entries.update({key: st.lists(seat, max_size=seats, unique=True)
                        for key in ("lift", "extra_word") if key in game_class.day_keys})
        entries["speeches"] = st.dictionaries(seat.map(str), speech, max_size=seats)
        entries["fouls"] = st.lists(timed, max_size=2)
        entries = {k: v for k, v in entries.items() if k in game_class.day_keys}
        return data.draw(st.fixed_dictionaries({}, optional=entries))

    script: dict[str, Any] = {"ruleset": name, "seats": seats, "options": options,
                              "roles": {str(s): r.value for s, r in enumerate(deal, 1) if r.value != "citizen"},
                              "names": {str(s): f"Игрок {s}" for s in range(1, seats + 1)},
                              "nights": [night() for _ in range(data.draw(st.integers(0, 6)))],
                              "days": [day() for _ in range(data.draw(st.integers(0, 6)))]}
    timed_seat_ok = all(t.get("seat", 1) <= seats and t.get("after_speech", 1) <= seats
                        for d in script["days"] for t in d.get("fouls", []))
    assume(timed_seat_ok)
    result = simulate(script_from_data(script))
    check_consistency(result.game)
    protocol = build_protocol(result.game, result.ignored)
    assert protocol["winner"] is None or (protocol["winner"] in WINNERS | {"nobody"})


# ---- adversarial shapes (issue 11): fouls and removals at every moment, group exits, single
# candidates on later days, days without last words, empty trailing nights ---------------------

MOMENTS = st.sampled_from(["morning", "voting", "after_vote"])
SPEECH_SHAPES = st.sampled_from([
    "выставляю {} спасибо", ["выставляю {}", "спасибо"], "выставляю игрока номер {}", "пас", ["выставляю {}"],
])


def penalty(seats: int) -> st.SearchStrategy[dict[str, Any]]:
    """A judge's foul or removal at any moment of a day: the morning, during any speech, the vote, after it."""
    seat_of = st.integers(1, seats)
    return st.one_of(st.fixed_dictionaries({"seat": seat_of, "after_speech": seat_of}),
                     st.fixed_dictionaries({"seat": seat_of, "at": MOMENTS}))


def nominations(seats: int) -> st.SearchStrategy[dict[str, object]]:
    """Speeches that nominate: often exactly one candidate (a later day's single candidate),
    said in one breath with «спасибо» or split across utterances."""
    def fill(shape: object, target: int) -> object:
        return [part.format(target) for part in shape] if isinstance(shape, list) else str(shape).format(target)
    one = st.tuples(st.integers(1, seats), SPEECH_SHAPES, st.integers(1, seats)).map(
        lambda t: {str(t[0]): fill(t[1], t[2])})
    many = st.dictionaries(st.integers(1, seats).map(str), st.tuples(SPEECH_SHAPES, st.integers(1, seats)).map(
        lambda t: fill(*t)), max_size=4)
    return st.one_of(one, many)


def adversarial_day(seats: int, keys: frozenset[str]) -> st.SearchStrategy[dict[str, Any]]:
    seat_of = st.integers(1, seats)
    entries = {
        "speeches": nominations(seats),
        "votes": st.dictionaries(seat_of.map(str), seat_of, max_size=seats),
        "revote": st.dictionaries(seat_of.map(str), seat_of, max_size=seats),
        "lift": st.lists(seat_of, min_size=seats // 2, max_size=seats, unique=True),  # often passes: a group exit
        "fouls": st.lists(penalty(seats), max_size=4),
        "removals": st.lists(penalty(seats), max_size=2),
    }
    return st.fixed_dictionaries({}, optional={k: v for k, v in entries.items() if k in keys})


def adversarial_night(seats: int, shooters: list[str],
                      night_keys: dict[str, list[str]]) -> st.SearchStrategy[dict[str, Any]]:
    """Team shots that often agree (so somebody dies), other actions, and fouls — often four for
    one seat, so the night removes him."""
    seat_of = st.integers(1, seats)
    shot = st.one_of(st.just(None), seat_of)
    entries: dict[str, st.SearchStrategy[Any]] = {
        "shots": st.tuples(shot, st.dictionaries(st.sampled_from(shooters), seat_of) if shooters else st.just({}))
        .map(lambda t: {**({s: t[0] for s in shooters} if t[0] else {}), **t[1]}),
        "fouls": st.one_of(st.lists(seat_of, max_size=2), seat_of.map(lambda s: [s] * 4)),
    }
    for key, actors in night_keys.items():
        if actors and key not in ("shots", "join"):
            entries[key] = st.dictionaries(st.sampled_from(actors), seat_of)
    return st.fixed_dictionaries({}, optional=entries)


def check_moments(game: Game) -> None:
    """Night removals are dated by their night, and so are the morning's kills and the night's
    fouls and removals applied at the morning after them; the rest of a day by that day. Every
    victim of a night and every player of a passed «все покидают» is out, and the game ends
    after the whole group (the last event)."""
    from voicehost.rules.events import FoulGiven, LiftAsked, LiftCounted, MorningCame, NightFell, RoleRevealed
    night = day = 0
    at_night = morning = True
    leaving: set[int] = set()
    asked: tuple[int, ...] = ()
    for event in game.events:
        if isinstance(event, NightFell):
            night, at_night = event.night, True
            assert not leaving, f"{leaving} never left"
        elif isinstance(event, MorningCame):
            day, at_night, morning = event.day, False, True
            leaving = set(event.killed)
        elif isinstance(event, FoulGiven):
            assert event.night is None or (morning and not leaving and event.night == night), event
            morning = morning and event.night is not None
        elif isinstance(event, Eliminated):
            if at_night or event.cause == "killed" or morning and event.night is not None:
                assert (event.night, event.day) == (night, None), event
                assert event.cause == "killed" or at_night or not leaving, f"{event} before {leaving} left"
            else:
                assert (event.day, event.night) == (day, None), event
                morning = False
            if event.cause == "killed":
                leaving.discard(event.seat)
            elif event.cause == "voted" and asked:
                leaving.discard(event.seat)
        elif isinstance(event, LiftAsked):
            asked = event.candidates
        elif isinstance(event, LiftCounted):
            leaving = set(asked) if event.passed else set()
            asked = ()
        elif leaving and not isinstance(event, GameOver):
            assert event.kind in ("speech_began",), f"{event} before {leaving} left"
        if not isinstance(event, (MorningCame, FoulGiven, Eliminated, RoleRevealed, GameOver)):
            morning = False
    if game.is_over:
        assert isinstance(game.events[-1], GameOver) and not leaving


class Draw(Protocol):
    """What ``st.data().draw`` is: a value drawn from the strategy given."""
    def __call__(self, strategy: st.SearchStrategy[T], /) -> T: ...


def sport_script(draw: Draw, extra_nights: int = 0) -> dict[str, Any]:
    roles = {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}
    from voicehost.rules import SportGame
    days = draw(st.lists(adversarial_day(10, SportGame.day_keys), max_size=5))
    night_keys = {"check": ["3", "7"]}
    nights = draw(st.lists(adversarial_night(10, ["3", "5", "9"], night_keys), max_size=len(days) + 1))
    options = draw(st.fixed_dictionaries({}, optional=OPTION_VALUES))
    return {"ruleset": "sport", "options": options, "roles": roles, "nights": nights, "days": days}


@given(data=st.data())
def test_adversarial_sport_scripts_keep_every_moment_in_its_place(data: st.DataObject) -> None:
    script = sport_script(data.draw)
    result = simulate(script_from_data(script))
    check_consistency(result.game)
    check_moments(result.game)


@given(data=st.data(), extra=st.integers(1, 3))
def test_empty_nights_after_the_last_day_never_change_the_days_before(data: st.DataObject, extra: int) -> None:
    script = sport_script(data.draw)
    days = len(script["days"])
    script["nights"] = script["nights"][:days]  # the script ends on its last day …
    longer = {**script, "nights": script["nights"] + [{}] * (days + extra - len(script["nights"]))}
    short = build_protocol(*_played(script))
    long = build_protocol(*_played(longer))
    assert short["days"][:days] == long["days"][:days]
    assert short["ignored"] == [i for i in long["ignored"] if not i["at"].startswith("nights")] or \
        short["ignored"] == long["ignored"]
    within = [e for e in long["eliminations"] if e.get("day", 0) <= days and e.get("night", 0) <= days]
    assert short["eliminations"] == within
    if short["winner"] is not None:
        assert short == long


def _played(script: dict[str, Any]) -> tuple[Game, list[dict[str, str]]]:
    result = simulate(script_from_data(script))
    return result.game, result.ignored


@given(data=st.data())
def test_adversarial_scripts_of_every_ruleset_keep_groups_and_moments(data: st.DataObject) -> None:
    from voicehost.host.dealing import shuffled_deal
    from voicehost.rules import GAMES

    name = data.draw(st.sampled_from(ruleset_names()), label="ruleset")
    ruleset, game_class = load_ruleset(name), GAMES[name]
    options = data.draw(OPTIONS_BY_RULESET[name], label="options")
    seats = data.draw(st.sampled_from(ruleset.seats), label="seats")
    deal = shuffled_deal(ruleset, ruleset.resolve(options), seats, random.Random(data.draw(st.integers(0, 999))))
    actors = {key: [str(s) for s, role in enumerate(deal, 1) if role in roles]
              for key, roles in game_class.night_actions.items()}
    shooters = [s for s in actors.get("shots", []) if deal[int(s) - 1].team.value == "black"]
    days = data.draw(st.lists(adversarial_day(seats, game_class.day_keys), max_size=4), label="days")
    nights = data.draw(st.lists(adversarial_night(seats, shooters, actors), max_size=len(days) + 1), label="nights")
    script = {"ruleset": name, "seats": seats, "options": options, "nights": nights, "days": days,
              "roles": {str(s): r.value for s, r in enumerate(deal, 1) if r.value != "citizen"},
              "names": {str(s): f"Игрок {s}" for s in range(1, seats + 1)}}
    result = simulate(script_from_data(script))
    check_consistency(result.game)
    check_moments(result.game)
