"""GPIO adapters (seat buttons and LEDs, pin maps). Never imports ``voicehost``.

Empty until the seat-panel issue lands; the package exists so the distribution
layout is the final one from the first commit.
"""
