"""mafiaratings.com: a tournament game in the shape its ``create`` operation takes, and a game of
its records read back as a voicehost protocol.

The source (github.com/szotin/mafiaratings, commit 0ab7207bdb17fadb92243f119dc356a95c99edad):
``api/ops/game.php`` ``create_op`` takes one game's JSON (``json``) per call and hands it to
``Game::create`` (``include/game.php``), which stores nothing unless ``eventId`` > 0 and writes
``clubId``, ``eventId``, ``tournamentId``, ``moderator.id``, ``language``, ``startTime``,
``endTime``, ``winner`` (civ, maf, tie: anything else is refused), ``rules``, ``tableNum`` and
``gameNum``; ``Game::api_help`` documents every field of the game and its players;
``include/rules.php`` ``is_valid_rules_code``: a rules code is 13 digits. The best move is a
player's ``legacy`` (a list of seats) with the ``l`` feature; ``check_game_result`` drops a
legacy unless its player was killed at night in round 0 or 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from voicehost.records.sites.common import SEATS, SiteGame
from voicehost.records.sites.schema import Spec, problems

SITE = "mafiaratings"
ROLES = {"citizen": "civ", "mafia": "maf", "sheriff": "sheriff", "don": "don"}
WINNERS = {"red": "civ", "black": "maf", "nobody": "tie"}
DEATH_TYPES = ("day", "night", "warnings", "techFouls", "kickOut", "teamKickOut", "giveUp")
BONUS_WORDS = ("bestPlayer", "bestMove", "worstMove")
GAME_TIMES = ("start", "arrangement", "day start", "night kill speaking", "speaking", "voting", "day kill speaking",
              "shooting", "don", "sheriff", "end")   # Game::add_time_help
FEATURES = "dutcwl"   # death: whether, its round, its type, its time (a removal's); warnings (a count); legacy
NIGHT_TIMES = ("start", "arrangement", "night start", "shooting", "don", "sheriff", "night end")
LEGACY_LAST_ROUND = 1   # include/game.php check_game_result: "killed in round N can not leave legacy" past 1

_ID = Spec("int", required=True, minimum=1)
_BONUS_ITEM = Spec(("number", "str"))
PLAYER = Spec("object", fields={
    "id": Spec("int", minimum=1),
    "name": Spec("str", required=True),
    "role": Spec("str", enum=tuple(ROLES.values())),
    "death": Spec("object", fields={"round": Spec("int", required=True, minimum=0),
                                    "type": Spec("str", required=True, enum=DEATH_TYPES),
                                    "time": Spec("object", fields={"round": Spec("int", required=True, minimum=0),
                                                                   "time": Spec("str", required=True,
                                                                                enum=GAME_TIMES)})}),
    "warnings": Spec(("int", "list"), minimum=0, maximum=4),
    "bonus": Spec(("number", "str", "list"), items=_BONUS_ITEM),
    "legacy": Spec("list", items=Spec("int", minimum=1, maximum=SEATS)),
    "comment": Spec("str"),
})
GAME = Spec("object", fields={
    "clubId": _ID, "eventId": _ID, "tournamentId": Spec("int", minimum=1),
    "moderator": Spec("object", required=True, fields={"id": _ID}),
    "startTime": Spec("datetime", required=True), "endTime": Spec("datetime", required=True),
    "timezone": Spec("str"), "language": Spec("str", required=True, enum=("ru", "en")),
    "rules": Spec("str", required=True), "winner": Spec("str", required=True, enum=tuple(WINNERS.values())),
    "features": Spec("str"), "rating": Spec("bool"), "tableNum": Spec("int", minimum=1),
    "gameNum": Spec("int", minimum=1), "id": Spec("int", minimum=1),
    "players": Spec("list", required=True, length=SEATS, items=PLAYER),
})


def game_problems(game: Any) -> list[str]:
    """The schema's problems, and those ``check_game_result`` would fix away: a legacy left by a
    player not killed at night in round 0 or 1, a rules code that is not 13 digits."""
    found = problems(game, GAME, "game")
    if found or not isinstance(game, Mapping):
        return found
    if not (len(game["rules"]) == 13 and game["rules"].isdigit()):
        found.append(f"game.rules: {game['rules']!r} is not 13 digits")
    for k, player in enumerate(game["players"]):
        death = player.get("death") or {}
        if "legacy" in player and (death.get("type") != "night" or death.get("round", 99) > LEGACY_LAST_ROUND):
            found.append(f"game.players[{k}].legacy: only a player killed at night in round 0 or 1 leaves one")
    return found


def export_game(game: SiteGame, settings: Mapping[str, Any]) -> dict[str, Any]:
    """One game in ``create``'s shape; ``settings``: the tournament's mafiaratings ids."""
    started = _utc(game.started)
    data: dict[str, Any] = {
        "clubId": settings["club"], "eventId": settings["event"],
        **({"tournamentId": settings["tournament"]} if settings.get("tournament") else {}),
        "moderator": {"id": settings["moderator"]}, "startTime": started,
        "endTime": _utc(game.ended) if game.ended else started, "timezone": "UTC", "language": "ru",
        "rules": settings["rules"], "winner": WINNERS[str(game.protocol["winner"])], "features": FEATURES,
        "rating": True, "tableNum": game.game.place.table, "gameNum": game.number,
        "players": [_player(game, seat) for seat in game.seats],
    }
    return data


def _utc(stamp: str) -> str:
    """voicehost's ``2026-12-05T18:10:00Z`` as ISO 8601 with its zone, which PHP's parser reads."""
    return stamp.replace("Z", "+00:00") if stamp.endswith("Z") else stamp


def _player(game: SiteGame, seat: Any) -> dict[str, Any]:
    role = ROLES.get(seat.role, "maf" if seat.team == "black" else "civ")
    entry: dict[str, Any] = {"name": seat.player, "role": role}
    death = _death(seat)
    if death is not None:
        entry["death"] = death
    if seat.fouls:
        entry["warnings"] = seat.fouls
    bonus: list[Any] = ["bestPlayer"] if game.best_player == seat.seat else []
    if game.judge_points.get(seat.seat):
        bonus.append(round(game.judge_points[seat.seat], 2))
    if bonus:
        entry["bonus"] = bonus[0] if len(bonus) == 1 else bonus
    if game.best_move is not None and game.best_move[0] == seat.seat and death is not None \
            and death["type"] == "night" and death["round"] <= LEGACY_LAST_ROUND:
        entry["legacy"] = list(game.best_move[1])
    return entry


def _death(seat: Any) -> dict[str, Any] | None:
    if seat.out_cause is None:
        return None
    moment = int(seat.out_day if seat.out_day is not None else seat.out_night) - 1
    kind = {"voted": "day", "killed": "night"}.get(seat.out_cause, "warnings" if seat.fouls >= 4 else "kickOut")
    if kind in ("day", "night"):
        return {"round": moment, "type": kind}
    # a removal's time (feature c): at night the shooting, by day the day's start (a speech would need its speaker)
    time = "day start" if seat.out_day is not None else "arrangement" if moment == 0 else "shooting"
    return {"round": moment, "type": kind, "time": {"round": moment, "time": time}}


# ---- a game of the site's records → a voicehost protocol ----------------------------------------

ROLES_BACK = {site: ours for ours, site in ROLES.items()}
WINNERS_BACK = {site: ours for ours, site in WINNERS.items()}
REASONS = {"red": "no_black_left", "black": "black_parity", "nobody": "quiet_draw"}   # the site keeps no reason


def protocol_from_game(data: Mapping[str, Any]) -> dict[str, Any]:
    """A game in the site's shape (what ``api/get/games.php`` returns for each game, and what
    :func:`export_game` writes) as a voicehost protocol of the sport ruleset; the checks a
    native protocol gets come after (:func:`voicehost.records.games.record_from_protocol`).
    A shape this cannot read raises KeyError, TypeError or ValueError (the caller places it)."""
    players = data["players"]
    if not isinstance(players, list) or len(players) != SEATS:
        raise ValueError(f"players: {SEATS} players expected")
    winner = WINNERS_BACK[str(data["winner"])]
    seats: dict[str, Any] = {}
    eliminations: list[tuple[tuple[int, int], dict[str, Any]]] = []
    protocol: dict[str, Any] = {"ruleset": "sport", "options": {}, "winner": winner, "reason": REASONS[winner],
                                "started": voicehost_time(str(data["startTime"]))}
    if data.get("endTime"):
        protocol["ended"] = voicehost_time(str(data["endTime"]))
    judge_points, best_player = [], None
    for k, player in enumerate(players, start=1):
        entry: dict[str, Any] = {"role": ROLES_BACK[str(player.get("role", "civ"))],
                                 "fouls": _warnings(player.get("warnings", 0))}
        if player.get("name"):
            entry["name"] = str(player["name"])
        if player.get("death") is not None:
            out, order = _out(player["death"])
            entry["out"] = out
            eliminations.append((order, {"seat": k, **out}))
        bonus = player.get("bonus")
        for item in bonus if isinstance(bonus, list) else [bonus] if bonus is not None else []:
            if item == "bestPlayer":
                best_player = k
            elif isinstance(item, (int, float)) and not isinstance(item, bool):
                judge_points.append({"seat": k, "points": float(item), "reason": SITE})
        if isinstance(player.get("legacy"), list):
            named = [int(s) for s in player["legacy"]]
            protocol["best_move"] = {"by": k, "seats": named, "black": 0}
            protocol["options"]["best_move"] = True
        seats[str(k)] = entry
    if "best_move" in protocol:
        move = protocol["best_move"]
        move["black"] = len([s for s in move["seats"] if seats[str(s)]["role"] in ("mafia", "don")])
    protocol.update(seats=seats, eliminations=[item for _o, item in sorted(eliminations, key=lambda x: x[0])],
                    days=[], nights=[], revealed=[], ignored=[])
    if judge_points:
        protocol["judge_points"] = judge_points
        protocol["options"]["judge_points"] = True
    if best_player is not None:
        protocol["best_player"] = best_player
    return protocol


def _warnings(value: Any) -> int:
    """A count, or (feature ``r``) a list of the moments each warning was given."""
    return len(value) if isinstance(value, list) else int(value)


def _out(death: Any) -> tuple[dict[str, Any], tuple[int, int]]:
    """``death`` (an object with its round and type) → voicehost's ``out`` and its order in the
    game (night N comes before day N). A removal's ``time`` says whether it fell by night."""
    if not isinstance(death, Mapping):   # a bare round or type (features without t or u): not enough
        raise ValueError("death: the round and the type each player left are needed (features d, u, t)")
    round_no, kind = death.get("round"), death.get("type")
    time = death["time"].get("time") if isinstance(death.get("time"), Mapping) else None
    if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 0:
        raise ValueError("death.round: the round each player left is needed")
    if kind == "night":
        return {"cause": "killed", "night": round_no + 1}, (round_no + 1, 0)
    if kind == "day":
        return {"cause": "voted", "day": round_no + 1}, (round_no + 1, 1)
    if kind not in DEATH_TYPES:
        raise ValueError(f"death.type: {str(kind)[:24]!r} is not one of {', '.join(DEATH_TYPES)}")
    if time in NIGHT_TIMES:
        return {"cause": "removed", "night": round_no + 1}, (round_no + 1, 0)
    return {"cause": "removed", "day": round_no + 1}, (round_no + 1, 1)


def voicehost_time(text: str) -> str:
    """An ISO 8601 time (a zone, or none: UTC) as voicehost writes one: UTC, to the second."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
