"""The ``voicehost`` command: one subcommand group per module of this package, each thin —
parse the arguments, call the library, print. Every bad input ends in one line on stderr
(``voicehost: error: <where>: <what>``) and exit code 2, never a traceback."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from voicehost import __version__
from voicehost.cli import bench, config, ears, games, hw, records, rules, run, service, voice
from voicehost.cli.args import Parser
from voicehost.rules import InputError
from voicehost.simulation.table_level import Divergence

COMMAND_GROUPS = (games, voice, rules, run, ears, hw, records, bench, config, service)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="voicehost", description="A voice host for Mafia at a real table.")
    parser.add_argument("--version", action="version", version=f"voicehost {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for group in COMMAND_GROUPS:
        group.add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except InputError as err:
        print(f"voicehost: error: {err}", file=sys.stderr)
        return 2
    except Divergence as err:  # a bug in the live host, not in the input: said in one line all the same
        print(f"voicehost: error: table level: {err} (the live host and the rules engine disagree; "
              "please report it with the script)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
