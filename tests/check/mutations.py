"""Seeded bugs: each function takes a correct PTX module's text and returns it with one bug class seeded,
or None where that bug cannot be seeded into this module. Applied at run time; never saved as files."""

from __future__ import annotations

import re
from collections.abc import Callable

ACCESS = re.compile(r"^\s*(?:@!?%\w+\s+)?tcgen05\.(?:ld|st|cp|mma|shift)\b")
ALLOC = re.compile(r"(tcgen05\.alloc\.[\w:.]+\s*\[[^\]]+\]\s*,\s*)([^;\s]+)\s*;")
DEALLOC = re.compile(r"(tcgen05\.dealloc\.[\w:.]+\s+[^,]+,\s*)([^;\s]+)\s*;")
LD = re.compile(r"tcgen05\.ld\.[\w:.]+\s*\{[^}]*\}\s*,\s*\[\s*(%\w+)")


def _columns(text: str, operand: str) -> int | None:
    """An nCols operand's value: an immediate, or the constant last moved into its register."""
    if operand.isdigit():
        return int(operand)
    found = re.findall(rf"mov\.[bu]32\s+{re.escape(operand)}\s*,\s*(\d+)\s*;", text)
    return int(found[-1]) if found else None


def shrink_alloc(used: dict[int, int]) -> Callable[[str], str | None]:
    """Shrink the k-th alloc to the largest power of 2 (>= 32) at or below the last column the kernel
    uses (``used``: alloc rank -> that column, known from how the kernel was written)."""

    def seed(text: str) -> str | None:
        matches = list(ALLOC.finditer(text))
        for k, last in used.items():
            m = matches[k]
            have = _columns(text, m.group(2))
            smaller = 1 << last.bit_length() - 1 if last >= 32 else None
            if have is None or smaller is None or smaller >= have:
                continue
            return text[: m.start(2)] + str(smaller) + text[m.end(2) :]
        return None

    return seed


def odd_alloc(text: str) -> str | None:
    """nCols of the first alloc made 3/2 of itself (not a power of 2)."""
    m = ALLOC.search(text)
    have = _columns(text, m.group(2)) if m else None
    if m is None or have is None:
        return None
    return text[: m.start(2)] + str(have * 3 // 2) + text[m.end(2) :]


def delete_dealloc(text: str) -> str | None:
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if "tcgen05.dealloc" not in line]
    return "".join(kept) if len(kept) < len(lines) else None


def move_dealloc(text: str) -> str | None:
    """The first dealloc moved to just before the last tcgen05 access of its function."""
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if "tcgen05.dealloc" in line), None)
    if at is None:
        return None
    last = max((i for i in range(at) if ACCESS.match(lines[i])), default=None)
    if last is None:
        return None
    line = lines.pop(at)
    lines.insert(last, line)
    return "".join(lines)


def halve_dealloc(text: str) -> str | None:
    m = DEALLOC.search(text)
    have = _columns(text, m.group(2)) if m else None
    if m is None or have is None:
        return None
    return text[: m.start(2)] + str(have // 2) + text[m.end(2) :]


def consumer_target(text: str) -> str | None:
    new = re.sub(r"^(\s*\.target\s+)sm_10[03][af]", r"\1sm_120a", text, count=1, flags=re.M)
    return new if new != text else None


def flip_cta_group(text: str) -> str | None:
    """The last tcgen05 instruction naming a .cta_group switched to the other one."""
    found = [m for m in re.finditer(r"tcgen05\.[\w:.]*cta_group::([12])", text)]
    if len(found) < 2:
        return None
    m = found[-1]
    other = "2" if m.group(1) == "1" else "1"
    return text[: m.start(1)] + other + text[m.end(1) :]


def store_before_read(text: str) -> str | None:
    """Right after the first tcgen05.ld, before any of its registers is read, a tcgen05.st to its address."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = LD.search(line)
        if m:
            reg = m.group(1)
            lines.insert(i + 1, f"\ttcgen05.st.sync.aligned.32x32b.x1.b32 [{reg}], {{{reg}}};\n")
            return "".join(lines)
    return None
