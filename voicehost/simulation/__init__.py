"""Scripts and simulation: games played from a table script, without a real table.

- :mod:`~voicehost.simulation.script` — loading and checking a table script;
- :mod:`~voicehost.simulation.engine_level` — the script's people pushed straight into the engine;
- :mod:`~voicehost.simulation.table_level` — the same people at a simulated table (taps, thumbs,
  words) for the live director on a virtual clock: one host, checked against the engine level;
- :mod:`~voicehost.simulation.scriptgen` — plausible games invented from a seed, as scripts;
- :mod:`~voicehost.simulation.random_games` — random legal games, input by input (property tests, bench).

It stands on rules, config, the language and the live host; nothing below imports it.
The protocol that a game produces is built by :mod:`voicehost.rules.protocol`, since the live
host writes one too.
"""
