"""The judge's terminal as lines for the loop, read so that the program can always end.

A thread blocked in ``sys.stdin.buffer`` holds the buffered reader's lock; when the game ends
with nothing typed, the interpreter's shutdown cannot take that lock and aborts («Fatal Python
error: _enter_buffered_busy», exit 134). So the terminal is read on the loop itself: a reader
on the raw file descriptor (``loop.add_reader``) that reads what is there with ``os.read`` and
never waits, removed when the game ends. A descriptor the loop cannot watch (a regular file,
``/dev/null``) never blocks a read either: a thread reads it with ``os.read`` to its end.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable

CHUNK = 4096


def decode_console_line(raw: bytes) -> str:
    """A typed line, decoded leniently: a broken byte becomes U+FFFD (and the console refuses that line)."""
    return raw.decode("utf-8", errors="replace").rstrip("\r\n")


class LineSplitter:
    """Bytes as they come (a tty gives a line at a time, a pipe any chunk) → whole decoded lines."""

    def __init__(self, on_line: Callable[[str], object]) -> None:
        self.on_line = on_line
        self.pending = b""

    def feed(self, data: bytes) -> None:
        """``data`` read; b"" is the end (a last line without its newline is still a line)."""
        if not data:
            if self.pending:
                self.on_line(decode_console_line(self.pending))
            self.pending = b""
            return
        *lines, self.pending = (self.pending + data).split(b"\n")
        for raw in lines:
            self.on_line(decode_console_line(raw))


class TerminalReader:
    """Lines typed on ``fd`` handed to ``on_line`` on the loop, until the end of input or :meth:`close`."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, on_line: Callable[[str], object]) -> None:
        self.loop = loop
        self.fd = fd
        self.splitter = LineSplitter(on_line)
        self.watched = False
        """True while the loop watches ``fd`` (False: a thread reads it, or the input has ended)."""
        try:
            loop.add_reader(fd, self._readable)
            self.watched = True
        except (PermissionError, ValueError, OSError, NotImplementedError):
            # epoll refuses regular files and /dev/null: their reads never wait, so a thread cannot hang on them
            threading.Thread(target=self._read_to_end, name="voicehost-console", daemon=True).start()

    def _readable(self) -> None:
        """The loop saw input on the descriptor: one read takes what is there without waiting."""
        try:
            data = os.read(self.fd, CHUNK)
        except BlockingIOError:
            return
        except OSError:   # the terminal went away (EIO on a closed pty): the end of input
            data = b""
        if not data:
            self.close()
        self.splitter.feed(data)

    def _read_to_end(self) -> None:
        while True:
            try:
                data = os.read(self.fd, CHUNK)
            except OSError:
                data = b""
            try:
                self.loop.call_soon_threadsafe(self.splitter.feed, data)
            except RuntimeError:   # the loop is closed: the game is over
                return
            if not data:
                return

    def close(self) -> None:
        """The loop stops watching the terminal (the game is over); safe to call twice."""
        if self.watched:
            self.watched = False
            self.loop.remove_reader(self.fd)


def read_terminal(loop: asyncio.AbstractEventLoop, on_line: Callable[[str], object],
                  fd: int | None = None) -> TerminalReader | None:
    """Read the process's standard input (or ``fd``) as console lines; None when there is none."""
    fd = 0 if fd is None else fd
    try:
        os.fstat(fd)
    except OSError:
        return None   # no standard input at all (closed by whoever started us)
    return TerminalReader(loop, fd, on_line)
