"""The command line: ``voicehost …``. See :mod:`voicehost.cli.main`."""
