"""systemd's notification protocol (sd_notify) in a dozen lines: a datagram of ``KEY=VALUE``
lines to the socket named in ``$NOTIFY_SOCKET``. Outside systemd there is no socket and every
call does nothing, so the same code runs in a terminal and in tests."""

from __future__ import annotations

import os
import socket


class Notifier:
    """``READY=1`` once the table is up, ``WATCHDOG=1`` while the loop is alive, ``STATUS=…``."""

    def __init__(self, address: str | None = None) -> None:
        address = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):  # an abstract socket
            address = "\0" + address[1:]
        self.address = address
        self.sent: list[str] = []

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def send(self, *fields: str) -> None:
        message = "\n".join(fields)
        self.sent.append(message)
        if not self.address:
            return
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            try:
                sock.sendto(message.encode("utf-8"), self.address)
            except OSError:
                pass  # systemd went away (shutdown): nothing to tell

    def ready(self, status: str) -> None:
        self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def watchdog(self) -> None:
        self.send("WATCHDOG=1")


def watchdog_interval() -> float | None:
    """Half of systemd's ``WatchdogSec`` (``$WATCHDOG_USEC``) when this process is watched."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    pid = os.environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or (pid.isdigit() and int(pid) != os.getpid()):
        return None
    return int(usec) / 2_000_000
