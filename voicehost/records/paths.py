"""Where a table keeps its own records when no ``--db`` is given: ``records.sqlite`` in the data
folder (``$VOICEHOST_DATA``, else the platform's user data folder — see :mod:`voicehost.config`),
so nothing has to be started or configured on a Pi."""

from __future__ import annotations

from voicehost.config import data_dir


def default_url() -> str:
    """``sqlite:///…/records.sqlite`` in the data folder (created on first use)."""
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'records.sqlite'}"
