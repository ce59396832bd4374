"""Roles and the teams they play for."""

from __future__ import annotations

from enum import StrEnum


class Team(StrEnum):
    RED = "red"
    BLACK = "black"


class Role(StrEnum):
    CITIZEN = "citizen"
    SHERIFF = "sheriff"
    DON = "don"
    MAFIA = "mafia"

    @property
    def team(self) -> Team:
        return _TEAM[self]


_TEAM = {role: Team.BLACK if role in (Role.DON, Role.MAFIA) else Team.RED for role in Role}


def parse_role(text: str) -> Role:
    """The role named ``text``; ValueError names the known roles otherwise."""
    try:
        return Role(text)
    except ValueError:
        known = ", ".join(r.value for r in Role)
        raise ValueError(f"unknown role {text!r} (known: {known})") from None
