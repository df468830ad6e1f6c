import sys
from pathlib import Path

# Test helpers (e.g. _trajectories) import as top-level modules.
sys.path.insert(0, str(Path(__file__).parent))
