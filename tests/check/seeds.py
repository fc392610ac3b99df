"""The seeded bug classes that need nothing but a module's text: each one's seed and the rule that must
report it. tests/check/test_mutations.py seeds them (with "shrink the alloc", which needs each kernel's
last used column) into tests/kernels; benchmarks/mutations.py into the corpus."""

from __future__ import annotations

from collections.abc import Callable

from check import mutations as mut
from check import mutations_flow as flow

SEEDS: dict[str, tuple[str, Callable[[str], str | None]]] = {
    "nCols not a power of 2": ("alloc-columns", mut.odd_alloc),
    "delete the dealloc": ("never-freed", mut.delete_dealloc),
    "move the dealloc before the last use": ("use-after-dealloc", mut.move_dealloc),
    "halve the dealloc's columns": ("dealloc-mismatch", mut.halve_dealloc),
    "sm_100a -> sm_120a": ("target", mut.consumer_target),
    "change one .cta_group": ("cta-group-mixed", mut.flip_cta_group),
    "store before the load's registers are read": ("wait-ld", mut.store_before_read),
    # Bugs only a control-flow graph sees (issue P19): a label between alloc and dealloc, a path to `ret`.
    "dealloc right after the alloc": ("use-after-dealloc", flow.dealloc_after_alloc),
    "one CTA returns right after the alloc": ("never-freed", flow.exit_after_alloc),
    "the dealloc written twice": ("dealloc-twice", flow.dealloc_twice),
    ".x1 ld stored back before wait::ld": ("wait-ld", flow.store_own_load),
}
