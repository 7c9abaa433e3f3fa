"""Experiments: a scenario run over a grid of settings, variants and replications.

``plan`` makes the grid, ``task`` is one run and its key, ``local`` and ``cluster`` run the
tasks (threads of this process, or a Dask cluster), ``store`` keeps them in a folder,
``progress`` draws the bar, ``engine`` puts these together (``qoslab.sweep``), ``sweep``
holds the runs and their summary as DataFrames and ``failure`` reads the order in which the
applications fail along a sweep's one varied key (``qoslab.order_of_failure``).
"""
