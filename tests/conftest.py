import os
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

# Test the installed package, not the source folder of the same name (which
# has no compiled extension unless installed editable): keep the repo root
# off sys.path, here and in every Python subprocess a test starts.
os.environ["PYTHONSAFEPATH"] = "1"
sys.path[:] = [p for p in sys.path if Path(p or os.getcwd()).resolve() != ROOT]
# Ray puts the driver's working directory on its workers' sys.path, where the
# source folder would shadow the installed package: run from the tests folder.
os.chdir(TESTS)

# Test helpers (e.g. _trajectories) import as top-level modules.
sys.path.insert(0, str(TESTS))
