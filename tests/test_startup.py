"""What a process loads: ``import qoslab`` and ``qoslab run`` leave out the libraries only
other commands use (pandas, plots, reports, sweeps on Dask), and the API stays whole however
it is imported. Start-up time itself is measured in benches/README.md, never here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = (
    "pandas",
    "pyarrow",
    "numpy",
    "rich",
    "matplotlib",
    "scipy",
    "jinja2",
    "distributed",
    "dask",
    "PIL",
)
"""Libraries that take long to import, checked for in ``sys.modules``."""

LOADED = f"""
import json, sys
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""


def loaded_after(code: str) -> list[str]:
    """The heavy libraries a fresh interpreter holds after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", code + LOADED], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_importing_qoslab_loads_no_heavy_library():
    assert loaded_after("import qoslab") == []


def test_a_run_loads_no_plotting_report_or_cluster_library(voice_vs_flood, tmp_path):
    code = (
        "from qoslab.cli import main\n"
        f"assert main(['run', {str(voice_vs_flood)!r}, '-o', {str(tmp_path / 'out')!r}]) == 0\n"
    )
    # pyarrow (which imports numpy) writes the tables as Parquet, rich prints them.
    assert loaded_after(code) == ["numpy", "pyarrow", "rich"]


@pytest.mark.parametrize(
    "first",
    ["", "import qoslab.run, qoslab.load", "import qoslab.results, qoslab.experiment.sweep"],
)
def test_the_api_is_whole_whatever_was_imported_first(first):
    code = (
        f"{first}\n"
        "import inspect, qoslab\n"
        "from qoslab import Results, Sweep, load, order_of_failure, run, sweep\n"
        "assert inspect.isfunction(qoslab.run) and qoslab.run is run\n"
        "assert inspect.isfunction(qoslab.load) and qoslab.load is load\n"
        "assert inspect.isclass(qoslab.Results) and inspect.isclass(Sweep)\n"
        "assert callable(sweep) and callable(order_of_failure)\n"
        "assert all(hasattr(qoslab, name) for name in qoslab.__all__)\n"
        "assert set(qoslab.__all__) <= set(dir(qoslab))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_unknown_name_is_an_attribute_error():
    import qoslab

    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        _ = qoslab.nonesuch  # type: ignore[attr-defined]
