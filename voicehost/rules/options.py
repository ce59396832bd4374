"""Each ruleset's options, declared once as a typed value the games read as attributes.

A ruleset's options are a frozen dataclass (:class:`SportOptions` …): each field is one option,
its annotation the option's type (``bool``, a whole number, or a ``Literal`` of the words a
choice takes), its default the option's default, and :func:`at_least` its lower bound. The
code reads ``game.options.non_voter_foul``; mypy checks every read, where a name in a string
was checked by nothing. As python-chess's variants carry their differences as class
attributes, everything else about an option follows from its field (:meth:`Options.declared`):
its kind, its values, its text key (``setup.option_NAME`` in voicehost/language/read_lines.py).

The ruleset file (``config/rules/NAME.toml``) still carries what a club reads — each option's
``doc`` and ``source`` — and may change a default for its club; tests/test_config.py checks the
bundled files against these declarations. A protocol lists only the options that differ from
the declared defaults (:meth:`Options.changed`), and a reader fills in the rest
(:meth:`~voicehost.rules.ruleset.Ruleset.played`): an option added later leaves every protocol written before it as it
was, and still readable.

Plain Python, not compiled with the engine (voicehost.native): the option classes are read by
name through :func:`dataclasses.fields`, which mypyc's native classes do not keep.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, get_args, get_type_hints

OptionValue = str | int | bool
OptionKind = Literal["choice", "bool", "int"]

# A whole-number option is seconds or a count: a day's worth is more than any game needs, and far
# below the 18 digits a journal may hold (voicehost.files.MAX_DIGITS), so every value taken is one
# a resume reads back.
INT_OPTION_MAX = 86_400

@dataclass(frozen=True)
class Declared:
    """One option as its ruleset's options class declares it."""

    name: str
    kind: OptionKind
    default: OptionValue
    values: tuple[str, ...] = ()    # a choice's words
    minimum: int = 0                # a whole number's lower bound (the upper one is INT_OPTION_MAX)

    @property
    def text_key(self) -> str:
        """The key of its label among the read lines (``setup.option_NAME``)."""
        return f"option_{self.name}"


def at_least(minimum: int, default: int) -> Any:
    """A whole-number option's field: ``misses_to_lose: int = at_least(0, 3)``."""
    return field(default=default, metadata={"minimum": minimum})


class Options(Mapping[str, OptionValue]):
    """The options a game runs with, every one set (a ruleset's subclass declares them).

    Also a read-only mapping of name → value, for what handles any ruleset's options alike: the
    journal's header, the setup page, ``rules show``."""

    __slots__ = ()
    _declared: ClassVar[dict[type, dict[str, Declared]]] = {}

    @classmethod
    def declared(cls) -> Mapping[str, Declared]:
        """Each option of the class, in the order of its fields (worked out once per class)."""
        known = Options._declared.get(cls)
        if known is None:
            known = Options._declared[cls] = {item.name: item for item in _declarations(cls)}
        return known

    def changed(self) -> dict[str, OptionValue]:
        """The options that differ from their declared defaults: what a protocol lists."""
        return {name: value for name, option in self.declared().items()
                if (value := getattr(self, name)) != option.default}  # (as the mapping's items, without
        # its generic iterator and a lookup of the declarations for every option)

    def __getitem__(self, key: str) -> OptionValue:
        if key not in self.declared():
            raise KeyError(key)
        value: OptionValue = getattr(self, key)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self.declared())

    def __len__(self) -> int:
        return len(self.declared())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict(self)!r})"


def _declarations(cls: type[Options]) -> Iterator[Declared]:
    hints = get_type_hints(cls)
    shadowed = set(dir(Mapping))
    for item in fields(cls):  # type: ignore[arg-type]  # every subclass is a dataclass
        if item.name in shadowed:
            raise TypeError(f"{cls.__name__}.{item.name}: an option may not be named as a mapping's method")
        hint, default = hints[item.name], item.default
        if not isinstance(default, (str, int)):  # a bool is an int
            raise TypeError(f"{cls.__name__}.{item.name}: an option has a default")
        if hint is bool:
            yield Declared(item.name, "bool", default)
        elif hint is int:
            yield Declared(item.name, "int", default, minimum=item.metadata.get("minimum", 0))
        elif all(isinstance(word, str) for word in get_args(hint)) and get_args(hint):
            yield Declared(item.name, "choice", default, values=get_args(hint))
        else:
            raise TypeError(f"{cls.__name__}.{item.name}: an option is a bool, an int or a Literal of words")


@dataclass(frozen=True, eq=False)
class SportOptions(Options):
    """Sport Mafia's options (docs/rules.md "`sport` — tournament rules")."""

    nomination: Literal["first", "last"] = "first"
    self_nomination: bool = True
    rotation: Literal["first", "last"] = "first"
    last_word_s: int = at_least(0, 60)
    tied_vote_in_revote: bool = True
    split_at_four: Literal["stay", "vote"] = "stay"
    removal_cancels_vote: bool = True
    three_fouls: Literal["lose_speech", "short_speech", "none"] = "lose_speech"
    misses_to_lose: int = at_least(0, 3)
    call_dead_seats: bool = True
    scoring: Literal["seed001", "showtime", "fiim", "championship"] = "seed001"
    best_move: bool = False
    judge_points: bool = False
    removal_forfeits: bool = False
    quiet_rounds_to_draw: int = at_least(0, 0)


@dataclass(frozen=True, eq=False)
class ClubOptions(Options):
    """The club game's options (docs/rules.md "`club`")."""

    rotation: Literal["first", "last"] = "first"
    non_voter_foul: bool = True
    last_word_s: int = at_least(0, 0)


@dataclass(frozen=True, eq=False)
class ClassicOptions(Options):
    """Classic Mafia's options (docs/rules.md "`classic`")."""

    discussion: Literal["free", "turns"] = "free"
    open: Literal["no", "cards", "cards_and_night"] = "no"
    no_host: bool = False
    extra_card: bool = False
    blood_name: bool = False
    mayor: bool = False
    three_sides: bool = False
    etiquette: bool = False


@dataclass(frozen=True, eq=False)
class CanonicalOptions(Options):
    """Canonical (student) Mafia's options (docs/rules.md "`canonical`")."""

    ratio: Literal["1:5", "1:4", "1:3"] = "1:5"
