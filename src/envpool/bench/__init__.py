"""envpool-bench: throughput of EnvPool against other ways of stepping envs.

Run ``envpool-bench`` (or ``python -m envpool.bench``) with no arguments for a
short default comparison (a minute or two on 2 cores: CartPole-v1, plus Pong-v5
and HalfCheetah-v4 when the Atari and MuJoCo families are built, with the
engines marked * in ``--help``) and a table in the terminal. For example::

    envpool-bench CartPole-v1 Pong-v5 -n 8 64 -t 2 --python /path/to/other/venv/bin/python \\
        --json out.json --plot out.png
    envpool-bench -n 8 64 CartPole-v1                # task ids may follow the numbers
    envpool-bench CartPole-v1 -n 256 -b 128          # async: batch_size < num_envs
    envpool-bench gymnasium:CartPole-v1 -n 8 --num-workers 2 -e envpool gymnasium-async raw-procs
                                                     # a Python env (docs/benchmarks_python_envs.md)

Engines
    One ``Engine`` definition each, one file each in ``src/envpool/bench/engines/``
    (``envpool``, ``gymnasium-sync``, ``gymnasium-async``, ``ale-vector``,
    ``raw``, ``python:PATH``); ``envpool-bench --help`` lists them from that
    registry, and the package's docstring says how to add one.

Modules
    ``cli``      arguments (argparse) -> ``plan.make_plan`` -> ``runner.run`` -> ``report``
    ``plan``     tasks (family facts from ``_envpool.families()``), cases, engines, who runs what
    ``engines``  one ``Engine`` per engine: availability (and why not), one measurement
    ``runner``   one subprocess per measurement (``worker.py``), interleaved rounds, the report dict
    ``report``   the table and progress (rich), the JSON file, the plot
    ``worker``   the subprocess: standalone, loads ``engines/`` by path
    ``stats``, ``machine``: medians and per-round ratios; CPU, cores, load, versions

Method
    Every measurement runs in its own subprocess (``worker.py``, run by path:
    it needs only numpy and EnvPool's public API, so other interpreters can run
    it against their own ``envpool``). Startup, env construction, reset and
    action generation are not timed; actions are random batches generated
    before timing. Each measurement warms up for ``--warmup`` s, then counts
    steps for ``--seconds`` s. Engines run in interleaved rounds (A B C A B C
    ...; ``--repeats`` rounds) so that machine drift hits all of them; a row
    shows the median steps/s with min-max over rounds, frames/s (steps/s x
    frame_skip), the per-call latency (µs per step() call, num_envs=1 rows),
    and the ratio to ``--baseline``: the ratio is taken within each round,
    then the median over rounds. An engine that cannot run a case (not
    installed, not applicable to the task, no async mode) is n/a: it gets no
    row in the table, and one line below the table names the engine, the tasks
    and the reason (the JSON keeps its ``"status": "n/a"`` results). A bad
    argument is a one-line error with exit code 2. Output that is not a terminal
    is plain text (a Markdown table, no escape codes).

JSON schema (``--json PATH``), ``"schema": "envpool-bench/1"``::

    {
      "schema": "envpool-bench/1",
      "created": "2026-01-01T00:00:00+00:00",      # UTC start time
      "duration_s": float,
      "argv": [str, ...],
      "settings": {"tasks": [str], "engines": [str], "baseline": str,
                   "seconds": float, "warmup": float, "repeats": int,
                   "num_threads": [int], "seed": int,    # the --num-threads values
                   "options": {str: value},              # --option KEY=VALUE
                   "num_workers": int|null},             # --num-workers
      "machine": {"cpu": str, "logical_cores": int, "usable_cores": int,
                  "platform": str, "python": str, "executable": str,
                  "packages": {"envpool": str|null, "numpy": ..., "gymnasium": ...,
                               "ale-py": ..., "mujoco": ..., "matplotlib": ...},
                  "load_average": {"start": [1m, 5m, 15m], "end": [...],
                                   "min_1m": float, "max_1m": float, "mean_1m": float}},
      "interpreters": {"python:PATH": {"python": str, "numpy": str, "envpool": str,
                                       "envpool_path": str, "tasks": {task: {"frame_skip": int}}}
                       | {"error": str}},
      "results": [{
        "task": str, "family": str|null, "frame_skip": int,
        "num_envs": int, "batch_size": int, "mode": "sync"|"async",
        "num_threads": int,                 # min(one --num-threads value, num_envs)
        "engine": str,                      # e.g. "envpool", "python:/venv/bin/python"
        "status": "ok"|"n/a"|"error", "reason": str|null,
        "steps_per_s":  {"median": float, "min": float, "max": float, "runs": [float]} | null,
        "frames_per_s": {"median": float, "min": float, "max": float} | null,
        "us_per_call":  {"median": float, "min": float, "max": float, "runs": [float]} | null,
        "ratio_to_baseline": {"median": float, "min": float, "max": float,
                              "per_round": [float]} | null,
        "setup_s": float|null,              # median untimed setup (imports, make, reset)
        "versions": {"python": str, "numpy": str, "envpool": str, ...} | null,
        "errors": [str]                     # failed rounds, if any
      }, ...]
    }

``runs``/``per_round`` are in round order; a failed round is left out.
"""

from __future__ import annotations

from envpool.bench.errors import UsageError


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``envpool-bench`` console script; returns the exit code."""
    from envpool.bench.cli import main as _main

    return _main(argv)


__all__ = ["UsageError", "main"]
