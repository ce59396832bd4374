"""The ``voicehost`` command: one subcommand group per module of this package, each thin —
parse the arguments, call the library, print. Every bad input ends in one line on stderr
(``voicehost: error: <where>: <what>``) and exit code 2, never a traceback."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from functools import cache

from voicehost import __version__
from voicehost.cli.args import Parser, speak_argparse_in_our_language
from voicehost.files import is_text
from voicehost.i18n import LANGUAGES, _, language, language_from, said, set_language
from voicehost.rules import InputError

#: The command modules of this package, in the order ``--help`` lists their commands.
COMMAND_GROUPS = ("games", "voice", "rules", "run", "ears", "hw", "records", "tournament", "bench", "config",
                  "service", "overlay")

#: Which module adds each command. A command asked for by name imports and builds only its own
#: module's commands: importing every module and building every command's arguments cost about
#: 25 ms of a 75 ms ``voicehost rules`` here, and a Pi's core is 3–5× slower. ``--help``, no
#: command or an unknown one still build them all. A test holds this equal to what the modules add.
COMMAND_MODULES = {
    "simulate": "games", "resume": "games", "demo": "games", "voice": "voice", "parse": "rules",
    "rules": "rules", "run": "run", "model": "ears", "listen": "ears", "ears": "ears", "hw": "hw",
    "records": "records", "tournament": "tournament", "bench": "bench", "config": "config",
    "serve": "service", "service": "service", "overlay": "overlay",
}


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command, in the language in use now (its headings are translated as
    it is built)."""
    return _parser_in(language(), COMMAND_GROUPS)


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser ``argv`` needs: only its command's module when the command is named before any
    option but ``--lang`` (so ``voicehost --help rules`` still lists every command)."""
    group = COMMAND_MODULES.get(_command_named(argv) or "")
    return _parser_in(language(), (group,) if group else COMMAND_GROUPS)


def _command_named(argv: Sequence[str]) -> str | None:
    """The first argument after the global ``--lang``, if it is no option (``_lang_first`` has
    already moved every ``--lang`` to the front)."""
    at = 0
    while at < len(argv):
        arg = argv[at]
        if arg == "--lang":
            at += 2
        elif arg.startswith("--lang="):
            at += 1
        else:
            return None if arg.startswith("-") else arg
    return None


@cache
def _parser_in(lang: str, groups: tuple[str, ...]) -> argparse.ArgumentParser:
    """Built once per process, language and set of modules: ``main`` may be called many times in
    one (a fuzzer, the test suite), and building every command's arguments takes about 10 ms."""
    speak_argparse_in_our_language()
    parser = Parser(prog="voicehost", description=_("A voice host for Mafia at a real table."))
    parser.add_argument("--version", action="version", version=f"voicehost {__version__}",
                        help=_("show program's version number and exit"))  # argparse's default is never translated
    parser.add_argument("--lang", choices=LANGUAGES, default=None,
                        help=_("the language of everything printed, before or after the command (default: "
                               "Russian; English with VOICEHOST_LANG=en or an English LANG)"))
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for group in groups:
        importlib.import_module(f"voicehost.cli.{group}").add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Once the arguments are read, everything imported so far (modules, the
    ruleset, the phrasebook) lives as long as the process: ``gc.freeze()`` takes it out of the
    collector's sight, so the full collections a long simulation, import or evening triggers
    do not walk it again each time (a fifth of the time of ``bench engine`` on classic)."""
    as_program = argv is None  # not a test calling main() again and again in one process
    argv = list(sys.argv[1:] if argv is None else argv)
    argv = _lang_first(argv)
    asked = _language_asked(argv)
    # Before anything is printed, argparse's errors included. A process's environment does not
    # change under it: resolved once, not again for each of the ~500 messages --help says (a test
    # calling main() again and again in one process changes it, and gets it read each time).
    set_language(asked if asked is not None or not as_program else language_from(os.environ))
    for number, arg in enumerate(argv, start=1):
        if not is_text(arg):  # bytes that are not UTF-8, as Python hands them over (surrogates)
            return _error(_("argument {number} ({text})").format(number=number, text=ascii(arg)[:60]),
                          _("is not valid UTF-8 text"))
    args = parser_for(argv).parse_args(argv)
    if as_program:
        gc.freeze()
    try:
        return int(args.run(args))
    except InputError as err:
        return _error(err.place, said(err.template, err.values if err.filled else None))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as err:  # a path the system refuses (too long, a directory, no permission …)
        return _error(str(err.filename or "voicehost"), err.strerror or str(err))
    except RecursionError:
        return _error(_("input"), _("nested too deeply to read"))
    except Exception as err:  # last: a clause after it would never see what it re-raises
        if not _is_divergence(err):
            raise
        # A bug in the live host, not in the input: said in one line all the same.
        print(_("voicehost: error: table level: {error} (the live host and the rules engine disagree; "
                "please report it with the script)").format(error=err), file=sys.stderr)
        return 1


def _lang_first(argv: list[str]) -> list[str]:
    """``--lang`` after the command too (``voicehost demo --lang en``: ``./setup.sh demo --lang en``
    passes its arguments on so), moved before it, where the parser and :func:`_language_asked`
    take it: one global option, not one per command. Not after ``--``; a ``--lang`` with no value
    stays where it is (argparse refuses it there)."""
    lifted: list[str] = []
    rest: list[str] = []
    at = 0
    while at < len(argv):
        arg = argv[at]
        if arg == "--":
            rest.extend(argv[at:])
            break
        if arg.startswith("--lang="):
            lifted.append(arg)
        elif arg == "--lang" and at + 1 < len(argv):
            lifted.extend(argv[at:at + 2])
            at += 1
        else:
            rest.append(arg)
        at += 1
    return [*lifted, *rest] if lifted else argv


def _language_asked(argv: list[str]) -> str | None:
    """``--lang`` among the global options (before the command), read ahead of argparse so that
    argparse's own messages are in that language; None (the environment's) if absent or not one
    of ours (argparse then says so)."""
    for at, arg in enumerate(argv):
        if arg.startswith("--lang="):
            value = arg.removeprefix("--lang=")
        elif arg == "--lang" and at + 1 < len(argv):
            value = argv[at + 1]
        elif arg.startswith("-"):
            continue
        else:
            return None
        return value if value in LANGUAGES else None
    return None


def _is_divergence(err: Exception) -> bool:
    """Whether ``err`` is the table level's Divergence, without importing the table level for
    the commands that never load it (it could not have raised then)."""
    module = sys.modules.get("voicehost.simulation.table_level")
    return module is not None and isinstance(err, module.Divergence)


def _error(place: str, message: str) -> int:
    """The one line every bad input ends in (exit 2), printable on any terminal."""
    line = (_("voicehost: error: {place}: {message}") if place else _("voicehost: error: {message}")).format(
        place=place, message=message)
    line = " ".join(line.split())  # one line, whatever the message held
    sys.stderr.write(line.encode("utf-8", "backslashreplace").decode("utf-8") + "\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
