"""What the host listens for, and with which model: the vosk grammar built from the
phrasebook's wordings and the table, the ``[ears]`` settings of a table file, and the
models folder (``voicehost model install|check``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audio.listener import ENDPOINT_RULES, ModelUnavailable, apply_endpoint, check_model_folder
from voicehost.config import data_dir, read_toml
from voicehost.host.hearing import HearingSettings
from voicehost.i18n import _
from voicehost.language.russian import cardinal, ordinal
from voicehost.rules import InputError

DEFAULT_MODEL_URL = "https://alphacephei.com/vosk/models/vosk-model-small-ru-0.22.zip"
DOWNLOAD_TIMEOUT_S = 60   # no answer this long (a network that drops packets): the install says how to do it offline
MODELS = data_dir() / "models"   # ~/.local/share/voicehost/models, or $VOICEHOST_DATA/models (the service)

# The wordings a player uses (docs/rules.md «How the table talks to the host»), with {n} a seat as a cardinal
# («номер семь») and {o} as an ordinal in the genitive («седьмого»).
NOMINATE = ("я выставляю игрока номер {n}", "выставляю игрока номер {n}", "выставляю {o}", "выставляю {o} игрока",
            "я выставляю на голосование игрока номер {n}", "выставляю кандидатуру игрока номер {n}",
            "я выставляю кандидатуру игрока под номером {n}")
WITHDRAW = ("отзываю игрока номер {n}", "я отзываю кандидатуру игрока номер {n}", "отзываю {o}",
            "отзываю игрока номер {n} с голосования")
ENDINGS = ("спасибо", "спасибо всё", "всё", "пас", "я пас")


def grammar(seats: Iterable[int], names: Mapping[int, str] | None = None,
            forbidden: Iterable[str] = ()) -> list[str]:
    """The phrases of the vosk grammar at this table: nominations and withdrawals × the seats
    (or the roster's names), the ends of a speech, and the club's forbidden words if any.
    No «[unk]»: wyoming-vosk measured that it does not help for Russian."""
    phrases: list[str] = []
    for seat in seats:
        forms = {"n": cardinal(seat), "o": ordinal(seat, "gen")}
        phrases += [p.format(**forms) for p in (*NOMINATE, *WITHDRAW)]
    for name in (names or {}).values():
        phrases += [f"выставляю {name.lower()}", name.lower()]
    phrases += [*ENDINGS, *(w.lower() for w in forbidden)]
    return list(dict.fromkeys(phrases))


def words(phrases: Iterable[str]) -> list[str]:
    return sorted({w for p in phrases for w in p.split()})


@dataclass(frozen=True)
class EarsConfig:
    model: str | None = None             # a model folder; else $VOICEHOST_VOSK_MODEL, else the installed one
    microphone: str | None = None        # a sounddevice input name; None: the default
    hold_off_s: float = 0.4              # frames dropped this long after the host stops speaking
    endpoint: dict[str, float] = field(default_factory=dict)   # rule2_s / rule3_s / rule4_s
    forbidden_words: tuple[str, ...] = ()
    alternatives: int = 0                # readings vosk returns per utterance (0: one, with word confidences)
    hearing: HearingSettings = field(default_factory=HearingSettings)   # doubt, veto, take-back


# [ears] keys of the host's doubt and correction → (lowest, highest) allowed
HEARING_KEYS = {"min_confidence": (0.0, 1.0), "veto_s": (0.5, 10.0), "join_s": (0.0, 10.0),
                "false_end_s": (0.0, 15.0), "hold_s": (0.2, 5.0)}


def ears_from_mapping(data: Any, place: str) -> EarsConfig:
    if not isinstance(data, Mapping):
        raise InputError(place, _("must be a table"))
    known = {"model", "microphone", "hold_off_s", "forbidden_words", "alternatives", *ENDPOINT_RULES, *HEARING_KEYS}
    for key in data:
        if key not in known:
            raise InputError(f"{place}.{key}", _("unknown setting (known: {known})").format(
                                                   known=', '.join(sorted(known))))
    endpoint = {}
    for key in ENDPOINT_RULES:
        if key in data:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.05 <= value <= 10:
                raise InputError(f"{place}.{key}", _("must be seconds of trailing silence, 0.05 to 10"))
            endpoint[key] = float(value)
    hold = data.get("hold_off_s", 0.4)
    if isinstance(hold, bool) or not isinstance(hold, (int, float)) or not 0 <= hold <= 5:
        raise InputError(f"{place}.hold_off_s", _("must be seconds from 0 to 5"))
    forbidden = data.get("forbidden_words", [])
    if not isinstance(forbidden, list) or not all(isinstance(w, str) and w.strip() for w in forbidden):
        raise InputError(f"{place}.forbidden_words", _("must be a list of words"))
    for key in ("model", "microphone"):
        if key in data and not isinstance(data[key], str):
            raise InputError(f"{place}.{key}", _("must be a string"))
    hearing = {}
    for key, (low, high) in HEARING_KEYS.items():
        value = data.get(key, getattr(HearingSettings, key))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise InputError(f"{place}.{key}", _("must be a number from {low:g} to {high:g}").format(
                                                   low=low, high=high))
        hearing[key] = float(value)
    alternatives = data.get("alternatives", 0)
    if isinstance(alternatives, bool) or not isinstance(alternatives, int) or not 0 <= alternatives <= 10:
        raise InputError(f"{place}.alternatives", _("must be a whole number from 0 to 10"))
    return EarsConfig(data.get("model"), data.get("microphone"), float(hold), endpoint, tuple(forbidden),
                      alternatives, HearingSettings(hearing["min_confidence"], hearing["veto_s"], hearing["join_s"],
                                                    hearing["false_end_s"], hearing["hold_s"]))


def load_ears(table: Path) -> EarsConfig:
    return ears_from_mapping(read_toml(table).get("ears", {}), f"{table}: ears")


def model_path(config: EarsConfig | None = None) -> Path:
    """Which model to use: the table's, else ``$VOICEHOST_VOSK_MODEL``, else the installed one."""
    if config is not None and config.model:
        return Path(config.model).expanduser()
    if os.environ.get("VOICEHOST_VOSK_MODEL"):
        return Path(os.environ["VOICEHOST_VOSK_MODEL"])
    return MODELS / "current"


def install_model(source: str, endpoint: Mapping[str, float], into: Path | None = None) -> Path:
    """Install a model from a ZIP file, a folder or a URL, apply the endpoint settings, and
    make it the current one (``into``: the models folder, :data:`MODELS`). Returns its folder."""
    into = into or MODELS
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=into) as work:
        folder = _unpack(source, Path(work))
        try:
            check_model_folder(folder)
        except ModelUnavailable as err:
            raise InputError("model install", str(err).replace(str(folder), source)) from None
        target = into / folder.name
        if target.exists():
            shutil.rmtree(target)
        shutil.move(str(folder), target)
    if endpoint:
        apply_endpoint(target, dict(endpoint))
    current = into / "current"
    if current.is_symlink() or current.exists():
        current.unlink()
    current.symlink_to(target.name)
    return target


def _unpack(source: str, work: Path) -> Path:
    if source.startswith(("http://", "https://")):
        archive = work / "download.zip"
        _download(source, archive)
        return _unzip(archive, work)
    path = Path(source).expanduser()
    if path.is_dir():
        copy = work / path.name
        shutil.copytree(path, copy)
        return copy
    if path.is_file():
        return _unzip(path, work)
    raise InputError("model install", _("{source}: no such file, folder or URL").format(
                                          source=source))


def _download(url: str, archive: Path) -> None:
    """The ZIP at ``url`` into ``archive``. No network (or no answer): one line with
    the URL to download on another computer and the command that installs the file."""
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as answer, open(archive, "wb") as file:  # noqa: S310
            shutil.copyfileobj(answer, file)
    except urllib.error.HTTPError as err:
        raise InputError("model install", offline_install(url, f"HTTP {err.code}")) from None
    except urllib.error.URLError as err:
        raise InputError("model install", offline_install(url, str(err.reason))) from None
    except (OSError, ValueError) as err:  # a timeout mid-download, a URL http.client refuses
        raise InputError("model install", offline_install(url, str(err) or type(err).__name__)) from None


def offline_install(url: str, reason: str) -> str:
    """What to do when the model cannot be downloaded here, in the language in use."""
    name = Path(urllib.parse.urlsplit(url).path).name or _("MODEL.zip")
    return _("cannot download {url} ({reason}). Download this ZIP on a computer with internet, bring it here "
             "(a USB stick, scp) and install it from the file: voicehost model install FOLDER/{name}").format(
                 url=url, reason=reason, name=name)


def install_hint() -> str:
    """How to install the model, for a command that found none, in the language in use."""
    name = Path(urllib.parse.urlsplit(DEFAULT_MODEL_URL).path).name
    return _("no model installed: with internet, voicehost model install (downloads {url}); without internet, "
             "download this ZIP on another computer and install it from the file: "
             "voicehost model install FOLDER/{name}").format(url=DEFAULT_MODEL_URL, name=name)


def _unzip(archive: Path, work: Path) -> Path:
    try:
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(work / "unzipped")
    except zipfile.BadZipFile:
        raise InputError("model install", _("{name}: not a ZIP archive").format(name=archive.name)) from None
    tops = [p for p in (work / "unzipped").iterdir() if p.is_dir()]
    return tops[0] if len(tops) == 1 else work / "unzipped"
