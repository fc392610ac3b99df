"""The rules ``tmemviz check`` applies, by stable id: what each finds, and why it is a bug.

Ids never change meaning (SARIF ``ruleId``, suppressions and scripts rely on them); a new check gets a
new id. Each rule names the PTX ISA section (or public report) its claim rests on.
"""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "note")
"""Most to least severe; by default ``error`` and ``warning`` make ``tmemviz check`` exit 1 (``--fail-on``
says otherwise)."""

DOCS_URL = "https://github.com/tmemviz/tmemviz/blob/main/docs/"
"""Where the project's documentation is published: the one base of every link a rule carries (SARIF
``helpUri``: the rule's own section of check.md)."""


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    """One line: what the rule finds."""
    why: str
    """Why it is a bug, with the source."""
    level: str = "error"
    """The most severe level it reports (SARIF ``defaultConfiguration.level``); some rules also note."""

    @property
    def help_uri(self) -> str:
        """The rule's section of docs/check.md (its heading is the id, so the anchor is the id)."""
        return f"{DOCS_URL}check.md#{self.id}"


RULES = (
    Rule(
        "alloc-columns",
        "tcgen05.alloc/dealloc nCols must be a power of 2 from 32 to 512; notes the per-SM column budget",
        "PTX ISA, tcgen05.alloc: nCols is a power of 2, at least 32, at most 512; each SM has 512 columns "
        "of Tensor Memory, so CTAs allocating more than 512 together wait for each other.",
    ),
    Rule(
        "outside-allocation",
        "a tcgen05 ld/st/cp/mma/shift touches lanes or columns past what its alloc allocated",
        "PTX 9.7.16.2: an access outside the allocation is undefined; with ptxas's TMEM access checks it "
        "traps and poisons the CUDA context.",
    ),
    Rule(
        "warp-lanes",
        "a tcgen05.ld/st touches lanes outside its warp's band (warp w of a warpgroup: lanes 32w..32w+31)",
        "PTX 9.7.16.8.1 (access restrictions): each warp of a warpgroup may access one quarter of Tensor "
        "Memory's lanes, warp w % 4 lanes 32(w % 4) to 32(w % 4)+31.",
    ),
    Rule(
        "never-freed",
        "a kernel allocates Tensor Memory and never frees it",
        "PTX ISA, tcgen05.alloc: Tensor Memory allocated by a CTA must be freed with tcgen05.dealloc before "
        "the kernel exits; otherwise later CTAs on the SM wait for columns that never come back.",
        level="warning",
    ),
    Rule(
        "dealloc-mismatch",
        "tcgen05.dealloc frees another number of columns than its alloc allocated",
        "PTX ISA, tcgen05.dealloc: it frees the allocation at taddr of nCols columns; freeing fewer leaks "
        "the rest, freeing more frees columns this CTA does not own.",
        level="warning",
    ),
    Rule(
        "use-after-dealloc",
        "a tcgen05 access follows the dealloc of its allocation on every path (error) or some path (warning)",
        "PTX ISA, tcgen05.dealloc: after it, the columns may belong to another CTA.",
    ),
    Rule(
        "dealloc-twice",
        "a tcgen05.dealloc frees an allocation a dealloc already freed",
        "PTX ISA, tcgen05.dealloc: after the first, the columns may belong to another CTA; freeing them "
        "again takes them from it.",
    ),
    Rule(
        "cta-group-mixed",
        "tcgen05 instructions of one kernel use both .cta_group::1 and .cta_group::2",
        "PTX 9.7.16.9.3: all tcgen05 instructions within a kernel must specify the same .cta_group "
        "(CUDA 13 enforces it).",
    ),
    Rule(
        "pair-sync",
        "a .cta_group::2 dealloc (warning) or alloc (note) some path reaches with no barrier.cluster wait",
        "PTX ISA, tcgen05.alloc: with .cta_group::2 the issuing warp must make sure the peer CTA is launched "
        "and takes part; a 2-CTA dealloc before the peer's alloc completed fails the launch "
        "(NVIDIA/cutlass#3435, triton PR #9498; cutlass PR #3316 for the alloc).",
        level="warning",
    ),
    Rule(
        "no-alloc",
        "a kernel accesses Tensor Memory but neither it nor a function it calls runs tcgen05.alloc",
        "PTX 9.7.16.2: Tensor Memory is used through an allocation; without one the kernel touches columns "
        "another CTA on the SM may hold (NVIDIA/cutlass#2230).",
    ),
    Rule(
        "capacity",
        "the allocations a kernel holds at once take more columns than its target's SM has",
        "PTX 9.7.16.2: an SM has 512 columns of Tensor Memory; an alloc past them waits forever for columns "
        "its own CTA holds (openxla/xla#40118, FlashAttention#1959).",
    ),
    Rule(
        "ld-registers",
        "a tcgen05.ld writes more registers than its warp's setmaxnreg leaves",
        "PTX ISA, setmaxnreg: it sets the warp's per-thread register count; a load writing more registers "
        "cannot be allocated (ptxas refuses or crashes: NVIDIA/cutlass#3420).",
    ),
    Rule(
        "arrive-count",
        "all 32 lanes of a warp arrive on an mbarrier initialised with count 1",
        "PTX ISA, mbarrier.init: the count is the arrivals that complete a phase; 32 of them over-advance "
        "it, and the pipeline hangs or races (triton PR #9498).",
        level="warning",
    ),
    Rule(
        "operand-range",
        "an operand value ptxas accepts but the hardware faults on: an idesc M/N outside the PTX table, "
        "an odd .16x32bx2 .unpack::16b split offset",
        "PTX 9.7.16.10.1: the legal N per M and kind (triton PR #8910: N > 256 is an illegal instruction); "
        "triton PR #10321: an odd second-half offset with .unpack::16b is a misaligned address.",
    ),
    Rule(
        "alloc-overlap",
        "the shared-memory word tcgen05.alloc writes its address to lies inside a TMA load's destination",
        "PTX ISA, tcgen05.alloc writes the address to [dst]; a TMA box of at least 16 bytes written over it "
        "destroys the address or the tile (TLX PR #1449: wrong MMA results).",
        level="warning",
    ),
    Rule(
        "relinquish",
        "a kernel allocates Tensor Memory and never runs tcgen05.relinquish_alloc_permit (a note)",
        "PTX ISA, tcgen05.relinquish_alloc_permit: the CTA gives up the right to allocate; without it other "
        "CTAs on the SM may wait (nvFuser PR #3795: CTAs serialised).",
        level="note",
    ),
    Rule(
        "target",
        "tcgen05 under a .target without Tensor Memory, ld.red outside its targets; notes where it runs",
        "PTX ISA target notes: tcgen05 needs sm_100a/sm_100f, sm_103a/sm_103f, sm_110a/sm_110f (sm_101a "
        "before PTX 9.0); consumer Blackwell (sm_120/121) and Hopper have none.",
    ),
    Rule(
        "wait-ld",
        "Tensor Memory written, freed or released to other threads while a tcgen05.ld may still be reading "
        "(or read back, or handed to another warp, while a tcgen05.st may still be writing)",
        "PTX 9.7.16.6, 9.7.16.8.5: a tcgen05.ld is complete only after tcgen05.wait::ld, a tcgen05.st only "
        "after tcgen05.wait::st; the explain scanner's rule.",
        level="warning",
    ),
    Rule(
        "unreadable",
        "a tcgen05 statement the PTX reader cannot read (so nothing about it is checked), or a brx.idx "
        "whose target list it cannot find (so nothing only that branch reaches is)",
        "PTX ISA 4 (Syntax): an instruction is an opcode and comma-separated operands ending in ';'. A "
        "tcgen05 statement read otherwise (a bracket never closed, an empty operand, the text ending "
        "inside it) is judged by no rule, so check says so rather than report the kernel clean. PTX ISA "
        "brx.idx: its list is a .branchtargets directive of the function; without it the branch's "
        "targets are unknown (a note).",
    ),
)
"""Every rule, in the order the documentation lists them."""

BY_ID = {rule.id: rule for rule in RULES}

assert all(rule.level in SEVERITIES for rule in RULES)
