"""The systemd unit that boots a Pi into a ready table, and its installation.

The unit runs ``voicehost serve`` as a dedicated system user in the ``gpio`` and ``audio``
groups (the seat pins and the sound card, nothing else), tells systemd when the table is
ready (``Type=notify``) and keeps telling it the loop is alive (``WatchdogSec``: a hung
host is restarted, and a restart resumes the game from its journal). Exit code 2 is bad
input (a table file, a key): restarting cannot mend it, so systemd does not retry it in a loop. Journals go to
``/var/lib/voicehost``, the TTS cache to ``/var/cache/voicehost``, a club's config to
``/etc/voicehost``; output goes to journald (``journalctl -u voicehost``).

The process serves the club's Wi-Fi, so the unit is sandboxed (:data:`HARDENING`; exposure
1.6 by ``systemd-analyze security``, "OK"; 1.7 with homes read-only): it may write only its
own three folders, sees no home folder, reaches only the GPIO chip and the sound card among the
devices, opens only local and internet sockets, and has no capabilities. docs/pi.md says what each allowance is for.
"""

from __future__ import annotations

import grp
import os
import pwd
import sys
from collections.abc import Callable
from pathlib import Path

from voicehost.i18n import _, ngettext
from voicehost.rules import InputError

UNIT_NAME = "voicehost.service"
UNIT_DIR = Path("/etc/systemd/system")
DEFAULT_USER = "voicehost"
GROUPS = ("gpio", "audio")
WATCHDOG_S = 30
ENVIRONMENT_FILE = Path("/etc/voicehost/environment")
"""The club's own variables for the service (``VOICEHOST_CLUB_KEY=…``), read by systemd as root
before it drops to the service's user: a secret there stays out of the unit and the process list."""
HOMES = (Path("/home"), Path("/root"), Path("/run/user"))
"""What ``ProtectHome=yes`` hides: a checkout or a table file there is only made read-only."""
HARDENING = """\
WorkingDirectory=/run/voicehost
UMask=0077
NoNewPrivileges=yes
CapabilityBoundingSet=
AmbientCapabilities=
ProtectSystem=strict
ProtectHome={protect_home}
PrivateTmp=yes
PrivateMounts=yes
RemoveIPC=yes
ProtectProc=invisible
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
DevicePolicy=closed
DeviceAllow=char-gpiochip rw
DeviceAllow=char-alsa rw
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallFilter=~@privileged
SystemCallErrorNumber=EPERM
"""
"""The sandbox, one setting a line (docs/pi.md, «The service's sandbox», says why each is
there). Writable: only the State/Cache/RuntimeDirectory (``ProtectSystem=strict`` leaves
those open); the working directory is the runtime one, where lgpio makes its notification
FIFO. Devices: the GPIO chips (lgpio) and ALSA's nodes, nothing else. Sockets: AF_UNIX
(systemd's notify socket, the console FIFO's peers, PulseAudio, a local PostgreSQL) and
AF_INET/6 (the web door, a PostgreSQL server). Not set, on purpose: ``PrivateDevices`` (it
would hide /dev/snd and /dev/gpiochip*), ``PrivateNetwork`` and ``IPAddressDeny`` (the web
door and the records' server), ``MemoryDenyWriteExecute`` (ctypes and cffi callbacks — espeak's,
PortAudio's — may need writable code pages from libffi), ``PrivateUsers`` (the gpio and audio
groups must keep working), ``ProcSubset=pid`` (ALSA reads /proc/asound)."""

Run = Callable[[list[str]], None]


def voicehost_command() -> str:
    """The ``voicehost`` script of this installation (the unit must name an absolute path)."""
    import shutil  # here, as subprocess below: `voicehost --help` imports this module for DEFAULT_USER

    beside = Path(sys.executable).with_name("voicehost")
    found = str(beside) if beside.exists() else shutil.which("voicehost")
    return str(Path(found).resolve()) if found else f"{sys.executable} -m voicehost.cli.main"


def unit_text(table: str | None = None, user: str = DEFAULT_USER, command: str | None = None,
              web: str | None = None, club_server: str | None = None) -> str:
    """The unit file for ``table`` (a name in the config layers or a path) run as ``user``;
    ``web``: the HOST:PORT its setup page, table display and judge console are served on;
    ``club_server``: the tournament screen each game reports to (its key, if any, comes from
    :data:`ENVIRONMENT_FILE`)."""
    serve = f"{command or voicehost_command()} serve"
    if table:
        serve += f" --table {_table_argument(table)}"
    if web:
        serve += f" --web {web}"
    if club_server:
        serve += f" --club-server {club_server.replace('%', '%%')}"   # % starts a systemd specifier
    hardening = HARDENING.format(protect_home=_protect_home(command or voicehost_command(), table))
    return f"""\
# voicehost: the Mafia host as an appliance (written by `voicehost service install`).
[Unit]
Description=voicehost: a voice host for Mafia at this table
After=sound.target
Wants=sound.target

[Service]
Type=notify
NotifyAccess=main
ExecStart={serve}
User={user}
Group={user}
SupplementaryGroups={" ".join(GROUPS)}
WatchdogSec={WATCHDOG_S}
Restart=on-failure
RestartSec=2
RestartPreventExitStatus=2
TimeoutStartSec=300
StateDirectory=voicehost
CacheDirectory=voicehost
ConfigurationDirectory=voicehost
RuntimeDirectory=voicehost
Environment=VOICEHOST_DATA=/var/lib/voicehost VOICEHOST_CACHE=/var/cache/voicehost
Environment=VOICEHOST_CONSOLE=/run/voicehost/console PYTHONUNBUFFERED=1
EnvironmentFile=-{ENVIRONMENT_FILE}
{hardening}StandardOutput=journal
StandardError=journal
SyslogIdentifier=voicehost

[Install]
WantedBy=multi-user.target
"""


def _protect_home(command: str, table: str | None) -> str:
    """``yes`` (no home folder is visible), or ``read-only`` when the program, the Python it
    runs on (a venv's interpreter may be a pyenv build in /root) or the table file lives under a
    home folder (a checkout in /home/pi): the service must still read them."""
    program = Path(command.split()[0])
    paths = [program, program.resolve(), Path(sys.executable).resolve(), Path(sys.base_prefix).resolve()]
    if table and _table_argument(table).startswith("/"):
        paths.append(Path(_table_argument(table)))
    under_home = any(path.is_relative_to(home) for path in paths for home in HOMES)
    return "read-only" if under_home else "yes"


def _table_argument(table: str) -> str:
    """A path is made absolute (the service does not start in the caller's folder); a name
    stays a name, found in /etc/voicehost/tables or the packaged ones."""
    path = Path(table)
    if path.suffix == ".toml" or path.exists():
        return str(path.resolve())
    return table


def install(table: str | None, user: str, unit_dir: Path = UNIT_DIR, run: Run | None = None,
            web: str | None = None, club_server: str | None = None) -> Path:
    """Create the user (if needed) in the gpio and audio groups, write the unit, enable it."""
    run = run or _run
    if os.geteuid() != 0 and unit_dir == UNIT_DIR:
        raise InputError("service install", _("needs root: run it with sudo"))
    groups = [group for group in GROUPS if _group_exists(group)]
    missing = sorted(set(GROUPS) - set(groups))
    if missing:
        print(ngettext("voicehost: no group {groups} on this machine (on a Raspberry Pi there is); skipped",
                       "voicehost: no groups {groups} on this machine (on a Raspberry Pi there are); skipped",
                       len(missing)).format(groups=", ".join(missing)))
    if _user_exists(user):
        if groups:
            run(["usermod", "--append", "--groups", ",".join(groups), user])
    else:
        run(["useradd", "--system", "--home-dir", "/var/lib/voicehost", "--no-create-home",
             "--shell", "/usr/sbin/nologin", *(["--groups", ",".join(groups)] if groups else []), user])
    path = unit_dir / UNIT_NAME
    try:
        path.write_text(unit_text(table, user, web=web, club_server=club_server))
    except OSError as err:
        raise InputError(str(path), err.strerror or str(err)) from None
    run(["systemctl", "daemon-reload"])
    run(["systemctl", "enable", UNIT_NAME])
    return path


def _run(command: list[str]) -> None:
    import subprocess

    try:
        subprocess.run(command, check=True)
    except FileNotFoundError:
        raise InputError("service install", _("{command} is not installed").format(
                                                command=command[0])) from None
    except subprocess.CalledProcessError as err:
        raise InputError("service install", _("{command} failed (exit {returncode})").format(
                                                command=' '.join(command), returncode=err.returncode)) from None


def _user_exists(user: str) -> bool:
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def _group_exists(group: str) -> bool:
    try:
        grp.getgrnam(group)
        return True
    except KeyError:
        return False
