"""One throughput measurement, run in its own process.

Run *as a script, by path*, under any Python interpreter (ours, or another
venv's via ``envpool-bench --python``)::

    python worker.py '{"engine": "envpool", "runner": ["envpool_api", "run"], "task": "CartPole-v1",
                       "num_envs": 8, "batch_size": 8, "num_threads": 2, "seconds": 1.0, "warmup": 0.3, "seed": 0}'

It imports nothing from ``envpool.bench``: it loads the ``engines`` folder next
to it by path (under a private package name), imports the engine's module and
calls its ``run(spec)`` (``spec["runner"]`` = [module, function], from
``Engine.runner``). Engine modules import their libraries lazily, so under
another interpreter only that interpreter's ``envpool`` (and numpy) is used.

The result is printed as the last stdout line, prefixed with ``RESULT_TAG``:
the engine's dict plus ``"versions"``, or ``{"error": str, "unavailable":
bool}`` when the measurement could not be made.
"""

from __future__ import annotations

import time

T0 = time.perf_counter()  # ~process start: setup_s is measured from here

import importlib  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

RESULT_TAG = "@@envpool-bench-result@@ "
ENGINES_DIR = Path(__file__).resolve().with_name("engines")
PACKAGE = "_envpool_bench_engines"


def load(module: str):
    """``engines/<module>.py``, imported as ``PACKAGE.<module>`` (relative imports work)."""
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            PACKAGE, ENGINES_DIR / "__init__.py", submodule_search_locations=[str(ENGINES_DIR)]
        )
        assert spec is not None and spec.loader is not None, ENGINES_DIR
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"{PACKAGE}.{module}")


def versions() -> dict:
    """Versions of the interpreter and of what the measurement imported."""
    import numpy as np

    out = {"python": platform.python_version(), "numpy": np.__version__, "executable": sys.executable}
    for name in ("envpool", "gymnasium", "ale_py", "mujoco", "jax"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", "?")
    return out


def run(spec: dict) -> dict:
    """Run one measurement; never raises (errors become ``{"error": ...}``)."""
    common = load("_common")
    common.T0 = T0
    try:
        if spec.get("extensions"):  # the C++ family modules the bench's process loaded
            from envpool import cpp_extension

            cpp_extension._restore(spec["extensions"])
        module, function = spec["runner"]
        out = getattr(load(module), function)(spec)
    except common.Unavailable as e:
        out = {"error": str(e), "unavailable": True}
    except ImportError as e:  # an optional dependency of the engine is missing
        out = {"error": f"{type(e).__name__}: {e}", "unavailable": True}
    except Exception as e:  # reported in the table, not fatal to the run
        msg = str(e).strip().splitlines()
        out = {"error": f"{type(e).__name__}: {msg[0] if msg else ''}", "unavailable": False}
    out["versions"] = versions()
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: worker.py JSON_SPEC", file=sys.stderr)
        return 2
    out = run(json.loads(argv[0]))
    sys.stdout.flush()
    print(RESULT_TAG + json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
