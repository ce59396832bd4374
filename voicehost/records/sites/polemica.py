"""Polemica (polemicagame.com): a tournament game in the shape of its game JSON.

Polemica publishes no import format; the closest public model of its game JSON is the Kotlin
client github.com/Vyasma-Mafia/polemica-library (commit 23aa7c1128fce6eb3e83ac555bb5f3e30501b991),
``src/main/kotlin/.../model/game/*.kt``: a non-null Kotlin field is required. ``PolemicaGame``
needs ``master`` (Long), ``scoringType`` (Int), ``version`` (Int) and ``started``
(LocalDateTime, no zone); ``PolemicaPlayer`` needs ``position`` (1…10), ``username``,
``role`` (``Role``: DON 0, MAFIA 1, PEACE 2, SHERIFF 3), ``techs`` and ``fouls`` (lists of
``Foul``: ``time`` LocalDateTime and ``stage``); ``disqual`` is a ``Stage`` (``type`` one of
``StageType``, ``day`` Int); ``guess`` a ``PolemicaGuess`` (``civs``, ``mafs``, ``vice``);
``PolemicaBonus`` needs ``position``, ``text``, ``scores`` (Double), ``basic``;
``PolemicaGameResult`` is RED_WIN 0 or BLACK_WIN 1 (no draw). The test games
(``src/test/resources/games/334187.json``) show the numbering: night N follows day N, and a
night's stage carries its day.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from voicehost.records.sites.common import SEATS, Moment, SiteGame
from voicehost.records.sites.schema import Spec, problems

SITE = "polemica"
ROLES = {"don": 0, "mafia": 1, "citizen": 2, "sheriff": 3}
RESULTS = {"red": 0, "black": 1}   # a draw has no PolemicaGameResult: null
STAGE_TYPES = ("dealing", "briefing", "comIntro", "speech", "voting", "voted", "shooting", "shooted", "reSpeech",
               "lift", "checks", "toVoting", "toLift", "liftResult", "toDay", "toNight", "donCheck", "comCheck",
               "guess", "comKill", "gameOver")
BEST_PLAYER = "best_player"   # a bonus's text for the table's best-player vote

_POSITION = Spec("int", required=True, minimum=1, maximum=SEATS)
STAGE = Spec("object", fields={"type": Spec("str", required=True, enum=STAGE_TYPES),
                               "day": Spec("int", required=True, minimum=0),
                               "player": Spec("int", nullable=True), "voting": Spec("int", nullable=True)})
FOUL = Spec("object", fields={"time": Spec("datetime", required=True), "stage": Spec("object", required=True,
                                                                                        fields=STAGE.fields)})
_SEAT_LIST = Spec("list", nullable=True, items=Spec("int", minimum=1, maximum=SEATS))
PLAYER = Spec("object", fields={
    "position": _POSITION, "username": Spec("str", required=True),
    "role": Spec("int", required=True, enum=tuple(ROLES.values())),
    "techs": Spec("list", required=True, items=FOUL), "fouls": Spec("list", required=True, items=FOUL),
    "guess": Spec("object", nullable=True, fields={"civs": _SEAT_LIST, "mafs": _SEAT_LIST,
                                                   "vice": Spec("int", nullable=True, minimum=1, maximum=SEATS)}),
    "player": Spec(("int", "object"), nullable=True),
    "disqual": Spec("object", nullable=True, fields=STAGE.fields),
    "award": Spec("number", nullable=True),
})
CHECK = Spec("object", fields={"night": Spec("int", required=True), "role": Spec("int", required=True,
                                                                                enum=tuple(ROLES.values())),
                               "player": _POSITION})
SHOT = Spec("object", fields={"night": Spec("int", required=True), "shooter": _POSITION, "victim": _POSITION})
VOTE = Spec("object", fields={"day": Spec("int", required=True), "num": Spec("int", nullable=True),
                              "voter": _POSITION, "candidate": Spec("int", nullable=True, minimum=0, maximum=SEATS)})
BONUS = Spec("object", fields={"position": _POSITION, "text": Spec("str", required=True),
                               "scores": Spec("number", required=True), "basic": Spec("bool", required=True)})
GAME = Spec("object", fields={
    "id": Spec("int", nullable=True), "name": Spec("str", nullable=True),
    "master": Spec("int", required=True), "scoringType": Spec("int", required=True),
    "version": Spec("int", required=True), "scoringVersion": Spec("str", nullable=True),
    "players": Spec("list", nullable=True, length=SEATS, items=PLAYER),
    "bonuses": Spec("list", nullable=True, items=BONUS), "checks": Spec("list", nullable=True, items=CHECK),
    "shots": Spec("list", nullable=True, items=SHOT), "votes": Spec("list", nullable=True, items=VOTE),
    "stage": Spec("object", nullable=True, fields=STAGE.fields),
    "started": Spec("datetime", required=True), "isLive": Spec("bool", nullable=True),
    "result": Spec("int", nullable=True, enum=tuple(RESULTS.values())),
    "num": Spec("int", nullable=True), "table": Spec("int", nullable=True), "phase": Spec("int", nullable=True),
})


def game_problems(game: Any) -> list[str]:
    return problems(game, GAME, "game")


def export_game(game: SiteGame, settings: Mapping[str, Any], name: str) -> dict[str, Any]:
    """One game in Polemica's shape; ``settings``: the tournament's Polemica ids."""
    started = _local(game.started)
    last_day = max([int(d.get("day", 0)) for d in game.protocol.get("days", [])] or [0])
    players = []
    for seat in game.seats:
        times = game.foul_times.get(seat.seat, [])
        entry: dict[str, Any] = {
            "position": seat.seat, "username": seat.player,
            "role": ROLES.get(seat.role, 1 if seat.team == "black" else 2), "techs": [],
            "fouls": [{"time": _local(times[k]) if k < len(times) else started, "stage": stage(moment, last_day)}
                      for k, moment in enumerate(game.fouls.get(seat.seat, []))]}
        if game.best_move is not None and game.best_move[0] == seat.seat:
            entry["guess"] = {"mafs": list(game.best_move[1])}
        if seat.out_cause == "removed":
            when = (Moment("day", seat.out_day) if seat.out_day is not None
                    else Moment("night", int(seat.out_night or 1)))
            entry["disqual"] = stage(when, last_day)
        players.append(entry)
    bonuses = [{"position": s.seat, "text": BEST_PLAYER, "scores": 0.0, "basic": False}
               for s in game.seats if game.best_player == s.seat]
    bonuses += [{"position": seat, "text": "judge", "scores": points, "basic": False}
                for seat, points in sorted(game.judge_points.items()) if points]
    return {"name": name, "master": settings["master"], "scoringType": settings["scoring_type"],
            "version": settings["version"], "players": players, "checks": checks(game), "shots": shots(game),
            "bonuses": bonuses,
            "stage": {"type": "gameOver", "day": last_day}, "started": started, "isLive": False,
            "result": RESULTS.get(str(game.protocol["winner"])), "num": game.number, "table": game.game.place.table}


def shots(game: SiteGame) -> list[dict[str, int]]:
    """Each night's kill as every black seat still at the table shooting the victim (voicehost
    keeps the team's shot, not each tap); a miss is no shots (GameUtils.kt ``getKilled``: a kill
    is every shooter on one victim)."""
    found = []
    for night in game.protocol.get("nights", []):
        target = (night.get("shots") or {}).get("black")
        number = int(night["night"])
        if target is None or number < 2:
            continue
        for seat in game.seats:
            if seat.team == "black" and _at_table(seat, number):
                found.append({"night": number - 1, "shooter": seat.seat, "victim": int(target)})
    return found


def _at_table(seat: Any, night: int) -> bool:
    """At the table at night ``night``: gone neither before that night's day nor at an earlier night."""
    return (seat.out_day is None or seat.out_day >= night) and (seat.out_night is None or seat.out_night >= night)


def checks(game: SiteGame) -> list[dict[str, int]]:
    """The Don's and the Sheriff's checks (``PolemicaCheck``: night, the checker's role, the seat)."""
    roles = {s.seat: s.role for s in game.seats}
    return [{"night": int(night["night"]) - 1, "role": ROLES[roles[int(check["by"])]], "player": int(check["target"])}
            for night in game.protocol.get("nights", []) for check in night.get("checks", [])
            if roles.get(int(check["by"])) in ("don", "sheriff") and int(night["night"]) >= 2]


def stage(moment: Moment | None, last_day: int) -> dict[str, Any]:
    """A voicehost moment as Polemica's ``Stage``: day D is day D (a speech, as far as the
    protocol knows); night N (N ≥ 2) is Polemica's night N-1, whose stage carries day N-1, at
    the shooting; night 1, the arrangement, is day 0's briefing. A foul the protocol places
    nowhere is filed at the game's end."""
    if moment is None:
        return {"type": "gameOver", "day": last_day}
    if moment.phase == "day":
        return {"type": "speech", "day": moment.number}
    if moment.number <= 1:
        return {"type": "briefing", "day": 0}
    return {"type": "shooting", "day": moment.number - 1}


def _local(stamp: str) -> str:
    """``2026-12-05T18:10:00Z`` → Polemica's LocalDateTime ``2026-12-05T18:10:00`` (UTC)."""
    return stamp.removesuffix("Z")
