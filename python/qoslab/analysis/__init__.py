"""Statistics over replicated runs: the mean of each metric with its confidence interval.

A sweep concatenates each result table of its runs, adding the parameter columns, ``variant``
and ``replication``. This package turns such a table into summaries::

    from qoslab.analysis import summarize, thesis_table, wide

    summary = summarize(flows, by=["interfaces.r1.r2.output"], table="flows")
    voice = summary[(summary.flow == "voice") & (summary.metric == "delay_p99_ms")]

    one = flows[(flows["interfaces.r1.r2.output"] == "pq") & (flows.flow == "voice")]
    thesis_table(one, ["delay_mean_ms", "jitter_rfc3550_ms"])   # T1..Tn, M, SD, M-X, M+X, Max
    wide(summary)   # one column per metric: "mean ± half-width"

``columns`` says which columns of each table name a row, describe it or measure it;
``interval`` computes the statistics (Student t or normal intervals, with scipy);
``ordering`` fixes the order of groups; ``summary``, ``thesis`` and ``wide`` lay the results
out.
"""

from qoslab.analysis.columns import (
    DESCRIPTIVE_COLUMNS,
    IDENTITY_COLUMNS,
    RUN_COLUMNS,
    descriptive_columns,
    identity_columns,
)
from qoslab.analysis.interval import INTERVALS
from qoslab.analysis.summary import STATISTIC_COLUMNS, summarize
from qoslab.analysis.thesis import STATISTIC_ROWS, thesis_table
from qoslab.analysis.wide import wide

__all__ = [
    "DESCRIPTIVE_COLUMNS",
    "IDENTITY_COLUMNS",
    "INTERVALS",
    "RUN_COLUMNS",
    "STATISTIC_COLUMNS",
    "STATISTIC_ROWS",
    "descriptive_columns",
    "identity_columns",
    "summarize",
    "thesis_table",
    "wide",
]
