"""Where a table keeps its own records when no ``--db`` is given: a SQLite file in the user's
data dir (platformdirs), so nothing has to be started or configured on a Pi."""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_data_path


def default_url() -> str:
    """``sqlite:///…/voicehost/records.sqlite`` in the user's data dir (created on first use)."""
    folder: Path = user_data_path("voicehost", appauthor=False)
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'records.sqlite'}"
