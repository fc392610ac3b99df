"""``tmemviz check K.ptx --sass K.cubin``: each wait-ld warning judged against the SASS ptxas made of the
PTX. Confirmed where a path from the load's LDTM reaches the flagged instruction with nothing waiting
on the LDTM's scoreboard (the warning stays, saying so), a note where every path waits (the PTX does
not ask for it), unchanged where the SASS cannot say. Real cubins from ptxas 13.5, and hand-written
listings whose control bits say exactly what is tested."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_run import bad, run

from tmemviz.sass.control import NONE, control
from tmemviz.sass.listing import events
from tmemviz.sass.waits import Collector

HEAD = """.version 9.0
.target sm_100a
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<40>;
.reg .pred %p<4>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [out];
mov.b32 %r1, smem;
tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 64;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
bar.sync 0;
ld.shared.b32 %r2, [smem];
"""
LOAD = "tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, [%r2];\n"
USE = """add.s32 %r20, %r10, %r17;
add.s32 %r21, %r11, %r12;
add.s32 %r22, %r13, %r14;
add.s32 %r23, %r15, %r16;
add.s32 %r20, %r20, %r21;
add.s32 %r22, %r22, %r23;
add.s32 %r20, %r20, %r22;
st.global.b32 [%rd1], %r20;
"""
TAIL = """mov.b32 %r30, 7;
tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%r30};
tcgen05.wait::st.sync.aligned;
bar.sync 0;
tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 64;
ret;
}
"""
RELEASED = HEAD + LOAD + "bar.sync 0;\n" + USE + TAIL
"""The load's registers read only after the barrier, nothing waits before it: the ISA's hazard."""


def wait_ld(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[str, str]]:
    code, out, err = run(capsys, "check", *args, "--select", "wait-ld", "--notes", "-f", "json")
    assert code in (0, 1) and err == "", err
    return [(f["severity"], f["message"]) for f in json.loads(out)["files"][0]["findings"]]


@pytest.fixture
def built(sass_tools: tuple[str, str], tmp_path: Path) -> tuple[Path, Path, Path]:
    """RELEASED assembled by ptxas: (PTX, cubin, its listing with encodings)."""
    ptxas, nvdisasm = sass_tools
    ptx, cubin, listing = tmp_path / "k.ptx", tmp_path / "k.cubin", tmp_path / "k.sass"
    ptx.write_text(RELEASED)
    subprocess.run([ptxas, "-arch=sm_100a", str(ptx), "-o", str(cubin)], check=True)
    text = subprocess.run([nvdisasm, "-c", "-hex", str(cubin)], check=True, capture_output=True, text=True)
    listing.write_text(text.stdout)
    return ptx, cubin, listing


def test_a_real_cubin_confirms_a_release_nothing_waits_for(
    built: tuple[Path, Path, Path], sass_tools: tuple[str, str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    ptx, cubin, listing = built
    monkeypatch.setenv("PATH", str(Path(sass_tools[1]).parent), prepend=":")
    (before,) = wait_ld(capsys, str(ptx))
    assert before[0] == "warning"
    for sass in (cubin, listing):  # the cubin through nvdisasm -hex, or the listing it prints
        ((severity, message),) = wait_ld(capsys, str(ptx), "--sass", str(sass))
        assert severity == "warning"
        assert message.startswith(before[1]) and "the SASS given confirms it: from the LDTM at" in message
        assert "reaches the BAR.SYNC" in message


def test_a_listing_without_encodings_is_refused(
    built: tuple[Path, Path, Path], sass_tools: tuple[str, str], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    ptx, cubin, _ = built
    plain = tmp_path / "plain.sass"
    plain.write_text(subprocess.run([sass_tools[1], "-c", str(cubin)], check=True, capture_output=True,
                                    text=True).stdout)  # fmt: skip
    said = bad(capsys, "check", str(ptx), "--sass", str(plain))
    assert "prints no instruction encodings, so its scoreboards cannot be read" in said


def high(write: int = NONE, wait: int = 0) -> str:
    """A control word: the scoreboard set, the ones waited on (read barrier none, stall 1)."""
    value = (1 << 41) | (write << 46) | (NONE << 49) | (wait << 52)
    assert control(value) == (1, write, NONE, wait)
    return f"/* 0x{value:016x} */"


def listing(*rows: tuple[str, str] | str) -> str:
    """A listing of function k: (instruction, control word) rows, or a label."""
    out = ["\t.text.k:"]
    address = 0
    for row in rows:
        if isinstance(row, str):
            out.append(row)
            continue
        text, word = row
        out.append(f"        /*{address:04x}*/                   {text} ;   /* 0x0000000000000000 */")
        out.append(f"                                                        {word}")
        address += 0x10
    return "\n".join(out) + "\n"


LDTM = ("LDTM.x8 R10, tmem[UR4]", high(write=1))
STTM = ("STTM.x1 tmem[UR4], R30", high())


@pytest.mark.parametrize(
    ("rows", "severity", "said"),
    [
        # Nothing waits on SB1 before the barrier: confirmed.
        ((LDTM, ("BAR.SYNC.DEFER_BLOCKING 0x0", high()), ("IADD3 R20, PT, PT, R10, R17, RZ", high(wait=2)),
          STTM, ("EXIT", high())), "warning", "confirms it: from the LDTM at /*0000*/ a path reaches the "
         "BAR.SYNC.DEFER_BLOCKING at /*0010*/ with nothing waiting on its scoreboard SB1"),
        # The barrier itself waits on SB1 (its wait comes before it issues): ordered.
        ((LDTM, ("BAR.SYNC.DEFER_BLOCKING 0x0", high(wait=2)), STTM, ("EXIT", high())), "note",
         "orders it on this build (every path from the LDTM at /*0000*/ waits on its scoreboard SB1 first)"),
        # A DEPBAR draining SB1 orders it too; one draining another scoreboard does not.
        ((LDTM, ("DEPBAR.LE SB1, 0x0", high()), ("BAR.SYNC.DEFER_BLOCKING 0x0", high()), STTM,
          ("EXIT", high())), "note", "orders it"),
        ((LDTM, ("DEPBAR.LE SB2, 0x0", high()), ("BAR.SYNC.DEFER_BLOCKING 0x0", high()), STTM,
          ("EXIT", high())), "warning", "confirms it"),
        # A branch that waits on one path only: the other reaches the barrier unordered.
        ((LDTM, ("@P0 BRA `(.L_x_1)", high()), ("NOP", high(wait=2)), ".L_x_1:",
          ("BAR.SYNC.DEFER_BLOCKING 0x0", high()), STTM, ("EXIT", high())), "warning", "confirms it"),
        # The branch itself waits (as ptxas does before an arm that calls): every path is ordered.
        ((LDTM, ("@P0 BRA `(.L_x_1)", high(wait=2)), ("CALL.ABS.NOINC R2", high()), ".L_x_1:",
          ("BAR.SYNC.DEFER_BLOCKING 0x0", high()), STTM, ("EXIT", high())), "note", "orders it"),
    ],
)  # fmt: skip
def test_hand_written_listings(
    rows: tuple[object, ...], severity: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ptx, sass = tmp_path / "k.ptx", tmp_path / "k.sass"
    ptx.write_text(RELEASED)
    sass.write_text(listing(*rows))  # type: ignore[arg-type]
    ((got, message),) = wait_ld(capsys, str(ptx), "--sass", str(sass))
    assert got == severity and said in message, message


def test_a_loop_back_to_the_release_is_a_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The barrier comes before the load in the code; the loop's back edge reaches it again."""
    rows = (".L_x_0:", ("BAR.SYNC.DEFER_BLOCKING 0x0", high()), ("NOP", high(wait=2)), LDTM, STTM,
            ("@P0 BRA `(.L_x_0)", high()), ("EXIT", high()))  # fmt: skip
    ptx, sass = tmp_path / "k.ptx", tmp_path / "k.sass"
    ptx.write_text(RELEASED)
    sass.write_text(listing(*rows))
    ((got, message),) = wait_ld(capsys, str(ptx), "--sass", str(sass))
    assert got == "warning" and "confirms it" in message


def test_what_the_sass_cannot_show_leaves_the_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No LDTM of the load in the SASS (ptxas removed it, or another module's SASS)."""
    ptx, sass = tmp_path / "k.ptx", tmp_path / "k.sass"
    ptx.write_text(RELEASED)
    sass.write_text(listing(("BAR.SYNC.DEFER_BLOCKING 0x0", high()), STTM, ("EXIT", high())))
    ((got, message),) = wait_ld(capsys, str(ptx), "--sass", str(sass))
    assert got == "warning" and message.endswith("the SASS given cannot say more (no LDTM of that line)")


def test_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ptx, sass = tmp_path / "k.ptx", tmp_path / "k.sass"
    ptx.write_text(RELEASED)
    sass.write_text(listing(LDTM, ("EXIT", high())))
    assert "give one PTX file" in bad(capsys, "check", str(ptx), str(ptx), "--sass", str(sass))
    assert "give one PTX file" in bad(capsys, "check", str(tmp_path), "--sass", str(sass))
    assert "is not SASS" in bad(capsys, "check", str(ptx), "--sass", str(ptx))
    assert "no such file" in bad(capsys, "check", str(ptx), "--sass", str(tmp_path / "none.cubin"))
    other = tmp_path / "other.sass"
    other.write_text(listing(LDTM, ("EXIT", high())).replace(".text.k:", ".text.other:"))
    assert "holds no function k of" in bad(capsys, "check", str(ptx), "--sass", str(other))


def test_only_the_functions_asked_for_are_kept() -> None:
    text = listing(LDTM, ("EXIT", high())) + listing(STTM, ("EXIT", high())).replace(".text.k:", ".text.j:")
    collector = Collector({"j"})
    for event in events(text.splitlines()):
        collector(event)
    collector.close()
    assert list(collector.functions) == ["j"] and collector.encoded
    code = collector.functions["j"]
    assert [it.opcode for it in code.items if it is not None] == ["STTM.x1", "EXIT"]


def test_pairing_says_when_it_is_certain() -> None:
    """In order, a line is its one SASS instruction, also where ptxas moved a block (matched in order
    again among what is left); a line with no instruction of its work left is not certain."""
    from tmemviz.families.explain.pairing import candidates

    def rec(line: int, op: str, num: int, address: str | None = None) -> dict[str, object]:
        r: dict[str, object] = {"line": line, "op": op, "shape": "32x32b", "num": num, "pack": False}
        if address:
            r["address"] = address
        return r

    ptx = [rec(1, "ld", 8), rec(2, "st", 1), rec(3, "ld", 32), rec(4, "ld", 32), rec(5, "st", 2)]
    # The same order: every line certain.
    sass = [rec(10, "ld", 8, "0x10"), rec(11, "st", 1, "0x20"), rec(12, "ld", 32, "0x30"),
            rec(13, "ld", 32, "0x40"), rec(14, "st", 2, "0x50")]  # fmt: skip
    got = candidates(ptx, sass)
    assert {line: ([s["address"] for s in found], exact) for line, (found, exact) in got.items()} == {
        1: (["0x10"], True), 2: (["0x20"], True), 3: (["0x30"], True), 4: (["0x40"], True),
        5: (["0x50"], True),
    }  # fmt: skip
    # ptxas moved the x32 loads' block: matched in order again among what is left, each line is still
    # its own instruction, for certain.
    moved = [sass[2], sass[3], sass[0], sass[1], sass[4]]
    got = candidates(ptx, moved)
    assert {line: ([s["address"] for s in found], exact) for line, (found, exact) in got.items()} == {
        1: (["0x10"], True), 2: (["0x20"], True), 3: (["0x30"], True), 4: (["0x40"], True),
        5: (["0x50"], True),
    }  # fmt: skip
    # A line no instruction of its work is left for (ptxas removed it): none, and not certain.
    got = candidates(ptx, [sass[0], sass[1], sass[3], sass[4]])
    assert got[3] == ([], False) or got[4] == ([], False)


def test_the_python_api_takes_the_sass_too(tmp_path: Path) -> None:
    import tmemviz
    from tmemviz.errors import TmemvizError

    ptx, sass = tmp_path / "k.ptx", tmp_path / "k.sass"
    ptx.write_text(RELEASED)
    sass.write_text(listing(LDTM, ("BAR.SYNC.DEFER_BLOCKING 0x0", high(wait=2)), STTM, ("EXIT", high())))
    (checked,) = tmemviz.check(ptx, sass=sass).subject
    (found,) = [f for f in checked.findings if f.rule == "wait-ld"]
    assert found.severity == "note" and "the SASS given orders it" in found.message
    with pytest.raises(TmemvizError, match="give one PTX file"):
        tmemviz.check([ptx, ptx], sass=sass)


def test_a_cuobjdump_listing_branches_to_addresses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """cuobjdump -sass prints no labels: a branch names a code address, where a block starts."""
    rows = [LDTM, ("@P0 BRA 0x30", high()), ("NOP", high(wait=2)), ("BAR.SYNC.DEFER_BLOCKING 0x0", high()),
            STTM, ("EXIT", high())]  # fmt: skip
    text = listing(*rows).replace("\t.text.k:", "\tcode for sm_100a\n\t\tFunction : k")
    ptx, sass = tmp_path / "k.ptx", tmp_path / "k.sass"
    ptx.write_text(RELEASED)
    sass.write_text(text)
    ((got, message),) = wait_ld(capsys, str(ptx), "--sass", str(sass))
    assert got == "warning" and "confirms it: from the LDTM at /*0000*/" in message
    # Without the branch, the NOP's wait orders the barrier.
    sass.write_text(text.replace("@P0 BRA 0x30", "@P0 NOP"))
    ((got, message),) = wait_ld(capsys, str(ptx), "--sass", str(sass))
    assert got == "note" and "orders it" in message


def test_flashattention4s_stores_handed_to_the_mma_warp_are_confirmed_in_its_cubin(
    sass_tools: tuple[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """FlashAttention-4's 1-CTA MLA decode kernel and the cubin CuTe DSL built of it (tests/kernels/fa4):
    each arrive that lets the MMA warp go on while a rescaled O store is not waited for, and each
    read-back of the next round, has a path from the STTM with no FENCE.VIEW.ASYNC.T."""
    fa4 = Path(__file__).parents[1] / "kernels" / "fa4"
    ptx, cubin = fa4 / "mla_fwd_1cta_bf16_decode.ptx", fa4 / "mla_fwd_1cta_bf16_decode.cubin"
    monkeypatch.setenv("PATH", str(Path(sass_tools[1]).parent), prepend=":")
    found = [(s, m) for s, m in wait_ld(capsys, str(ptx), "--sass", str(cubin)) if s == "warning"]
    arrives = [m for _, m in found if "lets other threads go on" in m]
    assert len(arrives) == 2 and len(found) == 10
    confirmed = "the SASS given confirms it: from the STTM at"
    assert all(confirmed in m and "reaches the SYNCS.ARRIVE" in m for m in arrives)
    assert all(confirmed in m and "reaches the LDTM" in m for _, m in found if m not in arrives)
