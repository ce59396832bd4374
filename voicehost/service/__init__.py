"""The appliance: voicehost as a systemd service that boots into an idle table.

:mod:`~voicehost.service.unit` writes and installs the systemd unit, :mod:`~voicehost.service.notify`
talks to systemd (ready, watchdog, status), :mod:`~voicehost.service.table` is the idle table
that starts a game from a button chord, resumes an unfinished journal after a power cut and
refuses to play unjournaled, and :mod:`~voicehost.service.voice_render` renders a fresh cache's
voice in idle-priority children while the table is already ready. It reaches the live host
only through ``voicehost.host``.
"""
