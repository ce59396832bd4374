"""What every command shares: argument types that refuse bad values in one line, and JSON output."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, NoReturn

from voicehost.i18n import N_, _, ngettext
from voicehost.rules import InputError

# argparse's own messages, as Python's argparse spells them (it looks them up with gettext in its
# 'argparse' domain): listed here so that tools/translations extracts them into our catalog, and
# translated through it once ``speak_argparse_in_our_language`` has run.
ARGPARSE_MESSAGES = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("show program's version number and exit"), N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"), N_("the following arguments are required: %s"),
    N_("not allowed with argument %s"), N_("ignored explicit argument %r"), N_("one of the arguments %s is required"),
    N_("expected one argument"), N_("expected at most one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"), N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"), N_("can't open '%(filename)s': %(error)s"),
    N_("%(prog)s: error: %(message)s\n"),
)


def _argparse_plurals() -> None:
    """The one argparse message with a count (extracted, never called)."""
    ngettext("expected %s argument", "expected %s arguments", 2)


def speak_argparse_in_our_language() -> None:
    """argparse calls the module-level ``_`` and ``ngettext`` it imported from gettext each time it
    says something: pointed at ours, its usage, its headings and its errors follow ``--lang``."""
    vars(argparse).update({"_": _, "ngettext": ngettext})


class Formatter(argparse.HelpFormatter):
    """argparse's help layout, its width found as :func:`shutil.get_terminal_size` finds it but
    without importing :mod:`shutil` (which brings bz2, lzma and fnmatch: about 4 ms of a command
    that prints one line; argparse makes a formatter for every argument added)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, terminal_columns() - 2 if width is None else width)


def terminal_columns() -> int:
    """``$COLUMNS``, else the terminal's width, else 80 (shutil.get_terminal_size's order)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isascii() and columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80   # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class Parser(argparse.ArgumentParser):
    """argparse with the program's one-line error: ``voicehost …: error: … (see --help)``, exit 2,
    and :class:`Formatter`'s width."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, _("{prog}: error: {message} (see --help)").format(prog=self.prog, message=message) + "\n")

    def add_subparsers(self, **kwargs: Any) -> Any:
        """A group's commands are named «command» in the language in use (its usage line and its
        refusals: «не хватает обязательных аргументов: команда»), not by the attribute that stores
        the choice (``records_command``, a code); ``--help`` lists them one by one."""
        kwargs.setdefault("metavar", _("command"))
        return super().add_subparsers(**kwargs)


Commands = Any  # the subparsers action every command module adds its commands to

# The --audio values, for the commands' help; the same words as voicehost.host.voice.AUDIO_CHOICES
# (a test holds them equal), kept here so that building the parser imports no audio stack.
AUDIO_CHOICES = N_("default, device:NAME, file:OUT.wav, null, or off (no voice)")


def audio_help() -> str:
    """The --audio help of the commands that play a game, in the language in use."""
    return _("{choices}; default: the table's").format(choices=_(AUDIO_CHOICES))


def add_judge_audio_argument(parser: argparse.ArgumentParser) -> None:
    """``--judge-audio``: the judge's private earpiece (docs/accessibility.md)."""
    parser.add_argument("--judge-audio", default=None, metavar=_("OUTPUT"),
                        help=_("the judge's private earpiece: the deal, the night, who voted, the answers to his "
                               "commands (default, device:NAME, file:OUT.wav, null or off; default: the table's "
                               "[audio] judge_output, off)"))


def positive(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 18 or int(text) < 1:
        raise argparse.ArgumentTypeError(_("{text!r} is not a positive whole number").format(text=text))
    return int(text)


def seat_count(text: str) -> int:
    value = positive(text)
    if value > 99:
        raise argparse.ArgumentTypeError(_("{value} seats is more than any table").format(value=value))
    return value


def number_between(low: float, high: float, unit: str = "") -> Any:
    """An argparse type: a number from ``low`` to ``high`` (``unit`` names it in the error)."""
    def parse(text: str) -> float:
        unit_text = _(unit) if unit else ""   # _("") would be the catalog's header
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError((_("{text!r} is not a number of {unit}") if unit else
                                              _("{text!r} is not a number")).format(
                                                  text=text, unit=unit_text)) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError((_("{text} is not between {low:g} and {high:g} {unit}") if unit else
                                              _("{text} is not between {low:g} and {high:g}")).format(
                                                  text=text, low=low, high=high, unit=unit_text))
        return value
    return parse


seconds = number_between(0, 600, N_("seconds"))
speed = number_between(0.1, 1000)


def round_number(text: str) -> int:
    value = positive(text)
    if value > 999:
        raise argparse.ArgumentTypeError(_("{value} is more than 999").format(value=value))
    return value


def add_tournament_arguments(command: argparse.ArgumentParser) -> None:
    """``--tournament NAME --round R --tournament-table T``: the game's place in a tournament,
    carried by its journal and protocol to the club records."""
    command.add_argument("--tournament", default=None, metavar=_("NAME"),
                         help=_("the tournament this game belongs to (with --round and --tournament-table)"))
    command.add_argument("--round", type=round_number, default=None, metavar="R", help=_("the tournament's round"))
    command.add_argument("--tournament-table", type=round_number, default=None, metavar="T",
                         help=_("the tournament's table number this game is played at"))


def tournament_of(args: argparse.Namespace) -> dict[str, Any] | None:
    """The place the tournament options give, or None; all three or none."""
    given = {"name": getattr(args, "tournament", None), "round": getattr(args, "round", None),
             "table": getattr(args, "tournament_table", None)}
    if all(value is None for value in given.values()):
        return None
    if any(value is None for value in given.values()):
        raise InputError("--tournament", _("give --tournament, --round and --tournament-table together"))
    if not str(given["name"]).strip().isprintable():    # an empty name is the setup's to refuse
        raise InputError("--tournament", _("the name holds a control or direction character"))
    return given


def add_web_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--web", default=None, metavar=_("HOST:PORT"),
                         help=_("also serve the table display (/) and the judge console (/judge) here, "
                              "e.g. 0.0.0.0:8080"))
    command.add_argument("--web-pin", default=None, metavar="PIN",
                         help=_("the judge console's PIN (default: [web] pin of the table file, else a random one, "
                              "printed at start)"))
    add_overlay_arguments(command)


def add_overlay_arguments(command: argparse.ArgumentParser) -> None:
    """The stream overlay's key and delay (docs/broadcast.md)."""
    command.add_argument("--overlay-key", default=None, metavar=_("KEY"),
                         help=_("the stream key of /overlay/roles (default: [web] overlay_key of the table file, "
                              "else a random one, printed at start)"))
    command.add_argument("--overlay-delay", type=float, default=None, metavar=_("SECONDS"),
                         help=_("hold /overlay/roles back this long, the stream's own delay (default: [web] "
                              "overlay_delay_s of the table file, else 0)"))


def overlay_settings(args: argparse.Namespace, table: Any = None) -> Any:
    """``--overlay-key``/``--overlay-delay``, else the table file's ``[web]``, checked."""
    from voicehost.host.table_file import load_overlay, table_path
    from voicehost.web.overlay import check_settings

    key, delay = load_overlay(table_path(table)) if table is not None else (None, 0)
    given_key, given_delay = getattr(args, "overlay_key", None), getattr(args, "overlay_delay", None)
    return check_settings(given_key if given_key is not None else key,
                          given_delay if given_delay is not None else delay,
                          "--overlay-key" if given_key is not None else "[web] overlay_key",
                          "--overlay-delay" if given_delay is not None else "[web] overlay_delay_s")


def web_around(args: argparse.Namespace, table: Any = None) -> Any:
    """The ``around`` hook that serves the web display while the game runs, or None without --web."""
    if not args.web:
        return None
    import sys

    from voicehost.web import serving

    return serving(args.web, web_pin(args, table), lambda line: print(line, file=sys.stderr, flush=True),
                   overlay_settings(args, table))


def web_pin(args: argparse.Namespace, table: Any = None) -> str | None:
    """``--web-pin``, else the table file's ``[web] pin``, else None (a random one is made up)."""
    from voicehost.host.table_file import load_web_pin, table_path

    pin: str | None = args.web_pin
    if pin is not None and (not pin.isdigit() or not 4 <= len(pin) <= 12):
        raise InputError("--web-pin", _("must be 4 to 12 digits"))
    if pin is None and table is not None:
        pin = load_web_pin(table_path(table))
    return pin


def print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))
