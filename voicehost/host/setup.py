"""One checked game setup: the table, ruleset, options, seats, deal, roster, journal and audio
of a game, built and checked by one function, :func:`check_setup`.

Every way a game is set up goes through it — ``voicehost run`` (its arguments), the web
setup page (the judge's JSON), a table file's ``[game]`` (``serve`` and ``config check``)
and a journal's header (a resume) — so whatever one path accepts every other path accepts.
The value it returns is the header the journal will start with, and that header is read
back through the journal reader's own check before it is accepted, so nothing is journaled
that a resume after a power cut would refuse. Everything is checked before any audio work
(the voice warm-up takes minutes on a cold cache) and before the journal is created.

A refusal is a :class:`SetupRefused`: an :class:`~voicehost.rules.InputError` (the English
line of the command line, with its place) that also carries its kind and values, so the web
page says it in Russian from ``config/phrases`` (:func:`russian_refusal`) without translating English.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from audio.output import AudioSpecError, parse_spec
from voicehost.config import load_ruleset, read_toml, ruleset_names
from voicehost.files import file_name, loads_json
from voicehost.host.dealing import seeded_deal, typed_deal
from voicehost.host.ears import load_ears
from voicehost.host.journal import FORMAT, check_header
from voicehost.host.seats import open_pinmap
from voicehost.host.table_file import load_audio, load_web_pin, table_path
from voicehost.language.i18n import _
from voicehost.language.phrasebook import load_phrasebook
from voicehost.rules import GAMES, Game, InputError, new_game
from voicehost.rules.inputs import Deal
from voicehost.rules.roster import NAME_MAX_CHARS, NameTooLong, roster
from voicehost.rules.ruleset import INT_OPTION_MAX, Options, OptionSpec, Ruleset

DealMode = Literal["host", "typed", "taps"]
DEAL_MODES: tuple[DealMode, ...] = ("host", "typed", "taps")
NO_AUDIO = "off"   # ``voicehost run --audio off``: the lines on the terminal, no sound card


class SetupRefused(InputError):
    """A setup no table can play: ``place: message`` in English for the command line, and
    ``kind`` with its ``values`` for the Russian line (``setup.KIND`` in the phrasebook)."""

    def __init__(self, place: str, message: str, kind: str, **values: object) -> None:
        super().__init__(place, message)
        self.kind = kind
        self.values = values


@dataclass(frozen=True)
class Places:
    """Where each piece of a request came from, for the error's place: ``--option`` on the
    command line, ``options`` on the web page, ``FILE: game.options`` in a table file."""

    ruleset: str = "ruleset"
    options: str = "options"
    names: str = "names."
    seats: str = "seats"
    deal: str = "deal"
    cards: str = "cards"
    seed: str = "seed"
    journal: str = "journal"
    audio: str = "--audio"
    tournament: str = "tournament"


CLI_PLACES = Places(ruleset="--rules", options="--option", names="--names ", seats="--table", deal="--roles",
                    cards="--roles", seed="--deal", journal="--journal", audio="--audio", tournament="--tournament")


@dataclass(frozen=True)
class SetupRequest:
    """What a person or a file asked for, unchecked (each front end only splits its own syntax)."""

    ruleset: object
    options: Mapping[str, object] = field(default_factory=dict)
    names: Iterable[tuple[object, object]] = ()
    deal: object = "host"
    cards: object = None          # deal "typed": the cards as typed, ``3=don,5=mafia,…``
    seed: object = None           # deal "host": the shuffle's seed (None: chosen when the game starts)
    table: str | Path | None = None   # a table file or name; None: no table file (``seats`` says the size)
    seats: object = None          # None: the table's size (or the ruleset's smallest without a table)
    journal: str | Path | None = None  # the journal to create; None: none is created on this path
    audio: str | None = None      # ``--audio``; None: the table's
    tournament: object = None     # the game's place in a tournament: {"name", "round", "table"}; None: none
    places: Places = Places()


@dataclass(frozen=True)
class GameSetup:
    """A game's setup, checked: what the journal's header holds, and how the cards come."""

    ruleset: Ruleset
    options: Options
    seats: int
    names: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    deal: DealMode = "host"
    cards: Deal | None = None     # deal "typed"
    seed: int | None = None       # deal "host"
    table: Path | None = None
    journal: Path | None = None
    audio: str | None = None
    tournament: Mapping[str, Any] | None = None   # {"name", "round", "table"}: where the records put the game

    def new_game(self) -> Game:
        """The game, roster named, no card dealt yet."""
        game = new_game(self.ruleset, self.options, self.seats)
        game.names = dict(self.names)
        return game

    def first_deal(self, seed: int) -> Deal | None:
        """The deal the journal starts with: the typed cards, the host's shuffle (``seed``
        when none was given), or None when the cards are learned from taps."""
        if self.deal == "taps":
            return None
        if self.cards is not None:
            return self.cards
        return seeded_deal(self.new_game(), self.seed if self.seed is not None else seed)

    def header(self, level: str = "live") -> dict[str, Any]:
        """The journal's first line (less its type and format), as :mod:`~voicehost.host.journal` reads it."""
        roster = {str(seat): name for seat, name in self.names.items()}
        return {"ruleset": self.ruleset.name, "options": dict(self.options), "seats": self.seats, "level": level,
                **({"names": roster} if roster else {}),
                **({"table": str(self.table.resolve())} if self.table is not None else {}),
                **({"tournament": dict(self.tournament)} if self.tournament is not None else {})}


def check_setup(request: SetupRequest) -> GameSetup:
    """The one check of a game's setup (see the module's docstring); :class:`SetupRefused`
    with the first fault. Reads files (the table's, the ruleset's) but opens no device."""
    where = request.places
    ruleset = _ruleset(request.ruleset, where.ruleset)
    table, seats = _table_and_seats(request, ruleset)
    try:
        ruleset.cast_for(seats, where.seats)
    except InputError as err:
        raise SetupRefused(err.place, err.message, "seats", title=ruleset.title, sizes=ruleset.describe_sizes(),
                           seats=seats) from None
    options = _options(ruleset, request.options, where.options)
    names = _names(ruleset, list(request.names), seats, where.names)
    deal, cards, seed = _deal(request, ruleset, options, seats)
    setup = GameSetup(ruleset, options, seats, MappingProxyType(names), deal, cards, seed, table,
                      _new_journal(request.journal, where.journal) if request.journal is not None else None,
                      audio_choice(request.audio, where.audio), tournament_place(request.tournament, where.tournament))
    _readable(setup)
    return setup


def setup_from_header(header: Mapping[str, Any], place: str, table: str | Path | None = None) -> GameSetup:
    """A journal's game as its header sets it up, through the same check (the deal is in the
    journal's records, not here). ``table``: the table it resumes at, when the header names none."""
    names = header.get("names", {})
    return check_setup(SetupRequest(
        ruleset=header.get("ruleset"), options=header.get("options", {}),
        names=names.items() if isinstance(names, Mapping) else (), table=header.get("table", table),
        seats=header.get("seats"), tournament=header.get("tournament"),
        places=Places(ruleset=f"{place}: ruleset", options=f"{place}: options", names=f"{place}: names.",
                      seats=f"{place}: seats", tournament=f"{place}: tournament")))


def table_game(table: str | Path | None) -> GameSetup:
    """What a table file's ``[game]`` starts (``serve``'s default game), checked as the web
    page's and the command line's are: ``ruleset`` (default sport) and ``options``."""
    path = table_path(str(table) if table is not None else None)
    data = read_toml(path).get("game", {})
    place = f"{path}: game"
    if not isinstance(data, Mapping):
        raise SetupRefused(place, _("must be a table"), "table", where=place)
    unknown = sorted(set(data) - {"ruleset", "options"})
    if unknown:
        raise SetupRefused(f"{place}.{unknown[0]}", _("unknown setting (known: options, ruleset)"), "table",
                           where=f"{place}.{unknown[0]}")
    options = data.get("options", {})
    if not isinstance(options, Mapping):
        raise SetupRefused(f"{place}.options", _("must be a table of the ruleset's options"), "table",
                           where=f"{place}.options")
    return check_setup(SetupRequest(ruleset=data.get("ruleset", "sport"), options=options, table=path,
                                    places=Places(ruleset=f"{place}.ruleset", options=f"{place}.options",
                                                  seats=str(path))))


def russian_refusal(refusal: SetupRefused) -> str:
    """The refusal in Russian, from the phrasebook's ``[setup]`` lines."""
    return load_phrasebook().line("setup", refusal.kind, **refusal.values)


# ---- the checks, one per piece ------------------------------------------------------------------


def _ruleset(name: object, place: str) -> Ruleset:
    known = ", ".join(ruleset_names())
    if not isinstance(name, str) or name not in GAMES:
        shown = name if isinstance(name, str) else ""
        raise SetupRefused(place, _("unknown ruleset {name!r} (known: {known})").format(
                                      name=name, known=known), "ruleset", name=shown[:40],
                           known=known)
    return load_ruleset(name)


def _table_and_seats(request: SetupRequest, ruleset: Ruleset) -> tuple[Path | None, int]:
    """The table file read whole (pins, ``[audio]``, ``[ears]``, ``[web]``) and the game's seats:
    the table's, or fewer when a header says so; without a table, the seats given."""
    seats = request.seats
    if seats is not None and (isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 99):
        raise SetupRefused(request.places.seats, _("{seats!r} is not a number of seats").format(
                                                     seats=seats), "seats",
                           title=ruleset.title, sizes=ruleset.describe_sizes(), seats=str(seats)[:12])
    if request.table is None:
        return None, seats if seats is not None else ruleset.seats[0]
    path = table_path(str(request.table))
    try:
        pinmap = open_pinmap(str(path), None if seats is not None else ruleset.name)
        load_audio(path)
        load_ears(path)
        load_web_pin(path)
    except SetupRefused:
        raise
    except InputError as err:
        raise SetupRefused(err.place, err.message, "table", where=err.place) from None
    if seats is not None and seats > pinmap.size:
        raise SetupRefused(request.places.seats, _("the game has {seats} seats; the table has {size}").format(
                                                     seats=seats, size=pinmap.size),
                           "seats", title=ruleset.title, sizes=ruleset.describe_sizes(), seats=pinmap.size)
    return path, seats if seats is not None else pinmap.size


def _options(ruleset: Ruleset, given: Mapping[str, object], place: str) -> Options:
    if not isinstance(given, Mapping):
        raise SetupRefused(place, _("must be a table of the ruleset's options"), "options_form")
    for key in given:
        if key not in ruleset.options:
            known = ", ".join(ruleset.options)
            raise SetupRefused(f"{place}.{key}", _("{name} has no option {key!r} (known: {known})").format(
                                                     name=ruleset.name, key=key, known=known),
                               "option_unknown", option=str(key)[:40], title=ruleset.title,
                               known=", ".join(f"«{option_label(name)}»" for name in ruleset.options))
    try:
        return ruleset.resolve(given, place)
    except InputError as err:
        key = err.place.removeprefix(f"{place}.")
        raise SetupRefused(err.place, err.message, "option_value", option=option_label(key),
                           allowed=_allowed(ruleset.options[key])) from None


def _allowed(spec: OptionSpec) -> str:
    """An option's values, said in Russian (``[setup]``'s ``allowed_*`` and the values' labels)."""
    book = load_phrasebook()
    if spec.kind == "bool":
        return book.line("setup", "allowed_bool")
    if spec.kind == "int":
        return book.line("setup", "allowed_int", min=spec.minimum, max=INT_OPTION_MAX)
    values = ", ".join(f"«{option_value_label(spec.name, value)}»" for value in spec.values)
    return book.line("setup", "allowed_choice", values=values)


def option_label(option: str) -> str:
    """An option's Russian label (``[setup] option_NAME``), what the setup page and its refusals
    call it; the option's own name when the phrasebook has none."""
    book = load_phrasebook()
    key = f"option_{option}"
    return book.line("setup", key) if f"setup.{key}" in book.lines else option


def option_value_label(option: str, value: str) -> str:
    """A choice's Russian label (``[setup] "option_NAME=VALUE"``); the value itself when there is none."""
    book = load_phrasebook()
    key = f"option_{option}={value}"
    return book.line("setup", key) if f"setup.{key}" in book.lines else value


def _names(ruleset: Ruleset, entries: list[tuple[object, object]], seats: int, place: str) -> dict[int, str]:
    """The roster (:func:`~voicehost.rules.roster.roster`, the one check of names); where the
    ruleset calls players by name, a roster that is given names every seat."""
    by_name = ruleset.name if entries and GAMES[ruleset.name].requires_names else None
    try:
        return roster(entries, seats, by_name, place)
    except NameTooLong as err:
        raise SetupRefused(err.place, err.message, "name_too_long", entry=err.place.removeprefix(place)[:12],
                           limit=NAME_MAX_CHARS) from None
    except InputError as err:
        if err.place == place.rstrip(". "):
            given = {str(key).strip() for key, _ in entries}
            missing = ", ".join(str(s) for s in range(1, seats + 1) if str(s) not in given)
            raise SetupRefused(err.place, err.message, "names_missing", title=ruleset.title, missing=missing) \
                from None
        raise SetupRefused(err.place, err.message, "names", entry=err.place.removeprefix(place)[:12],
                           seats=seats) from None


def _deal(request: SetupRequest, ruleset: Ruleset, options: Options,
          seats: int) -> tuple[DealMode, Deal | None, int | None]:
    where = request.places
    mode = request.deal
    if mode not in DEAL_MODES:
        raise SetupRefused(where.deal, _("must be one of {deal_modes}").format(
                                           deal_modes=', '.join(DEAL_MODES)), "deal")
    seed = request.seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or len(str(abs(seed))) > 18):
        raise SetupRefused(where.seed, _("{seed!r} is not a seed (a whole number of at most 18 digits)").format(
                                           seed=str(seed)[:20]),
                           "seed")
    if mode != "typed":
        return ("taps" if mode == "taps" else "host"), None, seed
    text = request.cards
    if not isinstance(text, str) or not text.strip():
        raise SetupRefused(where.cards, _("the typed cards are missing (e.g. 3=don,5=mafia,9=mafia,7=sheriff)"),
                           "cards_missing")
    game = new_game(ruleset, options, seats)
    try:
        return "typed", typed_deal(text.strip(), game, where.cards), None
    except InputError as err:
        book = load_phrasebook()
        cast = ", ".join(f"{book.line('log', f'role_{role.value}')} — {count}"
                         for role, count in game.cast.items() if count and role.value != "citizen")
        raise SetupRefused(err.place, err.message, "cards", seats=seats, cast=cast) from None


def _new_journal(path: str | Path, place: str) -> Path:
    """A journal this game may create: a new file (or an empty one) in a folder that exists.
    ``/dev/null``, a FIFO or a directory is refused here, not after the voice warm-up."""
    try:
        journal = file_name(path, "journal")
    except InputError as err:
        raise SetupRefused(err.place, err.message, "journal", path=err.place) from None
    try:
        info = os.stat(journal)
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise SetupRefused(str(journal), _("cannot look at it ({value})").format(
                                             value=err.strerror or err), "journal",
                           path=str(journal)) from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise SetupRefused(str(journal), _("is not a regular file; a journal is a file of its own"), "journal",
                           path=str(journal))
    if info is not None and info.st_size:
        raise SetupRefused(str(journal), _("the journal already exists: continue it with --resume"), "journal_exists",
                           path=str(journal))
    if not journal.parent.is_dir():
        raise SetupRefused(str(journal), _("there is no folder {parent}").format(
                                             parent=journal.parent), "journal", path=str(journal))
    return journal


def tournament_place(value: object, place: str = "tournament") -> Mapping[str, Any] | None:
    """A game's place in a tournament, ``{"name": text, "round": 1…999, "table": 1…999}``, so
    the records put its protocol where it belongs (None: a game outside any tournament)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise SetupRefused(place, "must be an object (name, round, table)", "tournament")
    name = value.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 80:
        raise SetupRefused(place if place.startswith("--") else f"{place}.name",
                           "the tournament's name must be text of 1 to 80 characters", "tournament")
    found: dict[str, Any] = {"name": name.strip()}
    for key in ("round", "table"):
        number = value.get(key)
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 999:
            raise SetupRefused(f"{place}.{key}", f"{str(number)[:12]!r} is not a {key} number from 1 to 999",
                               "tournament")
        found[key] = number
    return MappingProxyType(found)


def audio_choice(spec: str | None, place: str = "--audio") -> str | None:
    """``--audio``: default, device:NAME, file:OUT.wav, null or off (None: the table's)."""
    if spec is None or spec == NO_AUDIO:
        return spec
    try:
        parse_spec(spec)
    except AudioSpecError:
        raise SetupRefused(place, _("{spec!r}: use default, device:NAME, file:OUT.wav, null or off").format(
                                      spec=spec), "audio") \
            from None
    return spec


def _readable(setup: GameSetup) -> None:
    """The header read back as a resume reads it — JSON with its number limits, the header's
    fields, the options and roster checked again — or refused now, before it is journaled."""
    place = "the journal's header"
    try:
        header = check_header(loads_json(json.dumps({"type": "game", "format": FORMAT, **setup.header()},
                                                    ensure_ascii=False), place), place)
        again = setup.ruleset.resolve(header["options"], f"{place}: options")
        names = roster(header.get("names", {}).items(), setup.seats, None, f"{place}: names.")
    except InputError as err:
        raise SetupRefused(err.place, _("{message} (a resume could not read it back)").format(
                                          message=err.message), "unreadable") from None
    if dict(again) != dict(setup.options) or names != dict(setup.names):
        raise SetupRefused(place, _("does not read back as the game set up"), "unreadable")
