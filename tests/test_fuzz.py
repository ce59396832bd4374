"""Bad input never becomes a traceback: mutated scripts, configs, table files, journals and
argument vectors (see ``tests/fuzzing.py``) each end in exit 0 or in one line naming the
place, exit 2 — never a traceback, never a hang — and a damaged journal resumes into the
game it recorded or none. Bounded for CI (hypothesis picks the seeds); the big run is
``python tests/fuzz.py --runs 10000``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fuzzing import JournalBase, journal_bases, one_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# The fuzz checks the form of the one line (``voicehost…: error: …``): in English, the ids.
pytestmark = pytest.mark.usefixtures("english_module")

CASES = int(os.environ.get("VOICEHOST_FUZZ_CASES", "40"))
SETTINGS = settings(max_examples=CASES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
SEEDS = st.integers(min_value=0, max_value=2 ** 32)


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> list[JournalBase]:
    return journal_bases(tmp_path_factory.mktemp("bases"))


@pytest.mark.parametrize("kind", ["scripts", "configs", "tables", "arguments"])
def test_bad_input_ends_in_exit_0_or_one_line(kind: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp(kind)

    @SETTINGS
    @given(seed=SEEDS)
    def case(seed: int) -> None:
        outcome = one_case(kind, seed, root)
        assert not outcome.problem, f"{kind} seed {seed}: {outcome.problem}\n{outcome.err}"
    case()


def test_a_damaged_journal_resumes_the_same_game_or_none(bases: list[JournalBase],
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp("journals")

    @SETTINGS
    @given(seed=SEEDS)
    def case(seed: int) -> None:
        outcome = one_case("journals", seed, root, bases)
        assert not outcome.problem, f"journals seed {seed}: {outcome.problem}\n{outcome.err}"
    case()


def test_the_fuzzer_catches_a_traceback(tmp_path: Path) -> None:
    """The judge is not blind: a traceback, two lines, or a line without a place fail."""
    from fuzzing import judge
    assert judge("scripts", 0, None, "Traceback …").problem == "traceback"
    assert judge("scripts", 0, 2, "voicehost: error: x: y\nmore\n").problem
    assert judge("scripts", 0, 2, "voicehost: error: nowhere\n").problem
    assert not judge("scripts", 0, 2, "voicehost: error: a.json:3: bad\n").problem
