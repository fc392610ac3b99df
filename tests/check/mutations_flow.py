"""Seeded bugs that need the control-flow graph (issue P19): each function takes a correct PTX module's
text and returns it with one bug seeded, or None where it cannot be. Applied at run time, never saved."""

from __future__ import annotations

import re

ALLOC_LINE = re.compile(r"^\s*(?:@!?%?\w+\s+)?tcgen05\.alloc\.[^\n]*;[^\n]*$", re.M)
DEALLOC_LINE = re.compile(r"^\s*(?:@!?%?\w+\s+)?tcgen05\.dealloc\.[^\n]*;[^\n]*$", re.M)
LD_LINE = re.compile(
    r"^\s*(?:@!?%?\w+\s+)?tcgen05\.ld\.[\w:.]+\s*\{[^}]*\}\s*,\s*\[\s*([%\w]+)[^\]]*\][^\n]*$", re.M
)


def dealloc_after_alloc(text: str) -> str | None:
    """The first dealloc moved to right after the first alloc (any label between them no longer hides it)."""
    alloc, dealloc = ALLOC_LINE.search(text), DEALLOC_LINE.search(text)
    if alloc is None or dealloc is None or dealloc.start() < alloc.end():
        return None
    line = dealloc.group(0)
    text = text[: dealloc.start()] + text[dealloc.end() + 1 :]
    return text[: alloc.end()] + "\n" + line + text[alloc.end() :]


def exit_after_alloc(text: str) -> str | None:
    """Right after the first alloc, one CTA (``%ctaid.x == 7``) returns: a path on which nothing frees."""
    alloc = ALLOC_LINE.search(text)
    if alloc is None:
        return None
    seed = (
        "\n\t{\n\t.reg .pred %p_seed;\n\t.reg .b32 %r_seed;\n\tmov.u32 %r_seed, %ctaid.x;\n"
        "\tsetp.eq.u32 %p_seed, %r_seed, 7;\n\t@%p_seed ret;\n\t}"
    )
    return text[: alloc.end()] + seed + text[alloc.end() :]


def dealloc_twice(text: str) -> str | None:
    """The first dealloc written twice in a row."""
    dealloc = DEALLOC_LINE.search(text)
    if dealloc is None:
        return None
    return text[: dealloc.end()] + "\n" + dealloc.group(0) + text[dealloc.end() :]


def store_own_load(text: str) -> str | None:
    """After the first tcgen05.ld, an ``.x1`` ld of its address and a tcgen05.st of that register back to
    the same cells, with no wait::ld between: the st's own read of the register comes too late."""
    ld = LD_LINE.search(text)
    if ld is None:
        return None
    base = ld.group(1)
    seed = (
        "\n\t{\n\t.reg .b32 %r_seed;\n"
        f"\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r_seed}}, [{base}];\n"
        f"\ttcgen05.st.sync.aligned.32x32b.x1.b32 [{base}], {{%r_seed}};\n"
        "\ttcgen05.wait::ld.sync.aligned;\n\t}"
    )
    return text[: ld.end()] + seed + text[ld.end() :]


def next_band(text: str) -> str | None:
    """After the first tcgen05.ld, an ``.x1`` ld of the lanes 32 past its address (lane field + 32): every
    warp that runs it reads the next warp's band of lanes (PTX 9.7.16.8.1), or past lane 127."""
    ld = LD_LINE.search(text)
    if ld is None:
        return None
    seed = (
        "\n\t{\n\t.reg .b32 %r_seed, %r_lane;\n"
        f"\tadd.s32 %r_lane, {ld.group(1)}, 2097152;\n"
        "\ttcgen05.ld.sync.aligned.32x32b.x1.b32 {%r_seed}, [%r_lane];\n"
        "\ttcgen05.wait::ld.sync.aligned;\n\t}"
    )
    return text[: ld.end()] + seed + text[ld.end() :]
