"""``voicehost tournament …``: a club's tournament evening (issue 33). Each part adds its own
subcommand to this group; here: ``tournament screen`` (:mod:`voicehost.cli.tournament_screen`)."""

from __future__ import annotations

from voicehost.cli.args import Commands, Parser
from voicehost.cli.tournament_screen import add_screen_command


def add_commands(commands: Commands) -> None:
    tournament = commands.add_parser("tournament", help="a tournament evening: the tournament screen")
    sub = tournament.add_subparsers(dest="tournament_command", required=True, parser_class=Parser)
    add_screen_command(sub)
