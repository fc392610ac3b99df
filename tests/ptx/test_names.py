"""Register names with or without ``%`` (tmemviz.ptx.names): which names an operand holds, which a
function declares, and the readers that follow them (eager and looked for when asked) agreeing."""

from __future__ import annotations

import pytest

from tmemviz.ptx.names import Declared, declared, is_name, names
from tmemviz.ptx.stream import events


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("[tmem_acc + 0x40000000]", ["tmem_acc"]),
        ("{acc0, acc1, _}", ["acc0", "acc1"]),
        ("%tid.x", ["%tid"]),
        ("0f3F800000, 0d3FF0000000000000, 0x10, 0b101, 017", []),
        ("!P", ["P"]),
        ("$L__BB0_1", ["$L__BB0_1"]),
        ("%r1|%p2", ["%r1", "%p2"]),
    ],
)
def test_names_in_operands(text: str, found: list[str]) -> None:
    assert names(text) == found


def test_declarations() -> None:
    assert declared(".reg .b32 idesc, acc<4>, %r<100>;") == (("idesc", None), ("acc", 4), ("%r", 100))
    assert declared(".reg .v2 .b32 pair;") == (("pair", None),)
    assert declared(".reg .b32 r1 = 5;") == (("r1", None),)
    d = Declared()
    d.declare(".reg .b32 acc<4>, r1<2>;")
    assert [n for n in ("acc0", "acc3", "acc4", "acc", "acc00", "r10", "r11", "r12", "r1") if n in d] == [
        "acc0", "acc3", "r10", "r11"]  # fmt: skip
    assert is_name("acc0") and not is_name("0x10") and not is_name("_")


LINES = [".visible .entry k()\n", "{\n", "\t.reg .b32 idesc, my_idesc, t;\n",
         "\tmov.b32 idesc, 0x08200490;\n", "\tmov.b32 my_idesc, 7;\n", "\tld.global.b32 idesc_hi, [%rd1];\n",
         "\ttcgen05.mma.cta_group::1.kind::f16 [t], %rd1, %rd2, idesc, 1;\n",
         "\tld.global.b32 idesc, [%rd1];\n",
         "\ttcgen05.mma.cta_group::1.kind::f16 [t], %rd1, %rd2, idesc, 1;\n", "\tret;\n", "}\n"]  # fmt: skip


@pytest.mark.parametrize("every", [False, True])
def test_a_name_that_ends_or_starts_another_hides_no_write(every: bool) -> None:
    """``my_idesc`` and ``idesc_hi`` are other registers; a load into ``idesc`` forgets its value."""
    seen = []
    for e in events(LINES, every=every):
        if e.kind == "tcgen05":
            value = e.fn.constants.get("idesc")
            seen.append(None if value is None else [b.value for b in value])
    assert seen == [[0x08200490], None]


def test_the_sink_holds_its_part_of_a_split() -> None:
    """``mov.b64 {_, hi}, %rd1``: hi is the upper half, though the sink is not a register."""
    from tmemviz.ptx.line import parse_line
    from tmemviz.ptx.registers import Constants

    k = Constants()
    for s in ("mov.b64 %rd1, 0x0000000500000007;", "mov.b64 {_, hi}, %rd1;", "mov.b64 {lo, _}, %rd1;"):
        k.update(parse_line(s))
    assert [k.get(n)[0].value for n in ("hi", "lo")] == [5, 7]
    assert "_" not in k.values
