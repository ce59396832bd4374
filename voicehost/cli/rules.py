"""``voicehost parse`` and ``voicehost rules``: what the host understands in a phrase, and the
rulesets it plays with their options."""

from __future__ import annotations

import argparse
import json

from voicehost.cli.args import Commands, print_json, seat_count
from voicehost.i18n import _, say
from voicehost.rules import InputError


def add_commands(commands: Commands) -> None:
    parse_cmd = commands.add_parser("parse", help=_("what the host understands in a phrase"))
    parse_cmd.add_argument("text", nargs="+", metavar=_("text"), help=_("the words, as the recognizer writes them"))
    parse_cmd.add_argument("--seats", type=seat_count, default=None,
                           help=_("table size: flags numbers that are no seat"))
    # One word (or a comma-separated list) per --forbidden, so the text can follow it:
    # «voicehost parse --forbidden честно выставляю пятого».
    parse_cmd.add_argument("--forbidden", action="append", default=[], metavar=_("WORD[,WORD…]"),
                           help=_("a club's forbidden word to report (repeatable, or comma-separated)"))
    parse_cmd.set_defaults(run=_parse)

    rules_cmd = commands.add_parser("rules", help=_("list rulesets, or show one's options"))
    rules_cmd.add_argument("action", nargs="?", choices=["show"], help=_("show NAME"))
    rules_cmd.add_argument("name", nargs="?", metavar=_("name"), help=_("a ruleset name"))
    rules_cmd.set_defaults(run=_rules)


def _parse(args: argparse.Namespace) -> int:
    from voicehost.language.parser import forbidden_words, parse

    intents = []
    for intent in parse(" ".join(args.text), forbidden_words([w for item in args.forbidden for w in item.split(',')])):
        body = intent.to_dict()
        if args.seats is not None and "seat" in body and not 1 <= body["seat"] <= args.seats:
            body["not_a_seat"] = True
        intents.append(body)
    print_json({"intents": intents})
    return 0


def _rules(args: argparse.Namespace) -> int:
    from voicehost.config import load_ruleset, ruleset_names

    if args.action is None:
        for name in ruleset_names():
            ruleset = load_ruleset(name)
            print(f"{name:10} {ruleset.title} " + _("(seats: {sizes})").format(sizes=ruleset.describe_sizes()))
        return 0
    if args.name is None:
        raise InputError("rules show", _("name a ruleset (voicehost rules)"))
    ruleset = load_ruleset(args.name)
    print(f"{ruleset.name}: {ruleset.title}")
    print(_("  seats: {sizes}").format(sizes=ruleset.describe_sizes()))
    for size, cast in ruleset.cast.items():
        # «мафия — 2», as a refused deal counts the cards too: a count before a role word would
        # need the word declined («2 мафии»), which the catalog's role words are not.
        cards = (_("{count} {role}").format(count=n, role=_(role.value)) for role, n in cast.items())
        print(_("  cast at {size}: ").format(size=size) + ", ".join(cards))
    print(_("  timers: ") + ", ".join(f"{k} = {v}" for k, v in ruleset.timers.items()))
    print(_("  options:"))
    for spec in ruleset.options.values():
        default = json.dumps(spec.default)
        print(_("  {name} = {default}  [{values}]  source: {source}").format(
                  name=spec.name, default=default, values=say(spec.describe_values()), source=say(spec.source)))
        if spec.doc:   # the shipped files' texts are in the catalog (voicehost.language.rule_docs)
            print(f"      {_(spec.doc)}")
    return 0
