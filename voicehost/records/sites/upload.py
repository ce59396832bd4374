"""``voicehost tournament upload --site mafiaratings``: each exportable game of a tournament posted
to mafiaratings' ``api/ops/game.php`` as ``op=create`` with the game's ``json`` (the form
``create_op`` reads with ``get_required_param('json')``), once.

A game the site accepts (HTTP 200 and a JSON answer without ``error``, as ``include/api.php``
answers) is written to ``site_uploads`` at once, before the next is sent; the next upload sends
only the rest. A refused game is reported and sent again next time. The site authenticates a
request by its ``auth_key`` cookie (``include/session.php``) or HTTP basic login; ``--token`` is
that key. A site that cannot be reached stops the upload with one line: what was accepted stays
recorded. (A real upload to mafiaratings.com is untested: the tests use a local receiver.)
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from voicehost.i18n import _
from voicehost.records.sites import mafiaratings
from voicehost.records.sites.common import SiteGame
from voicehost.records.sites.export import site_games
from voicehost.records.sites.settings import required_settings
from voicehost.rules import InputError

if TYPE_CHECKING:
    from voicehost.records.store import Records

DEFAULT_URL = "https://mafiaratings.com/api/ops/game.php"
TIMEOUT_S = 30.0


@dataclass
class UploadReport:
    accepted: int = 0                                   # sent now and accepted
    already: int = 0                                    # accepted by an earlier upload, not sent
    refused: list[str] = field(default_factory=list)    # the site's reasons, one per refused game


def upload(records: Records, name: str, token: str, url: str = DEFAULT_URL) -> UploadReport:
    """Post every game the site has not accepted yet; see the module's docstring."""
    from voicehost.records.tournament import played_games

    settings = required_settings(records, name, mafiaratings.SITE)
    games = site_games(played_games(records, name))
    done = accepted_games(records, mafiaratings.SITE)
    report = UploadReport(already=len([g for g in games if g.game.id in done]))
    for game in games:
        if game.game.id in done:
            continue
        answer = _post(url, token, mafiaratings.export_game(game, settings))
        if "error" in answer:
            report.refused.append(_place(game) + ": " + str(answer["error"])[:200])
            continue
        remember(records, mafiaratings.SITE, game.game.id, answer.get("id"))
        report.accepted += 1
    return report


def _place(game: SiteGame) -> str:
    return _("round {round} table {table}").format(round=game.game.place.round, table=game.game.place.table)


def _post(url: str, token: str, game: dict[str, Any]) -> dict[str, Any]:
    """One ``create`` call; the site's JSON answer. A site that cannot be reached, or answers
    with no JSON object, is an :class:`InputError` (one line; the caller stops)."""
    body = urllib.parse.urlencode({"op": "create", "json": json.dumps(game, ensure_ascii=False)}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Cookie": f"auth_key={token}", "Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:   # noqa: S310 - the site's https URL
            text = response.read(1 << 20).decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        return {"error": f"HTTP {err.code}"}
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise InputError(url, _("the site cannot be reached ({why}); nothing more is sent, the games it accepted "
                                "stay recorded").format(why=str(reason)[:120])) from None
    try:
        answer = json.loads(text)
    except ValueError:
        return {"error": _("the site's answer is not JSON")}
    return answer if isinstance(answer, dict) else {"error": _("the site's answer is not a JSON object")}


def accepted_games(records: Records, site: str) -> set[uuid.UUID]:
    import sqlalchemy as sa

    from voicehost.records.schema import site_uploads

    with records.engine.connect() as connection:
        rows = connection.execute(sa.select(site_uploads.c.game_id).where(site_uploads.c.site == site)).scalars()
        return {uuid.UUID(str(row)) for row in rows}


def remember(records: Records, site: str, game: uuid.UUID, remote_id: object = None) -> None:
    from voicehost.records.schema import site_uploads

    with records.engine.begin() as connection:
        connection.execute(site_uploads.insert().values(
            site=site, game_id=game, accepted_at=datetime.now(timezone.utc).replace(tzinfo=None),
            remote_id=None if remote_id is None else str(remote_id)[:40]))
