"""Many tables, one club: each table writes its own SQLite first (the game never waits on the
network) and queues the game in its outbox; :func:`push` then copies queued games to the club
server. A game leaves the outbox only once the server has committed it; a failure (server down,
network gone, the connection cut mid-commit) leaves it queued with the next try pushed back
(:func:`backoff`). Since the server adds a game only if its id is new, a retry after a commit
whose answer was lost, or a table that comes back after a week, never duplicates a game.

Who pushes: the live hook after every finished game (``voicehost run``), and
``voicehost records push`` (``--watch`` keeps retrying with the backoff until the outbox is empty).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

import sqlalchemy as sa

from voicehost.i18n import _, ngettext
from voicehost.records.places import PlaceTaken
from voicehost.records.store import Records, open_records
from voicehost.rules import InputError

FIRST_RETRY_S = 15.0
LONGEST_WAIT_S = 3600.0


def backoff(attempts: int) -> float:
    """Seconds before the next try after ``attempts`` failures: 15 s, 30 s, 1 min, … at most an hour."""
    return float(min(FIRST_RETRY_S * 2 ** (attempts - 1), LONGEST_WAIT_S))


@dataclass
class PushResult:
    pushed: int = 0
    already_there: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def line(self) -> str:
        text = ngettext("pushed {count} game", "pushed {count} games", self.pushed).format(count=self.pushed)
        if self.already_there:
            text += _(", {count} already on the server").format(count=self.already_there)
        if self.failed:
            text += _("; {count} still queued ({error})").format(count=self.failed, error=self.errors[-1])
        return text


def push(local: Records, club_url: str, now: datetime | None = None, everything: bool = False) -> PushResult:
    """Copy the outbox's due games (``everything``: all, whatever their schedule) to the club
    server; stop at the first failure, since the next game would meet the same server."""
    now = now or datetime.now(timezone.utc).replace(tzinfo=None)
    result = PushResult()
    queued = local.due(None if everything else now)
    if not queued:
        return result
    try:
        club = open_records(club_url)
    except InputError as err:
        for game_id in queued:
            local.failed(game_id, err.message, now, backoff)
        return PushResult(failed=len(queued), errors=[err.message])
    try:
        for position, game_id in enumerate(queued):
            record = local.game(game_id)
            if record is None:  # deleted locally: nothing left to send
                local.delivered(game_id)
                continue
            try:
                added = club.add([record])
            except PlaceTaken as err:  # that game only: it stays queued (and stored here), the next ones go on
                local.failed(game_id, str(err), now, backoff)
                result.failed += 1
                result.errors.append(str(err))
                continue
            except sa.exc.DBAPIError as err:
                message = _first_line(err)
                local.failed(game_id, message, now, backoff)
                result.failed, result.errors = result.failed + len(queued) - position, [*result.errors, message]
                break
            local.delivered(game_id)
            result.pushed += added
            result.already_there += 1 - added
    finally:
        club.close()
    return result


def _first_line(err: sa.exc.DBAPIError) -> str:
    text = str(err.orig or err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def push_until_empty(local: Records, club_url: str, give_up_after_s: float | None = None,
                     log: Callable[[str], None] = print) -> bool:
    """Keep pushing, sleeping until the next due try, until the outbox is empty (True) or the
    time is up (False)."""
    started = time.monotonic()
    while True:
        result = push(local, club_url)
        if result.pushed or result.failed:
            log(_("records: {line}").format(line=result.line))
        waiting = local.waiting()
        if not waiting:
            return True
        next_try = min(row["next_try_at"] for row in waiting)
        pause = max(0.5, (next_try - datetime.now(timezone.utc).replace(tzinfo=None)).total_seconds())
        if give_up_after_s is not None and time.monotonic() - started + pause > give_up_after_s:
            return False
        time.sleep(pause)
