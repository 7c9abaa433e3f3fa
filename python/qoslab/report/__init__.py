"""``qoslab.report``: a run or a sweep as one self-contained HTML page.

    import qoslab
    from qoslab import report

    results = qoslab.load("results/voice-vs-flood")
    html = report.render(results)

The page holds what was run (the scenario, its IOS configurations, the overrides, the seed and
the command that runs it again), the notes, the main tables and the plots that fit the data,
with its style and figures inline: it opens anywhere, fetches nothing and prints well.
``provenance`` gathers what was run, ``tables`` and ``figures`` what was measured,
``render`` lays it out and ``notebook`` makes the short form a notebook shows.
"""

from qoslab.report.render import render

__all__ = ["render"]
