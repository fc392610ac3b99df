"""Block-scaled MMA scale factors as a :class:`~tmemviz.draw.document.Document`."""

from __future__ import annotations

from tmemviz.draw.document import Document, Record
from tmemviz.families.scales import answers, layout
from tmemviz.families.scales.layout import Scales
from tmemviz.families.scales.spelling import N_NOTE, SF_ID_NOTE, rows_note

SMEM_NOTE = (
    "chunk order in shared memory follows NVIDIA CuTe DSL make_smem_layout_sfa/sfb (the K chunks of a "
    "128-row tile adjacent; Triton's tmem_copy documents the same (rep_m, rep_k, 32, 4, 4B) order); CUTLASS "
    "C++ deduce_smem_layoutSFA/SFB puts the row tiles adjacent instead, which differs only when there are "
    "several row tiles and several K chunks"
)
CTA2_NOTE = (
    "with .cta_group::2 tmemviz's cp mapping writes the same lanes and columns in both CTAs; that each CTA "
    "receives the chunk from its own shared memory at the same offset is CUTLASS's 2-CTA scale-factor path, "
    "which the PTX text does not spell out"
)


def notes(s: Scales) -> tuple[str, ...]:
    out = [n for n in (rows_note(s),) if n]
    if s.per_mma < 4:
        out.append(SF_ID_NOTE)
    if s.tiles > 1 and s.kchunks > 1:
        out.append(SMEM_NOTE)
    if s.cta_group == 2:
        out.append(CTA2_NOTE)
        if s.operand == "B":
            out.append(
                "B with .cta_group::2 is laid out as CUTLASS does for M = 256 (4x1 datapath); for "
                "M = 128 CUTLASS uses a 2x2 datapath for SFB (ScaleFactorDuplicated2by2), "
                "which tmemviz does not model"
            )
    if s.operand == "B":
        out.append(N_NOTE)
    return tuple(out)


def scales_document(
    s: Scales,
    *,
    row: int | None = None,
    kblock: int | None = None,
    cta: int = 0,
    title: str | None = None,
) -> Document:
    """Where every scale factor of ``s`` sits; ``row``/``kblock`` keep only those in the records;
    the TMEM table and figure show CTA ``cta``'s TMEM."""
    if cta not in s.owners:
        from tmemviz.errors import TmemvizError

        allowed = "0 or 1 with --cta-group 2" if s.cta_group == 2 else "0 with --cta-group 1 (one CTA)"
        raise TmemvizError(f"--cta must be {allowed}, got {cta}")
    if row is not None:
        layout.owner(s, row)
    if kblock is not None:
        layout.check_kblock(s, kblock)

    rows = [row] if row is not None else answers.all_rows(s)
    blocks = [kblock] if kblock is not None else range(s.kblocks)

    def cells() -> list[dict]:
        return [answers.cell_record(s, r, kb) for r in rows for kb in blocks]

    def figure(detail: str):
        from tmemviz.families.scales.figures import scales_spec

        return scales_spec(s, cta=cta, title=title, detail=detail)

    def summary(width: int):
        from tmemviz.families.scales import views

        return views.summary_view(s)

    def tmem(width: int):
        from tmemviz.families.scales import views

        return views.tmem_view(s, width, cta)

    def which(lane: int, col: int, byte: int = 0, cta: int = 0) -> Record:
        found = layout.source_of(s, lane, col, byte, cta)
        if found is None:
            return Record(lane=lane, col=col, byte=byte, cta=cta, row=None, kblock=None, padding=True)
        return Record(answers.cell_record(s, *found))

    def where(row: int, kblock: int) -> Record:
        return Record(answers.cell_record(s, row, kblock))

    return Document(
        kind="scales",
        title=f"SF{s.operand} .kind::{s.kind}.block_scale.scale_vec::{s.scale_vec} (block{s.sf_vec})",
        header=answers.header(s),
        lists=lambda: (
            ("cells", cells()),
            ("copies", [answers.copy_record(s, tr) for tr in layout.transfers(s)]),
            ("mma", [answers.mma_record(s, r) for r in layout.reads(s)]),
        ),
        csv=lambda: (answers.CSV_HEADER, answers.csv_rows(s, rows, blocks)),
        views={"summary": summary, "tmem": tmem},
        figure=figure,
        notes=notes(s),
        subject=s,
        which_of=which,
        where_of=where,
    )
