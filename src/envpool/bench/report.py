"""The report: the table (rich), the notes below it, the JSON file, the PNG plot, and the progress bar.

Output to a terminal gets rich's colours and box drawing; output to anything
else (a pipe, a file, CI logs) is plain text with no escape codes: the table is
then a Markdown table and progress is one line per measurement on stderr.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import IO

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from envpool.bench.errors import UsageError

PLAIN_WIDTH = 250  # lines are never wrapped below this when not on a terminal


def console(stream: IO[str] | None = None) -> Console:
    """A rich Console on ``stream`` (stdout): styled on a terminal, plain text elsewhere."""
    stream = sys.stdout if stream is None else stream
    tty = bool(getattr(stream, "isatty", lambda: False)())
    return Console(
        file=stream,
        force_terminal=tty,
        no_color=not tty,
        highlight=False,
        width=None if tty else PLAIN_WIDTH,
        soft_wrap=not tty,
    )


# --- numbers and names -------------------------------------------------------------------


def si(x: float | None) -> str:
    if x is None:
        return "-"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def short_engine(engine: str) -> str:
    """``python:/venvs/published/bin/python`` -> ``python:published`` (the venv's name)."""
    if not engine.startswith("python:"):
        return engine
    p = Path(engine[len("python:") :])
    if p.parent.name in ("bin", "Scripts") and p.parent.parent.name:
        return f"python:{p.parent.parent.name}"
    return engine


def _engine_label(r: dict, report: dict) -> str:
    eng = r["engine"]
    if not eng.startswith("python:"):
        return eng
    v = (r.get("versions") or {}).get("envpool") or report["interpreters"].get(eng, {}).get("envpool", "?")
    return f"{short_engine(eng)} (envpool {v})"


def _case_label(r: dict) -> str:
    return f"{r['num_envs']} envs" + (f" batch {r['batch_size']}" if r["mode"] == "async" else "")


# --- the table ---------------------------------------------------------------------------


COLUMNS = ("task", "envs", "batch", "thr", "engine", "steps/s", "(min-max)", "frames/s", "us/call", "x")
LEFT = {"task", "engine", "(min-max)"}
NARROW = ("(min-max)", "frames/s", "thr")  # left out, in this order, when a terminal is too narrow


def rows(report: dict) -> list[tuple[dict[str, str], str | None]]:
    """The measured results (ok or error; n/a ones are summed up by ``skipped``) as cells, with a
    style: "error", "baseline" or None."""
    baseline = report["settings"]["baseline"]
    out: list[tuple[dict[str, str], str | None]] = []
    for r in report["results"]:
        if r["status"] == "n/a":
            continue
        first = (r["task"], str(r["num_envs"]), str(r["batch_size"]), str(r["num_threads"]), _engine_label(r, report))
        cells = dict(zip(COLUMNS[:5], first, strict=True))
        if r["status"] != "ok":
            cells.update({"steps/s": "error", "(min-max)": "(below)"})
            out.append((cells, "error"))
            continue
        s, f, ratio = r["steps_per_s"], r["frames_per_s"], r["ratio_to_baseline"]
        lat = r["us_per_call"]["median"] if r["us_per_call"] and r["num_envs"] == 1 else None
        cells.update(
            {
                "steps/s": si(s["median"]) + ("*" if r.get("errors") else ""),
                "(min-max)": f"({si(s['min'])}-{si(s['max'])})",
                "frames/s": si(f["median"]) if r["frame_skip"] != 1 else "=",
                "us/call": f"{lat:.1f}" if lat is not None else "",
                "x": f"{ratio['median']:.2f}" if ratio else "-",
            }
        )
        out.append((cells, "baseline" if r["engine"] == baseline else None))
    return out


def table(report: dict, plain: bool, leave_out: tuple[str, ...] = ()) -> Table:
    """The table of ``rows``; ``plain``: a Markdown table, else rich's style for terminals."""
    t = Table(
        box=box.MARKDOWN if plain else box.SIMPLE_HEAD,
        show_edge=plain,
        pad_edge=plain,
        collapse_padding=not plain,
        header_style="" if plain else "bold",
    )
    columns = [c for c in COLUMNS if c not in leave_out]
    for c in columns:
        header = f"x {short_engine(report['settings']['baseline'])}" if c == "x" else c
        t.add_column(header, justify="left" if c in LEFT else "right", no_wrap=True)
    styles = {"error": "red", "baseline": "bold", None: None}
    last_task = None
    for cells, kind in rows(report):
        if last_task is not None and cells["task"] != last_task and not plain:
            t.add_section()
        last_task = cells["task"]
        t.add_row(*(cells.get(c, "") for c in columns), style=None if plain else styles[kind])
    return t


def fitted_table(report: dict, out: Console) -> tuple[Table, list[str]]:
    """The table for ``out``; on a terminal too narrow for it, without the ``NARROW`` columns
    (as few as needed). Returns the table and the columns left out."""
    plain = not out.is_terminal
    left_out: list[str] = []
    t = table(report, plain)
    for column in NARROW if not plain else ():
        if Measurement.get(out, out.options.update_width(10_000), t).maximum <= out.width:
            break
        left_out.append(column)
        t = table(report, plain, tuple(left_out))
    return t, left_out


def skipped(report: dict) -> list[str]:
    """One line per (engine, reason) of the n/a results: which tasks (and cases), and why."""
    per_task: dict[tuple[str, str], int] = defaultdict(int)
    groups: dict[tuple[str, str], dict[str, list[dict]]] = {}
    for r in report["results"]:
        per_task[(r["engine"], r["task"])] += 1
        if r["status"] == "n/a":
            reason = " ".join((r["reason"] or "n/a").split())
            groups.setdefault((r["engine"], reason), {}).setdefault(r["task"], []).append(r)
    lines = []
    for (engine, reason), tasks in groups.items():
        where = [
            task if len(rs) == per_task[(engine, task)] else f"{task} ({', '.join(_case_label(r) for r in rs)})"
            for task, rs in tasks.items()
        ]
        lines.append(f"{short_engine(engine)} on {', '.join(where)}: {reason}")
    return lines


def failures(report: dict) -> list[str]:
    """One line per result with failed rounds."""
    lines = []
    for r in report["results"]:
        if r["status"] == "n/a" or not r.get("errors"):
            continue
        n, first = len(r["errors"]), " ".join(r["errors"][0].split())
        total = report["settings"]["repeats"]
        lines.append(
            f"{short_engine(r['engine'])} on {r['task']} ({_case_label(r)}): "
            f"{n} of {total} round{'s' if total != 1 else ''} failed: {first}"
        )
    return lines


def engine_legend(report: dict) -> list[str]:
    """One line per engine with rows in the table: what its rows measure (the summary --help shows)."""
    from envpool.bench import engines

    seen = list(dict.fromkeys(r["engine"] for r in report["results"] if r["status"] != "n/a"))
    lines = []
    for name in seen:
        try:
            summary = engines.get(name).summary
        except KeyError:
            continue
        lines.append(f"{short_engine(name)}: {summary}")
    return ["engines: " + lines[0], *("         " + line for line in lines[1:])] if lines else []


def footer(report: dict) -> list[str]:
    m, st = report["machine"], report["settings"]
    la = m["load_average"]
    pk = ", ".join(f"{k} {v}" for k, v in m["packages"].items() if v)
    rounds = f"{st['repeats']} interleaved round{'s' if st['repeats'] != 1 else ''}"
    out = [
        f"steps/s: median over {rounds} of {st['seconds']} s (after {st['warmup']} s warm-up), each measurement "
        f"in its own process; x {short_engine(st['baseline'])}: median of per-round ratios; frames/s = steps/s x frame_skip "
        "('=' when frame_skip is 1); us/call: per step() call, num_envs=1 only.",
        f"machine: {m['cpu']}, {m['usable_cores']}/{m['logical_cores']} cores usable; load average (1 min) "
        f"{la['min_1m']}-{la['max_1m']} during the run (start {la['start']})",
        f"python {m['python']}: {pk}",
    ]
    out.extend(engine_legend(report))
    for eng, p in report["interpreters"].items():
        if "error" in p:
            out.append(f"{eng}: {p['error']}")
        else:
            out.append(f"{eng}: python {p.get('python')}, numpy {p.get('numpy')}, envpool {p.get('envpool')}")
    return out


def print_report(report: dict, out: Console) -> None:
    """The table, then what was skipped and what failed (each once), then the method and machine."""
    plain = not out.is_terminal
    if any(r["status"] != "n/a" for r in report["results"]):
        table, left_out = fitted_table(report, out)
        if plain:  # a Markdown table: no blank edge lines, no trailing spaces
            width = max(out.width, Measurement.get(out, out.options.update_width(10_000), table).maximum)
            with out.capture() as captured:
                out.print(table, width=width)
            out.print("\n".join(ln.rstrip() for ln in captured.get().splitlines() if ln.strip()), markup=False)
        else:
            out.print(table, markup=False)
        if left_out:
            out.print(
                f"(narrow terminal: {' and '.join(left_out)} not shown; widen it, pipe the output or use --json)",
                markup=False,
                style="dim",
            )
    else:
        out.print("nothing was measured")
    for title, lines in (("Skipped (n/a)", skipped(report)), ("Failed (* = some rounds failed)", failures(report))):
        if lines:
            out.print(f"\n{title}:", style=None if plain else "bold")
            for line in lines:
                out.print(f"  {line}", markup=False)
    out.print()
    for line in footer(report):
        out.print(line, markup=False, style=None if plain else "dim")


def format_table(report: dict) -> str:
    """The whole report as plain text (what a pipe gets)."""
    import io

    buf = io.StringIO()
    print_report(report, console(buf))
    return buf.getvalue()


# --- progress ----------------------------------------------------------------------------


class Progress:
    """Progress on stderr: a rich bar on a terminal, else one plain line per measurement."""

    def __init__(self, total: int, enabled: bool = True, stream: IO[str] | None = None) -> None:
        self.total, self.done, self.enabled = max(total, 1), 0, enabled
        self.console = console(sys.stderr if stream is None else stream)
        self.bar: RichProgress | None = None
        if enabled and self.console.is_terminal:
            self.bar = RichProgress(
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("~"),
                TimeRemainingColumn(),
                TextColumn("{task.description}"),
                console=self.console,
                transient=True,
            )
            self.task = self.bar.add_task("starting", total=self.total)

    def __enter__(self) -> Progress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()

    def start(self, label: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, description=label)

    def step(self, label: str) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.advance(self.task)
        elif self.enabled:
            self.console.print(f"[{self.done}/{self.total}] {label}", markup=False)


# --- files -------------------------------------------------------------------------------


def write_json(report: dict, path: str) -> None:
    Path(path).write_text(json.dumps(report, indent=2) + "\n")


def require_matplotlib() -> None:
    """A one-line UsageError when matplotlib is missing (checked before measuring)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'envpool[bench]' (or pip install matplotlib)") from None


def plot(report: dict, path: str) -> None:
    """Steps/s against num_envs per engine, one panel per task (PNG)."""
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    tasks = report["settings"]["tasks"]
    engines = list(dict.fromkeys(short_engine(r["engine"]) for r in report["results"]))  # one colour each
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {e: palette[i % len(palette)] for i, e in enumerate(engines)}
    fig, axes = plt.subplots(1, len(tasks), figsize=(6 * len(tasks), 4.5), squeeze=False)
    for ax, task in zip(axes[0], tasks, strict=True):
        series: dict[str, list] = defaultdict(list)
        for r in report["results"]:
            if r["task"] != task or r["status"] != "ok":
                continue
            name = short_engine(r["engine"])
            label = name + (f" (async, batch {r['batch_size']})" if r["mode"] == "async" else "")
            s = r["steps_per_s"]
            series[label].append((r["num_envs"], s["median"], s["min"], s["max"], colour[name]))
        for label, pts in series.items():
            pts.sort()
            x = [p[0] for p in pts]
            y = [p[1] for p in pts]
            err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
            ax.errorbar(
                x,
                y,
                yerr=err,
                marker="o",
                capsize=3,
                label=label,
                color=pts[0][4],
                linestyle="--" if "async" in label else "-",
            )
        ax.set_xscale("log", base=2)
        xs = sorted({p[0] for pts in series.values() for p in pts})
        if xs:
            ax.set_xticks(xs)
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_yscale("log")
        ax.set_xlabel("num_envs")
        ax.set_ylabel("steps/s (median, min-max)")
        ax.set_title(task)
        ax.grid(True, which="both", alpha=0.3)
        if series:
            ax.legend(fontsize=8)
    m = report["machine"]
    fig.suptitle(f"envpool-bench: {m['cpu']}, {m['usable_cores']} cores", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
