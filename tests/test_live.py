"""voicehost.host.live (``voicehost run``): resuming a live game from its journal."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_game import voted_game

from voicehost.host.journal import Journal, read_journal
from voicehost.host.live import resume_game

# These tests assert the English of the messages (their ids); the Russian is tests/test_i18n.py's.
pytestmark = pytest.mark.usefixtures("english_module")


def test_a_live_game_cut_off_mid_vote_resumes_before_that_vote(tmp_path: Path) -> None:
    """The power went off after six thumbs were recorded: the resumed game takes the vote
    again from its start, and the journal says so with a splice."""
    game = voted_game()
    game.pop()  # the vote had not closed
    path = tmp_path / "live.jsonl"
    journal = Journal(path, {"ruleset": "sport", "options": {}, "seats": 10, "level": "live"})
    for i, item in enumerate(game.inputs):
        journal.append(i, float(i), "seats", item)
    journal.close()

    resumed, journal = resume_game(path, 10)
    journal.close()
    assert resumed.inputs == game.inputs[:-6] and resumed.request == game.request
    assert [e.input for e in read_journal(path)[1]] == resumed.inputs
    splice = json.loads(path.read_text().splitlines()[-1])
    assert (splice["type"], splice["remove"]) == ("splice", 6)
    assert splice["why"] == "resume: the interrupted vote is taken again"


def run_cli(tmp_path: Path, *argv: str, stdin: bytes = b"", timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """``voicehost run --mock --no-ears ARGV`` in a process of its own (see processes.py)."""
    from processes import run_voicehost
    return run_voicehost(["run", "--mock", "--no-ears", *argv], input=stdin, cwd=tmp_path, timeout=timeout, text=False)




@pytest.mark.parametrize(("argv", "message"), [
    (["--names", "1=Анна,1=Борис"], "voicehost: error: --names 1: seat 1 is named twice"),
    (["--names", "99=Икс"], "voicehost: error: --names 99: there is no seat 99 at a 10-seat table"),
    (["--names", "1=Анна,2=анна"], "voicehost: error: --names 2: 'анна' is already seat 1's name"),
    (["--names", "１=Анна"], "voicehost: error: --names １: '１' is not a seat number"),
    (["--roles", "3=don,5=mafia"], "voicehost: error: --roles"),
    (["--audio", "speaker"], "voicehost: error: --audio"),
    (["--transcript", "no/such/folder/t.jsonl"], "voicehost: error: --transcript no/such/folder/t.jsonl"),
    (["--option", "nomination=sideways"], "voicehost: error: --option"),
])
def test_run_checks_everything_before_it_creates_the_journal(tmp_path: Path, argv: list[str], message: str) -> None:
    """A refused command line leaves no journal behind (it would hold the secret deal)."""
    done = run_cli(tmp_path, "--audio", "null", "--journal", "game.jsonl", *argv)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.startswith(message) and "Traceback" not in err, err
    assert not (tmp_path / "game.jsonl").exists()


def test_run_takes_audio_off_as_demo_does(tmp_path: Path) -> None:
    """``--audio off``: no sound; every line on the terminal; the console ends the game here."""
    done = run_cli(tmp_path, "--audio", "off", "--speed", "100", "--roles", "3=don,5=mafia,9=mafia,7=sheriff",
                   "--journal", "game.jsonl", "--transcript", "t.jsonl",
                   stdin="remove 3\nremove 5\nfoul 3 4\nremove 9\n".encode())
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "host: Наступает ночь." in err and "console: «foul 3 4» refused: usage: foul N" in err \
        and "console: «remove 3»: Player 3 is removed from the game." in err   # --lang en: all English (issue 40)
    assert "— red (no black players left)" in done.stdout.decode()
    records = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert records[0]["key"] == "night_falls" and {"t", "music"} <= set(records[1])
    kinds = [e.input.kind for e in read_journal(tmp_path / "game.jsonl")[1]]
    assert kinds.count("remove") == 3 and kinds[-1] in ("remove", "dawn")  # a night's removals: at the morning


def run_in_a_terminal(tmp_path: Path, argv: list[str], typed: bytes, timeout: float = 240) -> tuple[int, str]:
    """``python -m voicehost ARGV`` with a pseudo-terminal as its stdin, stdout and stderr, as
    at a real table: ``typed`` is typed at it (the tty echoes it); returns the exit code and
    everything the terminal showed."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "voicehost", *argv], stdin=slave, stdout=slave, stderr=slave,
                               cwd=tmp_path, close_fds=True)
    os.close(slave)
    os.write(master, typed)
    shown, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:   # EIO: every end of the terminal's other side is closed
                    chunk = b""
                if not chunk:
                    break
                shown += chunk
            elif process.poll() is not None:
                break
        else:
            process.kill()
        return process.wait(10), shown.decode(errors="replace")
    finally:
        os.close(master)


@pytest.mark.parametrize(("typed", "speed", "ends"), [
    (b"status\nremove 3\nremove 5\nremove 9\n", "100", "— red (no black players left)"),
    # the reproducer: nothing typed, the game runs to its end
    (b"", "1000", "— red (the mafia missed three nights)"),
])
def test_run_at_a_terminal_ends_with_exit_0(tmp_path: Path, typed: bytes, speed: str, ends: str) -> None:
    """At a real terminal the console's thread sat in a buffered read of stdin when the game
    ended, and the interpreter aborted at shutdown («Fatal Python error: _enter_buffered_busy»,
    exit 134). The terminal is read on the loop now: the game ends, the program exits 0."""
    code, shown = run_in_a_terminal(tmp_path, [
        "run", "--mock", "--no-ears", "--audio", "off", "--speed", speed, "--rules", "sport", "--table",
        str(Path(__file__).resolve().parent.parent / "config" / "tables" / "ten-seats.toml"),
        "--roles", "3=don,5=mafia,9=mafia,7=sheriff", "--journal", "game.jsonl",
        "--db", f"sqlite:///{tmp_path / 'records.sqlite'}"], typed)
    assert "Fatal Python error" not in shown and code == 0, shown[-2000:]
    assert ends in shown and "records: game" in shown
    if typed:
        assert "host: Кандидатур пока нет." in shown   # «status», typed at the terminal, was read and answered
