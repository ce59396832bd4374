"""voicehost.host.live (``voicehost run``): resuming a live game from its journal."""

from __future__ import annotations

import json

from test_game import voted_game

from voicehost.config import load_ruleset
from voicehost.host.journal import Journal, read_journal
from voicehost.host.live import resume_game


def test_a_live_game_cut_off_mid_vote_resumes_before_that_vote(tmp_path) -> None:
    """The power went off after six thumbs were recorded: the resumed game takes the vote
    again from its start, and the journal says so with a splice."""
    game = voted_game()
    game.pop()  # the vote had not closed
    path = tmp_path / "live.jsonl"
    journal = Journal(path, {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"})
    for i, item in enumerate(game.inputs):
        journal.append(i, float(i), "seats", item)
    journal.close()

    ruleset = load_ruleset("sport")
    resumed, journal = resume_game(path, ruleset, 10)
    journal.close()
    assert resumed.inputs == game.inputs[:-6] and resumed.request == game.request
    assert [e.input for e in read_journal(path)[1]] == resumed.inputs
    splice = json.loads(path.read_text().splitlines()[-1])
    assert (splice["type"], splice["remove"]) == ("splice", 6)
    assert splice["why"] == "resume: the interrupted vote is taken again"
