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

# Test helpers (e.g. _trajectories) import as top-level modules.
sys.path.insert(0, str(TESTS))


def pytest_addoption(parser) -> None:
    parser.addoption(
        "--perf",
        action="store_true",
        help="also run the perf cases (scheduler states, CPU time): they read timing, which a loaded machine skews",
    )


def pytest_sessionstart(session) -> None:
    # tools/test_wheel.sh (the test command) names the venv it installed the
    # repaired wheel into: the suite must run against that install.
    prefix = os.environ.get("ENVPOOL_TEST_INSTALLED")
    if prefix:
        import envpool

        where = Path(envpool.__file__).resolve()
        if not where.is_relative_to(Path(prefix).resolve()):
            raise RuntimeError(f"ENVPOOL_TEST_INSTALLED={prefix}, but envpool was imported from {where}")


def pytest_collection_finish(session) -> None:
    # Ray puts the driver's working directory on its workers' sys.path, where the
    # source folder would shadow the installed package: run from the tests folder.
    # After collection, which resolves the command line's paths (in each
    # pytest-xdist worker too) from the directory pytest was started in.
    os.chdir(TESTS)


def pytest_collection_modifyitems(config, items) -> None:
    from _xdist_groups import keep_groups

    keep_groups(config, items)
    # A skip hook, not addopts' -m: a command-line -m (e.g. -m "not slow")
    # replaces addopts' -m and would let the perf cases in again.
    if config.getoption("--perf"):
        return
    import pytest

    skip = pytest.mark.skip(reason="a perf case: run with --perf")
    for item in items:
        if "perf" in item.keywords:
            item.add_marker(skip)
