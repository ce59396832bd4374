"""Table scripts (docs/scripts.md): loading, validation with the place of every error.

A script says what the people at a table would do if asked. This module only checks that
each entry *could* be valid (seats exist, keys are known, the seat's role has that action);
whether the game asks for it is the simulator's business.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicehost.config import load_ruleset, read_toml
from voicehost.files import ascii_number, file_name, read_json
from voicehost.i18n import _
from voicehost.rules import GAMES, InputError, Options, Role, Ruleset
from voicehost.rules.game import validate_deal
from voicehost.rules.roster import roster

TOP_KEYS = {"ruleset", "options", "seats", "names", "roles", "nights", "days"}
NIGHT_KEYS = {"shots", "check", "heal", "visit", "kill", "join", "fouls"}
DAY_KEYS = {"speeches", "nominate", "votes", "prevote", "revote", "lift", "mayor",
            "blood_name", "extra_word", "fouls", "removals"}
MOMENTS = {"morning", "voting", "after_vote"}


@dataclass(frozen=True)
class Timed:
    """A foul or removal: during seat ``after_speech``'s speech, or ``at`` a named moment."""

    seat: int
    place: str
    after_speech: int | None = None
    at: str | None = None


@dataclass
class ScriptNight:
    """A script's night as written: the shots, checks and actions by seat, the fouls."""

    shots: dict[int, tuple[int, ...]] = field(default_factory=dict)
    check: dict[int, int] = field(default_factory=dict)
    heal: dict[int, int] = field(default_factory=dict)
    visit: dict[int, int] = field(default_factory=dict)
    kill: dict[int, int] = field(default_factory=dict)
    join: dict[int, str] = field(default_factory=dict)
    fouls: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class Day:
    speeches: dict[int, list[str]] = field(default_factory=dict)
    nominate: dict[int, int] = field(default_factory=dict)
    votes: dict[int, int] = field(default_factory=dict)
    prevote: dict[int, int] = field(default_factory=dict)
    revote: dict[int, int] = field(default_factory=dict)
    mayor: dict[int, int] = field(default_factory=dict)
    blood_name: dict[int, int] = field(default_factory=dict)
    lift: list[int] = field(default_factory=list)
    extra_word: list[int] = field(default_factory=list)
    fouls: list[Timed] = field(default_factory=list)
    removals: list[Timed] = field(default_factory=list)


@dataclass
class Script:
    ruleset: Ruleset
    options: Options
    seats: int
    roles: tuple[Role, ...]
    names: dict[int, str]
    nights: list[ScriptNight]
    days: list[Day]
    places: list[str] = field(default_factory=list)


def load_script(path: str | Path) -> Script:
    """Read a JSON or TOML script; every problem is an InputError naming file and place."""
    path = file_name(path, "script")
    data: Any = read_toml(path) if path.suffix.lower() == ".toml" else read_json(path, "script")
    try:
        return script_from_data(data)
    except InputError as err:
        raise err.moved_to(f"{path}: {err.place}") from None


def script_from_data(data: Any) -> Script:
    return _Reader(data).script()


class _Reader:
    """Walks the raw data once, keeping the place of every leaf for errors and "ignored"."""

    def __init__(self, data: Any) -> None:
        self.data = _mapping(data, "script")
        self.places: list[str] = []
        self.seats = 0
        self._seat_keys: dict[str, int] = {}  # "1" … "10": the seat numbers as JSON keys write them

    def script(self) -> Script:
        data = self.data
        _only(data, TOP_KEYS, "")
        name = data.get("ruleset", "sport")
        if not isinstance(name, str):
            raise InputError("ruleset", _("must be a ruleset name"))
        try:
            ruleset = load_ruleset(name)
        except InputError as err:
            if err.place == "ruleset":
                raise
            raise InputError("ruleset", _("{name}: its config is broken ({err})").format(
                                            name=name, err=err)) from None
        self.game = GAMES[name]
        options = ruleset.resolve(_mapping(data.get("options", {}), "options"), "options")
        self.seats = self._seat_count(ruleset, data.get("seats"))
        self._seat_keys = {str(seat): seat for seat in range(1, self.seats + 1)}
        roles = self._roles(ruleset, options, data.get("roles", {}))
        names = self._names(data.get("names", {}))
        nights = [self._night(n, i, roles) for i, n in enumerate(_list(data.get("nights", []), "nights"))]
        days = [self._day(d, i) for i, d in enumerate(_list(data.get("days", []), "days"))]
        return Script(ruleset, options, self.seats, roles, names, nights, days, self.places)

    # ---- seats and roles -------------------------------------------------------

    def _seat_count(self, ruleset: Ruleset, raw: Any) -> int:
        if raw is None:
            return ruleset.seats[0]
        if not isinstance(raw, int) or isinstance(raw, bool):
            raise InputError("seats", _("{raw!r} is not a number of seats").format(raw=raw))
        ruleset.cast_for(raw, "seats")
        return raw

    def _seat(self, key: Any, place: str) -> int:
        if type(key) is str:  # a script names seats many times over
            seat = self._seat_keys.get(key)
            if seat is not None:
                return seat
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise InputError(place, _("{key!r} is not a seat number").format(key=key))
        seat = ascii_number(str(key), place, "seat number", digits=3)
        if not 1 <= seat <= self.seats:
            raise InputError(place, _("there is no seat {seat} at a {seats}-seat table").format(
                                        seat=seat, seats=self.seats))
        return seat

    def _target(self, value: Any, place: str) -> int:
        if type(value) is int and 1 <= value <= self.seats:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(place, _("{value!r} is not a seat number").format(value=value))
        if not 1 <= value <= self.seats:
            raise InputError(place, _("there is no seat {value} at a {seats}-seat table").format(
                                        value=value, seats=self.seats))
        return value

    def _names(self, raw: Any) -> dict[int, str]:
        """The roster (the same check as ``voicehost run --names``)."""
        by_name = self.game.name if self.game.requires_names else None
        names = _mapping(raw, "names")
        for key in names:  # a seat key as every other key of a script writes it: " 5" is none
            self._seat(key, f"names.{key}")
        return roster(names.items(), self.seats, by_name, "names.")

    def _roles(self, ruleset: Ruleset, options: Options, raw: Any) -> tuple[Role, ...]:
        dealt = [Role.CITIZEN] * self.seats
        for key, value in _mapping(raw, "roles").items():
            seat = self._seat(key, f"roles.{key}")
            try:
                dealt[seat - 1] = Role(value)
            except ValueError:
                known = ", ".join(r.value for r in Role)
                raise InputError(f"roles.{key}", _("unknown role {value!r} (known: {known})").format(
                                                     value=value, known=known)) from None
        cast, spare = self.game.deck(ruleset, options, self.seats)
        validate_deal(tuple(dealt), cast, self.seats, "roles", spare)
        return tuple(dealt)

    # ---- nights -------------------------------------------------------------------

    def _night(self, raw: Any, index: int, roles: tuple[Role, ...]) -> ScriptNight:
        where = f"nights[{index}]"
        data = _mapping(raw, where)
        _only(data, NIGHT_KEYS, where)
        night = ScriptNight()
        for key, value in data.items():
            if key == "fouls":
                for j, seat in enumerate(_list(value, f"{where}.fouls")):
                    place = f"{where}.fouls[{j}]"
                    night.fouls.append((self._target(seat, place), place))
                    self.places.append(place)
                continue
            for actor_key, target in _mapping(value, f"{where}.{key}").items():
                place = f"{where}.{key}.{actor_key}"
                actor = self._seat(actor_key, place)
                self._require_action(key, actor, roles, place)
                if key == "shots":
                    taps = target if isinstance(target, list) else [target]
                    if not taps:
                        raise InputError(place, _("a shot needs at least one seat"))
                    night.shots[actor] = tuple(self._target(t, place) for t in taps)
                elif key == "join":
                    if target not in ("black", "solo"):
                        raise InputError(place, _("{target!r} is not black or solo").format(
                                                    target=target))
                    night.join[actor] = target
                else:
                    getattr(night, key)[actor] = self._target(target, place)
                self.places.append(place)
        return night

    def _require_action(self, key: str, actor: int, roles: tuple[Role, ...], place: str) -> None:
        role = roles[actor - 1]
        allowed = self.game.night_actions.get(key, frozenset())
        if role not in allowed:
            said = (_("seat {actor} is an {role} and has no {key}") if role.value[0] in "aeiou" else
                    _("seat {actor} is a {role} and has no {key}"))
            raise InputError(place, said.format(actor=actor, role=role.value, key=key))

    # ---- days -------------------------------------------------------------------------

    def _day(self, raw: Any, index: int) -> Day:
        where = f"days[{index}]"
        data = _mapping(raw, where)
        _only(data, DAY_KEYS, where)
        day = Day()
        for key, value in data.items():
            place = f"{where}.{key}"
            if key not in self.game.day_keys:
                raise InputError(place, _("{name} has no {value}").format(
                                            name=self.game.name, value=key.replace('_', ' ')))
            if key == "speeches":
                day.speeches = self._speeches(value, place)
            elif key in ("votes", "revote", "prevote", "mayor", "nominate", "blood_name"):
                setattr(day, key, self._ballot(value, place))
            elif key in ("lift", "extra_word"):
                setattr(day, key, self._seat_list(value, place))
            else:
                setattr(day, key, self._timed(value, place))
        return day

    def _speeches(self, raw: Any, where: str) -> dict[int, list[str]]:
        speeches: dict[int, list[str]] = {}
        for key, value in _mapping(raw, where).items():
            place = f"{where}.{key}"
            seat = self._seat(key, place)
            if type(value) is str:  # most speeches: one line
                speeches[seat] = [value]
            elif type(value) is list and all([type(line) is str for line in value]):
                speeches[seat] = value
            elif isinstance(value, str):  # a str subclass (as the check always took)
                speeches[seat] = [value]
            elif not isinstance(value, list) or not all([isinstance(line, str) for line in value]):
                raise InputError(place, _("must be a string or a list of strings"))
            else:
                speeches[seat] = value
            self.places.append(place)
        return speeches

    def _ballot(self, raw: Any, where: str) -> dict[int, int]:
        ballot: dict[int, int] = {}
        for key, value in _mapping(raw, where).items():
            place = f"{where}.{key}"
            ballot[self._seat(key, place)] = self._target(value, place)
            self.places.append(place)
        return ballot

    def _seat_list(self, raw: Any, where: str) -> list[int]:
        seats = []
        for j, value in enumerate(_list(raw, where)):
            seats.append(self._target(value, f"{where}[{j}]"))
            self.places.append(f"{where}[{j}]")
        return seats

    def _timed(self, raw: Any, where: str) -> list[Timed]:
        found = []
        for j, item in enumerate(_list(raw, where)):
            place = f"{where}[{j}]"
            entry = _mapping(item, place)
            _only(entry, {"seat", "after_speech", "at"}, place)
            seat = self._target(entry.get("seat"), f"{place}.seat")
            if ("after_speech" in entry) == ("at" in entry):
                raise InputError(place, _("needs exactly one of after_speech or at"))
            if "at" in entry:
                if not isinstance(entry["at"], str) or entry["at"] not in MOMENTS:
                    raise InputError(f"{place}.at", _("{at!r} is not one of {moments}").format(
                                                        at=entry['at'], moments=', '.join(sorted(MOMENTS))))
                found.append(Timed(seat, place, at=entry["at"]))
            else:
                speaker = self._target(entry["after_speech"], f"{place}.after_speech")
                found.append(Timed(seat, place, after_speech=speaker))
            self.places.append(place)
        return found


def _mapping(value: Any, place: str) -> Mapping[str, Any]:
    if type(value) is dict:  # what JSON and TOML give; asking the Mapping ABC is slow
        return value
    if not isinstance(value, Mapping):
        raise InputError(place, _("must be an object, not {kind}").format(
                                    kind=type(value).__name__))
    return value


def _list(value: Any, place: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(place, _("must be a list, not {kind}").format(
                                    kind=type(value).__name__))
    return value


def _only(data: Mapping[str, Any], allowed: set[str], place: str) -> None:
    for key in data:
        if key not in allowed:
            where = f"{place}.{key}" if place else str(key)
            raise InputError(where, _("unknown key (known: {allowed})").format(
                                        allowed=', '.join(sorted(allowed))))
