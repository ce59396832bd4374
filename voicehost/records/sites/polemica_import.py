"""A Polemica game record (the JSON its API returns, as polemica-library models it) read as a
voicehost protocol of the sport ruleset.

Who left the table and when is not a field of Polemica's game: it follows from the shots, the
votes and the disqualifications, as the library's ``utils/GameUtils.kt`` works it out
(commit 23aa7c1128fce6eb3e83ac555bb5f3e30501b991): ``getKilled`` (a night's shots all on one
victim, at least as many as the black players at the table), ``getFinalVotes`` (a day's last
voting round, ``num`` its highest; a tie goes to the lift, the votes with no ``num``, which
expel all tied if they outnumber the rest; no one leaves on day 1 by a single winner) and the
players' ``disqual``. This module follows the same rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from voicehost.records.sites.common import SEATS
from voicehost.records.sites.mafiaratings import REASONS, voicehost_time
from voicehost.records.sites.polemica import BEST_PLAYER, RESULTS, ROLES

ROLES_BACK = {number: role for role, number in ROLES.items()}
RESULTS_BACK = {number: team for team, number in RESULTS.items()}
NIGHT_STAGES = ("dealing", "briefing", "comIntro", "shooting", "checks", "toDay", "donCheck", "comCheck", "comKill")


def protocol_from_game(data: Mapping[str, Any]) -> dict[str, Any]:
    """See the module's docstring; a shape this cannot read raises KeyError, TypeError or ValueError."""
    players = sorted(data["players"], key=lambda p: int(p["position"]))
    if [int(p["position"]) for p in players] != list(range(1, SEATS + 1)):
        raise ValueError(f"players: positions 1 to {SEATS} expected")
    roles = {int(p["position"]): ROLES_BACK[int(p["role"])] for p in players}
    winner = _winner(data)
    out = _left(data, players, roles)
    seats: dict[str, Any] = {}
    for player in players:
        seat = int(player["position"])
        entry: dict[str, Any] = {"role": roles[seat], "fouls": len(player.get("fouls") or [])}
        if player.get("username"):
            entry["name"] = str(player["username"])
        if seat in out:
            entry["out"] = out[seat][1]
        seats[str(seat)] = entry
    protocol: dict[str, Any] = {
        "ruleset": "sport", "options": {}, "winner": winner, "reason": REASONS.get(str(winner)),
        "started": voicehost_time(str(data["started"])), "seats": seats,
        "eliminations": [{"seat": seat, **when} for seat, (_order, when) in sorted(out.items(), key=lambda i: i[1][0])],
        "days": [], "nights": [], "revealed": [], "ignored": []}
    _fouls_by_phase(protocol, players)
    protocol["foul_times"] = [{"seat": int(p["position"]), "at": voicehost_time(str(foul["time"]))}
                              for p in players for foul in p.get("fouls") or []]
    _bonuses(protocol, data)
    _best_move(protocol, players, out)
    return protocol


def _winner(data: Mapping[str, Any]) -> str | None:
    """RED_WIN 0, BLACK_WIN 1; a game over (its stage ``gameOver``) with no result is a draw;
    else the game is not over (the records refuse it)."""
    result = data.get("result")
    if result is not None:
        return RESULTS_BACK[int(result)]
    stage = data.get("stage") or {}
    return "nobody" if isinstance(stage, Mapping) and stage.get("type") == "gameOver" else None


def _left(data: Mapping[str, Any], players: list[Mapping[str, Any]],
          roles: Mapping[int, str]) -> dict[int, tuple[tuple[int, int, int], dict[str, Any]]]:
    """seat → (its order in the game, voicehost's ``out``): killed, voted out, removed."""
    out: dict[int, tuple[tuple[int, int, int], dict[str, Any]]] = {}
    for player in players:
        disqual = player.get("disqual")
        if isinstance(disqual, Mapping):
            seat, day = int(player["position"]), int(disqual["day"])
            if disqual.get("type") in NIGHT_STAGES:
                out[seat] = ((day + 1, 0, 0), {"cause": "removed", "night": day + 1})
            else:
                out[seat] = ((day, 1, 0), {"cause": "removed", "day": max(1, day)})
    for day, seat in _voted_out(data):
        out.setdefault(seat, ((day, 1, 1), {"cause": "voted", "day": day}))
    for night, victim in _killed(data, roles, out):
        out.setdefault(victim, ((night + 1, 0, 1), {"cause": "killed", "night": night + 1}))
    return out


def _killed(data: Mapping[str, Any], roles: Mapping[int, str],
            out: Mapping[int, Any]) -> list[tuple[int, int]]:
    """GameUtils.kt ``getKilled``: each night's victim when every shot names it and there are at
    least as many shots as black players at the table. A record without votes (voicehost's
    export: the protocol keeps no voter's vote) cannot say who was voted out, so there every
    night whose shots agree is a kill (voicehost exports a night's shots only for a kill)."""
    nights: dict[int, list[Mapping[str, Any]]] = {}
    for shot in data.get("shots") or []:
        nights.setdefault(int(shot["night"]), []).append(shot)
    found = []
    for night, shots in sorted(nights.items()):
        victims = {int(shot["victim"]) for shot in shots}
        blacks = [s for s, role in roles.items() if role in ("don", "mafia") and not _gone_before(out, s, night)]
        if len(victims) == 1 and (len(shots) >= len(blacks) or not data.get("votes")):
            found.append((night, victims.pop()))
    return found


def _gone_before(out: Mapping[int, Any], seat: int, night: int) -> bool:
    return seat in out and out[seat][0] < (night + 1, 0, 0)


def _voted_out(data: Mapping[str, Any]) -> list[tuple[int, int]]:
    """GameUtils.kt ``getFinalVotes``: per day, the last voting round decides."""
    days: dict[int, list[Mapping[str, Any]]] = {}
    for vote in data.get("votes") or []:
        days.setdefault(int(vote["day"]), []).append(vote)
    found: list[tuple[int, int]] = []
    for day, votes in sorted(days.items()):
        rounds = [int(v["num"]) for v in votes if v.get("num") is not None]
        if not rounds or max(rounds) == 0:
            continue
        final = [v for v in votes if v.get("num") == max(rounds)]
        tally: dict[int, int] = {}
        for vote in final:
            if vote.get("candidate"):
                tally[int(vote["candidate"])] = tally.get(int(vote["candidate"]), 0) + 1
        if not tally:
            continue
        top = max(tally.values())
        leaders = [seat for seat, count in tally.items() if count == top]
        if len(leaders) > 1:
            lift = [v for v in votes if v.get("num") is None and v.get("candidate")]
            if len(lift) > len(final) - len(lift):
                found.extend((day, seat) for seat in sorted(tally))
        elif day != 1:
            found.append((day, leaders[0]))
    return found


def _fouls_by_phase(protocol: dict[str, Any], players: list[Mapping[str, Any]]) -> None:
    """Each foul under the voicehost day or night its stage names (as the host files them)."""
    days: dict[int, list[dict[str, int]]] = {}
    nights: dict[int, list[dict[str, int]]] = {}
    counts: dict[int, int] = {}
    timeline = sorted(((foul["stage"], int(p["position"])) for p in players for foul in p.get("fouls") or []),
                      key=lambda item: (_phase(item[0]), str(item[0].get("time", ""))))
    for stage, seat in timeline:
        counts[seat] = counts.get(seat, 0) + 1
        kind, number = _phase(stage)[1:]
        (nights if kind == "night" else days).setdefault(number, []).append({"seat": seat, "count": counts[seat]})
    protocol["nights"] = [{"night": n, "fouls": fouls} for n, fouls in sorted(nights.items())]
    protocol["days"] = [{"day": d, "fouls": fouls} for d, fouls in sorted(days.items())]


def _phase(stage: Mapping[str, Any]) -> tuple[int, str, int]:
    """A stage as (its order, voicehost's day or night, its number): Polemica's day D is day D,
    a night stage of day D is night D+1 (night 1 the arrangement)."""
    day = int(stage["day"])
    if stage.get("type") in NIGHT_STAGES:
        return 2 * day + 1, "night", day + 1
    return 2 * day, "day", max(1, day)


def _bonuses(protocol: dict[str, Any], data: Mapping[str, Any]) -> None:
    points = []
    for bonus in data.get("bonuses") or []:
        if bonus.get("text") == BEST_PLAYER:
            protocol["best_player"] = int(bonus["position"])
        elif float(bonus.get("scores") or 0):
            points.append({"seat": int(bonus["position"]), "points": float(bonus["scores"]),
                           "reason": str(bonus.get("text") or "polemica")[:80]})
    if points:
        protocol["judge_points"] = points
        protocol["options"]["judge_points"] = True


def _best_move(protocol: dict[str, Any], players: list[Mapping[str, Any]], out: Mapping[int, Any]) -> None:
    """The best move: the ``guess.mafs`` of the first player to leave, if the night killed him."""
    if not out:
        return
    first = min(out, key=lambda seat: out[seat][0])
    if out[first][1]["cause"] != "killed":
        return
    guess = next((p.get("guess") for p in players if int(p["position"]) == first), None)
    named = [int(s) for s in (guess or {}).get("mafs") or []] if isinstance(guess, Mapping) else []
    if named:
        seats = protocol["seats"]
        protocol["best_move"] = {"by": first, "seats": named,
                                 "black": len([s for s in named if seats[str(s)]["role"] in ("don", "mafia")])}
        protocol["options"]["best_move"] = True
