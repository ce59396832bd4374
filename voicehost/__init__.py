"""voicehost: hosts the party game Mafia at a real table, in Russian."""

__version__ = "0.1.0"
