"""``--plot``: steps/s against num_envs per engine, one panel per task (PNG)."""

from __future__ import annotations

from collections import defaultdict


def require_matplotlib() -> None:
    """Raise a one-line UsageError when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        from envpool.bench.cli import UsageError

        raise UsageError(
            "--plot needs matplotlib: pip install 'envpool[bench]' (or pip install matplotlib)"
        ) from None


def plot(report: dict, path: str) -> None:
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    from envpool.bench.cli import short_engine

    tasks = report["settings"]["tasks"]
    # One colour per engine across every panel.
    engines = list(dict.fromkeys(short_engine(r["engine"]) for r in report["results"]))
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {e: palette[i % len(palette)] for i, e in enumerate(engines)}
    fig, axes = plt.subplots(1, len(tasks), figsize=(6 * len(tasks), 4.5), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        series: dict[str, list] = defaultdict(list)
        for r in report["results"]:
            if r["task"] != task or r["status"] != "ok":
                continue
            label = short_engine(r["engine"]) + (f" (async, batch {r['batch_size']})" if r["mode"] == "async" else "")
            s = r["steps_per_s"]
            series[label].append((r["num_envs"], s["median"], s["min"], s["max"], colour[short_engine(r["engine"])]))
        for label, pts in series.items():
            pts.sort()
            x = [p[0] for p in pts]
            y = [p[1] for p in pts]
            err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=label, color=pts[0][4],
                        linestyle="--" if "async" in label else "-")
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
