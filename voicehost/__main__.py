"""``python -m voicehost``: the same as the ``voicehost`` command."""

import sys

from voicehost.cli.main import main

sys.exit(main())
