"""``voicehost config``: where the data comes from (``paths``), a club's own copy of the
defaults to edit (``init``), and a check of a club's folder (``check``) with the usual
one-line errors — before the table is switched on, not in the middle of a game."""

from __future__ import annotations

import argparse
from pathlib import Path

from voicehost.cli.args import Commands
from voicehost.config import (
    CONFIG_FOLDERS,
    cache_dir,
    config_layers,
    data_dir,
    packaged_config,
    read_toml,
    ruleset_from_file,
    user_config_dir,
)
from voicehost.i18n import _, ngettext
from voicehost.rules import InputError
from voicehost.rules.catalog import names as ruleset_names


def add_commands(commands: Commands) -> None:
    config_cmd = commands.add_parser("config", help=_("the data files: paths, a club's own copy, a check"))
    actions = config_cmd.add_subparsers(dest="action", required=True, parser_class=type(config_cmd))
    paths = actions.add_parser("paths", help=_("the config layers (first wins) and the data and cache folders"))
    paths.set_defaults(run=_paths)
    init = actions.add_parser("init", help=_("copy the default config into DIR for a club to edit"))
    init.add_argument("dir", nargs="?", default=None, metavar=_("dir"),
                      help=_("default: the user's config folder (first layer)"))
    init.set_defaults(run=_init)
    check = actions.add_parser("check", help=_("validate every file of a club's config folder"))
    check.add_argument("dir", nargs="?", default=None, metavar=_("dir"),
                       help=_("default: every layer, as voicehost reads them"))
    check.set_defaults(run=_check)


def _paths(args: argparse.Namespace) -> int:
    for number, layer in enumerate(config_layers(), start=1):
        absent = "" if layer.is_dir() else _("  (absent)")
        print(_("config {number}: {layer}").format(number=number, layer=layer) + absent)
    print(_("data: {folder}").format(folder=data_dir()))
    print(_("cache: {folder}").format(folder=cache_dir()))
    return 0


def _init(args: argparse.Namespace) -> int:
    target = Path(args.dir) if args.dir else user_config_dir()
    copied, kept = init_config(target)
    print(ngettext("{target}: {copied} file copied", "{target}: {copied} files copied", copied).format(
        target=target, copied=copied) + (ngettext(", {kept} already there kept", ", {kept} already there kept",
                                                  kept).format(kept=kept) if kept else ""))
    print(activation_hint(target))
    return 0


def activation_hint(target: Path) -> str:
    """One line: whether voicehost now reads ``target``, and if not, how to make it (the
    layers of :mod:`voicehost.config`: ``$VOICEHOST_CONFIG``, the user's folder, /etc/voicehost)."""
    import os

    from voicehost.config import SYSTEM_CONFIG
    where = target.expanduser().resolve()
    override = os.environ.get("VOICEHOST_CONFIG")
    check = _("Check: voicehost config paths.")
    if override and Path(override).expanduser().resolve() == where:
        return _("The folder is already in use: VOICEHOST_CONFIG points to it. {check}").format(check=check)
    shadowed = _(" (but VOICEHOST_CONFIG={override} is read before it now: unset VOICEHOST_CONFIG)").format(
        override=override) if override else ""
    if where == user_config_dir().resolve():
        return _("The folder is already in use for this user{shadowed}. {check}").format(shadowed=shadowed, check=check)
    if where == SYSTEM_CONFIG.resolve():
        return _("The folder is already in use for the voicehost service and for users without a folder of their own "
                 "in {user}{shadowed}. {check}").format(user=user_config_dir(), shadowed=shadowed, check=check)
    return _("For voicehost to read this folder, set before the commands: export VOICEHOST_CONFIG={folder} (or create "
             "it in {user}, for the service in {system}). {check}").format(
                 folder=where, user=user_config_dir(), system=SYSTEM_CONFIG, check=check)


def init_config(target: Path) -> tuple[int, int]:
    """Copy the packaged defaults into ``target``; a file already there is the club's and is kept."""
    import shutil

    source = packaged_config()
    copied = kept = 0
    for folder in CONFIG_FOLDERS:
        for path in sorted((source / folder).glob("*.toml")):
            destination = target / folder / path.name
            if destination.exists():
                kept += 1
                continue
            try:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, destination)
            except OSError as err:
                raise InputError(str(destination), err.strerror or str(err)) from None
            copied += 1
    return copied, kept


def _check(args: argparse.Namespace) -> int:
    folders = [Path(args.dir)] if args.dir else config_layers()
    if args.dir and not folders[0].is_dir():
        raise InputError(args.dir, _("no such folder"))
    checked = sum(check_folder(folder) for folder in folders if folder.is_dir())
    print(ngettext("ok: {checked} file checked", "ok: {checked} files checked", checked).format(checked=checked))
    return 0


def check_folder(folder: Path) -> int:
    """Validate every data file of ``folder`` as voicehost would load it; the first mistake
    raises :class:`InputError` naming the file and key. Returns how many files were checked."""
    from voicehost.language.phrasebook import phrasebook_from_file

    checked = 0
    for path in sorted((folder / "rules").glob("*.toml")):
        if path.stem not in ruleset_names():
            raise InputError(str(path),
                             _("no ruleset is called {name!r} (known: {known})").format(
                                 name=path.stem, known=", ".join(ruleset_names())))
        ruleset_from_file(path.stem, path)
        checked += 1
    for path in sorted((folder / "phrases").glob("*.toml")):
        phrasebook_from_file(path)
        checked += 1
    for path in sorted((folder / "tables").glob("*.toml")):
        check_table(path)
        checked += 1
    for path in sorted((folder / "lexicon").glob("*.toml")):
        check_lexicon(path)
        checked += 1
    return checked


def check_lexicon(path: Path) -> None:
    """A pronunciation lexicon as the voice loads it (its words, stresses and spellings)."""
    from voicehost.language.lexicon import lexicon_from_mapping

    lexicon_from_mapping(read_toml(path), str(path))


def check_table(path: Path) -> None:
    """A table file as ``serve`` loads it at boot: the pins, ``[audio]``, ``[ears]``, ``[web]``, the
    game it starts (``[game]``: through the one setup check, so its ruleset must exist, its options
    be the ruleset's and the table's seat count one the ruleset plays) and ``[records]``."""
    from hw.pinmap import PinMapError, pinmap_from_mapping
    from voicehost.host import table_game
    from voicehost.host.ears import ears_from_mapping
    from voicehost.host.table_file import audio_from_mapping, load_web_pin
    from voicehost.records.table import table_records

    data = read_toml(path)  # through the gate for outside files first (no FIFO, UTF-8, depth)
    try:
        pinmap_from_mapping(data, str(path))
    except PinMapError as err:
        raise InputError(err.place, str(err).removeprefix(f"{err.place}: ")) from None
    audio_from_mapping(data.get("audio", {}), f"{path}: audio")
    ears_from_mapping(data.get("ears", {}), f"{path}: ears")
    load_web_pin(path)
    table_game(path)
    table_records(path)
