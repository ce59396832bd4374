"""A tournament evening: the seating plan (:mod:`voicehost.tournament.plan`) and the player list
it seats (:mod:`voicehost.tournament.players`). Pure computation over numbers and names; the
command line (``voicehost tournament …``) reads the files and prints."""
