"""envpool-bench: end to end with tiny durations, ratio arithmetic, errors."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import envpool
from envpool.bench import stats
from envpool.bench.cli import Case, build_parser, format_table, main, plan

ROOT = Path(__file__).resolve().parent.parent
TINY = ["-s", "0.1", "-w", "0.02", "-r", "1", "--no-progress"]


def _bench(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    # The installed envpool (conftest keeps the source folder off sys.path).
    return subprocess.run(
        [sys.executable, "-m", "envpool.bench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )


def _has(task: str) -> bool:
    return task in envpool.list_all_envs()


# --- ratio arithmetic ---------------------------------------------------------------


def test_ratio_is_median_of_per_round_ratios():
    ours = [100.0, 200.0, 400.0]
    base = [50.0, 400.0, 100.0]  # per round: 2.0, 0.5, 4.0
    r = stats.ratio_summary(ours, base)
    assert r["per_round"] == [2.0, 0.5, 4.0]
    assert r["median"] == 2.0 and r["min"] == 0.5 and r["max"] == 4.0
    # not the ratio of the medians (200 / 100 = 2.0 here by chance), so check one where they differ
    r = stats.ratio_summary([10.0, 30.0, 20.0, 40.0], [10.0, 10.0, 40.0, 10.0])  # 1, 3, 0.5, 4
    assert r["median"] == pytest.approx(2.0)
    assert stats.summary([10.0, 30.0, 20.0, 40.0])["median"] / stats.summary([10, 10, 40, 10])["median"] == 2.5


def test_ratio_skips_failed_rounds():
    assert stats.round_ratios([1.0, None, 3.0], [2.0, 2.0, None]) == [0.5]
    assert stats.ratio_summary([None], [1.0]) is None
    assert stats.summary([None, None]) is None
    s = stats.summary([3.0, 1.0, 2.0])
    assert (s["median"], s["min"], s["max"], s["runs"]) == (2.0, 1.0, 3.0, [3.0, 1.0, 2.0])
    with pytest.raises(ValueError):
        stats.round_ratios([1.0], [1.0, 2.0])


def test_case_mode():
    assert Case("CartPole-v1", 8, 8, 2).mode == "sync"
    assert Case("CartPole-v1", 8, 4, 2).mode == "async"


# --- end to end ------------------------------------------------------------------------


def _check_schema(report: dict) -> None:
    assert report["schema"] == "envpool-bench/1"
    for key in ("created", "duration_s", "argv", "settings", "machine", "interpreters", "results"):
        assert key in report
    for key in ("tasks", "engines", "baseline", "seconds", "warmup", "repeats", "num_threads", "seed"):
        assert key in report["settings"]
    m = report["machine"]
    for key in ("cpu", "logical_cores", "usable_cores", "python", "packages", "load_average"):
        assert key in m
    assert m["packages"]["numpy"]
    assert {"start", "end", "min_1m", "max_1m"} <= set(m["load_average"])
    for r in report["results"]:
        for key in (
            "task", "family", "frame_skip", "num_envs", "batch_size", "mode", "num_threads", "engine",
            "status", "reason", "steps_per_s", "frames_per_s", "us_per_call", "ratio_to_baseline",
        ):  # fmt: skip
            assert key in r, key
        assert r["status"] in ("ok", "n/a", "error")
        assert r["mode"] == ("sync" if r["num_envs"] == r["batch_size"] else "async")
        if r["status"] == "ok":
            s = r["steps_per_s"]
            assert 0 < s["min"] <= s["median"] <= s["max"]
            assert len(s["runs"]) == report["settings"]["repeats"]
            assert r["frames_per_s"]["median"] == pytest.approx(s["median"] * r["frame_skip"])
        else:
            assert r["reason"]


def test_end_to_end_table_json_png(tmp_path):
    has_mpl = importlib.util.find_spec("matplotlib") is not None  # the bench extra; should be in the test env
    out_json, out_png = tmp_path / "b.json", tmp_path / "b.png"
    tasks = ["CartPole-v1"] + [t for t in ("Pong-v5",) if _has(t)]
    p = _bench(
        *tasks, "-n", "1", "4", "-b", "1", "2", "-t", "2", "-e", "envpool", "gymnasium-sync", "gymnasium-async", "raw",
        "--json", str(out_json), *(["--plot", str(out_png)] if has_mpl else []), *TINY,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "steps/s" in p.stdout and "x envpool" in p.stdout and "machine:" in p.stdout
    report = json.loads(out_json.read_text())
    _check_schema(report)
    rows = {(r["task"], r["num_envs"], r["batch_size"], r["engine"]): r for r in report["results"]}
    ours = rows[("CartPole-v1", 1, 1, "envpool")]
    assert ours["status"] == "ok" and ours["ratio_to_baseline"]["median"] == 1.0
    assert ours["us_per_call"]["median"] > 0
    assert rows[("CartPole-v1", 4, 2, "envpool")]["status"] == "ok"  # async
    assert rows[("CartPole-v1", 1, 1, "gymnasium-sync")]["status"] == "ok"
    assert rows[("CartPole-v1", 4, 2, "gymnasium-sync")]["status"] == "n/a"  # no async mode
    assert rows[("CartPole-v1", 1, 1, "gymnasium-async")]["status"] == "ok"
    assert rows[("CartPole-v1", 1, 1, "raw")]["status"] == "n/a"  # no raw ceiling for classic control
    if "Pong-v5" in tasks:
        pong = rows[("Pong-v5", 1, 1, "envpool")]
        assert pong["frame_skip"] == 4 and pong["status"] == "ok"
        assert rows[("Pong-v5", 1, 1, "raw")]["status"] == "ok"
    if not has_mpl:
        pytest.skip("matplotlib missing: table and JSON checked, PNG not")
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(importlib.util.find_spec("ale_py") is None, reason="ale-py not installed")
def test_raw_ale_py_engine(tmp_path):
    """raw-ale-py: ale-py's own emulator, one process per thread, next to our raw ceiling."""
    if not _has("Pong-v5"):
        pytest.skip("Atari not built")
    out_json = tmp_path / "b.json"
    p = _bench("Pong-v5", "CartPole-v1", "-n", "1", "2", "-t", "2", "-e", "raw", "raw-ale-py",
               "--json", str(out_json), *TINY)  # fmt: skip
    assert p.returncode == 0, p.stderr
    report = json.loads(out_json.read_text())
    _check_schema(report)
    rows = {(r["task"], r["num_envs"], r["engine"]): r for r in report["results"]}
    for n in (1, 2):
        r = rows[("Pong-v5", n, "raw-ale-py")]
        assert r["status"] == "ok" and r["num_threads"] == n, r
        assert r["steps_per_s"]["median"] > 0 and r["frames_per_s"]["median"] == pytest.approx(4 * r["steps_per_s"]["median"])
    assert rows[("CartPole-v1", 1, "raw-ale-py")]["status"] == "n/a"
    assert rows[("CartPole-v1", 1, "raw-ale-py")]["reason"] == "Atari tasks only"


def test_raw_ale_py_child_error_is_reported():
    """A failing child (here: a ROM that does not exist) is an error row, not a hang."""
    from envpool.bench import worker

    spec = {"engine": "raw-ale-py", "kind": "atari", "task": "Pong-v5", "num_envs": 2, "batch_size": 2,
            "num_threads": 2, "seconds": 0.1, "warmup": 0.0, "seed": 0,
            "config": {"task": "pong", "rom_path": "/nonexistent/pong.bin"}, "atari": {"game": "pong"}}  # fmt: skip
    out = worker.run(spec)
    assert "error" in out and not out["unavailable"], out


def test_unavailable_engine_is_reported_not_fatal(tmp_path):
    out_json = tmp_path / "b.json"
    p = _bench("CartPole-v1", "-n", "2", "-e", "envpool", "ale-vector", "--python", "/nonexistent/python",
               "--json", str(out_json), *TINY)  # fmt: skip
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert any("ale-vector" in ln and "n/a" in ln for ln in lines)
    assert any("/nonexistent/python" in ln for ln in lines)
    report = json.loads(out_json.read_text())
    _check_schema(report)
    status = {r["engine"]: r["status"] for r in report["results"]}
    assert status == {"envpool": "ok", "ale-vector": "n/a", "python:/nonexistent/python": "n/a"}


def test_other_interpreter_runs_the_standalone_worker(tmp_path):
    """--python runs worker.py by path; here with our own interpreter as the 'other' one."""
    out_json = tmp_path / "b.json"
    p = _bench("CartPole-v1", "-n", "2", "-e", "envpool", "--python", sys.executable, "--json", str(out_json), *TINY)
    assert p.returncode == 0, p.stderr
    report = json.loads(out_json.read_text())
    other = [r for r in report["results"] if r["engine"] == f"python:{sys.executable}"]
    assert other and other[0]["status"] == "ok", other
    assert other[0]["ratio_to_baseline"]["median"] > 0
    assert report["interpreters"][f"python:{sys.executable}"]["envpool"]


@pytest.mark.parametrize(
    "args",
    [
        ["CartPol-v1"],  # unknown task
        ["CartPole-v1", "-n", "8", "-b", "16"],  # batch_size > num_envs
        ["CartPole-v1", "-e", "nosuchengine"],
        ["CartPole-v1", "-e", "raw"],  # the only engine, unavailable for the task
        ["CartPole-v1", "-n", "8", "-b", "4", "-e", "gymnasium-sync"],  # no async mode
        ["CartPole-v1", "-e", "envpool", "--baseline", "raw"],
        ["CartPole-v1", "--seconds", "0"],
        ["CartPole-v1", "--no-such-flag"],
    ],
)
def test_bad_arguments_one_line_exit_2(args, capsys):
    assert main([*args, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("envpool-bench: error:") and "\n" not in err and "Traceback" not in err


def test_default_run_plan():
    """No arguments: a short run of CartPole-v1 (+ Pong-v5 when Atari is built)."""
    args = build_parser().parse_args([])
    args.argv = []
    engines, tasks, cases, avail, probes = plan(args)
    assert engines[0] == "envpool" and args.baseline == "envpool"
    assert "CartPole-v1" in tasks and ("Pong-v5" in tasks) == _has("Pong-v5")
    assert args.seconds <= 1 and args.repeats >= 3
    assert {c.num_envs for c in cases if c.task == "CartPole-v1"} == {1, 8, 64}
    assert all(c.mode == "sync" for c in cases)
    assert avail.reason("envpool", cases[0]) is None


def test_bad_arguments_subprocess():
    p = _bench("CartPol-v1")
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "did you mean" in p.stderr


def test_table_marks_missing_engines():
    report = {
        "settings": {"baseline": "envpool", "repeats": 1, "seconds": 0.1, "warmup": 0.0},
        "machine": {"cpu": "x", "usable_cores": 1, "logical_cores": 1, "python": "3",
                    "packages": {"numpy": "2"}, "load_average": {"min_1m": 0, "max_1m": 0, "start": None}},
        "interpreters": {},
        "results": [
            {"task": "T", "num_envs": 1, "batch_size": 1, "num_threads": 1, "engine": "envpool", "status": "ok",
             "frame_skip": 4, "steps_per_s": {"median": 2e6, "min": 1e6, "max": 3e6},
             "frames_per_s": {"median": 8e6}, "us_per_call": {"median": 12.5},
             "ratio_to_baseline": {"median": 1.0}},
            {"task": "T", "num_envs": 1, "batch_size": 1, "num_threads": 1, "engine": "raw", "status": "n/a",
             "reason": "no raw ceiling", "frame_skip": 4},
        ],
    }  # fmt: skip
    table = format_table(report)
    assert "2M" in table and "8M" in table and "12.5" in table and "1.00" in table
    assert "n/a" in table and "no raw ceiling" in table


def test_issue2_throughput_script(tmp_path):
    """benchmarks/throughput.py (an envpool-bench preset); its own interpreter as the 'other' one."""
    out_json = tmp_path / "t.json"
    p = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "throughput.py"), "--seconds", "0.05", "--warmup", "0",
         "--repeats", "1", "--python", sys.executable, "--json", str(out_json)],
        capture_output=True, text=True, timeout=60, env=dict(os.environ),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "x envpool" in p.stdout
    results = json.loads(out_json.read_text())["results"]
    assert [(r["num_envs"], r["batch_size"], r["mode"]) for r in results[::2]] == [
        (8, 8, "sync"), (64, 64, "sync"), (256, 128, "async"), (1, 1, "sync")]  # fmt: skip
    assert len(results) == 8 and all(r["steps_per_s"] and not r["errors"] for r in results), results
    latency = [r for r in results if r["num_envs"] == 1]
    assert all(r["us_per_call"] and r["num_threads"] == 1 for r in latency)
