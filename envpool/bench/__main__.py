"""``python -m envpool.bench``."""

import sys

from envpool.bench.cli import main

sys.exit(main())
