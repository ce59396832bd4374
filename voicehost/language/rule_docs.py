"""The texts of a ruleset file a club reads in ``voicehost rules show`` — each option's ``doc``
and ``source`` — are English ids like the code's messages: tools/translations extracts them from
``config/rules/*.toml`` into the catalog with this Babel extractor (``tools/babel.cfg``), and the
command line says them with ``_``. A text a club writes there itself is not in the catalog and is
shown as written, in whatever language the club wrote it. The titles are the club's own words
(Russian, as the host's phrases): they are not extracted."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from typing import IO, Any

KEYS = ("doc", "source")
_LINE = re.compile(rb'^\s*(?:%s)\s*=\s*(".*)$' % b"|".join(key.encode() for key in KEYS))


def extract(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Iterator[
        tuple[int, str, str, list[str]]]:
    """Babel's extractor interface: (line, function, message, comments) for each ``doc =`` and
    ``source =`` line (one-line basic strings, as the shipped files write them)."""
    for number, line in enumerate(fileobj, start=1):
        found = _LINE.match(line.rstrip(b"\r\n"))
        if found is None:
            continue
        try:
            text = tomllib.loads("text = " + found[1].decode("utf-8"))["text"]
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
        if isinstance(text, str) and text:
            yield number, "_", text, []
