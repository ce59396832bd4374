"""A ruleset's data (role counts, timers, options, scoring), validated from a plain mapping.

The mapping comes from ``config/rules/NAME.toml``; reading the file is the caller's job,
so this module stays free of I/O. Every complaint is an :class:`InputError` whose place
is the dotted key inside the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .catalog import find_variant, options_class
from .input_error import N_, InputError, Phrase
from .options import INT_OPTION_MAX as INT_OPTION_MAX
from .options import OptionKind, OptionValue
from .options import Options as Options
from .roles import Role, parse_role

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True)
class OptionSpec:
    """One club-settable option: its kind, allowed values, default and where it comes from."""

    name: str
    kind: OptionKind
    default: OptionValue
    source: str
    doc: str = ""
    values: tuple[str, ...] = ()
    minimum: int = 0

    def parse(self, value: object, place: str) -> OptionValue:
        """Check ``value`` (from TOML, JSON or a ``k=v`` argument) and return it typed."""
        if self.kind == "bool":
            return _parse_bool(value, place)
        if self.kind == "int":
            return _parse_int(value, self.minimum, place)
        text = str(value) if not isinstance(value, bool) else ""
        if text not in self.values:
            raise InputError(place, N_("{value} is not one of {known}"),
                             {"value": repr(value), "known": ", ".join(self.values)})
        return text

    def describe_values(self) -> str:
        """The values it takes, in English (a :class:`Phrase` the command line says in the user's language)."""
        if self.kind == "bool":
            return "true, false"
        if self.kind == "int":
            return Phrase(N_("integer from {minimum} to {maximum}"),
                          {"minimum": self.minimum, "maximum": INT_OPTION_MAX})
        return ", ".join(self.values)


def _parse_bool(value: object, place: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    raise InputError(place, N_("{value} is not true or false"), {"value": repr(value)})


def _parse_int(value: object, minimum: int, place: str) -> int:
    if isinstance(value, bool):
        raise InputError(place, N_("{value} is not a whole number"), {"value": repr(value)})
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _ascii_digits(value.strip().removeprefix("-")):  # one sign: "--5" is no number
        number = int(value)
    else:
        raise InputError(place, N_("{value} is not a whole number"), {"value": repr(value)})
    if number < minimum:
        raise InputError(place, N_("{number} is below the minimum {minimum}"), {"number": number, "minimum": minimum})
    if number > INT_OPTION_MAX:
        raise InputError(place, N_("{number} is above the maximum {maximum}"),
                         {"number": str(number)[:12] + ("…" if len(str(number)) > 12 else ""),
                          "maximum": INT_OPTION_MAX})
    return number


def _ascii_digits(text: str) -> bool:
    """``"²"`` and ``"３"`` are digits to ``str.isdigit`` but not to ``int``; a number a person
    writes is short."""
    return text.isascii() and text.isdigit() and len(text) <= 18


@dataclass(frozen=True)
class Ruleset:
    """Everything about a ruleset that a club may want different, as data."""

    name: str
    title: str
    seats: tuple[int, ...]
    cast: Mapping[int, Mapping[Role, int]]
    timers: Mapping[str, int]
    options: Mapping[str, OptionSpec]     # as the file has them: its defaults, docs and sources
    options_class: type[Options]          # as the code declares them (voicehost.rules.options)
    scoring: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    variants: Mapping[str, Mapping[int, Mapping[Role, int]]] = field(default_factory=dict)

    def variant_cast(self, variant: str, seats: int) -> Mapping[Role, int]:
        """Cards an option adds at a table of ``seats`` (``[variants.NAME.N]`` in the file)."""
        return self.variants.get(variant, {}).get(seats, {})

    def resolve(self, overrides: Mapping[str, object], place: str = "options") -> Options:
        """The options of a new game: the file's defaults (a club may change them), then
        ``overrides`` checked one by one."""
        values: dict[str, OptionValue] = {name: spec.default for name, spec in self.options.items()}
        return self.options_class(**{**values, **self._checked(overrides, place)})

    def played(self, recorded: Mapping[str, object], place: str = "options") -> Options:
        """The options a recorded game (a protocol) was played with: ``recorded``, checked, over
        the code's declared defaults — a protocol lists only what differed from them
        (:meth:`Options.changed`), whatever the club's file says now."""
        return self.options_class(**self._checked(recorded, place))

    def _checked(self, given: Mapping[str, object], place: str) -> dict[str, OptionValue]:
        values: dict[str, OptionValue] = {}
        for key, raw in given.items():
            spec = self.options.get(key)
            if spec is None:
                known = ", ".join(self.options)
                raise InputError(f"{place}.{key}", N_("{ruleset} has no option {key} (known: {known})"),
                                 {"ruleset": self.name, "key": repr(key), "known": known})
            values[key] = spec.parse(raw, f"{place}.{key}")
        return values

    def cast_for(self, seats: int, place: str = "seats") -> Mapping[Role, int]:
        """Role counts at a table of ``seats``; citizens fill the rest."""
        if seats not in self.seats:
            raise InputError(place, N_("{ruleset} is played at {sizes} seats, not {seats}"),
                             {"ruleset": self.name, "sizes": self.describe_sizes(), "seats": seats})
        return self.cast.get(seats, {})

    def describe_sizes(self) -> str:
        if len(self.seats) > 2 and self.seats == tuple(range(self.seats[0], self.seats[-1] + 1)):
            return f"{self.seats[0]}–{self.seats[-1]}"
        return ", ".join(str(n) for n in self.seats)

    def timer(self, key: str) -> int:
        return self.timers[key]


def ruleset_from_mapping(name: str, data: Mapping[str, object], place: str) -> Ruleset:
    """Validate a parsed ruleset file against the ruleset's catalog line (its timers and options
    class, voicehost.rules.catalog). ``place`` prefixes every error (usually the file path)."""
    _only_keys(data, {"name", "title", "seats", "cast", "variants", "timers", "options", "scoring"}, place)
    declared = data.get("name", name)
    if declared != name:
        raise InputError(f"{place}: name", N_("the file says {declared} but is named {name}"),
                         {"declared": repr(declared), "name": repr(name)})
    title = data.get("title", name)
    if not isinstance(title, str):
        raise InputError(f"{place}: title", N_("must be a string"))
    cast = _cast(data.get("cast", {}), place) if "cast" in data or "seats" not in data else {}
    seats = _seat_range(data.get("seats"), place) if "seats" in data else tuple(sorted(cast))
    if not seats:
        raise InputError(f"{place}: cast", N_("lists no table size"))
    variants = {name: _cast(table, f"{place}: variants.{name}") for name, table
                in _mapping_of(data.get("variants", {}), f"{place}: variants").items()}
    timers = _timers(_table(data, "timers", place), find_variant(name).timers, place)
    declared = options_class(name)
    options = _options(_table(data, "options", place), declared, place)
    scoring = _scoring(data.get("scoring", {}), place)
    return Ruleset(
        name=name,
        title=title,
        seats=seats,
        cast=MappingProxyType(cast),
        timers=MappingProxyType(timers),
        options=MappingProxyType(options),
        options_class=declared,
        scoring=MappingProxyType(scoring),
        variants=MappingProxyType(variants),
    )


def _seat_range(value: object, place: str) -> tuple[int, ...]:
    """``seats = [6, 18]``: every table size from the first to the last."""
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            or not 3 <= value[0] <= value[1] <= 30):
        raise InputError(f"{place}: seats", N_("must be [smallest, largest] table size, from 3 to 30"))
    return tuple(range(value[0], value[1] + 1))


def _mapping_of(value: object, place: str) -> Mapping[str, Mapping[str, object]]:
    if not isinstance(value, Mapping) or not all(isinstance(v, Mapping) for v in value.values()):
        raise InputError(place, N_("must be a table of tables"))
    return value


def _only_keys(data: Mapping[str, object], allowed: set[str], place: str) -> None:
    for key in data:
        if key not in allowed:
            raise InputError(f"{place}: {key}", N_("unknown key (known: {known})"),
                             {"known": ", ".join(sorted(allowed))})


def _table(data: Mapping[str, object], key: str, place: str) -> Mapping[str, object]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        raise InputError(f"{place}: {key}", N_("missing or not a table"))
    return value


def _cast(data: object, place: str) -> dict[int, Mapping[Role, int]]:
    if not isinstance(data, Mapping):
        raise InputError(f"{place}: cast", N_("must be a table of table sizes"))
    cast: dict[int, Mapping[Role, int]] = {}
    for size_text, counts in data.items():
        where = f"{place}: cast.{size_text}"
        if not _ascii_digits(size_text) or not 3 <= int(size_text) <= 30:
            raise InputError(where, N_("a table size must be a number from 3 to 30"))
        if not isinstance(counts, Mapping):
            raise InputError(where, N_("must be a table of role = count"))
        roles: dict[Role, int] = {}
        for role_text, count in counts.items():
            try:
                role = parse_role(role_text)
            except ValueError as err:
                raise InputError(f"{where}.{role_text}", str(err)) from None
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise InputError(f"{where}.{role_text}", N_("must be a whole number >= 0"))
            roles[role] = count
        if sum(roles.values()) > int(size_text):
            raise InputError(where, N_("{roles} roles do not fit {seats} seats"),
                             {"roles": sum(roles.values()), "seats": size_text})
        cast[int(size_text)] = MappingProxyType(roles)
    return cast


def _timers(data: Mapping[str, object], required: tuple[str, ...], place: str) -> dict[str, int]:
    timers: dict[str, int] = {}
    for key, value in data.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InputError(f"{place}: timers.{key}", N_("must be a whole number of seconds >= 0"))
        timers[key] = value
    for key in required:
        if key not in timers:
            raise InputError(f"{place}: timers.{key}", N_("is required"))
    return timers


_OPTION_KEYS = {"kind", "values", "default", "source", "doc", "min"}


def _options(data: Mapping[str, object], declared: type[Options], place: str) -> dict[str, OptionSpec]:
    """The file's options: each one the code declares (a club may change its default, a
    choice's words or a bound, not its kind), none it does not."""
    options: dict[str, OptionSpec] = {}
    for name, raw in data.items():
        where = f"{place}: options.{name}"
        if not isinstance(raw, Mapping):
            raise InputError(where, N_("must be a table with kind, default and source"))
        _only_keys(raw, _OPTION_KEYS, where)
        if name not in declared.declared():
            raise InputError(where, N_("the game has no such option (known: {known})"),
                             {"known": ", ".join(declared.declared())})
        kind = raw.get("kind")
        if kind != declared.declared()[name].kind:
            raise InputError(f"{where}.kind", N_("must be {kind}, as the game reads it"),
                             {"kind": declared.declared()[name].kind})
        values = raw.get("values", [])
        if kind == "choice" and (
            not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values)
        ):
            raise InputError(f"{where}.values", N_("a choice needs a list of strings"))
        minimum = raw.get("min", 0)
        source = raw.get("source")
        if not isinstance(minimum, int) or not isinstance(source, str):
            raise InputError(where, N_("min must be a number and source a string"))
        spec = OptionSpec(name, kind, False, source, str(raw.get("doc", "")),
                          tuple(values) if kind == "choice" else (), minimum)
        if "default" not in raw:
            raise InputError(f"{where}.default", N_("is required"))
        default = spec.parse(raw["default"], f"{where}.default")
        options[name] = OptionSpec(name, kind, default, source, spec.doc, spec.values, minimum)
    return options


def _scoring(data: object, place: str) -> dict[str, Mapping[str, float]]:
    if not isinstance(data, Mapping):
        raise InputError(f"{place}: scoring", N_("must be a table of schemes"))
    schemes: dict[str, Mapping[str, float]] = {}
    for scheme, points in data.items():
        if not isinstance(points, Mapping) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in points.values()
        ):
            raise InputError(f"{place}: scoring.{scheme}", N_("must be a table of name = points"))
        schemes[scheme] = MappingProxyType({k: float(v) for k, v in points.items()})
    return schemes


@dataclass(frozen=True)
class HostLines:
    """What the host says where rulesets differ, named by line key (the Russian wording of each
    key, per ruleset, lives in ``config/phrases``). Each game class names its own, as
    python-chess's variants carry their differences as class attributes; the host's line
    builders read these fields and never a ruleset's name."""

    first_night: str = "night_falls"      # night 1 (club: «…надевают маски»)
    first_dawn: tuple[str, ...] = ()      # said as night 1 ends (sport: the acquaintance's close)
    shots: str = "mafia_wakes"            # the mafia's shooting step (sport: «выходит на охоту»)
    count: str = "count"                  # each seat called while the mafia shoots (canonical: names)
    doctor_hears_victims: bool = False    # the doctor is told whether anyone is to be saved (club)
    first_morning: str = "morning_quiet"  # day 1, nobody died (sport: «Доброе утро», club: the introduction)
    quiet_morning: str = "morning_quiet"  # a later morning when nobody died (sport: the mafia missed)
    opener_on_day_one: bool = True        # day 1 names its opener (club: the introduction already did)
    nomination: str = "nomination_accepted"  # a nomination taken (canonical: «Борис выдвигает Егора»)
    candidates_named: int = 0             # how often the main vote's candidates are named (sport: twice)
    counts_said: bool = False             # each candidate's votes are said after a round (sport)
    revote: str = "revote"                # the second round between tied players (canonical: by name)
    voted_out: str = "leaves"             # a player voted out (classic: to jail, canonical: the sentence)
    card_by_team: bool = False            # the card shown says only mafia or citizen (canonical)


# A speaker's warning, by how long before the end it comes: its line (any other length: «Осталось N секунд»).
WARNING_LINES: Mapping[int, str] = MappingProxyType({60: "one_minute", 10: "ten_seconds"})
