"""``python -m envpool.bench``."""

import sys

from envpool.bench import main

sys.exit(main())
