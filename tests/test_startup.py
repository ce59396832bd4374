"""A command line that starts at once (issue 30): each command imports only what it uses.

Every check runs in a fresh interpreter, so what this test process has imported does not count.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Libraries that cost tens to hundreds of milliseconds to import, and the parts of voicehost
# that bring them (the host, the engine's games, the simulations, the web, the records, the
# audio stack and the seat panel). None of them is needed to build the parser, to read a
# phrase or to list the rulesets.
HEAVY = ("numpy", "scipy", "matplotlib", "sqlalchemy", "alembic", "psycopg", "aiohttp", "vosk", "sounddevice",
         "soundfile", "pyttsx3", "gpiozero", "platformdirs", "pymorphy3", "pyloudnorm", "num2words", "asyncio",
         "audio", "hw",
         "voicehost.host", "voicehost.simulation", "voicehost.web", "voicehost.records", "voicehost.service.table",
         "voicehost.rules.game", "voicehost.rules.flow", "voicehost.rules.errors", "voicehost.rules.events")

LOADED = """
import contextlib, io, json, sys
from voicehost.cli.main import build_parser, main
build_parser()
argv = json.loads(sys.argv[1])
if argv is not None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main(argv)
heavy = json.loads(sys.argv[2])
print(json.dumps(sorted(name for name in sys.modules if any(name == h or name.startswith(h + ".") for h in heavy))))
"""


def heavy_modules_after(argv: list[str] | None) -> list[str]:
    """The heavy modules loaded once the parser is built (and ``argv`` has run, if given)."""
    done = subprocess.run([sys.executable, "-c", LOADED, json.dumps(argv), json.dumps(HEAVY)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    return list(json.loads(done.stdout))


@pytest.mark.parametrize("argv", [None, ["--help"], ["parse", "--seats", "10", "выставляю игрока номер пять"],
                                  ["rules"], ["rules", "show", "club"]],
                         ids=["parser", "help", "parse", "rules", "rules show"])
def test_the_quick_commands_load_no_heavy_module(argv: list[str] | None) -> None:
    assert heavy_modules_after(argv) == []


def test_a_command_that_needs_the_engine_still_gets_it() -> None:
    """The lazy imports are behind the commands, not missing: a simulation loads the engine."""
    loaded = heavy_modules_after(["simulate", str(ROOT / "examples" / "sport-sample.json")])
    assert "voicehost.rules.flow" in loaded and "voicehost.simulation.engine_level" in loaded


def test_every_name_of_the_rules_package_is_there_when_asked_for() -> None:
    code = ("import voicehost.rules as rules, sys\n"
            "assert 'voicehost.rules.flow' not in sys.modules\n"
            "for name in rules.__all__: getattr(rules, name)\n"
            "from voicehost.rules import Event, Input, Request, GAMES, new_game\n"
            "print(sorted(GAMES))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["['canonical',", "'classic',", "'club',", "'sport']"]


def test_records_are_quick_whoever_imports_their_module_first() -> None:
    """The quick constructor and == (rules.records.quicken) no longer wait for the package to
    import every ruleset: importing the events module alone gives them."""
    code = ("from voicehost.rules.events import Event\n"
            "from voicehost.rules.inputs import Input\n"
            "from voicehost.rules.requests import Request\n"
            "from voicehost.rules.game import Outcome\n"
            "from voicehost.rules.records import family, _same_fields\n"
            "classes = [*family(Event).values(), *family(Input).values(), *Request.__args__, Outcome]\n"
            "print(sum(c.__eq__ is not _same_fields and '__eq__' in vars(c) for c in classes), len(classes))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, "VOICEHOST_ENGINE": "python"})  # compiled, mypyc's own stay
    slow, total = map(int, done.stdout.split())
    assert slow == 0 and total > 50


def test_the_catalog_names_each_rulesets_own_game() -> None:
    from voicehost.rules import GAMES
    from voicehost.rules.catalog import VARIANTS, find_variant

    assert {name: game.__name__ for name, game in GAMES.items()} == {v.name: v.game for v in VARIANTS}
    assert all(game.name == name and game.required_timers == find_variant(name).timers for name, game in GAMES.items())
    assert all(game.__module__ == f"voicehost.rules.{find_variant(name).module}" for name, game in GAMES.items())


def test_the_command_lines_audio_words_are_the_voices() -> None:
    from voicehost.cli.args import AUDIO_CHOICES
    from voicehost.host.voice import AUDIO_CHOICES as VOICE_AUDIO_CHOICES

    assert AUDIO_CHOICES == VOICE_AUDIO_CHOICES


def test_bench_cli_times_each_command_against_a_bare_interpreter(capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli.main import main

    assert main(["bench", "cli", "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[1].strip() for line in lines] == [
        "python -c pass", "voicehost --help", "voicehost rules", "voicehost parse", "voicehost records ratings",
        "voicehost records elo", "voicehost records games", "voicehost tournament list",
        "voicehost tournament standings"]
    assert lines[0].endswith("= 1.0× a bare interpreter (min against min; medians 1.0×)")
    assert all(" ms CPU = " in line for line in lines)


@pytest.mark.parametrize("argv", [["--help"], ["parse", "выставляю пятого"]], ids=["help", "parse"])
def test_a_command_without_the_engine_does_not_check_the_compiled_build(argv: list[str]) -> None:
    """Checking the build hashes every source (voicehost.native.fingerprint): it waits for the
    first import of an engine module (native.DeferredInstall)."""
    code = ("import contextlib, io, json, sys\n"
            "from voicehost.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    main(json.loads(sys.argv[1]))\n"
            "print('hashlib' in sys.modules)")
    env = {key: value for key, value in os.environ.items() if key != "VOICEHOST_ENGINE"}
    done = subprocess.run([sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True,
                          timeout=60, check=True, env=env)
    assert done.stdout.strip() == "False"


def test_the_command_map_names_the_module_that_adds_each_command() -> None:
    """``voicehost rules`` builds only the rules module's commands (cli.main.COMMAND_MODULES): the
    map must say where every command lives, or a command would be refused as unknown."""
    import importlib

    from voicehost.cli.main import COMMAND_GROUPS, COMMAND_MODULES

    added: dict[str, str] = {}
    for group in COMMAND_GROUPS:
        parser = argparse.ArgumentParser()
        commands = parser.add_subparsers()
        importlib.import_module(f"voicehost.cli.{group}").add_commands(commands)
        added.update(dict.fromkeys(commands.choices, group))
    assert added == COMMAND_MODULES


ONLY_ITS_MODULE = """
import contextlib, io, json, sys
from voicehost.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \\
        contextlib.suppress(SystemExit):
    main(json.loads(sys.argv[1]))
shared = ("voicehost.cli.main", "voicehost.cli.args")
print(json.dumps(sorted(name.removeprefix("voicehost.cli.") for name in sys.modules
                        if name.startswith("voicehost.cli.") and name not in shared)))
"""


# Every command module, with the helpers the records' and the tournament's commands are split into.
ALL_COMMAND_MODULES = ["bench", "config", "ears", "games", "hw", "overlay", "records", "records_history", "rules",
                       "run", "service", "sites", "tournament", "tournament_results", "tournament_screen", "voice"]


@pytest.mark.parametrize(("argv", "modules"), [
    (["rules"], ["rules"]),
    (["--lang", "en", "parse", "выставляю пятого"], ["rules"]),
    (["config", "paths"], ["config"]),
    (["--help"], ALL_COMMAND_MODULES),
    (["--version", "rules"], ALL_COMMAND_MODULES),
    (["no-such-command"], ALL_COMMAND_MODULES),
], ids=["rules", "lang first", "config", "help", "option first", "unknown"])
def test_a_named_command_imports_only_its_own_module(argv: list[str], modules: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", ONLY_ITS_MODULE, json.dumps(argv)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout) == modules
