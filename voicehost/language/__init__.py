"""The language: what the host says and understands, in Russian.

It stands on :mod:`voicehost.rules` (the events and requests it puts into words) and
:mod:`voicehost.config` (the phrasebook file) and on nothing else of voicehost:

- :mod:`~voicehost.language.parser`, :mod:`~voicehost.language.intents`,
  :mod:`~voicehost.language.numbers` — what a phrase at the table means;
- :mod:`~voicehost.language.russian` — agreement of numbers, cases and genders;
- :mod:`~voicehost.language.phrasebook`, :mod:`~voicehost.language.host_lines` — every line the
  host says, as a key of ``config/phrases`` with its values;
- :mod:`~voicehost.language.narrate` — the written account of a game (the public log).
"""
