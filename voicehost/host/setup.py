"""One checked game setup: the table, ruleset, options, seats, deal, roster, journal and audio
of a game, built and checked by one function, :func:`check_setup`.

Every way a game is set up goes through it — ``voicehost run`` (its arguments), the web
setup page (the judge's JSON), a table file's ``[game]`` (``serve`` and ``config check``)
and a journal's header (a resume) — so whatever one path accepts every other path accepts.
The value it returns is the header the journal will start with, and that header is read
back through the journal reader's own check before it is accepted, so nothing is journaled
that a resume after a power cut would refuse. Everything is checked before any audio work
(the voice warm-up takes minutes on a cold cache) and before the journal is created.

A refusal is a :class:`SetupRefused`: an :class:`~voicehost.rules.InputError` whose message is
one gettext template and its values, the same text for every front end: the command line puts
its place before it, the web page says it as a sentence of its own (:func:`setup_refusal_text`).
A front end only chooses how a value is shown (:attr:`Places.labels`): the command line names
options and values as they are typed (``nomination``, ``first``), the web page by their labels.
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
from voicehost.i18n import N_, Message, language, said
from voicehost.language.read_lines import has_line, read_line
from voicehost.rules import GAMES, Game, InputError, new_game
from voicehost.rules.inputs import Deal
from voicehost.rules.roster import roster
from voicehost.rules.ruleset import INT_OPTION_MAX, Options, OptionSpec, Ruleset

DealMode = Literal["host", "typed", "taps"]
DEAL_MODES: tuple[DealMode, ...] = ("host", "typed", "taps")
NO_AUDIO = "off"   # ``voicehost run --audio off``: the lines on the terminal, no sound card
OPTIONS_FORM = N_("must be a table of the ruleset's options")
TOURNAMENT_PLACE = N_("the game's place in a tournament is not taken: the tournament's name (1 to 80 characters), "
                      "the round and the table (numbers from 1 to 999)")


class SetupRefused(InputError):
    """A setup no table can play: its place, and its message as a template (marked with ``N_``)
    and values, which :func:`~voicehost.i18n.said` says in the language in use.
    ``sentence``: how the web page words it where the place alone (a form's field) does not say
    enough — the command line puts the place before the message instead."""

    sentence: tuple[str, dict[str, object]] | None = None

    @classmethod
    def of(cls, err: InputError) -> SetupRefused:
        """The refusal that says a lower check's error (a roster's, a table file's) as it is."""
        return cls(err.place, err.template, err.values if err.filled else None)


def _refused(place: str, template: str, **values: object) -> SetupRefused:
    return SetupRefused(place, template, values)


def _said(err: InputError) -> Message | str:
    """A lower check's message as a value of a refusal's, said in the language in use with it (a
    message given whole, not from a template, is said as it is: braces in it are no placeholders)."""
    return Message(err.template, err.values) if err.filled else err.message


def setup_refusal_text(refusal: SetupRefused) -> str:
    """The refusal as a sentence of its own (the web page's), in the language in use."""
    text = said(*refusal.sentence) if refusal.sentence else said(refusal.template,
                                                                 refusal.values if refusal.filled else None)
    return f"{text[:1].upper()}{text[1:]}."


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
    labels: bool = True   # options, values and rulesets by their labels (a page), not as typed (a command line)


CLI_PLACES = Places(ruleset="--rules", options="--option", names="--names ", seats="--table", deal="--roles",
                    cards="--roles", seed="--deal", journal="--journal", audio="--audio", tournament="--tournament",
                    labels=False)


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
    if seats not in ruleset.seats:
        raise _seats_refused(where, ruleset, seats)
    options = _options(ruleset, request.options, where)
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
        raise _refused(place, N_("must be a table"))
    unknown = sorted(set(data) - {"ruleset", "options"})
    if unknown:
        raise _refused(f"{place}.{unknown[0]}", N_("unknown setting (known: options, ruleset)"))
    options = data.get("options", {})
    if not isinstance(options, Mapping):
        raise _refused(f"{place}.options", OPTIONS_FORM)
    return check_setup(SetupRequest(ruleset=data.get("ruleset", "sport"), options=options, table=path,
                                    places=Places(ruleset=f"{place}.ruleset", options=f"{place}.options",
                                                  seats=str(path), labels=False)))


# ---- the checks, one per piece ------------------------------------------------------------------


def _ruleset(name: object, place: str) -> Ruleset:
    if not isinstance(name, str) or name not in GAMES:
        raise _refused(place, N_("there are no rules «{name}» (known: {known})"),
                       name=name[:40] if isinstance(name, str) else "", known=", ".join(ruleset_names()))
    return load_ruleset(name)


def _seats_refused(where: Places, ruleset: Ruleset, seats: object) -> SetupRefused:
    return _refused(where.seats, N_("the rules «{title}» are played at {sizes} seats, not {seats}"),
                    title=_title(ruleset, where), sizes=ruleset.describe_sizes(), seats=str(seats)[:12])


def _title(ruleset: Ruleset, where: Places) -> str:
    """The ruleset as a page calls it (its title, the club's own words) or as it is typed (its name)."""
    return ruleset.title if _labelled(where) else ruleset.name


def _labelled(where: Places) -> bool:
    """Labels only where the front end shows them and in Russian, the one language they are written in."""
    return where.labels and language() == "ru"


def _table_and_seats(request: SetupRequest, ruleset: Ruleset) -> tuple[Path | None, int]:
    """The table file read whole (pins, ``[audio]``, ``[ears]``, ``[web]``) and the game's seats:
    the table's, or fewer when a header says so; without a table, the seats given."""
    seats = request.seats
    if seats is not None and (isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 99):
        raise _seats_refused(request.places, ruleset, seats)
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
        raise SetupRefused.of(err) from None
    if seats is not None and seats > pinmap.size:
        raise _refused(request.places.seats, N_("the game has {seats} seats; the table has {size}"),
                       seats=seats, size=pinmap.size)
    return path, seats if seats is not None else pinmap.size


def _options(ruleset: Ruleset, given: Mapping[str, object], where: Places) -> Options:
    place = where.options
    if not isinstance(given, Mapping):
        raise _refused(place, OPTIONS_FORM)
    labelled = _labelled(where)
    for key in given:
        if key not in ruleset.options:
            known = (f"«{option_label(name)}»" if labelled else name for name in ruleset.options)
            raise _refused(f"{place}.{key}", N_("the rules «{title}» have no option «{option}» (known: {known})"),
                           title=_title(ruleset, where), option=str(key)[:40], known=", ".join(known))
    try:
        return ruleset.resolve(given, place)
    except InputError as err:
        key = err.place.removeprefix(f"{place}.")
        raise _refused(err.place, N_("option «{option}» not taken: it takes {allowed}"),
                       option=option_label(key) if labelled else key,
                       allowed=_allowed(ruleset.options[key], labelled)) from None


def _allowed(spec: OptionSpec, labelled: bool) -> Message:
    """An option's values, by their labels or as they are typed."""
    if spec.kind == "bool":
        return Message(N_("yes or no")) if labelled else Message(N_("true or false"))
    if spec.kind == "int":
        return Message(N_("a whole number from {min} to {max}"), {"min": spec.minimum, "max": INT_OPTION_MAX})
    values = (f"«{option_value_label(spec.name, value)}»" if labelled else value for value in spec.values)
    return Message(N_("one of: {values}"), {"values": ", ".join(values)})


def option_label(option: str) -> str:
    """An option's label (``setup.option_NAME`` in :mod:`voicehost.language.read_lines`), what the
    setup page and its refusals call it; the option's own name when there is none."""
    key = f"option_{option}"
    return read_line("setup", key) if has_line("setup", key) else option


def option_value_label(option: str, value: str) -> str:
    """A choice's label (``setup.option_NAME=VALUE``); the value itself when there is none."""
    key = f"option_{option}={value}"
    return read_line("setup", key) if has_line("setup", key) else value


def _names(ruleset: Ruleset, entries: list[tuple[object, object]], seats: int, place: str) -> dict[int, str]:
    """The roster (:func:`~voicehost.rules.roster.roster`, the one check of names); where the
    ruleset calls players by name, a roster that is given names every seat."""
    by_name = ruleset.name if entries and GAMES[ruleset.name].requires_names else None
    try:
        return roster(entries, seats, by_name, place)
    except InputError as err:
        if err.place == place.rstrip(". "):   # the whole roster: a name missing where every seat needs one
            raise SetupRefused.of(err) from None
        refusal = SetupRefused.of(err)   # the command line: «--names 1: seat 1 is named twice»
        refusal.sentence = (N_("the name in field «{entry}» is not taken: {why}"),
                            {"entry": err.place.removeprefix(place)[:12], "why": _said(err)})
        raise refusal from None


def _deal(request: SetupRequest, ruleset: Ruleset, options: Options,
          seats: int) -> tuple[DealMode, Deal | None, int | None]:
    where = request.places
    mode = request.deal
    if mode not in DEAL_MODES:
        raise _refused(where.deal, N_("choose who deals the cards: one of {deal_modes}"),
                       deal_modes=", ".join(DEAL_MODES))
    seed = request.seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or len(str(abs(seed))) > 18):
        raise _refused(where.seed, N_("{seed!r} is not a seed (a whole number of at most 18 digits)"),
                       seed=str(seed)[:20])
    if mode != "typed":
        return ("taps" if mode == "taps" else "host"), None, seed
    text = request.cards
    if not isinstance(text, str) or not text.strip():
        raise _refused(where.cards, N_("type the cards, e.g. 3=don,5=mafia,9=mafia,7=sheriff"))
    game = new_game(ruleset, options, seats)
    try:
        return "typed", typed_deal(text.strip(), game, where.cards), None
    except InputError as err:
        raise _refused(err.place, N_("the cards are not taken: {why}"), why=_said(err)) from None


def _new_journal(path: str | Path, place: str) -> Path:
    """A journal this game may create: a new file (or an empty one) in a folder that exists.
    ``/dev/null``, a FIFO or a directory is refused here, not after the voice warm-up."""
    try:
        journal = file_name(path, "journal")
    except InputError as err:
        raise SetupRefused.of(err) from None
    try:
        info = os.stat(journal)
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise _refused(str(journal), N_("cannot look at it ({value})"), value=err.strerror or str(err)) from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise _refused(str(journal), N_("is not a regular file; a journal is a file of its own"))
    if info is not None and info.st_size:
        raise _refused(str(journal), N_("the journal already exists: continue it with --resume"))
    if not journal.parent.is_dir():
        raise _refused(str(journal), N_("there is no folder {parent}"), parent=str(journal.parent))
    return journal


def tournament_place(value: object, place: str = "tournament") -> Mapping[str, Any] | None:
    """A game's place in a tournament, ``{"name": text, "round": 1…999, "table": 1…999}``, so
    the records put its protocol where it belongs (None: a game outside any tournament)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise _refused(place, TOURNAMENT_PLACE)
    name = value.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 80:
        raise _refused(place if place.startswith("--") else f"{place}.name", TOURNAMENT_PLACE)
    found: dict[str, Any] = {"name": name.strip()}
    for key in ("round", "table"):
        number = value.get(key)
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 999:
            raise _refused(f"{place}.{key}", TOURNAMENT_PLACE)
        found[key] = number
    return MappingProxyType(found)


def audio_choice(spec: str | None, place: str = "--audio") -> str | None:
    """``--audio``: default, device:NAME, file:OUT.wav, null or off (None: the table's)."""
    if spec is None or spec == NO_AUDIO:
        return spec
    try:
        parse_spec(spec)
    except AudioSpecError:
        raise _refused(place, N_("{spec!r}: use default, device:NAME, file:OUT.wav, null or off"), spec=spec) \
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
        raise _refused(err.place, N_("{message} (a resume could not read it back)"),
                       message=_said(err)) from None
    if dict(again) != dict(setup.options) or names != dict(setup.names):
        raise _refused(place, N_("does not read back as the game set up"))
