"""The cycle collector paused while a module is read and analysed.

Reading and analysing a kernel makes millions of short-lived values (freed as they go by reference
counting) and keeps a large, long-lived structure (the function's code, its graph, the values of its
plan). Each collection the allocations set off scans every object alive, so the collector's passes cost
a third of ``check``'s time on CUTLASS's attention kernels while finding almost nothing to free. The
analysis makes no reference cycles of its own (tests/check/test_no_cycles.py holds it to that), so
memory stays flat with the collector paused; it resumes, and collects anything left, when the pause
ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Run the body with the cycle collector off (as it was found, afterwards).

    >>> import gc
    >>> with paused():
    ...     gc.isenabled()
    False
    """
    was = gc.isenabled()
    if was:
        gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
