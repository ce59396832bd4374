"""A throwaway PostgreSQL cluster in a temporary folder (Debian's ``initdb``/``pg_ctl``, a free
port on 127.0.0.1, trust authentication) for the tests and ``voicehost bench records``: a
real server that can be stopped in the middle of a push and started again. As root the
server runs as the ``postgres`` user, since PostgreSQL refuses to run as root."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SUPERUSER = "voicehost"


def postgres_bin() -> Path | None:
    """The newest ``/usr/lib/postgresql/*/bin`` with initdb and pg_ctl, if any."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """``start()``/``stop()`` as often as needed; ``remove()`` stops it and deletes its folder."""

    def __init__(self) -> None:
        binaries = postgres_bin()
        if binaries is None:
            raise FileNotFoundError("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin "
                                    "(Debian: apt-get install postgresql)")
        self.bin = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="voicehost-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--no-locale")
        (self.data / "postgresql.auto.conf").write_text(
            f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.folder}'\n"
            "fsync = on\nmax_connections = 50\n")
        if self._as:
            shutil.chown(self.data / "postgresql.auto.conf", "postgres")

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run([*self._as, str(self.bin / tool), *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stderr.strip() or done.stdout.strip()}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        """``immediate`` cuts every connection at once, as a server losing power would."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def remove(self) -> None:
        if self.running():
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
