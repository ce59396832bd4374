"""The standings as a club reads them (docs/tournament.md "Standings"): places shared as the
tie-breaks share them, names in natural order («игрок 2» before «игрок 10»), points as «1,25»,
the tie-breaks and the CSV's headings in Russian, the machine keys kept in the JSON."""

from __future__ import annotations

import csv
import io
import json

from voicehost.records.tournament import Standings, Tournament, standings_csv, standings_html, standings_lines
from voicehost.rules.scoring import Standing, name_order, points_text, rank


def result() -> Standings:
    rows = [Standing("игрок 10", games=2, points=3.25, wins=2), Standing("игрок 2", games=2, points=3.25, wins=2),
            Standing("Игрок 1", games=2, points=3.25, wins=2), Standing("Анна", games=2, points=1.0, wins=1),
            Standing("Борис", games=2, points=-0.5, wins=0)]
    tournament = Tournament("Кубок", "fiim", ("points", "extras", "wins", "special_wins", "killed_first"))
    return Standings(tournament, rank(rows, tournament.tie_breaks), games=4)


def test_places_are_shared_and_names_sort_as_numbers() -> None:
    rows = result().rows
    assert [(row.place, row.player) for row in rows] == [
        (1, "Игрок 1"), (1, "игрок 2"), (1, "игрок 10"), (4, "Анна"), (5, "Борис")]
    assert sorted(["стол 10", "стол 9", "Стол 1"], key=name_order) == ["Стол 1", "стол 9", "стол 10"]


def test_points_are_written_the_clubs_way() -> None:
    assert [points_text(v, ",") for v in (1.25, 3.0, -0.5, -0.001, 0.1 + 0.2)] == ["1,25", "3", "-0,5", "0", "0,3"]
    assert points_text(2.5) == "2.5"


def test_the_terminal_and_the_printed_page_read_russian() -> None:
    lines = standings_lines(result())
    assert lines[0].split()[:3] == ["Место", "Игрок", "Игры"]
    assert lines[1].split()[:5] == ["1", "Игрок", "1", "2", "3,25"] and "1.00" not in "\n".join(lines)
    assert [line.split()[0] for line in lines[1:6]] == ["1", "1", "1", "4", "5"]
    assert lines[6] == ("4 игры; дополнительные показатели: Баллы, Сумма доп., Победы, Победы шерифом и доном, "
                        "Убит в первую ночь")
    page = standings_html(result())
    assert '<td class="points">3,25</td>' in page and '<td class="points">-0,5</td>' in page
    assert "Победы шерифом и доном, Убит в первую ночь" in page and "special_wins" not in page


def test_the_csv_has_russian_headings_and_the_json_machine_keys() -> None:
    table = list(csv.reader(io.StringIO(standings_csv(result()))))
    assert table[0][:5] == ["Место", "Игрок", "Игры", "Баллы", "Победы"]
    assert table[1][:4] == ["1", "Игрок 1", "2", "3.25"], "numbers a spreadsheet reads as numbers"
    data = json.loads(json.dumps(result().as_dict()))
    assert data["columns"][:3] == ["place", "player", "games"] and data["tie_breaks"][3] == "special_wins"
