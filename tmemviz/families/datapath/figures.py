"""Schematic figures of the data-path layouts, in the manner of PTX figures 205-218 (plain data).

One panel per CTA: its Tensor Memory as 128 lanes (down) by D's columns (across),
split into the four warp bands; each block of lanes is labelled with the rows m and
columns n of D it holds (blank where the layout leaves lanes free), and each warp's
note says the taddr it uses (the "addresses to use in tcgen05.ld / tcgen05.st"
figures). No matplotlib here; also the family's gallery entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from tmemviz.catalog import Catalog
from tmemviz.draw.palette import thread_color
from tmemviz.draw.spec import Box, FigureSpec, GalleryEntry, Note, Outline, Panel
from tmemviz.families.datapath.answers import Organization, Region, mma_text, organize, placement_text
from tmemviz.families.datapath.shapes import HALF_LANES, KIND, DataPath

LANE_H_IN = 0.022
"""Height of one TMEM lane: 128 lanes make a 2.8-inch panel."""
WIDTH = 8
"""D's columns are drawn 8 units wide, whatever N is (a schematic, not a grid)."""
UNIT_W_IN = 0.42
FREE_FILL = "#f4f4f4"
NOTES_IN = 2.4
"""Room right of a panel for each warp's taddr."""


def _fill(region: Region, path: DataPath) -> str:
    """A color per part of D: the warp's band on a full or half layout, the column part on a folded one."""
    if path.placement == "folded":
        return thread_color(4 * region.cta + region.lanes[0] // path.rows + 8)
    return thread_color(4 * region.cta + region.warp)


def _panel(org: Organization, cta: int, title: str) -> Panel:
    path = org.path
    boxes: list[Box] = []
    notes: list[Note] = []
    outlines: list[Outline] = []
    for region in (r for r in org.regions if r.cta == cta):
        lo, hi = region.lanes
        label = f"m {region.rows[0]}..{region.rows[1]}, n {region.ns[0]}..{region.ns[1]}"
        tip = (
            f"CTA {cta}, warp {region.warp}: lanes {lo}..{hi}, TMEM columns {region.columns[0]}.."
            f"{region.columns[1]} hold D rows {region.rows[0]}..{region.rows[1]}, "
            f"n {region.ns[0]}..{region.ns[1]}"
        )
        data = (
            ("cta", str(cta)),
            ("warp", str(region.warp)),
            ("lane", f"{lo}-{hi}"),
            ("m", f"{region.rows[0]}-{region.rows[1]}"),
            ("n", f"{region.ns[0]}-{region.ns[1]}"),
            ("group", "warp"),
        )
        boxes.append(Box(0, lo, WIDTH, hi - lo + 1, _fill(region, path), label, tip, data=data))
        band = 32 * region.warp
        if path.placement == "half":
            free = band + (HALF_LANES if org.offset == 0 else 0)
            boxes.append(
                Box(0, free, WIDTH, HALF_LANES, FREE_FILL, "not D", f"lanes {free}..{free + 15}: not this D")
            )
        offset = "taddr" if region.taddr_offset == 0 else f"taddr + 0x{region.taddr_offset:08x}"
        notes.append(Note(WIDTH + 0.25, band + 16, f"warp {region.warp}: {offset}", 7.0, "left"))
        outlines.append(Outline(0, band, WIDTH, 32, 1.6))
    ticks = ((0.0, str(0)), (float(WIDTH), str(org.columns)))
    return Panel(
        title=title,
        width=WIDTH,
        height=128,
        cell_w_in=UNIT_W_IN,
        boxes=tuple(boxes),
        x_ticks=ticks,
        y_ticks=tuple((float(32 * w), str(32 * w)) for w in range(5)),
        notes=tuple(notes),
        outlines=tuple(outlines),
        cell_h_in=LANE_H_IN,
        y_label="TMEM lane",
        margin_right_in=NOTES_IN,
    )


def organization_spec(org: Organization, *, title: str | None = None) -> FigureSpec:
    """One layout: a panel per CTA of the group (the two CTAs of a pair hold different rows)."""
    path = org.path
    panels = tuple(
        _panel(org, cta, f"CTA {cta}: TMEM columns 0..{org.columns - 1} of D" if path.cta_group == 2 else "")
        for cta in range(path.cta_group)
    )
    half = f", lane offset {org.offset}" if path.placement == "half" else ""
    caption = (
        f"Layout {path.name}: {mma_text(path)}, N={org.n}{half} ({path.organization}); "
        f"{placement_text(path)}. Each block: the rows m and columns n of D in those lanes; "
        f"beside each warp band the taddr its tcgen05.ld/st uses (D's taddr + lane << 16). "
        f"After PTX figures {' and '.join(map(str, path.figures))}."
    )
    return FigureSpec(
        title=title or f"tcgen05.mma data-path layout {path.name} ({mma_text(path)})",
        caption=caption,
        panels=panels,
    )


def table_spec(paths: Sequence[DataPath], *, title: str | None = None) -> FigureSpec:
    """All seven layouts, one panel each (CTA 0; a pair's CTA 1 holds the next M/2 rows the same way)."""
    panels = []
    for path in paths:
        org = organize(path)
        panels.append(_panel(org, 0, f"{path.name}: {mma_text(path)}, N={org.n} ({path.organization})"))
    return FigureSpec(
        title=title or "tcgen05.mma data-path layouts A-G (PTX ISA 9.7.16.10.5)",
        caption=(
            "Where each layout puts D in Tensor Memory (CTA 0 of a pair; CTA 1 holds rows M/2.. the same "
            "way). Grey 'not D' blocks: lanes the layout leaves free (half the data path, lane offset 0)."
        ),
        panels=tuple(panels),
    )


def gallery_entries(catalog: Catalog) -> list[GalleryEntry]:
    """One schematic per layout, after its PTX figures."""
    out: list[GalleryEntry] = []
    for path in catalog.shapes(KIND):
        org = organize(path)
        out.append(
            GalleryEntry(
                f"datapath.{path.name}",
                f"`tcgen05.mma` layout {path.name}",
                "after Figures " + ", ".join(map(str, path.figures)),
                f"{mma_text(path)}, N={org.n}: {placement_text(path)}",
                partial(organization_spec, org),
            )
        )
    return out
