"""The live host: a game run in real time by voice, seat buttons, ears and the console.

The :class:`~voicehost.host.director.Director` answers the engine's requests the way a judge
would and talks only to its :class:`~voicehost.host.ports.Ports`, so one director runs the real
table (:mod:`~voicehost.host.live`), the demo on mock pins and the table level on a virtual
clock (:mod:`~voicehost.host.vclock`). Beside it: the journal that survives a power cut, the
deal, the ears (vosk), the voice (espeak-ng and the mixer), the table file and the seat panel.

It stands on rules, config and the language, and on the ``audio`` and ``hw`` adapters; it
never imports the simulation or the command line. The names below are its public API: the
web console, the club records and the service use these and nothing deeper; what happens at
the table reaches them as the notices of :mod:`~voicehost.host.notices`.
"""

from voicehost.host.ballots import ballot_changed, ballots_view
from voicehost.host.cards import show_roles
from voicehost.host.clock import TableClock
from voicehost.host.commands import REGISTRY, BestCommand, Command, offered, read_args, read_command
from voicehost.host.dealing import seeded_deal, typed_deal
from voicehost.host.director import Director, EdgeLog, Ports
from voicehost.host.ears import load_ears
from voicehost.host.hearing import HearingSettings
from voicehost.host.journal import Journal, JournalEntry, load_journal, read_journal, write_results
from voicehost.host.journal_clock import clock_facts, journal_clock
from voicehost.host.judging import VERDICT_LINES, judge_protocol, judged_results
from voicehost.host.live import resume_game
from voicehost.host.notices import (
    BallotPressed,
    BallotsCast,
    ConsoleAnswered,
    FloorChanged,
    InputsTaken,
    LineSaid,
    MusicChanged,
    NotesChanged,
    Notice,
    Paused,
    TableWatcher,
    VoteCorrected,
    WindowChanged,
    events_to,
)
from voicehost.host.refusals import ConsoleAnswer, NoCommand, Refused
from voicehost.host.seats import mock_factory, open_pinmap
from voicehost.host.setup import (
    GameSetup,
    SetupRefused,
    SetupRequest,
    check_setup,
    option_label,
    option_value_label,
    setup_refusal_text,
    table_game,
)
from voicehost.host.table_file import load_audio, table_path
from voicehost.host.vclock import run_virtual
from voicehost.host.voice import Voice, fixed_lines

__all__ = [
    "REGISTRY", "BestCommand", "Command", "offered", "read_args", "VERDICT_LINES",
    "ConsoleAnswer", "ConsoleAnswered", "Director", "EdgeLog", "FloorChanged", "GameSetup", "HearingSettings",
    "InputsTaken", "Journal", "JournalEntry", "LineSaid", "MusicChanged", "NoCommand", "NotesChanged", "Notice",
    "Paused", "Ports",
    "Refused", "SetupRefused", "SetupRequest", "TableClock", "TableWatcher", "Voice", "VoteCorrected",
    "WindowChanged", "check_setup", "BallotPressed", "BallotsCast", "ballot_changed", "ballots_view", "option_label",
    "option_value_label", "events_to", "fixed_lines", "judge_protocol", "judged_results", "clock_facts",
    "journal_clock",
    "load_audio", "load_journal", "load_ears", "mock_factory", "open_pinmap", "read_command",
    "read_journal", "resume_game", "run_virtual", "setup_refusal_text", "seeded_deal", "show_roles", "table_game",
    "table_path", "typed_deal", "write_results",
]
