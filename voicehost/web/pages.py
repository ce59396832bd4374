"""The pages in the language in use: every word a page shows is a ``page.`` line of
:mod:`voicehost.language.read_lines` (English ids, Russian in the gettext catalog), so the same
files read Russian by default and English under ``--lang en``.

The server fills them in, not the browser: a page's HTML holds ``{{key}}`` where its static words
go and ``{{lang}}`` in ``<html lang>``; the words its scripts build (aria labels, the live region's
announcements, hints) travel as JSON on ``<html data-texts>``, which common.js reads before it draws
anything (``Table.say``). One request, no second round trip, and nothing inline for the
Content-Security-Policy (``script-src 'self'``) to refuse. The club screen and the overlay get
their own sections over their sockets (``texts``); their HTML is filled here too.
"""

from __future__ import annotations

import functools
import html
import json
import re
from pathlib import Path

from aiohttp import web

from voicehost.i18n import language, ngettext
from voicehost.language.read_lines import read_line, section_lines

STATIC = Path(__file__).parent / "static"
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
# A plural category of Intl.PluralRules and a count that the catalog's formula puts in it (Russian:
# 1 секунда, 2 секунды, 5 секунд; a fraction, "other", takes the 2's form; English: one and other).
PLURAL_SAMPLES = {"one": 1, "few": 2, "many": 5, "other": 2}


def page_texts() -> dict[str, str]:
    """What the pages' scripts say, by key: the ``page.`` lines and the seconds' plural forms
    (``seconds_one`` … ``seconds_other``, for ``Intl.PluralRules`` in the browser)."""
    texts = section_lines("page")
    for category, count in PLURAL_SAMPLES.items():
        texts[f"seconds_{category}"] = ngettext("{n} second", "{n} seconds", count)
    return texts


@functools.cache
def rendered(name: str, lang: str) -> str:
    """The page ``name`` in the language in use, which ``lang`` names (it keys the cache: a
    test, or a process whose language changes, gets each language's page)."""
    def fill(match: re.Match[str]) -> str:
        key = match[1]
        if key == "lang":
            return lang
        if key == "texts":
            return html.escape(json.dumps(page_texts(), ensure_ascii=False, sort_keys=True))
        return html.escape(read_line("page", key))
    return PLACEHOLDER.sub(fill, (STATIC / name).read_text(encoding="utf-8"))


def page(name: str) -> web.Response:
    """A page of voicehost/web/static, filled in; never cached by the phone (a new version shows at once)."""
    return web.Response(text=rendered(name, language()), content_type="text/html",
                        headers={"Cache-Control": "no-cache"})
