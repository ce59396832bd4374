"""A speech that nominates a number no seat at the table has (issue 28): the live host does not
take it (it asks for the number again), and the engine level must give the same protocol,
listing it under ``ignored`` with the reason."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.host.vclock import run_virtual
from voicehost.rules.inputs import Nominate
from voicehost.rules.protocol import build_protocol
from voicehost.simulation.engine_level import simulate
from voicehost.simulation.script import Script, script_from_data
from voicehost.simulation.table_level import play_table

ROLES = {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"}
TWELVE = "я выставляю на голосование кандидатуру 12"


def _script(**script: Any) -> Script:
    return script_from_data({"roles": ROLES, **script})


def _both(script: Script) -> tuple[dict[str, Any], dict[str, Any]]:
    engine = simulate(script)
    table = run_virtual(play_table(script))
    return (build_protocol(engine.game, engine.ignored, script.names),
            build_protocol(table.game, table.ignored, script.names))


def test_the_engine_level_lists_a_nomination_of_a_seat_the_table_lacks_under_ignored() -> None:
    engine = simulate(_script(days=[{"speeches": {"1": TWELVE, "2": "выставляю пятого спасибо"}}]))
    protocol = build_protocol(engine.game, engine.ignored)
    assert protocol["days"][0]["nominations"] == [[2, 5]]
    assert protocol["ignored"] == [{"at": "days[0].speeches.1",
                                    "why": "nominates seat 12: there is no seat 12 at a 10-seat table"}]
    assert not [e for e in engine.game.inputs if isinstance(e, Nominate) and e.target == 12]


def test_the_rest_of_the_words_after_an_unseated_number_is_not_taken_either() -> None:
    """The host asks again and trusts nothing more of that utterance; a later one counts."""
    protocol = build_protocol(*_played(days=[{"speeches": {"1": ["выставляю двенадцатого и пятого",
                                                                 "выставляю шестого"]}}]))
    assert protocol["days"][0]["nominations"] == [[1, 6]]
    assert [entry["why"] for entry in protocol["ignored"]] == [
        "nominates seat 12: there is no seat 12 at a 10-seat table"]


def _played(**script: Any) -> tuple[Any, list[dict[str, str]]]:
    result = simulate(_script(**script))
    return result.game, result.ignored


def test_both_levels_give_the_same_protocol_for_an_unseated_nomination() -> None:
    script = _script(days=[{"speeches": {"1": TWELVE, "2": "выставляю пятого спасибо",
                                         "3": ["выставляю номер одиннадцать", "спасибо"]}}])
    engine, table = _both(script)
    assert table == engine
    assert [entry["at"] for entry in engine["ignored"]] == ["days[0].speeches.1", "days[0].speeches.3"]


UNSEATED = st.sampled_from(["я выставляю на голосование кандидатуру {}", "выставляю {} спасибо",
                            "выставляю игрока номер {}", "снимаю {}"])


@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_speeches_naming_numbers_beyond_the_table_give_one_protocol_at_both_levels(data: Any) -> None:
    seats = st.integers(1, 10)
    speech = st.one_of(st.tuples(UNSEATED, st.integers(11, 30)).map(lambda t: t[0].format(t[1])),
                       st.tuples(UNSEATED, seats).map(lambda t: t[0].format(t[1])))
    days = data.draw(st.lists(st.fixed_dictionaries({"speeches": st.dictionaries(seats.map(str), speech,
                                                                                   max_size=4)}),
                              min_size=1, max_size=2))
    engine, table = _both(_script(nights=[{}] * len(days), days=days))
    assert table == engine
