"""A finished game's points per seat under a scoring scheme, and the standings row they add up to.

The one place a seat is scored: the game's own protocol scores (:meth:`SportGame.scores`), the
club ratings, the tournament standings, their exports and the club screen all call
:func:`score_game` (and :func:`ci_points` for the tournament's compensation points); the
standings travel as :class:`Standing` rows with :data:`COLUMNS` to every reader.

A scheme is a flat table of ``name = number`` (a ruleset's ``[scoring.NAME]``, editable by a
club); :data:`SCHEME_KEYS` says what each name means. docs/rules.md "Tournament scoring" gives
each value of the shipped schemes with its source (the ``fiim`` scheme is mafiaratings' «ФИИМ»,
its scoring 19).

Pure: no I/O, no clock; what a game decided arrives as :class:`GameFacts`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .input_error import N_, InputError
from .records import quicken
from .roles import Role, Team

FOUL_LIMIT = 4   # the 4th foul removes a player (a removal with this many fouls is «по фолам»)

SCHEME_KEYS: Mapping[str, str] = {
    "won": "each seat of the winning team",
    "won_red": "each seat of the winning team, when red won",
    "won_black": "each seat of the winning team, when black won",
    "alive": "each seat alive at the end",
    **{f"{role.value}_alive": f"the {role.value} alive at the end" for role in Role},
    "best_player": "the table's best-player vote",
    "best_move_1": "a best move naming one black seat",
    "best_move_2": "a best move naming two black seats",
    "best_move_3": "a best move naming three black seats",
    "best_move_first_night": "1: a best move counts only from the player killed in the first shooting night",
    "best_move_red": "1: a best move counts only from a red player",
    "removed": "a player removed by the judge (a penalty, below 0)",
    "fouled_out": "a player removed by his 4th foul (absent: as removed)",
    "team_removed": "a player whose removal made his team lose (a team removal), instead of removed",
    "removal_keeps_win": "1: a removed player keeps his team's win and always gets his penalty (otherwise the "
                         "game's option removal_forfeits decides: under it, no win points and the penalty; "
                         "without it, neither)",
    "ci_share": "compensation points (Ci) per first-night kill over the tournament, before the cap",
    "ci_games": "Ci's divisor: the player's tournament games times this, rounded",
    "ci_cap": "Ci at most (per game)",
}
ALIVE_KEYS = {role: f"{role.value}_alive" for role in Role}  # a seat's role alive, as a scheme names it
_FLAGS = ("best_move_first_night", "best_move_red", "removal_keeps_win")


def check_scheme(points: Mapping[str, float], place: str) -> Mapping[str, float]:
    """A scheme whose every name is known (a typo would score nothing, silently) and whose
    flags are 0 or 1."""
    for key, value in points.items():
        if key not in SCHEME_KEYS:
            raise InputError(f"{place}.{key}", N_("unknown scoring name (known: {known})"),
                             {"known": ", ".join(SCHEME_KEYS)})
        if key in _FLAGS and value not in (0, 1):
            raise InputError(f"{place}.{key}", N_("must be 0 or 1"))
    return points


# ---- what a game decided -------------------------------------------------------------------------

@dataclass(frozen=True)
class SeatFacts:
    """One seat of a finished game, as its protocol says."""

    seat: int
    role: Role
    team: str
    alive: bool
    out_cause: str | None = None     # voted, killed, removed
    out_night: int | None = None
    fouls: int = 0
    best_player: bool = False        # the table's vote


quicken(SeatFacts)  # every seat of every game scored: the quick constructor (see quicken)


@dataclass(frozen=True)
class GameFacts:
    """What a finished game decided beyond the deal: its winner (None: not over, or annulled:
    nobody scores), the best move (its maker and how many black seats he named), the judge's
    points per seat, the first shooting night, the ППК seat, and the game's own
    ``removal_forfeits`` option."""

    winner: str | None
    seats: tuple[SeatFacts, ...]
    best_move_by: int | None = None
    best_move_black: int = 0
    judge: Mapping[int, float] = field(default_factory=dict)
    first_shooting_night: int = 1
    team_removed: int | None = None
    forfeits_option: bool = False


@dataclass(frozen=True)
class SeatScore:
    """One seat's points, by the rating site's groups: ``main`` (the win, survival, the
    vote), ``best_move``, ``bonus`` (the judge's, + or −), ``penalty`` (removals); ``won``
    is whether the win counts (what the standings' wins count)."""

    seat: int
    won: bool
    main: float = 0.0
    best_move: float = 0.0
    bonus: float = 0.0
    penalty: float = 0.0
    killed_first_night: bool = False

    @property
    def total(self) -> float:
        return round(self.main + self.best_move + self.bonus + self.penalty, 2)

    @property
    def extras(self) -> float:
        """The best move, the judge's points and the penalties together: mafiaratings' first
        tie-break after the total (its ``(epg)``)."""
        return round(self.best_move + self.bonus + self.penalty, 2)


quicken(SeatScore)


def score_game(points: Mapping[str, float], game: GameFacts) -> dict[int, SeatScore]:
    """Each seat's points under the scheme ``points`` (see :data:`SCHEME_KEYS`). Nothing before
    the end (or in an annulled game); each part rounded to hundredths (0.1 + 0.2 is 0.3)."""
    if game.winner is None:
        return {s.seat: SeatScore(s.seat, False) for s in game.seats}
    return {s.seat: _score_seat(points, game, s) for s in game.seats}


def _score_seat(points: Mapping[str, float], game: GameFacts, seat: SeatFacts) -> SeatScore:
    removed = seat.out_cause == "removed"
    kept = points.get("removal_keeps_win", 0.0) == 1
    forfeited = removed and not kept and game.forfeits_option
    won = seat.team == game.winner and not forfeited
    main = points.get("won", 0.0) + points.get(f"won_{seat.team}", 0.0) if won else 0.0
    if seat.alive:
        main += points.get("alive", 0.0) + points.get(ALIVE_KEYS[seat.role], 0.0)
    main += points.get("best_player", 0.0) if seat.best_player else 0.0
    penalty = 0.0
    if forfeited or (removed and kept):
        penalty = _removal_penalty(points, game, seat)
    return SeatScore(seat.seat, won, round(main, 2), _best_move(points, game, seat),
                     round(game.judge.get(seat.seat, 0.0), 2), round(penalty, 2), killed_first_night(game, seat))


def _removal_penalty(points: Mapping[str, float], game: GameFacts, seat: SeatFacts) -> float:
    removed = points.get("removed", 0.0)
    if game.team_removed == seat.seat and "team_removed" in points:
        return points["team_removed"]
    return points.get("fouled_out", removed) if seat.fouls >= FOUL_LIMIT else removed


def killed_first_night(game: GameFacts, seat: SeatFacts) -> bool:
    """Killed in the first shooting night (mafiaratings' «убит в первую ночь»)."""
    return seat.out_cause == "killed" and seat.out_night == game.first_shooting_night


def _best_move(points: Mapping[str, float], game: GameFacts, seat: SeatFacts) -> float:
    if game.best_move_by != seat.seat or not game.best_move_black:
        return 0.0
    if points.get("best_move_first_night", 0.0) == 1 and not killed_first_night(game, seat):
        return 0.0
    if points.get("best_move_red", 0.0) == 1 and seat.team != Team.RED.value:
        return 0.0
    return round(points.get(f"best_move_{game.best_move_black}", 0.0), 2)


def ci_eligible(game: GameFacts, seat: SeatFacts) -> bool:
    """A game that earns a seat compensation points: red, killed in the first shooting night,
    and his team lost (mafiaratings' night1 policy: matter 260 = killed first night + lost,
    roles 3 = red)."""
    return (seat.team == Team.RED.value and killed_first_night(game, seat) and game.winner is not None
            and game.winner != seat.team)


def ci_points(points: Mapping[str, float], games: int, killed_first: int) -> float:
    """Compensation points (Ci) for each eligible game (:func:`ci_eligible`) of a player who
    played ``games`` games of the tournament and was killed as red in ``killed_first`` of their
    first shooting nights: ``max(min(killed_first × ci_share / round(games × ci_games), ci_cap), 0)``,
    as mafiaratings evaluates it (PHP's round, half away from zero; a division by 0 gives the cap)."""
    share, cap = points.get("ci_share", 0.0), points.get("ci_cap", 0.0)
    if not share or not killed_first:
        return 0.0
    divisor = math.floor(games * points.get("ci_games", 0.0) + 0.5)
    value = killed_first * share / divisor if divisor else math.inf
    return max(min(value, cap), 0.0)


# ---- the standings row ------------------------------------------------------------------------------

@dataclass(frozen=True)
class TieBreak:
    """One criterion of the standings: a figure of a player's row, bigger first (or smaller)."""

    key: str
    smaller_first: bool = False


TIE_BREAKS: dict[str, TieBreak] = {key: TieBreak(key, key == "fouls") for key in (
    "points", "extras", "bonus", "best_move", "penalty", "ci", "wins", "special_wins", "killed_first",
    "best_player", "sheriff_games", "sheriff_wins", "don_wins", "red_wins", "black_wins", "fouls")}
FIIM_TIE_BREAKS = ("points", "extras", "wins", "special_wins", "killed_first")
"""mafiaratings' default order (include/scoring.php SCORING_DEFAULT_SORTING ``(epg)wsk``): the total,
then extra + penalty + best move together, wins, wins as sheriff or don, times killed first night."""


@dataclass(frozen=True)
class Column:
    """One column of the standings: its row field, how it is shown, and whether the club screen
    (a big screen seen from afar) shows it too."""

    key: str
    kind: Literal["int", "points", "text"]
    screen: bool = False

    def shown(self, value: Any, decimal_mark: str = ".") -> str:
        """The cell's text: points to hundredths at most, without trailing zeros, with the club's
        decimal mark (``1,25`` and ``3`` in Russian; a column of sums reads better without ``3,00``)."""
        return points_text(value, decimal_mark) if self.kind == "points" else str(value)


def points_text(value: float, decimal_mark: str = ".") -> str:
    """``1.25``, ``3``, ``-0.5`` (hundredths at most; no ``-0``), with ``decimal_mark`` for the point."""
    text = f"{round(float(value), 2) + 0.0:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text.replace(".", decimal_mark)


def name_order(name: str) -> tuple[tuple[int, int | str], ...]:
    """A name's place in an alphabetical list where numbers count as numbers: «игрок 2» before
    «игрок 10» (ASCII digit runs compare as whole numbers; the rest case-blind)."""
    return tuple((0, int(part)) if part.isascii() and part.isdigit() else (1, part)
                 for part in re.split(r"([0-9]+)", name.casefold()) if part)


COLUMNS: tuple[Column, ...] = (
    Column("place", "int", True), Column("player", "text", True), Column("games", "int", True),
    Column("points", "points", True), Column("wins", "int", True), Column("best_move", "points"),
    Column("bonus", "points"), Column("penalty", "points"), Column("ci", "points", True),
    Column("extras", "points", True), Column("best_player", "int"), Column("sheriff_games", "int"),
    Column("fouls", "int"))
SCREEN_COLUMNS = tuple(column for column in COLUMNS if column.screen)


@dataclass
class Standing:
    """One player's line of the standings (a tournament's or a season's), filled game by game
    with :meth:`add`; :meth:`as_dict` is what every reader (terminal, CSV, HTML, JSON, the club
    screen) gets."""

    player: str
    place: int = 0
    games: int = 0
    points: float = 0.0
    wins: int = 0
    best_move: float = 0.0
    bonus: float = 0.0
    penalty: float = 0.0
    ci: float = 0.0
    best_player: int = 0
    sheriff_games: int = 0
    sheriff_wins: int = 0
    don_wins: int = 0
    red_wins: int = 0
    black_wins: int = 0
    killed_first: int = 0
    fouls: int = 0
    by_round: dict[int, float] = field(default_factory=dict)

    @property
    def extras(self) -> float:
        return round(self.best_move + self.bonus + self.penalty, 2)

    @property
    def special_wins(self) -> int:
        return self.sheriff_wins + self.don_wins

    def add(self, seat: SeatFacts, score: SeatScore, round_no: int | None = 0, count: int = 1) -> None:
        """One game of this player's, or ``count`` games alike; ``round_no`` None: the caller
        adds their points to :attr:`by_round` (games alike may be of different rounds)."""
        red, won = seat.team == Team.RED.value, score.won
        self.games += count
        self.points += score.total * count
        self.wins += won * count
        self.best_move += score.best_move * count
        self.bonus += score.bonus * count
        self.penalty += score.penalty * count
        self.killed_first += (score.killed_first_night and red) * count
        self.best_player += seat.best_player * count
        self.fouls += seat.fouls * count
        self.sheriff_games += (seat.role is Role.SHERIFF) * count
        self.sheriff_wins += (seat.role is Role.SHERIFF and won) * count
        self.don_wins += (seat.role is Role.DON and won) * count
        self.red_wins += (red and won) * count
        self.black_wins += (seat.team == Team.BLACK.value and won) * count
        if round_no is not None:
            self.by_round[round_no] = self.by_round.get(round_no, 0.0) + score.total * count

    def add_ci(self, ci: float, round_no: int = 0) -> None:
        """Compensation points of one game (their own column, and in the total)."""
        self.ci += ci
        self.points += ci
        self.by_round[round_no] = self.by_round.get(round_no, 0.0) + ci

    def figure(self, key: str) -> float:
        """A tie-break's figure, bigger first (a smaller-first figure negated)."""
        value = float(getattr(self, key))
        return value if TIE_BREAKS[key].smaller_first else -value

    def as_dict(self) -> dict[str, Any]:
        return {"place": self.place, "player": self.player, "games": self.games, "points": round(self.points, 2),
                "wins": self.wins, "best_move": round(self.best_move, 2), "bonus": round(self.bonus, 2),
                "penalty": round(self.penalty, 2), "ci": round(self.ci, 2), "extras": self.extras,
                "best_player": self.best_player, "sheriff_games": self.sheriff_games,
                "sheriff_wins": self.sheriff_wins, "don_wins": self.don_wins, "special_wins": self.special_wins,
                "red_wins": self.red_wins, "black_wins": self.black_wins, "killed_first": self.killed_first,
                "fouls": self.fouls, "by_round": {str(r): round(p, 2) for r, p in sorted(self.by_round.items())}}


def rank(rows: Sequence[Standing], tie_breaks: Sequence[str]) -> list[Standing]:
    """The rows best first by the tie-breaks (then by name, :func:`name_order`); rows tied on all
    share a place (1, 1, 1, 4, …)."""
    def key(row: Standing) -> tuple[float, ...]:
        return tuple(round(row.figure(name), 6) for name in tie_breaks)

    ordered = sorted(rows, key=lambda r: (key(r), name_order(r.player)))
    for k, row in enumerate(ordered):
        row.place = ordered[k - 1].place if k > 0 and key(ordered[k - 1]) == key(row) else k + 1
    return ordered
