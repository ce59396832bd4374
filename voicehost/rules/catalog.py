"""Which rulesets there are, the game class that plays each and the timers its flow runs.

Plain data in a module of its own: listing the rulesets and loading one (``voicehost rules``,
every command's ``--rules`` check) must not import the games themselves, which cost more than
the interpreter's whole start (issue 30). Each game class takes its ``required_timers`` from
here, so the two cannot disagree.
"""

from __future__ import annotations

# The ruleset's name (its TOML file under rules/) → the name of its game class in voicehost.rules.
GAME_CLASSES = {"sport": "SportGame", "club": "ClubGame", "classic": "ClassicGame", "canonical": "CanonicalGame"}

# The timers each game's flow runs: its TOML file must set every one (see ruleset_from_mapping).
REQUIRED_TIMERS: dict[str, tuple[str, ...]] = {
    "sport": ("speech_s", "warning_s", "tie_speech_s", "short_speech_s", "silent_turn_s", "vote_window_s",
              "acquaintance_s"),
    "club": ("intro_s", "speech_s", "warning_s", "extra_s", "defence_s", "testament_s", "mafia_agree_s",
             "raise_hand_s", "vote_window_s"),
    "classic": ("discussion_s", "speech_s", "defence_s", "blood_name_s", "warning_s", "vote_window_s"),
    "canonical": ("discussion_s", "warning_s", "nominate_s", "vote_window_s"),
}
