"""``voicehost records show GAME [--history] [--json]``: one stored game's protocol, and with
``--history`` every version of it — the one stored first, then each correction after the game
with its reason, who made it and when (:mod:`voicehost.records.corrections`)."""

from __future__ import annotations

import argparse
from typing import Any

from voicehost.cli.args import print_json
from voicehost.i18n import N_, _

DB_HELP = N_("sqlite:///FILE or postgresql://USER@HOST/DB (default: records.sqlite in the data dir)")


def add_show_command(sub: Any) -> None:
    show = sub.add_parser("show", help=_("one game's protocol; --history: every version of it"))
    show.add_argument("game", metavar=_("GAME"), help=_("the game's id (its first characters are enough)"))
    show.add_argument("--history", action="store_true", help=_("every version, with reason and corrector"))
    show.add_argument("--json", action="store_true")
    show.add_argument("--db", default=None, metavar="URL", help=_(DB_HELP))
    show.set_defaults(run=_show)


def _show(args: argparse.Namespace) -> int:
    from voicehost.records.corrections import history
    from voicehost.records.store import open_records

    with open_records(args.db) as db:
        game_id, versions = history(db, args.game)
    if args.json:
        print_json([{"version": v.version, "reason": v.reason, "corrected_by": v.corrected_by,
                     "corrected_at": v.corrected_at.isoformat(timespec="seconds"), "protocol": v.protocol}
                    for v in versions] if args.history else versions[-1].protocol)
        return 0
    latest = versions[-1].protocol
    print(_("game {game}: {ruleset}, winner {winner}; version {version}").format(
        game=str(game_id)[:8], ruleset=latest.get("ruleset"), winner=latest.get("winner") or "-",
        version=versions[-1].version))
    if not args.history:
        return 0
    for before, version in zip([None, *versions], versions, strict=False):
        when = f"{version.corrected_at:%Y-%m-%d %H:%M}"
        if before is None:
            print(_("version 1, {when}: as stored").format(when=when))
            continue
        changed = sorted(key for key in {*before.protocol, *version.protocol}
                         if before.protocol.get(key) != version.protocol.get(key))
        print(_("version {version}, {when}, {by}: {reason} (changed: {keys})").format(
            version=version.version, when=when, by=version.corrected_by, reason=version.reason,
            keys=", ".join(changed)))
    return 0
