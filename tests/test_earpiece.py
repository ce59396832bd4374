"""The judge's private channel (``--judge-audio``, voicehost.host.earpiece): a whole game
rendered to two files — the table's and the judge's — puts every secret on the judge's track
and none on the table's, checked from the transcript by channel and in the audio itself."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from audio.tts import VoiceUnavailable
from voicehost.cli.main import main
from voicehost.config import load_ruleset
from voicehost.host.clock import TableClock
from voicehost.host.earpiece import JudgeChannel, JudgeFollower, JudgeLines, judge_around
from voicehost.host.journal import Journal, load_journal
from voicehost.host.notices import BallotsCast, ConsoleAnswered, Notice
from voicehost.host.refusals import ConsoleAnswer, NoCommand
from voicehost.host.subtitles import Transcript
from voicehost.host.table_file import audio_from_mapping, load_audio, table_path
from voicehost.host.vclock import run_virtual
from voicehost.host.voice import FileVoice, JudgeVoice
from voicehost.language.phrasebook import load_phrasebook
from voicehost.language.refusals import refusal_text
from voicehost.rules import InputError, new_game
from voicehost.rules.errors import NotTheRolesSeat
from voicehost.rules.events import CheckAnswered, RolesDealt
from voicehost.rules.inputs import Deal, Shots
from voicehost.rules.roles import Role
from voicehost.simulation.script import load_script
from voicehost.simulation.table_level import TableRun, play_table

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = {"ruleset": "sport", "roles": {"3": "don", "5": "mafia", "9": "mafia", "7": "sheriff"},
          "nights": [{"shots": {"3": 4, "5": 4, "9": 4}, "check": {"3": 7, "7": 3}}],
          "days": [{"speeches": {"1": ["выставляю игрока номер пять", "спасибо"], "2": ["спасибо"]},
                    "votes": {"1": 5, "2": 5, "4": 5, "6": 5}}]}
SPEED = 20.0


def _similarity(track: np.ndarray, start: int, clip: np.ndarray) -> float:
    """How much of ``clip`` the track holds at ``start``: the normalised correlation (1: it is there alone)."""
    part = track[start:start + len(clip)]
    if len(part) < len(clip) or not np.any(part):
        return 0.0
    return float(np.dot(part, clip) / (np.linalg.norm(part) * np.linalg.norm(clip)))


def _render(tmp_path: Path) -> dict[str, Any]:
    audio = load_audio(table_path(None))
    try:
        table = FileVoice(audio, str(tmp_path / "table.wav"))
    except (InputError, VoiceUnavailable) as err:
        pytest.skip(f"no voice here: {err}")
    judge = JudgeVoice(audio, f"file:{tmp_path / 'judge.wav'}", log=lambda line: None, virtual=True)
    transcript = Transcript(tmp_path / "t.jsonl")
    journal = Journal(tmp_path / "game.jsonl", {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"})
    try:
        how = TableRun(speak=table.speak, night=table.night, cue=table.cue, cue_length=table.cue_length,
                       hold=table.hold, warning=table.warning, speed=SPEED, transcript=transcript,
                       around=judge_around(judge.speak, load_phrasebook(), journal, transcript))
        result = run_virtual(play_table(load_script(ROOT / "examples" / "sport-sample.json"), journal, how=how))
        assert isinstance(judge.voice, FileVoice)
        said = {"table": list(table.mixer.subtitles), "judge": list(judge.voice.mixer.subtitles)}
        clips = {text: table.renderer.clip(text) * table.mixer.settings.voice_level
                 for lines in said.values() for _, text in lines if text}
    finally:
        table.close()
        judge.close()
        transcript.close()
        journal.close()
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()]
    tracks = {name: soundfile.read(str(tmp_path / f"{name}.wav"), dtype="float32") for name in ("table", "judge")}
    return {"game": result.game, "said": said, "clips": clips, "records": records, "tracks": tracks,
            "journal": tmp_path / "game.jsonl"}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _render(tmp_path_factory.mktemp("earpiece"))


def test_every_secret_is_on_the_judges_channel_and_none_at_the_table(rendered: dict[str, Any]) -> None:
    records = [r for r in rendered["records"] if "key" in r]
    judge = [r for r in records if r.get("channel") == "judge"]
    table = [r for r in records if "channel" not in r]
    assert all(r["key"].startswith("judge.") for r in judge)
    assert not any(r["key"].startswith("judge.") for r in table)
    assert not {r["text"] for r in judge} & {r["text"] for r in table}   # no table line said again
    texts = [r["text"] for r in judge]
    game = rendered["game"]
    # the deal, at the start
    assert texts[:4] == ["Раздача.", "Дон: номер три.", "Мафия: номера пять и девять.", "Шериф: номер семь."]
    # each shooter's taps, and the result; each check — in the order the night gave them
    shooters = [s for item in game.inputs if isinstance(item, Shots) for s, _ in item.taps]
    assert len(shooters) == 3 and len(checks := [e for e in game.events if isinstance(e, CheckAnswered)]) == 3
    night = [t for t in texts if "стреляет" in t or "Попадание" in t or "Промах" in t or "проверяет" in t]
    assert night == ["Номер три стреляет в номер один.", "Номер девять стреляет в номер один.",
                     "Попадание: номер один.", "Дон проверяет номер семь: шериф.",
                     "Шериф проверяет номер девять: чёрный.", "Номер три стреляет в номер семь.",
                     "Попадание: номер семь.", "Дон проверяет номер четыре: не шериф."], (checks, night)
    # each vote's count, with its voters; the judge's foul answered
    assert "За номер пять шесть голосов: один, два, четыре, шесть, семь и десять." in texts
    assert "Сделано: замечание." in texts
    # none of it at the table: no card, no check, no voter list
    assert not any(word in r["text"] for r in table for word in ("проверяет", "Раздача", "Попадание"))


def test_the_judges_lines_are_in_his_track_and_not_in_the_tables(rendered: dict[str, Any]) -> None:
    (table, rate), (judge, judge_rate) = rendered["tracks"]["table"], rendered["tracks"]["judge"]
    assert rate == judge_rate
    clips = rendered["clips"]
    lines = [(onset, text) for onset, text in rendered["said"]["judge"] if text]
    assert len(lines) >= 10
    inside = np.zeros(len(judge), dtype=bool)
    for onset, text in lines:
        start = int(round(onset * rate))
        assert _similarity(judge, start, clips[text]) > 0.99, text   # there, alone
        assert _similarity(table, start, clips[text]) < 0.5, text    # not at the table
        inside[start:start + len(clips[text])] = True
    # nothing else in the judge's ear: no night music, no line of the table's
    assert float(np.max(np.abs(judge[~inside[:len(judge)]]))) < 1e-3
    for onset, text in rendered["said"]["table"]:
        start = int(round(onset * rate))
        if text and not inside[start:start + len(clips[text])].any():
            assert _similarity(judge, start, clips[text]) == 0.0, text


def test_the_judges_lines_never_reach_the_tables_mixer(rendered: dict[str, Any]) -> None:
    """The table's mixer is told only the table's lines: nothing of the judge's can duck its
    night music (a line in a mixer is what ducks it), and each line it played is in the transcript."""
    table = [text for _, text in rendered["said"]["table"] if text]
    judge = [text for _, text in rendered["said"]["judge"] if text]
    assert judge and not set(table) & set(judge)
    public = [r["text"] for r in rendered["records"] if "key" in r and "channel" not in r]
    assert table == public


def test_the_journal_keeps_what_the_judge_was_told_and_still_resumes(rendered: dict[str, Any]) -> None:
    lines = [json.loads(line) for line in rendered["journal"].read_text(encoding="utf-8").splitlines()]
    said = [r for r in lines if r["type"] == "said"]
    judged = [r for r in rendered["records"] if r.get("channel") == "judge"]
    assert [(r["channel"], r["key"], r["text"]) for r in said] == [("judge", r["key"], r["text"]) for r in judged]
    read = load_journal(rendered["journal"])
    assert len(read.entries) == len(rendered["game"].inputs)


def test_a_bad_said_record_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    Journal(path, {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"}).close()
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps({"type": "said", "t": 1.0, "channel": "judge", "key": 5, "text": "x"}) + "\n")
    with pytest.raises(InputError, match=r"j\.jsonl:2: "):
        load_journal(path)


def _dealt_game() -> Any:
    ruleset = load_ruleset("sport")
    game = new_game(ruleset, ruleset.resolve({}, "options"), 10)
    roles = [Role.CITIZEN] * 10
    roles[2], roles[4], roles[8], roles[6] = Role.DON, Role.MAFIA, Role.MAFIA, Role.SHERIFF
    game.push(Deal(tuple(roles)))
    return game


class _Clock:
    def now(self) -> float:
        return 0.0

    def at(self, loop_time: float) -> float:
        return loop_time

    def loop_time(self, table_time: float) -> float:
        return table_time


def _told(game: Any, notices: list[Notice], then: Any = None) -> list[str]:
    heard: list[str] = []

    async def speak(text: str) -> float:
        heard.append(text)
        return 0.0

    async def session() -> None:
        channel = JudgeChannel(game, load_phrasebook(), _Clock(), speak)  # type: ignore[arg-type]
        channel.start()
        for notice in notices:
            channel.notice(notice)
        if then is not None:
            then(channel)
        await channel.drain(5)
        channel.close()

    asyncio.run(session())
    return heard


def test_a_resumed_game_tells_the_deal_once() -> None:
    game = _dealt_game()
    assert any(isinstance(e, RolesDealt) for e in game.events)
    heard = _told(game, [])
    assert heard.count("Раздача.") == 1 and "Дон: номер три." in heard


def test_each_answer_says_done_or_refused_and_why() -> None:
    heard = _told(_dealt_game(), [ConsoleAnswered(ConsoleAnswer(1, "foul 5", "done")),
                                  ConsoleAnswered(ConsoleAnswer(2, "", "refused", NoCommand())),
                                  ConsoleAnswered(ConsoleAnswer(3, "status", "done"))])
    assert "Сделано: замечание." in heard
    refused = [h for h in heard if h.startswith("Отказано:")]
    assert len(refused) == 1 and len(refused[0]) > len("Отказано: ")
    assert heard[heard.index("Сделано: статус.") + 1] == "В игре десять игроков."


@pytest.mark.usefixtures("english")
def test_a_refusal_is_heard_in_russian_under_lang_en() -> None:
    """The voice speaks only Russian lines: under ``--lang en`` (the judge's phone and terminal in
    English) the earpiece still says the reason in Russian, its role too, not an English sentence
    inside «Отказано: …»."""
    refusal = NotTheRolesSeat(role=Role.SHERIFF, seat=7, by=4)
    heard = _told(_dealt_game(), [ConsoleAnswered(ConsoleAnswer(1, "check 4", "refused", refusal))])
    refused = [h for h in heard if h.startswith("Отказано:")]
    assert len(refused) == 1
    assert "шериф" in refused[0].lower() and not any("a" <= c.lower() <= "z" for c in refused[0]), refused
    assert refusal_text(refusal) != refused[0].removeprefix("Отказано: ").rstrip(".")  # the phone reads English


def test_status_and_repeat_on_the_judges_demand() -> None:
    heard = _told(_dealt_game(), [], then=lambda channel: (channel.status(), channel.repeat()))
    status = heard[heard.index("В игре десять игроков."):]
    assert status[1:4] == ["Дон: номер три.", "Мафия: номера пять и девять.", "Шериф: номер семь."]
    assert status[4:] == status[:4]   # repeat: the same lines again


def test_a_lift_vote_is_counted_once() -> None:
    from hw.capture import Ballot, Window
    from voicehost.host.ballots import VoteBallots
    vote = VoteBallots.of(1, 1, "lift", 0, 0, [Window(0, 0.0, 1.0)],
                          [Ballot(2, 0, 0.5, 0.7, "vote"), Ballot(6, 0, 0.6, 0.8, "vote")])
    lines = JudgeLines(_dealt_game(), load_phrasebook())
    assert lines.of(BallotsCast(vote, False)) == [("lift", {"n": 2, "list": [2, 6]})]
    assert lines.of(BallotsCast(vote, True)) == []


def test_the_table_files_judge_output_is_checked() -> None:
    assert audio_from_mapping({"judge_output": "device:earpiece"}, "t").judge_output == "device:earpiece"
    assert audio_from_mapping({}, "t").judge_output == "off"
    with pytest.raises(InputError, match="judge_output"):
        audio_from_mapping({"judge_output": "bluetooth"}, "t")


def test_demo_renders_both_tracks_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    code = main(["demo", str(script), "--speed", "20", "--audio", f"file:{tmp_path / 'table.wav'}",
                 "--judge-audio", f"file:{tmp_path / 'judge.wav'}", "--transcript", str(tmp_path / "t.jsonl")])
    if code != 0 and "voice" in capsys.readouterr().err:
        pytest.skip("no voice here")
    assert code == 0
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in records if r.get("channel") == "judge"][:2] == ["Раздача.", "Дон: номер три."]
    judge, rate = soundfile.read(str(tmp_path / "judge.wav"), dtype="float32")
    assert len(judge) / rate > 5 and np.max(np.abs(judge)) > 0.05


def test_a_bad_judge_audio_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--audio", "off", "--judge-audio", "bluetooth"]) == 2
    err = capsys.readouterr().err
    assert "--judge-audio" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_serve_gives_each_game_its_own_channel() -> None:
    """The idle table starts one director after another: each game's deal is told once, and a
    game set aside is no longer followed."""
    heard: list[str] = []

    async def speak(text: str) -> float:
        heard.append(text)
        return 0.0

    class Director:
        def __init__(self) -> None:
            self.game, self.clock = _dealt_game(), TableClock(lambda: 0.0)
            self.watchers: list[Any] = []

        def watch(self, watcher: Any) -> None:
            self.watchers.append(watcher)

        def unwatch(self, watcher: Any) -> None:
            self.watchers.remove(watcher)

    async def session() -> None:
        follower = JudgeFollower(speak, load_phrasebook())
        first, second = Director(), Director()
        follower.follow(first)
        await asyncio.sleep(0.01)
        follower.follow(None)
        assert first.watchers == []
        follower.follow(second)
        assert len(second.watchers) == 1
        await asyncio.sleep(0.01)
        follower.follow(None)

    asyncio.run(session())
    assert heard.count("Раздача.") == 2


def test_run_tells_the_judge_and_journals_what_he_was_told(tmp_path: Path) -> None:
    """``voicehost run --judge-audio file:``: the deal, the answers to the typed lines (done,
    refused and why) in the earpiece's file, the journal and the transcript, never at the table."""
    from processes import run_voicehost
    done = run_voicehost(["run", "--mock", "--no-ears", "--audio", "off", "--speed", "100",
                          "--roles", "3=don,5=mafia,9=mafia,7=sheriff", "--journal", "game.jsonl",
                          "--transcript", "t.jsonl", "--judge-audio", "file:judge.wav"],
                         input="remove 3\nremove 5\nfoul 3 4\nremove 9\n", cwd=tmp_path, timeout=240)
    assert done.returncode == 0, done.stderr
    said = [json.loads(line) for line in (tmp_path / "game.jsonl").read_text(encoding="utf-8").splitlines()]
    told = [r["text"] for r in said if r["type"] == "said"]
    assert told[:4] == ["Раздача.", "Дон: номер три.", "Мафия: номера пять и девять.", "Шериф: номер семь."]
    assert told.count("Сделано: удаление.") == 3
    assert any(t.startswith("Отказано: ") for t in told)
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in records if r.get("channel") == "judge"] == told
    assert not any("Раздача" in line or "Отказано" in line for line in done.stderr.splitlines()
                   if line.startswith(("host:", "ведущий:")))
    judge, rate = soundfile.read(str(tmp_path / "judge.wav"), dtype="float32")
    assert len(judge) / rate > 5 and np.max(np.abs(judge)) > 0.05
