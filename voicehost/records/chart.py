"""``records chart``: each top player's points over the season, one line per player, drawn with
matplotlib's Agg backend (no display needed on a Pi or a server). The x-axis counts the
season's games in the order they were played (a club plays evenings, not a clock), the dates
of the first and the last game under it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from voicehost.i18n import _
from voicehost.records.ratings import points_of, ratings
from voicehost.rules import InputError


def draw_season(rows: Sequence[Mapping[str, Any]], out: Path, top: int = 8, scoring: str | None = None,
                title: str | None = None) -> list[str]:
    """Draw the cumulative points of the ``top`` players to ``out`` (PNG); returns their names."""
    import matplotlib.pyplot as plt

    figure, leaders = season_figure(rows, top, scoring, title)
    try:
        try:
            figure.savefig(out, format="png")
        except OSError as err:
            raise InputError(str(out), _("cannot write the picture ({error})").format(
                error=err.strerror or err)) from None
    finally:
        plt.close(figure)
    return leaders


def save_rating_chart(figure: Any, axes: Any, games: int, out: Path) -> None:
    """A rating over the season (``records elo --chart``, ``records rating --chart``) finished the
    one way: the x-axis counts the season's games, a grid and the legend; written to ``out``
    (PNG) and closed, or one line if ``out`` cannot be written."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    try:
        axes.set_xlabel(_("games of the season, in the order played ({count})").format(count=games))
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlim(0, games + 0.5)
        axes.grid(alpha=0.3)
        axes.legend(loc="upper left", fontsize="small")
        try:
            figure.savefig(out, format="png")
        except OSError as err:
            raise InputError(str(out), _("cannot write the picture ({error})").format(
                error=err.strerror or err)) from None
    finally:
        plt.close(figure)


def season_figure(rows: Sequence[Mapping[str, Any]], top: int = 8, scoring: str | None = None,
                  title: str | None = None) -> tuple[Any, list[str]]:
    """The season's figure (the caller closes it) and the names of the ``top`` players drawn:
    each one's total after every game he played, at that game's number in the season."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    leaders = [r.player for r in ratings(rows, scoring)[:top]]
    if not leaders:
        raise InputError("records chart", _("no rated games in the season: nothing to draw"))
    numbers = game_numbers(rows)
    figure, axes = plt.subplots(figsize=(10, 6), dpi=100)
    for player in leaders:
        games, totals = _curve((r for r in rows if r["nickname"] == player), numbers, scoring)
        axes.step(games, totals, where="post", label=player)
    axes.set_title(title or _("Season points"))
    axes.set_ylabel(_("points"))
    first, last = min(r["played_at"] for r in rows), max(r["played_at"] for r in rows)
    axes.set_xlabel(_("the season's games in order: #1 — {first}, #{count} — {last}").format(
        first=f"{first:%d.%m.%Y}", count=len(numbers), last=f"{last:%d.%m.%Y}"))
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(0.5, len(numbers) + 0.5)
    axes.grid(alpha=0.3)
    axes.legend(loc="upper left", fontsize="small")
    return figure, leaders


def game_numbers(rows: Iterable[Mapping[str, Any]]) -> dict[Any, int]:
    """Each game of the season (rows come in the order played) → its number, from 1."""
    numbers: dict[Any, int] = {}
    for row in rows:
        numbers.setdefault(_game(row), len(numbers) + 1)
    return numbers


def _game(row: Mapping[str, Any]) -> Any:
    return row.get("game_id", row["played_at"])


def _curve(rows: Iterable[Mapping[str, Any]], numbers: Mapping[Any, int],
           scoring: str | None) -> tuple[list[int], list[float]]:
    games: list[int] = []
    totals: list[float] = []
    total = 0.0
    for row in rows:
        total += points_of(row, scoring)
        games.append(numbers[_game(row)])
        totals.append(total)
    return games, totals
