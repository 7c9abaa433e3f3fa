"""The memory a run may take by default: a share of what this process can actually get.

Three things bound it, and the least of them counts:

- the machine's physical memory;
- the process's address-space limit (``RLIMIT_AS``, ``ulimit -v``), less the address space
  the process already maps (the interpreter, pandas, the core: several hundred megabytes);
- the memory limit of the control group the process runs in (a container's or a systemd
  unit's: cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``, the tightest of the group
  and its ancestors), less what the group already uses.

A run may use :data:`MEMORY_SHARE` of it. The share leaves room for what the core's memory
guard does not count: a queue's storage grows by doubling, so while it grows the old and the
new storage are both held. Without the address-space and control-group bounds, an unlimited
queue under ``ulimit -v`` or in a container outgrew the process before the guard saw it and
the allocator aborted the process.
"""

from __future__ import annotations

import contextlib
import os
import resource
from pathlib import Path

MEMORY_SHARE = 0.5
"""Share of the memory this process can get that a run may use unless told otherwise."""

ASSUMED_PHYSICAL_BYTES = 8 << 30
"""Physical memory assumed on a platform that does not tell (a modest machine)."""

CGROUP_ROOT = Path("/sys/fs/cgroup")

UNLIMITED_BYTES = 1 << 60
"""A control-group limit this large or larger means none (v1 writes 2^63 rounded to pages)."""


def default_max_memory() -> int:
    """The memory a run may use by default: :data:`MEMORY_SHARE` of :func:`available`."""
    return max(int(available() * MEMORY_SHARE), 1)


def available() -> int:
    """The memory, bytes, that this process can still get: the least of the physical
    memory, the room left under its address-space limit and the room left under its control
    group's limit."""
    bounds = [_physical()]
    for bound in (_address_space_left(), _cgroup_left()):
        if bound is not None:
            bounds.append(bound)
    return max(min(bounds), 0)


def _physical() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return ASSUMED_PHYSICAL_BYTES


def _address_space_left() -> int | None:
    """Room under ``RLIMIT_AS``, or None without a limit."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    return soft - _mapped_bytes()


def _mapped_bytes() -> int:
    """The address space the process maps now (Linux ``/proc/self/statm``; 0 elsewhere)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        pages = int(Path("/proc/self/statm").read_text().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    return 0


def _cgroup_left() -> int | None:
    """Room under the control group's memory limit, or None where there is none or the
    system does not say."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            number, controllers, path = line.split(":", 2)
            if number == "0" and controllers == "":
                left = _room(CGROUP_ROOT, path, "memory.max", "memory.current")
            elif "memory" in controllers.split(","):
                left = _room(
                    CGROUP_ROOT / "memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes"
                )
            else:
                continue
            if left is not None:
                return left
    return None


def _room(root: Path, path: str, limit_file: str, usage_file: str) -> int | None:
    """The least room left under ``limit_file`` in the group at ``path`` below ``root`` and
    in each of its ancestors that has one (a group's own view may be its namespace's root)."""
    rooms = []
    folder = root / path.lstrip("/")
    for group in (folder, *folder.parents):
        if not group.is_relative_to(root):
            break
        limit = _number(group / limit_file)
        if limit is not None and limit < UNLIMITED_BYTES:
            rooms.append(limit - (_number(group / usage_file) or 0))
    return min(rooms) if rooms else None


def _number(path: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        text = path.read_text().strip()
        return None if text == "max" else int(text)
    return None
