"""Running a case in a fresh interpreter, for cases that once crashed the process."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run_python(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter; the test fails on a crash or a hang."""
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p
