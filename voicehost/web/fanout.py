"""One message to many sockets: the pages that watch a table (or the club's board).

A :class:`Fanout` owns its sockets and the tasks that write to them: a send never blocks the
loop's caller (each socket is written from a task of its own, so one slow phone delays no
other), a socket that fails is dropped, and :meth:`Fanout.close` (the application's
``on_shutdown``) closes every socket and waits for the writes still under way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from aiohttp import WSMsgType, web


class Fanout:
    """The open sockets of one kind of page, and the writes to them."""

    def __init__(self, heartbeat: float = 20.0, max_msg_size: int = 4096) -> None:
        self.sockets: set[web.WebSocketResponse] = set()
        self.heartbeat = heartbeat
        self.max_msg_size = max_msg_size
        self._tasks: set[asyncio.Task[Any]] = set()

    def __bool__(self) -> bool:
        return bool(self.sockets)

    def send(self, text: str) -> None:
        """``text`` to every socket, each from its own task."""
        for ws in list(self.sockets):
            self.spawn(self._send(ws, text))

    async def _send(self, ws: web.WebSocketResponse, text: str) -> None:
        try:
            await ws.send_str(text)
        except (ConnectionError, RuntimeError):
            self.sockets.discard(ws)

    def spawn(self, job: Coroutine[Any, Any, Any]) -> None:
        """A write (or a close) that outlives its caller, kept until done."""
        task = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def close_some(self, sockets: set[web.WebSocketResponse], code: int, message: bytes) -> None:
        """Closed from their own tasks: a close waits for the phone's reply to it."""
        for ws in list(sockets):
            self.spawn(ws.close(code=code, message=message))
        sockets.clear()

    async def serve(self, request: web.Request, first: Callable[[], str],
                    owned: set[web.WebSocketResponse] | None = None) -> web.WebSocketResponse:
        """A page's socket: ``first()`` on (re)connect, then every :meth:`send`; what the page
        sends is ignored (commands go through POST, where the CSRF token is checked).
        ``owned``: a set the socket is also kept in while open (a judge session's sockets)."""
        ws = web.WebSocketResponse(heartbeat=self.heartbeat, max_msg_size=self.max_msg_size)
        await ws.prepare(request)
        try:
            await ws.send_str(first())
        except ConnectionError:
            return ws   # the phone went away right after the handshake
        self.sockets.add(ws)
        if owned is not None:
            owned.add(ws)
        try:
            async for message in ws:
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self.sockets.discard(ws)
            if owned is not None:
                owned.discard(ws)
        return ws

    async def close(self) -> None:
        """Every socket closed, every write finished or given up."""
        for ws in list(self.sockets):
            await ws.close()
        self.sockets.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
