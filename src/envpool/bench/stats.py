"""Summaries of repeated measurements: medians with min-max, per-round ratios."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def summary(values: Sequence[float | None]) -> dict | None:
    """``{"median", "min", "max", "runs"}`` of the non-None values (None if none)."""
    vals = [float(v) for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "runs": vals}


def round_ratios(values: Sequence[float | None], baseline: Sequence[float | None]) -> list[float]:
    """``values[r] / baseline[r]`` for each round ``r`` where both were measured.

    Rounds are interleaved (A B C A B C ...), so a ratio within one round
    cancels machine drift that hit both engines of that round.
    """
    if len(values) != len(baseline):
        raise ValueError(f"{len(values)} rounds against {len(baseline)} baseline rounds")
    return [v / b for v, b in zip(values, baseline, strict=True) if v is not None and b is not None and b > 0]


def ratio_summary(values: Sequence[float | None], baseline: Sequence[float | None]) -> dict | None:
    """The median (and min-max) over rounds of the per-round ratios to the baseline.

    This is *not* ``median(values) / median(baseline)``: the ratio is taken
    within each round first, then the median of those ratios.
    """
    ratios = round_ratios(values, baseline)
    out = summary(ratios)
    if out is not None:
        out["per_round"] = out.pop("runs")
    return out
