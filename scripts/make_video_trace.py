"""Write the synthetic MPEG-4-like video trace shipped in ``examples/traces/``.

The DiffServ measurements replayed an MPEG-4 trace of a film at 25 frames a second with a
mean of 1.029 Mbit/s and a peak of 8.797 Mbit/s. That trace is not ours to ship, so this
script makes one with the same frame rate, mean and peak, and the structure such traces
have: a group of pictures IBBPBBPBBPBB (I frames largest, B smallest), a scene complexity
that drifts slowly and jumps at scene cuts, and per-frame noise. The peak is the largest
frame's size times 8 times the frame rate, the mean the total bits over the duration.

Sizes are shaped by a power transform whose exponent is found by bisection so that the
peak-to-mean ratio matches, then scaled to the mean. The generator is seeded, so the file
is the same on every run: ``python scripts/make_video_trace.py``.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

FPS = 25
SECONDS = 300
MEAN_BPS = 1.029e6
PEAK_BPS = 8.797e6
GOP = "IBBPBBPBBPBB"
TYPE_WEIGHT = {"I": 4.0, "P": 1.8, "B": 1.0}
SEED = 2003
OUT = Path(__file__).resolve().parent.parent / "examples" / "traces" / "mpeg4-synthetic.csv"


def raw_sizes(rng: random.Random) -> list[float]:
    """Unscaled frame sizes: GOP weights times a drifting, cut-jumping complexity."""
    sizes = []
    level = 0.0
    next_cut = rng.uniform(4.0, 15.0) * FPS
    for frame in range(FPS * SECONDS):
        if frame >= next_cut:
            level = rng.gauss(0.0, 0.6)
            next_cut = frame + rng.uniform(4.0, 15.0) * FPS
        level = 0.995 * level + rng.gauss(0.0, 0.05)
        noise = rng.gauss(0.0, 0.25)
        sizes.append(TYPE_WEIGHT[GOP[frame % len(GOP)]] * math.exp(level + noise))
    return sizes


def shaped(sizes: list[float], target_ratio: float) -> list[int]:
    """Sizes raised to the power whose peak-to-mean ratio is ``target_ratio``, scaled to the
    mean frame size and rounded to bytes."""

    def ratio(exponent: float) -> float:
        powered = [s**exponent for s in sizes]
        return max(powered) / (sum(powered) / len(powered))

    low, high = 0.1, 5.0
    for _ in range(100):
        middle = (low + high) / 2
        if ratio(middle) < target_ratio:
            low = middle
        else:
            high = middle
    powered = [s**low for s in sizes]
    mean_bytes = MEAN_BPS / 8 / FPS
    scale = mean_bytes / (sum(powered) / len(powered))
    return [max(1, round(s * scale)) for s in powered]


def main() -> None:
    frames = shaped(raw_sizes(random.Random(SEED)), PEAK_BPS / MEAN_BPS)
    mean_bps = sum(frames) * 8 / SECONDS
    peak_bps = max(frames) * 8 * FPS
    lines = [
        "# Synthetic MPEG-4-like video trace (scripts/make_video_trace.py, seed 2003):",
        f"# {FPS} frames/s for {SECONDS} s, group of pictures {GOP},",
        f"# mean {mean_bps / 1e6:.4f} Mbit/s, peak frame {peak_bps / 1e6:.4f} Mbit/s",
        "# (as the DiffServ measurements' trace: mean 1.029, max 8.797 Mbit/s).",
        "time_s,size_bytes",
    ]
    lines += [f"{k / FPS:.2f},{size}" for k, size in enumerate(frames)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(frames)} frames, mean {mean_bps:.0f} bit/s, peak {peak_bps:.0f} bit/s")


if __name__ == "__main__":
    main()
