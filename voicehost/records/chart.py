"""``records chart``: each top player's points over the season, one line per player, drawn with
matplotlib's Agg backend (no display needed on a Pi or a server)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from voicehost.records.ratings import points_of, ratings
from voicehost.rules import InputError


def draw_season(rows: Sequence[Mapping[str, Any]], out: Path, top: int = 8, scoring: str | None = None,
                title: str = "Season points") -> list[str]:
    """Draw the cumulative points of the ``top`` players to ``out`` (PNG); returns their names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    leaders = [r.player for r in ratings(rows, scoring)[:top]]
    if not leaders:
        raise InputError(str(out), "no rated games in the season: nothing to draw")
    figure, axes = plt.subplots(figsize=(10, 6), dpi=100)
    try:
        for player in leaders:
            dates, totals = _curve((r for r in rows if r["nickname"] == player), scoring)
            axes.step(dates, totals, where="post", label=player)
        axes.set_title(title)
        axes.set_ylabel("points")
        axes.grid(alpha=0.3)
        axes.legend(loc="upper left", fontsize="small")
        figure.autofmt_xdate()
        try:
            figure.savefig(out, format="png")
        except OSError as err:
            raise InputError(str(out), f"cannot write the picture ({err.strerror or err})") from None
    finally:
        plt.close(figure)
    return leaders


def _curve(rows: Iterable[Mapping[str, Any]], scoring: str | None) -> tuple[list[Any], list[float]]:
    dates: list[Any] = []
    totals: list[float] = []
    total = 0.0
    for row in rows:
        total += points_of(row, scoring)
        dates.append(row["played_at"])
        totals.append(total)
    return dates, totals
