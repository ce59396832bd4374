"""The rating sites' commands: ``tournament set`` (a tournament's ids on the sites; ``tournament
create`` takes the same options), ``tournament upload`` (the games to mafiaratings) and
``records import --from SITE`` (see :mod:`voicehost.records.sites`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from voicehost.i18n import _, ngettext
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.records.store import Records

def add_site_options(parser: argparse.ArgumentParser) -> None:
    """``--mafiaratings-club N`` … (each key's help is :data:`voicehost.tournament.site_ids.KEYS`')."""
    from voicehost.tournament.site_ids import KEYS

    group = parser.add_argument_group(_("the tournament's ids on the rating sites"))
    for key in KEYS:
        group.add_argument(key.option, default=None, metavar="N" if key.kind != "rules" else _("CODE"),
                           help=_(key.help))


def check_site_options(args: argparse.Namespace) -> None:
    from voicehost.tournament.site_ids import given

    given(vars(args))


def store_site_options(records: Records, name: str, args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    from voicehost.records.sites.settings import store_settings
    from voicehost.tournament.site_ids import given

    settings = given(vars(args))
    if settings:
        store_settings(records, name, settings)
    return settings


def add_set_command(sub: Any, with_db: Any) -> None:
    change = with_db(sub.add_parser("set", help=_("a tournament's ids on the rating sites (mafiaratings, Polemica)")))
    change.add_argument("name", metavar=_("NAME"))
    add_site_options(change)
    change.set_defaults(run=_set)


def _set(args: argparse.Namespace) -> int:
    from voicehost.records.sites.settings import load_settings
    from voicehost.records.store import open_records
    from voicehost.tournament.site_ids import given

    if not given(vars(args)):
        raise InputError("tournament set", _("name at least one setting (--mafiaratings-club N, …)"))
    with open_records(args.db) as db:
        store_site_options(db, args.name, args)
        settings = load_settings(db, args.name)
    for site, values in sorted(settings.items()):
        print(f"{site}: " + ", ".join(f"{key} {value}" for key, value in sorted(values.items())))
    return 0


def add_upload_command(sub: Any, with_db: Any) -> None:
    send = with_db(sub.add_parser("upload", help=_("send the tournament's games to a rating site, each once")))
    send.add_argument("name", metavar=_("NAME"))
    send.add_argument("--site", choices=["mafiaratings"], required=True)
    send.add_argument("--token", required=True, help=_("your API token on the site"))
    send.add_argument("--url", default=None, help=_("the site's create operation (default: mafiaratings.com's)"))
    send.set_defaults(run=_upload)


def _upload(args: argparse.Namespace) -> int:
    from voicehost.records.sites.upload import DEFAULT_URL, upload
    from voicehost.records.store import open_records

    with open_records(args.db) as db:
        report = upload(db, args.name, args.token, args.url or DEFAULT_URL)
    print(_("{site}: {sent} sent and accepted, {before} accepted before").format(
        site=args.site, sent=report.accepted, before=report.already))
    if report.refused:
        raise InputError(args.site, ngettext("{count} game refused, it is sent again next time: {why}",
                                             "{count} games refused, they are sent again next time: {why}",
                                             len(report.refused)).format(count=len(report.refused),
                                                                         why=report.refused[-1]))
    return 0
