"""The project's own reference stays true: every option, value and timer of config/rules/*.toml
is in docs/rules.md, every key the script loader accepts and every protocol key and id is in
docs/scripts.md, and the README sends readers there."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from voicehost.rules import Role
from voicehost.rules.protocol import build_protocol
from voicehost.simulation import script as script_module
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.script import load_script

ROOT = Path(__file__).resolve().parent.parent
RULESETS = sorted((ROOT / "config" / "rules").glob("*.toml"))
RULES_DOC = ROOT / "docs" / "rules.md"
SCRIPTS_DOC = ROOT / "docs" / "scripts.md"


def quoted(path: Path) -> set[str]:
    """Everything the page writes as code (`x`) or as a JSON string ("x")."""
    text = path.read_text(encoding="utf-8").replace("```", "\n")
    return quoted_text(text) | set(re.findall(r'"([^"\n]+)"', text))


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_every_option_value_and_timer_of_a_ruleset_is_in_the_rules_doc(path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    doc = quoted(RULES_DOC)
    section = RULES_DOC.read_text(encoding="utf-8").split(f"## `{data['name']}`")
    assert len(section) == 2, f"docs/rules.md has no section ## `{data['name']}`"
    own = quoted_text(section[1].split("\n## ")[0])
    for option, spec in data.get("options", {}).items():
        assert option in own, f"option {option} of {path.name} is not in its section of docs/rules.md"
        for value in spec.get("values", []):
            assert value in doc, f"value {value} of {path.name} option {option} is not in docs/rules.md"
    for timer in data.get("timers", {}):
        assert timer in own, f"timer {timer} of {path.name} is not in its section of docs/rules.md"


def quoted_text(text: str) -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", text.replace("```", "\n")))


def test_every_key_the_script_loader_accepts_is_in_the_scripts_doc() -> None:
    doc = quoted(SCRIPTS_DOC)
    keys = (script_module.TOP_KEYS | script_module.NIGHT_KEYS | script_module.DAY_KEYS | script_module.MOMENTS
            | {"seat", "after_speech", "at", "black", "solo"} | {role.value for role in Role})
    missing = sorted(key for key in keys if key not in doc)
    assert not missing, f"docs/scripts.md does not explain {missing}"


def test_every_protocol_key_and_id_is_in_the_scripts_doc() -> None:
    doc = quoted(SCRIPTS_DOC)
    found: set[str] = set()
    for path in sorted((ROOT / "tests" / "scripts").glob("*.json")) + sorted((ROOT / "examples").glob("*.json")):
        if path.name.endswith(".expect.json"):
            continue
        result = simulate(load_script(path))
        protocol = build_protocol(result.game, result.ignored, result.script.names)
        found |= set(protocol) | {protocol["reason"] or "", protocol["winner"] or ""}
        for day in protocol["days"]:
            found |= set(day) | {day["vote"] or ""}
        for night in protocol["nights"]:
            found |= set(night)
        for elimination in protocol["eliminations"]:
            found |= set(elimination) | {elimination["cause"]}
    found.discard("")
    missing = sorted(key for key in found if key not in doc)
    assert not missing, f"docs/scripts.md does not explain {missing}"


def test_the_readme_sends_readers_to_the_projects_own_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/rules.md" in readme and "docs/scripts.md" in readme
    assert "TABLE-SCRIPT.md" not in readme and "RULES.md" not in readme
