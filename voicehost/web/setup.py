"""The setup page of an idle table: what the judge may choose, and his choice read and checked.

The rulesets and their options come from ``config/rules`` through the ruleset objects (the
same :meth:`~voicehost.rules.ruleset.Ruleset.resolve` the table file and ``--option`` go
through), the roster through :func:`~voicehost.rules.roster.roster` (the one check of
``--names``), typed cards through the console's own deal reader — so a choice the web accepts
is one ``voicehost run`` would accept, and a bad one is refused before any game exists.

The table the page drives is a :class:`SetupDesk` (the appliance's idle table implements it);
the web never reaches into the service.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from voicehost.config import load_ruleset, ruleset_names
from voicehost.host import (
    GameSetup,
    SetupRefused,
    SetupRequest,
    check_setup,
    option_label,
    option_value_label,
    setup_refusal_text,
)
from voicehost.language.read_lines import read_line
from voicehost.rules import GAMES, Refusal
from voicehost.rules.roster import NAME_MAX_CHARS
from voicehost.rules.ruleset import INT_OPTION_MAX
from voicehost.web.refusals import NoDealMode, SetupNotObjects, SetupNotTaken, UnknownSetupField

DEAL_MODES = ("host", "typed")   # who deals: the host (each card on its LED), or the judge, who types them here


class SetupError(ValueError):
    """A setup the table cannot play; ``refusal`` says why (the server words it for the judge)."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


GameChoice = GameSetup   # a game the judge chose on the setup page, checked by the one setup check


class SetupDesk(Protocol):
    """What the setup page drives: the idle table. Each action returns None when taken, or
    the refusal that says why not now."""

    seats: int

    def setup_state(self) -> dict[str, Any]:
        """``{"ruleset", "options"}`` preselected, ``unfinished`` (a journal's name) while a
        power cut's game waits, ``playing``, ``halted`` (why, or None), ``best`` (the last
        game's open best-player vote: ``seats``, ``names``, ``chosen``, ``points``; or None),
        ``scheduled`` (a tournament table's names from the stored schedule, by seat; may be absent)."""
    def start(self, choice: GameChoice) -> Refusal | None: ...
    def resume(self) -> Refusal | None: ...
    def discard(self) -> Refusal | None: ...
    def best(self, seat: int) -> Refusal | None: ...


def offered(seats: int, default: str | None = None, options: Mapping[str, object] | None = None) -> dict[str, Any]:
    """Every ruleset playable at this table, with its options' allowed values and defaults
    (the table file's ``[game]`` — ruleset ``default`` and its ``options`` — preselected), and
    the ``label`` of each option and ``labels`` of its values in the language in use (``setup.``
    in :mod:`voicehost.language.read_lines`: the page shows no ``doc`` of the ruleset file)."""
    rulesets = []
    for name in ruleset_names():
        ruleset = load_ruleset(name)
        if seats not in ruleset.seats:
            continue
        chosen = options if name == default and options is not None else None
        rulesets.append({
            "name": name, "title": ruleset.title, "names_required": GAMES[name].requires_names,
            "options": [{"name": spec.name, "kind": spec.kind, "values": list(spec.values), "min": spec.minimum,
                         "max": INT_OPTION_MAX if spec.kind == "int" else None,
                         "default": chosen.get(spec.name, spec.default) if chosen is not None else spec.default,
                         "doc": spec.doc, "label": option_label(spec.name),
                         "labels": {value: option_value_label(spec.name, value) for value in spec.values}}
                        for spec in ruleset.options.values()],
        })
    deal_modes = {mode: read_line("web", f"deal_{mode}") for mode in DEAL_MODES}
    return {"seats": seats, "rulesets": rulesets, "deal_modes": deal_modes, "name_max": NAME_MAX_CHARS,
            "default": default if any(r["name"] == default for r in rulesets)
            else (rulesets[0]["name"] if rulesets else None)}


def read_choice(body: Mapping[str, Any], seats: int) -> GameChoice:
    """``{"ruleset", "options": {…}, "names": {"3": "Анна", …}, "deal": "host"|"typed", "cards"}``
    checked by :func:`~voicehost.host.check_setup`, the one check ``voicehost run``, a table
    file and a journal's header go through; :class:`SetupError` with the first fault."""
    unknown = set(body) - {"ruleset", "options", "names", "deal", "cards"}
    if unknown:
        raise SetupError(UnknownSetupField(", ".join(sorted(unknown))))
    options, names = body.get("options", {}), body.get("names", {})
    if not isinstance(options, dict) or not isinstance(names, dict):
        raise SetupError(SetupNotObjects())
    typed = [(key, value) for key, value in names.items()
             if not (isinstance(value, str) and not value.strip())]   # an empty field: no name
    deal = body.get("deal", "host")
    if deal not in DEAL_MODES:
        raise SetupError(NoDealMode())
    try:
        return check_setup(SetupRequest(ruleset=body.get("ruleset"), options=options, names=typed, deal=deal,
                                        cards=body.get("cards"), seats=seats))
    except SetupRefused as err:
        raise SetupError(SetupNotTaken(setup_refusal_text(err))) from None
