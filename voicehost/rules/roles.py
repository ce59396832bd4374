"""Roles and the teams they play for."""

from __future__ import annotations

from enum import StrEnum


class Team(StrEnum):
    RED = "red"
    BLACK = "black"
    YAKUZA = "yakuza"
    MANIAC = "maniac"


class Role(StrEnum):
    CITIZEN = "citizen"
    SHERIFF = "sheriff"
    COMMISSAR = "commissar"
    DOCTOR = "doctor"
    PUTANA = "putana"
    DON = "don"
    MAFIA = "mafia"
    YAKUZA = "yakuza"
    MANIAC = "maniac"

    @property
    def team(self) -> Team:
        return _TEAM[self]


# A card's own team. The club maniac who joins the mafia is black: games override ``Game.team``.
_TEAM = {role: Team.RED for role in Role} | {
    Role.DON: Team.BLACK, Role.MAFIA: Team.BLACK, Role.YAKUZA: Team.YAKUZA, Role.MANIAC: Team.MANIAC,
}


# Each role's and team's name, for code that reads many (the protocol, the scores): an enum's
# ``.value`` is a Python-level descriptor, a dict lookup is not.
ROLE_NAMES: dict[Role, str] = {role: role.value for role in Role}
TEAM_NAMES: dict[Team, str] = {team: team.value for team in Team}


def parse_role(text: str) -> Role:
    """The role named ``text``; ValueError names the known roles otherwise."""
    try:
        return Role(text)
    except ValueError:
        known = ", ".join(r.value for r in Role)
        raise ValueError(f"unknown role {text!r} (known: {known})") from None
