"""``python -m voicehost.native build|state``."""

import sys

from voicehost.native.build import main

sys.exit(main())
