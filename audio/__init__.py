"""Sound adapters (text-to-speech, mixer, listener). Never imports ``voicehost``.

Empty until the voice and ears issues land; the package exists so the distribution
layout is the final one from the first commit.
"""
