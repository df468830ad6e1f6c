"""What the benchmark ran on: CPU, cores, load, interpreter and package versions."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata

PACKAGES = ("envpool", "numpy", "gymnasium", "ale-py", "mujoco", "matplotlib")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def describe() -> dict:
    """The machine and this interpreter (load is filled in by the runner)."""
    return {
        "cpu": cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": usable_cores(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "executable": sys.executable,
        "packages": package_versions(),
    }


class LoadSampler:
    """1-minute load averages sampled between measurements."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self.start = load_average()

    def sample(self) -> None:
        load = load_average()
        if load is not None:
            self.samples.append(load[0])

    def report(self) -> dict:
        s = self.samples
        return {
            "start": self.start,
            "end": load_average(),
            "min_1m": min(s) if s else None,
            "max_1m": max(s) if s else None,
            "mean_1m": round(sum(s) / len(s), 2) if s else None,
        }
