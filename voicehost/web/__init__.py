"""The table on a phone: a public table display and a PIN-protected judge console, served by
the host itself (aiohttp, on the director's own asyncio loop — one process, no second server).

:class:`~voicehost.web.server.WebTable` follows a :class:`~voicehost.host.Director` through its
notices (:mod:`voicehost.host.notices`) and pushes the whole state to every browser over a
WebSocket; the judge's commands go into the director's console queue — the same path as a
line typed at the terminal — and the answer to that very line (by its id) comes back when the
director has taken, held or refused it. The public state is built from public events and spoken lines only
(:mod:`~voicehost.web.view`), so no role, night action or check can reach a public page or
message.
"""

from voicehost.web.server import WebTable, parse_address, serving

__all__ = ["WebTable", "parse_address", "serving"]
