"""How well the table hears: invented games played at the table level twice — as said, and
through a recognizer that makes mistakes (:mod:`voicehost.simulation.mishearing`) — and compared.

A misheard game is *right* when its protocol equals the clean one. The host's doubt
(«Повторите номер») and the people's corrections (repeat, veto, holding the button) can be
switched off to see what they buy. Figures: the share of right games, the nominations lost
and the wrong ones left standing (both from the first difference between the two games), and
the table time the corrections cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from voicehost.config import ruleset_names
from voicehost.host import run_virtual
from voicehost.host.hearing import HearingSettings
from voicehost.rules.inputs import Nominate, Withdraw
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.mishearing import ErrorRates, Mishearing
from voicehost.simulation.script import script_from_data
from voicehost.simulation.scriptgen import random_script
from voicehost.simulation.table_level import Divergence, TableRun, play_table


@dataclass
class HearingFigures:
    games: int = 0
    right: int = 0
    lost: int = 0            # a nomination the host never took
    wrong_standing: int = 0  # a nomination the host took for another seat, not corrected
    other: int = 0           # games that went another way (an end of speech, a vote…)
    words: int = 0
    words_wrong: int = 0
    extra_table_s: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        extra = sorted(self.extra_table_s) or [0.0]
        return {"games": self.games, "right_share": self.right / max(1, self.games), "right": self.right,
                "nominations_lost": self.lost, "nominations_wrong_standing": self.wrong_standing,
                "other_differences": self.other, "measured_wer": self.words_wrong / max(1, self.words),
                "correction_s_mean": sum(extra) / len(extra), "correction_s_max": extra[-1]}


def bench_hearing(wer: float, games: int, seed: int, corrections: bool = True,
                  rulesets: list[str] | None = None) -> HearingFigures:
    """``games`` invented games of each ruleset, clean and misheard at word error rate ``wer``."""
    figures = HearingFigures()
    for name in rulesets or ruleset_names():
        for k in range(games):
            game_seed = seed * 100_003 + k
            script = script_from_data(random_script(name, game_seed))
            clean = run_virtual(play_table(script))
            ears = Mishearing(ErrorRates.at(wer), game_seed, script.seats)
            settings = HearingSettings(ask_again=corrections)
            figures.games += 1
            try:
                noisy = run_virtual(play_table(script, how=TableRun(ears=ears, hearing=settings)))
            except Divergence as err:
                _classify(figures, err)
                continue
            finally:
                figures.words += ears.words_heard
                figures.words_wrong += ears.words_wrong
            if build_protocol(noisy.game) == build_protocol(clean.game):
                figures.right += 1
                figures.extra_table_s.append(_length(noisy) - _length(clean))
            else:
                figures.other += 1
    return figures


def _length(result: Any) -> float:
    lines = result.table.lines
    return lines[-1][0] - lines[0][0] if lines else 0.0


def _classify(figures: HearingFigures, parting: Divergence) -> None:
    """Where the misheard game parted from the clean one: at a nomination the host never took
    (lost), took for another seat (wrong, left standing), or elsewhere."""
    words = (Nominate, Withdraw)
    if not isinstance(parting.did, words):
        figures.other += 1
    elif isinstance(parting.took, words):
        figures.wrong_standing += 1
    else:
        figures.lost += 1
