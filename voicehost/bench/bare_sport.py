"""A bare reading of the sport rules: JSON text → protocol in plain functions, no classes, no
engine — the reference ``bench engine`` measures the script → protocol path against (issue 47).

Why it exists: the engine (requests, inputs, events, a protocol built from the events) pays for
being the one rulebook every table, journal and replay shares. This reading pays for nothing
but the rules: one game's state in local variables, the protocol written as the game goes. It
reads the sport scripts the bench plays (the bundled ones and :mod:`~voicehost.simulation.scriptgen`'s)
and gives the very protocol the engine gives (``tests/test_bench_engine.py``, and the bench
itself, compare them byte for byte). It checks no script: the engine's reader does, and a
script the engine refuses is no benchmark. Speech is read by the host's own parser (cached
per phrase, as the script player reads it): the words are not the rules.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from voicehost.language.intents import NominateIntent, WithdrawIntent
from voicehost.language.parser import parse
from voicehost.simulation.engine_level import split_end  # the script player's own split of a speech

BLACK = frozenset({"don", "mafia"})
SPOKEN = frozenset({"speech", "silent", "short"})   # turns that take words and nominations
NIGHT = frozenset({"shots", "action", "dawn"})     # what a night waits for


@lru_cache(maxsize=4096)
def heard(text: str) -> tuple[tuple[bool, int], ...]:
    """The nominations (True) and withdrawals (False) said in ``text``, with their seats."""
    return tuple((isinstance(intent, NominateIntent), intent.seat) for intent in parse(text)
                 if isinstance(intent, (NominateIntent, WithdrawIntent)))


@lru_cache(maxsize=1)
def sport() -> tuple[dict[str, Any], dict[str, int], int, dict[str, dict[str, float]]]:
    """The sport ruleset's data: option defaults, turn lengths, seats, scoring schemes (read once,
    as the engine reads its ruleset once)."""
    from voicehost.config import load_ruleset

    ruleset = load_ruleset("sport")
    timers = ruleset.timers
    turns = {"speech": timers["speech_s"], "tie": timers["tie_speech_s"], "short": timers["short_speech_s"],
             "silent": timers["silent_turn_s"]}
    return (dict(ruleset.resolve({}).items()), turns, ruleset.seats[0],
            {name: dict(points) for name, points in ruleset.scoring.items()})


def read_script(data: dict[str, Any]) -> tuple[list[Any], list[Any], list[str]]:
    """The nights and days as plain dicts keyed by seat numbers, and every entry's place in the
    order the engine's reader lists them (what ``ignored`` is listed by)."""
    places: list[str] = []
    nights = []
    for i, raw in enumerate(data.get("nights", [])):
        night: dict[str, Any] = {"shots": {}, "check": {}, "fouls": []}
        for key, value in raw.items():
            if key == "fouls":
                for j, seat in enumerate(value):
                    night["fouls"].append((seat, f"nights[{i}].fouls[{j}]"))
                    places.append(f"nights[{i}].fouls[{j}]")
                continue
            for actor, target in value.items():
                night[key][int(actor)] = (tuple(target) if isinstance(target, list) else (target,)) \
                    if key == "shots" else target
                places.append(f"nights[{i}].{key}.{actor}")
        nights.append(night)
    days = []
    for i, raw in enumerate(data.get("days", [])):
        day: dict[str, Any] = {"speeches": {}, "votes": {}, "revote": {}, "lift": [], "fouls": [], "removals": []}
        for key, value in raw.items():
            where = f"days[{i}].{key}"
            if key in ("lift", "fouls", "removals"):
                for j, item in enumerate(value):
                    day[key].append(item if key == "lift" else
                                    (item["seat"], f"{where}[{j}]", item.get("at"), item.get("after_speech")))
                    places.append(f"{where}[{j}]")
                continue
            for seat, said in value.items():
                day[key][int(seat)] = [said] if isinstance(said, str) else said
                places.append(f"{where}.{seat}")
        days.append(day)
    return nights, days, places


def bare_protocol(text: str) -> dict[str, Any]:  # noqa: C901 — one game, read straight through
    """The protocol of the sport script ``text`` (JSON), as the engine's script player writes it."""
    data = json.loads(text)
    defaults, turn_s, seats, schemes = sport()
    options = {**defaults, **data.get("options", {})}
    seats = int(data.get("seats", seats))
    turn_s = {**turn_s, "last_word": options["last_word_s"]}
    roles = {seat: "citizen" for seat in range(1, seats + 1)}
    roles.update({int(seat): role for seat, role in data.get("roles", {}).items()})
    names = {int(seat): name for seat, name in data.get("names", {}).items()}
    nights, days, places = read_script(data)
    horizon = max(2 * len(nights) - 2, 2 * len(days) - 1, 0)
    empty_day: dict[str, Any] = {"speeches": {}, "votes": {}, "revote": {}, "lift": [], "fouls": [], "removals": []}
    # the game
    alive = set(roles)
    fouls = dict.fromkeys(roles, 0)
    removed: set[int] = set()
    penalized: set[int] = set()
    nominations: list[list[int]] = []
    votes: dict[int, int] = {}
    lifts: set[int] = set()
    held: list[tuple[str, int]] = []
    struck: set[int] = set()
    turns: list[tuple[int, str]] = []
    morning_turns: list[tuple[int, str]] = []
    night = day = misses = split_days = quiet = alive_at_morning = opener = closer = held_night = 0
    night_target: int | None = None
    tied: tuple[int, ...] = ()
    outcome: tuple[str, str] | None = None
    req: tuple[Any, ...] | None = None
    after = ""
    vote_over = vote_cancelled = day_split = False
    # the protocol, written as the game goes
    p_days: list[dict[str, Any]] = []
    p_nights: list[dict[str, Any]] = []
    p_out: dict[int, dict[str, Any]] = {}
    eliminations: list[dict[str, Any]] = []
    at_night = True
    morning: dict[str, Any] | None = None
    # the script's people
    used: set[str] = set()
    reasons: dict[str, str] = {}
    not_taken: dict[str, list[str]] = {}
    voting_seen: set[int] = set()
    after_vote_done: set[int] = set()

    def today() -> dict[str, Any] | None:
        nonlocal morning
        if morning is not None:
            p_days.append(morning)
            morning = None
        return p_days[-1] if p_days else None

    def finish(winner: str, reason: str) -> None:
        nonlocal outcome, req
        outcome, req = (winner, reason), None

    def check_winner() -> None:
        if outcome is None:
            black = len([seat for seat in alive if roles[seat] in BLACK])
            if black == 0:
                finish("red", "no_black_left")
            elif black >= len(alive) - black:
                finish("black", "black_parity")

    def eliminate(seat: int, cause: str, check: bool = True) -> None:
        alive.discard(seat)
        in_day = cause != "killed" and not held_night and req is not None and req[0] not in NIGHT
        when = {"day": day} if in_day else {"night": night}
        eliminations.append({"seat": seat, "cause": cause, **when})
        p_out[seat] = {"cause": cause, **when}
        if in_day:
            today()["eliminated"].append(seat)  # type: ignore[index]
        if check:
            check_winner()

    def foul(seat: int, given: bool = True) -> None:
        if seat not in alive and given:
            raise LookupError(f"seat {seat} is not at the table")
        count = fouls[seat] = fouls[seat] + 1
        entry = None if held_night or at_night else today()
        (p_nights[-1] if entry is None else entry).setdefault("fouls", []).append({"seat": seat, "count": count})
        if count == 3:
            penalized.add(seat)
        if count >= 4:
            if given:
                remove(seat)
            else:
                struck.add(seat)

    def remove(seat: int) -> None:
        nonlocal vote_cancelled, turns
        if seat not in alive:
            raise LookupError(f"seat {seat} is not at the table")
        was = req
        removed.add(seat)
        eliminate(seat, "removed")
        if outcome is not None or held_night:
            return
        if not vote_over and options["removal_cancels_vote"]:
            vote_cancelled = True
        if not vote_over and (was[0] in ("votes", "lift") or after == "revote"):  # type: ignore[index]
            turns = []
            begin_voting()
        elif was[0] == "speech" and was[1] == seat:  # type: ignore[index]
            next_turn()

    def penalty(kind: str, seat: int) -> None:
        if req is not None and req[0] in NIGHT:
            if seat not in alive:
                raise LookupError(f"seat {seat} is not at the table")
            if any(k == "remove" and s == seat for k, s in held) or \
                    fouls[seat] + len([1 for k, s in held if k == "foul" and s == seat]) >= 4:
                raise LookupError(f"seat {seat} already leaves the table at the morning")
            held.append((kind, seat))
        elif kind == "foul":
            foul(seat)
        else:
            remove(seat)

    def console(kind: str, seat: int, place: str) -> None:
        if outcome is not None or place in used or place in reasons:
            return
        try:
            penalty(kind, seat)
            used.add(place)
        except LookupError as err:
            reasons[place] = str(err)

    def timed(sd: dict[str, Any], at: str | None = None, after_speech: int | None = None) -> None:
        for key, kind in (("fouls", "foul"), ("removals", "remove")):
            for seat, place, moment, speaker in sd[key]:
                if moment == at and speaker == after_speech:
                    console(kind, seat, place)

    def begin_night() -> None:
        nonlocal night, night_target, req, at_night
        night += 1
        today()
        at_night = True
        p_nights.append({"night": night, "killed": [], "missed": False, "checks": []})
        night_target = None
        req = ("dawn",) if night == 1 else ("shots",)

    def begin_day() -> None:
        nonlocal day, nominations, vote_over, vote_cancelled, day_split, misses, at_night, morning, held, held_night
        nonlocal quiet, alive_at_morning, struck, morning_turns, turns, after, req
        day += 1
        nominations = []
        vote_over = vote_cancelled = day_split = False
        killed = (night_target,) if night_target in alive else ()
        at_night = False
        p_nights[-1]["killed"] = list(killed)
        today()
        morning = {"day": day, "opener": None, "nominations": [], "withdrawn": [], "votes": {}, "revotes": [],
                   "vote": None, "eliminated": []}
        if night > 1:
            misses = 0 if night_target is not None else misses + 1
        for seat in killed:
            eliminate(seat, "killed", check=False)
        if killed:
            check_winner()
        if held:
            items, held, held_night = held, [], night
            for kind, seat in items:
                if outcome is not None:
                    break
                if seat in alive:
                    foul(seat) if kind == "foul" else remove(seat)
                elif kind == "foul":
                    foul(seat, given=False)
                else:
                    struck.add(seat)
            held_night = 0
        if outcome is not None:
            return
        if options["misses_to_lose"] and misses >= options["misses_to_lose"]:
            return finish("red", "three_misses")
        if day > 1:
            quiet = quiet + 1 if len(alive) == alive_at_morning else 0
        alive_at_morning = len(alive)
        if options["quiet_rounds_to_draw"] and quiet >= options["quiet_rounds_to_draw"]:
            return finish("nobody", "quiet_draw")
        morning_turns = [(seat, "last_word") for seat in killed if seat not in struck]
        struck = set()
        turns, after, req = [], "", ("morning", day)

    def queue(queued: list[tuple[int, str]], then: str) -> None:
        nonlocal turns, after
        turns, after = queued, then
        next_turn()

    def next_turn() -> None:
        nonlocal req
        while turns and outcome is None:
            seat, kind = turns.pop(0)
            if seat not in alive and kind != "last_word":
                continue
            seconds = turn_s[kind]
            if kind != "tie" and seat in penalized and options["three_fouls"] != "none":
                penalized.discard(seat)
                if kind == "last_word":
                    seconds = min(seconds, turn_s["short"])
                elif options["three_fouls"] == "lose_speech" and len(alive) > 4:
                    kind, seconds = "silent", turn_s["silent"]
                else:
                    kind, seconds = "short", turn_s["short"]
            req = ("speech", seat, kind, seconds, kind in SPOKEN)
            return
        if outcome is None:
            THEN[after]()

    def next_alive(seat: int) -> int:
        for step in range(seats):
            candidate = (seat - 1 + step) % seats + 1
            if candidate in alive:
                return candidate
        raise LookupError("nobody at the table")

    def then_speeches() -> None:
        nonlocal opener, closer
        if opener == 0:
            first = next_alive(1)
        elif options["rotation"] == "first":
            first = next_alive(opener + 1)
        else:
            first = next_alive(next_alive(closer + 1) + 1)
        order = sorted(alive)
        start = order.index(first)
        order = order[start:] + order[:start]
        opener, closer = order[0], order[-1]
        today()["opener"] = opener  # type: ignore[index]
        queue([(seat, "speech") for seat in order], "voting")

    def nominate(by: int, target: int) -> None:
        if target not in alive or (target == by and not options["self_nomination"]) or \
                any(nominee == target for _, nominee in nominations):
            return
        own = next((nominee for nominator, nominee in nominations if nominator == by), None)
        entry = today()
        if own is not None:
            if options["nomination"] == "first":
                return
            nominations.remove([by, own])
            entry["nominations"].remove([by, own])  # type: ignore[index]
            entry["withdrawn"].append([by, own])  # type: ignore[index]
        nominations.append([by, target])
        entry["nominations"].append([by, target])  # type: ignore[index]

    def withdraw(by: int, target: int) -> None:
        if [by, target] in nominations and next(n for b, n in nominations if b == by) == target:
            nominations.remove([by, target])
            entry = today()
            entry["nominations"].remove([by, target])  # type: ignore[index]
            entry["withdrawn"].append([by, target])  # type: ignore[index]

    def begin_voting() -> None:
        candidates = tuple([nominee for _, nominee in nominations if nominee in alive])
        if vote_cancelled:
            no_vote("cancelled")
        elif not candidates:
            no_vote("no_candidates")
        elif len(candidates) == 1 and day == 1:
            no_vote("single_on_day_one")
        else:
            open_round("main", candidates, tuple(sorted(alive)))

    def no_vote(reason: str) -> None:
        nonlocal vote_over
        vote_over = True
        today()["vote"] = reason  # type: ignore[index]
        end_day()

    def open_round(name: str, candidates: tuple[int, ...], voters: tuple[int, ...]) -> None:
        nonlocal votes, req
        votes, req = {}, ("votes", name, candidates, voters)

    def count_votes(name: str, candidates: tuple[int, ...], voters: tuple[int, ...]) -> None:
        nonlocal tied, req
        counts = dict.fromkeys(candidates, 0)
        for voter in voters:
            if voter in alive:
                counts[votes.get(voter, candidates[-1])] += 1
        entry = today()
        shown = {str(seat): n for seat, n in counts.items()}
        entry["vote"] = "held"  # type: ignore[index]
        if name == "main" and not entry["votes"]:  # type: ignore[index]
            entry["votes"] = shown  # type: ignore[index]
        else:
            entry["revotes"].append(shown)  # type: ignore[index]
        top = max(counts.values())
        leaders = tuple([seat for seat in candidates if counts[seat] == top])
        if len(leaders) == 1:
            voted_out(leaders)
        elif name == "main":
            tied = leaders
            queue([(seat, "tie") for seat in leaders], "revote")
        elif len(alive) == 4 and options["split_at_four"] == "stay":
            all_stay()
        else:
            lifts.clear()
            req = ("lift", leaders, tuple(sorted(alive)))

    def then_revote() -> None:
        voters = tuple(sorted(alive))
        if not options["tied_vote_in_revote"]:
            voters = tuple([voter for voter in voters if voter not in tied])
        open_round("revote", tied, voters)

    def count_lift(candidates: tuple[int, ...]) -> None:
        yes, needed = len(lifts & alive), len(alive) // 2 + 1
        today()["lift"] = {"yes": yes, "needed": needed, "passed": yes >= needed}  # type: ignore[index]
        voted_out(candidates) if yes >= needed else all_stay()

    def all_stay() -> None:
        nonlocal day_split, vote_over
        day_split = vote_over = True
        end_day()

    def voted_out(leaving: tuple[int, ...]) -> None:
        nonlocal vote_over
        vote_over = True
        for seat in leaving:
            eliminate(seat, "voted", check=False)
        check_winner()
        if outcome is None:
            queue([(seat, "last_word") for seat in leaving], "night")

    def end_day() -> None:
        nonlocal split_days, turns, after, req
        split_days = split_days + 1 if day_split and len(alive) <= 4 else 0
        if split_days >= 3:
            return finish("black", "split_deadlock")
        turns, after, req = [], "", ("nightfall", day)

    THEN = {"speeches": then_speeches, "voting": begin_voting, "revote": then_revote, "night": end_day}

    def script_day() -> dict[str, Any]:
        return days[day - 1] if 1 <= day <= len(days) else empty_day

    def script_night() -> dict[str, Any]:
        return nights[night - 1] if night <= len(nights) else {"shots": {}, "check": {}, "fouls": []}

    def after_vote(sd: dict[str, Any]) -> None:
        if day and day not in after_vote_done:
            after_vote_done.add(day)
            timed(sd, at="after_vote")

    def shots() -> None:
        nonlocal night_target, req
        shooters = tuple(sorted([seat for seat in alive if roles[seat] in BLACK]))
        called = tuple(range(1, seats + 1)) if options["call_dead_seats"] else tuple(sorted(alive))
        taps = {}
        for shooter, targets in script_night()["shots"].items():
            place = f"nights[{night - 1}].shots.{shooter}"
            on = tuple(sorted((t for t in targets if t in called), key=called.index))
            if shooter not in shooters:
                reasons[place] = f"seat {shooter} is out"
            elif not on:
                reasons[place] = f"seat {targets[0]} is not called (out of the game)"
            else:
                taps[shooter] = on
                used.add(place)
        target = None
        for seat in shooters:
            tapped = taps.get(seat, ())
            if len(tapped) != 1 or target is not None and tapped[0] != target:
                target = None
                break
            target = tapped[0]
        night_target = target if target in alive and target in called else None
        shot = p_nights[-1].setdefault("shots", {})
        shot["black"] = night_target
        p_nights[-1]["missed"] = shot.get("black", 0) is None
        req = ("action", "don")

    def check(role: str) -> None:
        nonlocal req
        by = next((seat for seat in sorted(alive) if roles[seat] == role), None)
        entries = script_night()["check"]
        if by is not None and by in entries:
            target = entries[by]
            used.add(f"nights[{night - 1}].check.{by}")
            result = roles[target] == "sheriff" if role == "don" else roles[target] in BLACK
            p_nights[-1]["checks"].append({"by": by, "target": target, "result": result})
        req = ("action", "sheriff") if role == "don" else ("dawn",)

    def speech(asked: tuple[Any, ...]) -> None:
        _, seat, turn, seconds, may = asked
        sd = script_day()
        if seat in sd["speeches"] and turn in SPOKEN:
            place = f"days[{day - 1}].speeches.{seat}"
            used.add(place)
            if seconds:
                say(asked, sd, place, sd["speeches"][seat])
        if turn == "last_word" and day in voting_seen:
            after_vote(sd)
        if turn != "tie" and turn != "last_word":
            timed(sd, after_speech=seat)
        if req == asked:
            next_turn()

    def say(asked: tuple[Any, ...], sd: dict[str, Any], place: str, lines: list[str]) -> None:
        seat, may = asked[1], asked[4]
        for text in lines:
            body, end = split_end(text)
            if body and may:
                for is_nomination, target in heard(body):
                    if req != asked:
                        break
                    if not 1 <= target <= seats:
                        verb = "nominates" if is_nomination else "withdraws"
                        not_taken.setdefault(place, []).append(
                            f"{verb} seat {target}: there is no seat {target} at a {seats}-seat table")
                        break
                    nominate(seat, target) if is_nomination else withdraw(seat, target)
            if end:
                timed(sd, after_speech=seat)
                return
            if req != asked:
                return

    def ballot(asked: tuple[Any, ...]) -> None:
        _, name, candidates, voters = asked
        sd = script_day()
        if day not in voting_seen:
            voting_seen.add(day)
            timed(sd, at="voting")
            if req != asked:
                return
        key = "votes" if name == "main" else "revote"
        windows = {candidate: k for k, candidate in enumerate(candidates[:-1])}
        thumbs = []
        for voter, candidate in sd[key].items():
            place = f"days[{day - 1}].{key}.{voter}"
            if voter in voters and candidate in candidates and voter in alive:
                if candidate in windows:
                    thumbs.append((windows[candidate], voter, candidate))
                used.add(place)
            elif place not in used:
                reasons[place] = f"seat {candidate} is not on the ballot" if voter in voters \
                    else f"seat {voter} does not vote in this round"
        for _, voter, candidate in sorted(thumbs):
            votes.setdefault(voter, candidate)
        count_votes(name, candidates, voters)

    def lift(asked: tuple[Any, ...]) -> None:
        _, candidates, voters = asked
        presses: dict[int, int] = {}
        yes = []
        for j, voter in enumerate(script_day()["lift"]):
            if voter in voters and voter in alive:
                presses[voter] = presses.get(voter, 0) + 1
                yes.append((presses[voter], voter))
                used.add(f"days[{day - 1}].lift[{j}]")
        for _, voter in sorted(yes):
            if voter in lifts:
                foul(voter)
            else:
                lifts.add(voter)
            if req != asked:
                return
        count_lift(candidates)

    begin_night()
    started: set[int] = set()
    while req is not None:
        kind = req[0]
        index = 2 * night - 2 if kind in NIGHT else 2 * day - 1
        if index > horizon:
            break
        if index not in started:
            started.add(index)
            asked = req
            if kind in NIGHT:
                for seat, place in script_night()["fouls"]:
                    console("foul", seat, place)
            else:
                timed(script_day(), at="morning")
            if req is not asked:
                continue
        if kind == "speech":
            speech(req)
        elif kind == "votes":
            ballot(req)
        elif kind == "shots":
            shots()
        elif kind == "action":
            check(req[1])
        elif kind == "dawn":
            begin_day()
        elif kind == "morning":
            queue(morning_turns, "speeches")
        elif kind == "nightfall":
            asked = req
            after_vote(script_day())
            if req == asked:
                begin_night()
        else:
            lift(req)
    if outcome is None:
        today()
    points = schemes[options["scoring"]]
    return {
        "ruleset": "sport",
        "options": {name: value for name, value in options.items() if value != defaults[name]},
        "winner": outcome[0] if outcome else None,
        "reason": outcome[1] if outcome else None,
        "seats": {str(seat): {"role": role, "fouls": fouls[seat], **({"name": names[seat]} if seat in names else {}),
                              **({"out": p_out[seat]} if seat in p_out else {})} for seat, role in roles.items()},
        "eliminations": eliminations,
        "days": p_days,
        "nights": p_nights,
        "scores": {str(seat): score(points, outcome, seat, roles[seat], seat in alive, seat in removed,
                                    fouls[seat], options["removal_forfeits"]) for seat in roles},
        "revealed": [],
        "ignored": [entry for place in places for entry in (
            ([] if place in used else [{"at": place, "why": reasons.get(place, "not asked for")}])
            + [{"at": place, "why": why} for why in not_taken.get(place, ())])],
    }


def score(points: dict[str, float], outcome: tuple[str, str] | None, seat: int, role: str, alive: bool,
          removed: bool, fouls: int, forfeits: bool) -> float:
    """A seat's points under the scheme (no best move, no judge's points: scripts give none)."""
    if outcome is None:
        return 0.0
    team = "black" if role in BLACK else "red"
    kept = points.get("removal_keeps_win", 0.0) == 1
    forfeited = removed and not kept and forfeits
    main = points.get("won", 0.0) + points.get(f"won_{team}", 0.0) if team == outcome[0] and not forfeited else 0.0
    if alive:
        main += points.get("alive", 0.0) + points.get(f"{role}_alive", 0.0)
    penalty = 0.0
    if forfeited or (removed and kept):
        penalty = points.get("fouled_out", points.get("removed", 0.0)) if fouls >= 4 else points.get("removed", 0.0)
    return round(round(main, 2) + 0.0 + 0.0 + round(penalty, 2), 2)
