"""voicehost: hosts the party game Mafia at a real table, in Russian."""

from voicehost import native

__version__ = "0.1.0"

native.install_when_needed()  # the engine compiled by mypyc, where built from these very sources
