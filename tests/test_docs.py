"""The project's own reference stays true: every option, value and timer of config/rules/*.toml
is in docs/rules.md, every key the script loader accepts and every protocol key and id is in
docs/scripts.md, every command and option of the command line is in docs/commands.md, and the
README stays a five-minute read (at most 15 KB) that sends readers to docs/ by links that work."""

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


COMMANDS_DOC = ROOT / "docs" / "commands.md"
README_LIMIT_BYTES = 15 * 1024


def cli_commands() -> list[tuple[list[str], list[str]]]:
    """Every command path of the `voicehost` parser (subparsers, and a positional's choices such as
    `voice warm` or `bench engine`), each with the option strings it takes."""
    import argparse

    from voicehost.cli.main import build_parser

    found: list[tuple[list[str], list[str]]] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        options: list[str] = []
        actions: list[str] = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif action.option_strings:
                if not isinstance(action, argparse._HelpAction):
                    options.append(max(action.option_strings, key=len))
            elif action.choices is not None and action.dest in {"action", "what"}:
                actions.extend(str(choice) for choice in action.choices)
        found.append((path, options))
        found.extend(([*path, choice], []) for choice in actions)

    walk(build_parser(), [])
    return found


def test_every_command_and_option_is_in_the_command_reference() -> None:
    lines = COMMANDS_DOC.read_text(encoding="utf-8").splitlines()
    missing = []
    for path, options in cli_commands():
        command = " ".join(["voicehost", *path])
        if path and not any(command in line for line in lines):
            missing.append(command)
        for option in options:
            pattern = re.compile(re.escape(option) + r"(?![\w-])")
            if not any(command in line and pattern.search(line) for line in lines):
                missing.append(f"{command} {option}")
    assert not missing, f"docs/commands.md does not document {missing}"


def test_the_readme_is_at_most_15_kb() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size <= README_LIMIT_BYTES, f"README.md is {size} bytes; move detail into docs/ (limit {README_LIMIT_BYTES})"


def links(path: Path) -> list[str]:
    """The relative targets of the page's Markdown links and images (`file` or `file#anchor`)."""
    targets = re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8"))
    return [target for target in targets if not re.match(r"[a-z]+:", target) and not target.startswith("#")]


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page):
        file, _, anchor = target.partition("#")
        resolved = page.parent / file
        if not resolved.is_file() or (anchor and resolved.suffix == ".md" and anchor not in anchors(resolved)):
            broken.append(target)
    return broken


def test_every_docs_link_in_the_readme_resolves_to_a_file() -> None:
    readme = ROOT / "README.md"
    pages = {target.partition("#")[0] for target in links(readme)}
    wanted = {f"docs/{name}.md" for name in
              ("commands", "speed", "voice", "ears", "journal", "appliance", "records", "web", "pi")}
    assert wanted <= pages, f"README.md does not link to {sorted(wanted - pages)}"
    broken = broken_links(readme)
    assert not broken, f"README.md links to missing files or headings {broken}"


@pytest.mark.parametrize("path", sorted((ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_every_link_between_the_docs_resolves_to_a_file(path: Path) -> None:
    broken = broken_links(path)
    assert not broken, f"{path.name} links to missing files or headings {broken}"
