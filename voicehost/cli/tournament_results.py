"""``voicehost tournament correct|hide|open``: the results after the games — a finished game
corrected with a reason and the corrector's name (:mod:`voicehost.records.corrections`), and the
standings kept off the public screen until the organiser opens them."""

from __future__ import annotations

import argparse
from typing import Any

from voicehost.cli.args import positive
from voicehost.i18n import N_, _

DB_HELP = N_("sqlite:///FILE or postgresql://USER@HOST/DB (default: records.sqlite in the data dir)")


def add_result_commands(sub: Any) -> None:
    correct = _with_db(sub.add_parser("correct", help=_("correct a finished game: its new protocol, with a reason "
                                                        "and who corrects it (every version is kept)")))
    correct.add_argument("name", metavar=_("NAME"))
    correct.add_argument("--round", type=positive, required=True, metavar="N")
    correct.add_argument("--table", type=positive, required=True, metavar="N")
    correct.add_argument("--protocol", required=True, metavar=_("FILE.json"),
                         help=_("the corrected protocol (records show GAME --json gives the stored one)"))
    correct.add_argument("--reason", required=True, metavar=_("TEXT"), help=_("why (a protest upheld, …)"))
    correct.add_argument("--by", required=True, metavar=_("NAME"), help=_("who corrects it (the chief judge)"))
    correct.set_defaults(run=_correct)
    for command, shown, text in (("hide", False, N_("keep the standings off the public screen (only the seating)")),
                                 ("open", True, N_("show the standings on the public screen again"))):
        parser = _with_db(sub.add_parser(command, help=_(text)))
        parser.add_argument("name", metavar=_("NAME"))
        parser.set_defaults(run=_shown, shown=shown)


def _with_db(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--db", default=None, metavar="URL", help=_(DB_HELP))
    return parser


def _correct(args: argparse.Namespace) -> int:
    from pathlib import Path

    from voicehost.files import read_json
    from voicehost.records.corrections import correct_game
    from voicehost.records.places import TournamentPlace
    from voicehost.records.store import open_records

    protocol = read_json(Path(args.protocol), "protocol")
    at = TournamentPlace(args.name, args.round, args.table)
    with open_records(args.db) as db:
        version = correct_game(db, at, protocol, args.reason, args.by)
    print(_("{at}: version {version} stored ({reason}; {by}); the standings use it").format(
        at=at, version=version, reason=args.reason.strip(), by=args.by.strip()))
    return 0


def _shown(args: argparse.Namespace) -> int:
    from voicehost.records.store import open_records
    from voicehost.records.tournament import show_standings

    with open_records(args.db) as db:
        show_standings(db, args.name, args.shown)
    print((_("{name}: the standings are on the public screen") if args.shown
           else _("{name}: the standings are hidden; the screen shows the seating only")).format(name=args.name))
    return 0
