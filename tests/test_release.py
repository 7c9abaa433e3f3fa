"""qoslab.experiment.release: the memory of dropped tables goes back to the operating system,
and objects kept alive only by their reference cycles (a sweep and its cached tables) go."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import weakref

from qoslab.experiment.release import release

TABLES = 2000
ROWS = 20_000
"""2,000 small tables of 160 kB each: 320 MB held in Arrow's pool in pieces it keeps for
reuse when they are freed."""


PROBE = f"""
import gc, json
from pathlib import Path
import numpy as np
import pyarrow as pa
from qoslab.experiment.release import release

def resident_mib():
    status = Path("/proc/self/status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("VmRSS"))
    return int(line.split()[1]) // 1024

before = resident_mib()
column = np.arange({ROWS}, dtype="int64")
tables = [pa.table({{"x": pa.array(column + i)}}) for i in range({TABLES})]
held = resident_mib()
del tables
gc.collect()
kept = resident_mib()
release()
print(json.dumps([before, held, kept, resident_mib()]))
"""
"""Tables built, dropped and released in a fresh interpreter, its resident size after each
step: a test process's own history (memory its allocators kept from earlier tests) would
otherwise blur what one step does."""


def test_the_memory_of_dropped_tables_is_given_back():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    before, held, _, after = json.loads(done.stdout)
    assert held - before > 250
    # Most of what the tables took is returned: by the pool when asked, or sooner when its
    # own delay to return freed pages ran out first (mimalloc purges after a few
    # milliseconds of further activity, so how much `kept` still holds varies).
    assert after - before < (held - before) / 2


class Holder:
    """An object in a reference cycle, as a sweep is with its tables."""

    def __init__(self) -> None:
        self.me = self


def test_objects_held_only_by_a_cycle_are_collected():
    gc.disable()
    try:
        holder = Holder()
        alive = weakref.ref(holder)
        del holder
        assert alive() is not None
        release()
        assert alive() is None
    finally:
        gc.enable()
