"""The opponent-weighted Elo rating (voicehost.records.elo): a small sequence worked out by hand
(the same as docs/records.md's example), the rules of the formula, and ``records elo`` over
stored games giving what the protocol files alone give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_club_records import cli, protocol_files

from voicehost.records.elo import INITIAL, SCALE, K, elo_ratings, expected
from voicehost.records.games import read_record


def seat(game: str, nickname: str, team: str, won: bool) -> dict[str, Any]:
    return {"game_id": game, "nickname": nickname, "team": team, "won": won}


# Game 1: Анна and Борис (red) beat Вера (black). Game 2: Борис (black) beats Анна and Вера (red).
GAMES = [seat("g1", "Анна", "red", True), seat("g1", "Борис", "red", True), seat("g1", "Вера", "black", False),
         seat("g2", "Анна", "red", False), seat("g2", "Вера", "red", False), seat("g2", "Борис", "black", True)]


def test_the_constants_are_the_documented_ones() -> None:
    assert (INITIAL, K, SCALE) == (1500.0, 32.0, 400.0)
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(10 / 11)   # 400 points ahead: ten wins to one loss


def test_a_small_sequence_worked_out_by_hand() -> None:
    table = {r.player: r for r in elo_ratings(GAMES)}
    # Game 1: everyone 1500, E = 0.5: the winners +16, the loser −16.
    # Game 2, from 1516 (Анна), 1516 (Борис), 1484 (Вера):
    #   Анна:  opponents' mean 1516,              E = 0.5           → 1516 − 32 × 0.5      = 1500
    #   Вера:  opponents' mean 1516,              E = 1/(1+10^(32/400)) = 0.454078 → 1484 − 14.5305 = 1469.4695
    #   Борис: opponents' mean (1516+1484)/2=1500, E = 1/(1+10^(−16/400)) = 0.523011 → 1516 + 15.2637 = 1531.2637
    assert table["Анна"].rating == pytest.approx(1500.0, abs=1e-9)
    assert table["Вера"].rating == pytest.approx(1469.4695, abs=1e-4)
    assert table["Борис"].rating == pytest.approx(1531.2637, abs=1e-4)
    assert [r.player for r in elo_ratings(GAMES)] == ["Борис", "Анна", "Вера"]
    assert table["Борис"].history == [  # type: ignore[comparison-overlap]  # approx equals a float by design
        (1, pytest.approx(1516.0)), (2, pytest.approx(1531.2637, abs=1e-4))]
    assert (table["Борис"].games, table["Борис"].wins, table["Вера"].wins) == (2, 2, 0)


def test_the_side_ratings_are_played_out_between_side_ratings() -> None:
    table = {r.player: r for r in elo_ratings(GAMES)}
    # Game 1 as above, on the red and black sides: Анна red 1516, Борис red 1516, Вера black 1484.
    # Game 2: Анна red 1516 and Вера red 1500 (her first red game) against Борис black 1500 (his first black one):
    #   Анна red:    E = 1/(1+10^(−16/400)) = 0.523011 → 1516 − 16.7363 = 1499.2637
    #   Вера red:    E = 0.5                            → 1500 − 16      = 1484
    #   Борис black: mean (1516+1500)/2 = 1508, E = 1/(1+10^(8/400)) = 0.488489 → 1500 + 16.3684 = 1516.3684
    assert table["Анна"].sides["red"].rating == pytest.approx(1499.2637, abs=1e-4)
    assert table["Вера"].sides["red"].rating == pytest.approx(1484.0)
    assert table["Вера"].sides["black"].rating == pytest.approx(1484.0)
    assert table["Борис"].sides["black"].rating == pytest.approx(1516.3684, abs=1e-4)
    assert table["Борис"].sides["red"].rating == pytest.approx(1516.0)
    assert (table["Борис"].sides["black"].games, table["Анна"].sides["red"].games) == (1, 2)


def test_beating_strong_players_earns_more_than_beating_weak_ones() -> None:
    strong = [seat(f"s{n}", "Сильный", "red", True) for n in range(5)] + \
             [seat(f"s{n}", "Слабый", "black", False) for n in range(5)]
    before = {r.player: r.rating for r in elo_ratings(strong)}
    against_strong = elo_ratings([*strong, seat("x", "Новичок", "black", True), seat("x", "Сильный", "red", False)])
    against_weak = elo_ratings([*strong, seat("x", "Новичок", "black", True), seat("x", "Слабый", "red", False)])
    gain_strong = next(r.rating for r in against_strong if r.player == "Новичок") - INITIAL
    gain_weak = next(r.rating for r in against_weak if r.player == "Новичок") - INITIAL
    assert before["Сильный"] > INITIAL > before["Слабый"]
    assert gain_strong > K / 2 > gain_weak > 0


def test_the_seat_order_within_a_game_changes_nothing() -> None:
    reordered = [GAMES[2], GAMES[0], GAMES[1], GAMES[5], GAMES[4], GAMES[3]]
    assert [r.as_dict() for r in elo_ratings(reordered)] == [r.as_dict() for r in elo_ratings(GAMES)]


def test_records_elo_equals_the_rating_worked_out_from_the_protocol_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = protocol_files(tmp_path / "games", 12)
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    assert cli(capsys, "records", "import", *map(str, paths), "--db", db)[0] == 0
    chart = tmp_path / "elo.png"
    code, out, err = cli(capsys, "records", "elo", "--json", "--db", db, "--chart", str(chart), "--top", "3")
    assert code == 0, err
    stored = json.loads(out)
    rows = []
    for record in sorted((read_record(p, None) for p in paths), key=lambda r: (r.played_at, str(r.id))):
        rows += [{"game_id": record.id, "nickname": s.player, "team": s.team, "won": s.won}
                 for s in record.seats if s.player]
    assert stored == [r.as_dict() for r in elo_ratings(rows)]
    assert len(stored) == 12 and {side for r in stored for side in r["sides"]} == {"red", "black"}
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and chart.stat().st_size > 10_000
    code, out, _ = cli(capsys, "records", "elo", "--db", db)
    assert code == 0 and stored[0]["player"] in out.splitlines()[1]


def test_a_chart_of_no_games_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "records", "elo", "--db", f"sqlite:///{tmp_path / 'empty.sqlite'}",
                         "--chart", str(tmp_path / "x.png"))
    assert code == 2 and len(err.splitlines()) == 1


def test_the_elo_table_reads_in_russian(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from voicehost.i18n import set_language

    paths = protocol_files(tmp_path / "games", 3)
    db = f"sqlite:///{tmp_path / 'club.sqlite'}"
    assert cli(capsys, "records", "import", *map(str, paths), "--db", db)[0] == 0
    monkeypatch.setenv("VOICEHOST_LANG", "ru")
    set_language(None)
    try:
        code, out, _ = cli(capsys, "records", "elo", "--db", db)
    finally:
        monkeypatch.delenv("VOICEHOST_LANG")
        set_language(None)
    header = out.splitlines()[0]
    assert code == 0 and "игрок" in header and "Эло за красных" in header and "Эло за чёрных" in header
