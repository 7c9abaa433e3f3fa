"""Draw the pictures of docs/plots-and-reports.md into docs/pictures/*.svg.

    python docs/pictures/make_pictures.py

Runs the examples (shortened to one minute) and a small sweep of each, and writes one SVG
per kind of plot. The runs are deterministic and the SVG ids fixed, so the pictures change
only when the simulator's results or the plots change.
"""

from __future__ import annotations

from pathlib import Path

import qoslab
from qoslab import plot

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent.parent / "examples"
CONGESTION = EXAMPLES / "congestion-lab.yaml"
ADHOC = EXAMPLES / "adhoc-annex-mix.yaml"
SHORT = {"run.duration": "60s"}
ADHOC_SHORT = {**SHORT, "traffic.0.start": "30s"}


def main() -> None:
    congestion = qoslab.run(CONGESTION, set=SHORT)
    llq = qoslab.run(CONGESTION, set={**SHORT, "interfaces.r1.r2.output": "llq"})
    adhoc = qoslab.run(ADHOC, set=ADHOC_SHORT)
    congestion_sweep = qoslab.sweep(
        CONGESTION,
        vary={
            "interfaces.r1.r2.output": ["fifo", "wfq", "llq"],
            "topology.links.1.rate": ["128kbps", "256kbps"],
        },
        reps=5,
        set=SHORT,
        progress=False,
    )
    adhoc_sweep = qoslab.sweep(
        ADHOC,
        vary={"interfaces.edge.core.output": ["fifo", "strict", "llq"]},
        reps=3,
        set=ADHOC_SHORT,
        progress=False,
    )
    pictures = {
        "bars": plot.bars(congestion_sweep, "delay_mean_ms"),
        "heatmap": plot.heatmap(adhoc_sweep, "delay_p99_ms"),
        "series": plot.series(congestion, "delay"),
        "series-sweep": plot.series(
            congestion_sweep, "throughput", select={"topology.links.1.rate": "128kbps"}
        ),
        "delay-cdf": plot.delay_cdf(congestion),
        "queue": plot.queue(llq, port="r1->r2"),
        "dq-scatter": plot.dq_scatter(adhoc_sweep, "edge->core"),
        "loads": plot.loads(adhoc, "edge->core"),
        "in-contract": plot.in_contract(adhoc_sweep, point="end_to_end", interval_ms=25),
        "voice": plot.voice(adhoc_sweep),
    }
    for name, figure in pictures.items():
        path = HERE / f"{name}.svg"
        path.write_text(plot.to_svg(figure), encoding="utf-8")
        print(f"{path.relative_to(HERE.parent.parent)} ({path.stat().st_size // 1000} kB)")


if __name__ == "__main__":
    main()
