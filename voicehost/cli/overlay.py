"""``voicehost overlay obs``: OBS Studio switches scenes on the overlay's scene hints.

It reads the scene hints a table (``/overlay/events``) or the club screen
(``/overlay/table/N/events``) serves (docs/broadcast.md) and, for each hint, sets OBS's program
scene over obs-websocket v5 (built into OBS Studio 28 and later) with obsws-python. Which scene a
hint switches to is ``--scene HINT=SCENE`` (default: the scene named as the hint). A hint whose
scene OBS does not have is one line, and the next hint is waited for; a lost hint stream is
opened again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from voicehost.cli.args import Commands
from voicehost.i18n import _
from voicehost.rules import InputError

if TYPE_CHECKING:   # asyncio and logging load only when the follower runs: building the parser stays light
    import asyncio

HINTS = ("day", "night", "vote", "last_word", "over")   # voicehost.web.overlay.SCENES
PASSWORD_VARIABLE = "OBS_WEBSOCKET_PASSWORD"
CONNECT_S = 5.0
RETRY_S = 2.0


def add_commands(commands: Commands) -> None:
    overlay = commands.add_parser("overlay", help=_("the stream overlay's helpers (docs/broadcast.md)"))
    sub = overlay.add_subparsers(dest="action", required=True, metavar="obs")
    obs = sub.add_parser("obs", help=_("switch OBS Studio's scenes (obs-websocket v5) on the overlay's scene hints"))
    obs.add_argument("--url", required=True, metavar="ws://HOST:PORT",
                     help=_("OBS's websocket server (Tools → WebSocket Server Settings; usually ws://127.0.0.1:4455)"))
    obs.add_argument("--hints", required=True, metavar="URL",
                     help=_("the scene hints: http://TABLE:8080/overlay/events, or the club screen's "
                            "http://SCREEN:8090/overlay/table/N/events"))
    obs.add_argument("--scene", action="append", default=[], metavar=_("HINT=SCENE"),
                     help=_("the OBS scene a hint switches to (repeatable; the hints: docs/broadcast.md; "
                            "default: the scene named as the hint)"))
    obs.set_defaults(run=_obs)


def scene_map(pairs: list[str]) -> dict[str, str]:
    """``--scene day=Камера стола …`` → hint: scene (a hint not given keeps its own name)."""
    scenes = {hint: hint for hint in HINTS}
    for pair in pairs:
        hint, sep, scene = pair.partition("=")
        if not sep or hint not in HINTS or not scene.strip():
            raise InputError("--scene", _("{pair!r} is not HINT=SCENE (hints: {hints})").format(
                pair=pair, hints=", ".join(HINTS)))
        scenes[hint] = scene.strip()
    return scenes


def obs_address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    try:
        port = parts.port or 4455
    except ValueError:
        port = -1
    if parts.scheme != "ws" or not parts.hostname or port < 0:
        raise InputError("--url", _("{url!r} is not OBS's websocket address (e.g. ws://127.0.0.1:4455)").format(url=url))
    return parts.hostname, port


def hints_address(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or not parts.path.endswith("/events"):
        raise InputError("--hints", _("{url!r} is not an overlay's scene hints (…/overlay/events)").format(url=url))
    return url


def _obs(args: argparse.Namespace) -> int:
    import asyncio

    scenes, (host, port), hints = scene_map(args.scene), obs_address(args.url), hints_address(args.hints)
    obs = connect_obs(host, port, os.environ.get(PASSWORD_VARIABLE, ""), args.url)
    missing = sorted(set(scenes.values()) - set(obs.scenes()))
    if missing:
        print(_("voicehost: OBS has no scene {scenes}: those hints are skipped").format(scenes=", ".join(missing)),
              file=sys.stderr, flush=True)
    try:
        asyncio.run(follow_hints(hints, scenes, obs.switch, lambda line: print(line, flush=True)))
    except KeyboardInterrupt:
        pass
    return 0


class Obs:
    """OBS Studio over obs-websocket v5 (obsws-python's request client)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def scenes(self) -> list[str]:
        return [str(scene["sceneName"]) for scene in self.client.get_scene_list().scenes]

    def switch(self, scene: str) -> bool:
        """The program scene set to ``scene``; False if OBS refused (no such scene)."""
        from obsws_python.error import OBSSDKRequestError

        try:
            self.client.set_current_program_scene(scene)
        except OBSSDKRequestError:
            return False
        return True


def connect_obs(host: str, port: int, password: str, url: str) -> Obs:
    """OBS's websocket, or one line: it does not answer, or refuses the password."""
    import logging

    try:
        import obsws_python
        from obsws_python.error import OBSSDKError
    except ImportError:
        raise InputError("--url", _("talking to OBS needs obsws-python: pip install 'voicehost[obs]'")) from None
    logging.getLogger("obsws_python").addHandler(logging.NullHandler())
    logging.getLogger("obsws_python").propagate = False   # its own log prints a traceback for a refused connection
    try:
        return Obs(obsws_python.ReqClient(host=host, port=port, password=password, timeout=CONNECT_S))
    except (OSError, OBSSDKError, TimeoutError, ValueError) as err:
        raise InputError("--url", _("OBS does not answer at {url} ({why}): is its WebSocket server on?").format(
            url=url, why=str(err).splitlines()[0] if str(err) else type(err).__name__)) from None
    except Exception as err:  # websocket-client's own errors (a refused password, a closed handshake)
        raise InputError("--url", _("OBS refused the connection at {url} ({why}); its password is taken from "
                                    "${variable}").format(url=url, why=type(err).__name__,
                                                          variable=PASSWORD_VARIABLE)) from None


async def follow_hints(url: str, scenes: dict[str, str], switch: Callable[[str], bool], show: Callable[[str], None],
                       stop: asyncio.Event | None = None) -> None:
    """Each hint of ``url`` to its scene, until ``stop`` (or forever); a lost stream is opened again."""
    import asyncio

    import aiohttp

    loop = asyncio.get_running_loop()
    stop = stop or asyncio.Event()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, connect=CONNECT_S)) as http:
        while not stop.is_set():
            try:
                async with http.get(url) as response:
                    reading = asyncio.ensure_future(_switch_on_hints(response, scenes, switch, show, loop))
                    stopping = asyncio.ensure_future(stop.wait())
                    await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
                    for task in (reading, stopping):
                        task.cancel()
                    await asyncio.gather(reading, stopping, return_exceptions=True)
            except (aiohttp.ClientError, OSError) as err:
                show(_("voicehost: the scene hints at {url}: {why}; trying again").format(
                    url=url, why=type(err).__name__))
            if not stop.is_set():
                await asyncio.sleep(RETRY_S)


async def _switch_on_hints(response: Any, scenes: dict[str, str], switch: Callable[[str], bool],
                           show: Callable[[str], None], loop: asyncio.AbstractEventLoop) -> None:

    async for line in response.content:
        if not line.startswith(b"data: "):
            continue
        hint = json.loads(line[6:])
        scene = scenes.get(hint.get("scene"))
        if scene is None:
            continue
        switched = await loop.run_in_executor(None, switch, scene)   # obsws-python blocks
        line = _("voicehost: {hint} → OBS scene «{scene}»") if switched else \
            _("voicehost: {hint}: OBS has no scene «{scene}»")
        show(line.format(hint=hint["scene"], scene=scene))
