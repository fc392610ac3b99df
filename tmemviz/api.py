"""The Python API: one function per command, each returning a :class:`~tmemviz.draw.document.Document`.

Keyword names are the command-line options' (``--split-offset`` is ``split_offset``); values may be
given as the CLI spells them (``num="x4"``, ``taddr="32,8"``) or as Python values (``num=4``,
``taddr=(32, 8)``). Bad arguments raise :class:`~tmemviz.errors.TmemvizError` with the sentence the
CLI prints. The CLI's commands call these same functions::

    >>> import tmemviz
    >>> ld = tmemviz.layout("16x256b", num=4)
    >>> ld.which(lane=9, col=5)
    Record(lane=9, col=5, thread=6, reg=3, half=None)
    >>> ld.where(thread=6, reg=3)["cells"]
    [{'lane': 9, 'col': 5}]

Each module a function needs is imported when it is called, so ``import tmemviz`` stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional, Union

from tmemviz.arguments import checked
from tmemviz.arguments import cli_text as _text
from tmemviz.emitting import emit as emit  # the command `tmemviz ptx` (tmemviz.ptx is the PTX reader)
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.user_catalog import KINDS as KINDS  # the families a SHAPE may name
from tmemviz.user_catalog import PathLike
from tmemviz.user_catalog import catalog as catalog

if TYPE_CHECKING:
    from tmemviz.draw.document import Document

Taddr = Union[str, int, tuple[int, int], None]
Held = Any
"""What explain and check take: a path, PTX or SASS text, cubin bytes, an object with ``.asm``, or a list
of them (sorted by :mod:`tmemviz.sources`, which says what is wrong in one sentence)."""
Layouts = Optional[Sequence[PathLike]]


@checked
def layout(
    shape: str,
    num: Union[int, str, None] = None,
    pack: bool = False,
    split_offset: Optional[int] = None,
    taddr: Taddr = None,
    warp: Optional[int] = None,
    op: Optional[str] = None,
    red: Optional[str] = None,
    red_type: Optional[str] = None,
    red_abs: bool = False,
    red_nan: bool = False,
    highlight: Union[str, Sequence[int], None] = None,
    title: Optional[str] = None,
    layouts: Optional[Sequence[PathLike]] = None,
) -> Document:
    """One tcgen05.ld/st (or ld.red): every thread, register, lane and column (``tmemviz layout``).

    ``op`` is ``"ld"`` or ``"st"`` (default: ld, or what ``shape`` says when it is a PTX line).
    """
    from tmemviz.families.ldst.document import layout_document
    from tmemviz.families.ldst.spelling import parse_threads, resolve

    ins = resolve(
        catalog(layouts),
        shape,
        num=_text(num),
        pack=pack,
        op=_text(op),
        split_offset=_text(split_offset),
        taddr=_text(taddr),
        warp=_text(warp),
        red=red,
        red_type=red_type,
        red_abs=red_abs,
        red_nan=red_nan,
    )
    if highlight is not None and not isinstance(highlight, str):
        highlight = ",".join(str(t) for t in highlight)
    threads = parse_threads(highlight) if highlight else frozenset()
    return layout_document(ins, highlight=threads, title=title)


@checked
def pack(op: str = "ld") -> Document:
    """PTX Figure 193: how ``.pack::16b`` (op ``ld``) or ``.unpack::16b`` (``st``) pair 16-bit halves."""
    from tmemviz.families.ldst.document import pack_document

    return pack_document(op)


@checked
def cp(
    shape: str,
    multicast: Optional[str] = None,
    cta_group: Union[int, str, None] = None,
    decompress: Optional[str] = None,
    taddr: Taddr = None,
    row: Optional[int] = None,
    title: Optional[str] = None,
    layouts: Optional[Sequence[PathLike]] = None,
) -> Document:
    """One tcgen05.cp: where each source row and word lands (``tmemviz cp``); ``row`` is marked."""
    from tmemviz.families.cp.document import copy_document
    from tmemviz.families.cp.spelling import resolve_copy

    copy = resolve_copy(
        catalog(layouts),
        shape,
        multicast=multicast,
        cta_group=_text(cta_group),
        decompress=decompress,
        taddr=_text(taddr),
    )
    return copy_document(copy, row=row, title=title)


@checked
def decompress(
    fmt: str,
    type: Optional[str] = None,
    hex: Optional[str] = None,
    elements: Union[str, Sequence[int], None] = None,
    title: Optional[str] = None,
) -> Document:
    """How tcgen05.cp widens 16 packed 4/6-bit elements (``tmemviz decompress``), with values if given."""
    from tmemviz.errors import TmemvizError
    from tmemviz.families.cp import decompress as dec
    from tmemviz.families.cp.document import decompress_document

    form = dec.get_format(fmt)
    kind = dec.get_type(form, type)
    if hex is not None and elements is not None:
        raise TmemvizError("give either --hex (source bytes) or --elements (element codes), not both")
    chunk = None
    if hex is not None:
        chunk = dec.parse_hex(form, hex)
    elif elements is not None:
        codes = elements if isinstance(elements, str) else ",".join(str(e) for e in elements)
        chunk = dec.pack(form, dec.parse_codes(form, codes))
    return decompress_document(form, kind, chunk, title=title)


@checked
def smem(
    major: Optional[str] = None,
    swizzle: Optional[str] = None,
    dtype: Optional[str] = None,
    rows: Optional[int] = None,
    cols: Optional[int] = None,
    m: Optional[int] = None,
    k: Optional[int] = None,
    lbo: Union[int, str, None] = None,
    sbo: Union[int, str, None] = None,
    cells: str = "byte",
    title: Optional[str] = None,
    layouts: Optional[Sequence[PathLike]] = None,
) -> Document:
    """A canonical shared-memory layout of a tcgen05.mma operand (``tmemviz smem``)."""
    from tmemviz.errors import TmemvizError
    from tmemviz.families.smem.document import layout_document
    from tmemviz.families.smem.spelling import resolve_layout

    label = _text(cells) or "byte"
    if label not in ("byte", "chunk"):
        raise TmemvizError(f"--cells must be byte or chunk, got '{label}'")
    found, dense = resolve_layout(
        catalog(layouts),
        major=major,
        swizzle=swizzle,
        dtype=dtype,
        rows=rows,
        cols=cols,
        m=m,
        k=k,
        lbo=_text(lbo),
        sbo=_text(sbo),
    )
    return layout_document(found, dense=dense, cells=label, title=title)


@checked
def desc(
    value: Union[int, str, None] = None,
    start_address: Union[int, str, None] = None,
    lbo: Union[int, str, None] = None,
    sbo: Union[int, str, None] = None,
    swizzle: Optional[str] = None,
    base_offset: Optional[int] = None,
    lbo_mode: Union[int, str, None] = None,
) -> Document:
    """Decode a tcgen05 shared-memory descriptor, or encode one from its fields (``tmemviz desc``)."""
    from tmemviz.families.smem.document import descriptor_document
    from tmemviz.families.smem.spelling import resolve_descriptor

    if isinstance(value, int):
        value = hex(value)  # a Python int is the descriptor itself; its decimal text would be ambiguous
    found, notes = resolve_descriptor(
        _text(value),
        start_address=_text(start_address),
        lbo=_text(lbo),
        sbo=_text(sbo),
        swizzle=swizzle,
        base_offset=base_offset,
        lbo_mode=_text(lbo_mode),
    )
    return descriptor_document(found, notes)


@checked
def shift(
    instruction: str,
    taddr: Taddr = None,
    title: Optional[str] = None,
    layouts: Optional[Sequence[PathLike]] = None,
) -> Document:
    """One tcgen05.shift (``tmemviz shift``): which lane each 32-byte element of the warp's lanes moves to.

    ``instruction`` is a PTX line in either qualifier order (``tcgen05.shift.cta_group::1.down [taddr];``
    or ``tcgen05.shift.down.cta_group::1 [taddr];``); ``taddr`` is its register's LANE,COL.
    """
    from tmemviz.families.shift.document import shift_document
    from tmemviz.families.shift.spelling import resolve_shift

    return shift_document(resolve_shift(catalog(layouts), instruction, taddr=_text(taddr)), title=title)


@checked
def tile(
    m: int = 128,
    n: Optional[int] = None,
    shape: Optional[str] = None,
    num: Union[int, str, None] = None,
    warps: int = 4,
    dtype: str = "f32",
    storage: Optional[str] = None,
    taddr: Taddr = None,
    m_row: Optional[int] = None,
    n_col: Optional[int] = None,
    thread: Optional[int] = None,
    warp: Optional[int] = None,
    title: Optional[str] = None,
    layouts: Optional[Sequence[PathLike]] = None,
    cta_group: int = 1,
    ws: bool = False,
    sparse: bool = False,
    lane_offset: Optional[int] = None,
) -> Document:
    """A whole M x N accumulator read by tcgen05.ld (``tmemviz tile``): who holds each D[m][n]."""
    from tmemviz.errors import TmemvizError
    from tmemviz.families.tile.document import tile_document
    from tmemviz.families.tile.spelling import resolve_tile

    if shape is None or n is None:
        raise TmemvizError(
            "a tile needs --n and --shape, e.g. 'tmemviz tile --m 128 --n 256 --shape 16x256b'"
        )
    found = catalog(layouts)
    tiled = resolve_tile(
        found,
        shape=shape,
        n=n,
        m=m,
        num=_text(num),
        warps=warps,
        dtype=dtype,
        storage=storage,
        taddr=_text(taddr),
        cta_group=cta_group,
        sparse=sparse,
        ws=ws,
        lane_offset=lane_offset,
    )
    return tile_document(
        tiled, found.shapes(LDST), m_row=m_row, n_col=n_col, thread=thread, warp=warp, title=title
    )


@checked
def idesc(
    value: Union[int, str, None] = None,
    kind: Optional[str] = None,
    d_type: Optional[str] = None,
    a_type: Optional[str] = None,
    b_type: Optional[str] = None,
    a_major: Optional[str] = None,
    b_major: Optional[str] = None,
    negate_a: Union[bool, str, None] = None,
    negate_b: Union[bool, str, None] = None,
    m: Union[int, str, None] = None,
    n: Union[int, str, None] = None,
    sparse: Union[bool, str, None] = None,
    sparse_id: Union[int, str, None] = None,
    saturate: Union[bool, str, None] = None,
    max_shift: Union[int, str, None] = None,
    sfa_id: Union[int, str, None] = None,
    sfb_id: Union[int, str, None] = None,
    scale_type: Optional[str] = None,
    k: Union[int, str, None] = None,
) -> Document:
    """Decode a tcgen05.mma instruction descriptor of ``kind``, or encode one from its fields
    (``tmemviz idesc``; ``None`` leaves a field at its default)."""
    from tmemviz.families.mma.document import idesc_document
    from tmemviz.families.mma.spelling import resolve_idesc

    fields = dict(locals())
    for name in ("value", "kind", "idesc_document", "resolve_idesc"):
        fields.pop(name)
    return idesc_document(resolve_idesc(value, kind, fields))


@checked
def explain(files: Held = (), text: Optional[str] = None, layouts: Layouts = None) -> Document:
    """Every tcgen05 instruction of PTX modules, SASS listings or cubins (``tmemviz explain``). ``files``:
    a path (``-`` is stdin), PTX or SASS text, cubin bytes, an object whose ``.asm`` holds ``"ptx"`` or
    ``"cubin"`` (Triton's ``CompiledKernel``), or a list of them; ``text`` is PTX given as a string."""
    from tmemviz.sources import explain_held

    return explain_held(files, text, catalog(layouts))


@checked
def check(
    files: Held = (), text: Optional[str] = None, layouts: Layouts = None, sass: Optional[PathLike] = None
) -> Document:
    """TMEM findings of PTX modules (``tmemviz check``): ``.cells`` are the files, each with its ``findings``;
    ``save("map.png")`` draws the TMEM map. ``files`` as explain takes them, and directories (PTX only);
    ``sass``: the cubin or listing ptxas made of the one PTX file given (``--sass``)."""
    from tmemviz.sources import check_held

    return check_held(files, text, catalog(layouts), os.fspath(sass) if sass is not None else None)


@checked
def datapath(
    letter: Optional[str] = None,
    n: Optional[int] = None,
    lane_offset: Optional[int] = None,
    title: Optional[str] = None,
    layouts: Optional[Sequence[PathLike]] = None,
) -> Document:
    """The tcgen05.mma data-path layouts (``tmemviz datapath``): the table of A-G, or for one ``letter``
    where D[m][n] lives and the taddr each warp uses (``where(m=..., n=...)``)."""
    from tmemviz.errors import TmemvizError
    from tmemviz.families.datapath.answers import organize
    from tmemviz.families.datapath.document import organization_document, table_document
    from tmemviz.families.datapath.shapes import KIND as DATAPATH

    found = catalog(layouts)
    if letter is None:
        if n is not None or lane_offset is not None:
            raise TmemvizError(
                "--n and --lane-offset apply to one layout: give its letter, e.g. 'tmemviz datapath F'"
            )
        return table_document(found.shapes(DATAPATH), title=title)
    path = found.get(DATAPATH, letter.strip().upper())
    return organization_document(organize(path, n, lane_offset), title=title)


@checked
def scales(
    operand: str = "A",
    sf_vec: Union[int, str] = 32,
    m: Optional[int] = None,
    n: Optional[int] = None,
    k: Optional[int] = None,
    cta_group: Union[int, str] = 1,
    kind: Optional[str] = None,
    row: Optional[int] = None,
    kblock: Optional[int] = None,
    cta: int = 0,
    title: Optional[str] = None,
    layouts: Optional[Sequence[PathLike]] = None,
) -> Document:
    """Block-scaled MMA scale factors (``tmemviz scales``): each SF's shared-memory byte, its TMEM bytes,
    the tcgen05.cp copies that move it, and the SF ID each MMA along K reads."""
    from tmemviz.errors import TmemvizError
    from tmemviz.families.scales.document import scales_document
    from tmemviz.families.scales.spelling import resolve_scales

    if k is None:
        raise TmemvizError("scale factors need --k (the K extent of the tile loaded together), e.g. --k 128")
    found = resolve_scales(
        catalog(layouts), operand=operand, sf_vec=sf_vec, k=k, m=m, n=n, cta_group=cta_group, kind=kind
    )
    return scales_document(found, row=row, kblock=kblock, cta=cta, title=title)
