"""Freed memory given back to the operating system between the large steps of a long job.

A sweep's tables live in Arrow buffers (pyarrow's memory pool, mimalloc in its wheels) and
pandas' NumPy arrays (the C library's ``malloc``). When a step's tables are dropped — the
runs at one end of a study's assumption range, one study of ``qoslab reproduce --all`` —
both allocators keep the freed pages for reuse, so the process stays as large as the
largest step before it and the next step's peak is added on top. :func:`release` collects
the dropped objects (a sweep and its cached tables refer to each other), asks Arrow's pool
to return what it no longer uses (``MemoryPool.release_unused``) and glibc to return the
free memory at the top of its heaps (``malloc_trim(3)``), where the C library has it.
Nothing a run computes depends on it: only the resident size changes.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc


def release() -> None:
    """Collect dropped objects and give their freed memory back to the operating system."""
    import pyarrow as pa  # here, not at import: the memory module's users stay light

    gc.collect()
    pa.default_memory_pool().release_unused()
    with contextlib.suppress(OSError, AttributeError):
        # The C library the process runs on: glibc has malloc_trim; others have not, and
        # nothing is lost without it.
        ctypes.CDLL(None).malloc_trim(0)
