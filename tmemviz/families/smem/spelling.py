"""Shared-memory names in: majors, swizzle modes, element types and descriptors as users write them.

A swizzle may be written as its file name (``128B``, any case), a CUTLASS name (``SWIZZLE_128B``,
``Layout_K_SW128_Atom``), a CuTe DSL atom kind (``K_SW128``, ``MN_INTER``), or CuTe's notation
(``Swizzle<3,4,3>``). A spelling that names a major (``K_SW128``) must agree with ``--major``. Bare
numbers (``128``) are refused: bytes, swizzle bits or a descriptor code would all be plausible.
"""

from __future__ import annotations

import re

from tmemviz.catalog import Catalog, load_catalog
from tmemviz.errors import TmemvizError
from tmemviz.families.smem.descriptor import BASE32B, Descriptor, decode, encode
from tmemviz.families.smem.layout import DTYPE_BITS, SmemLayout, canonical, dense_tile
from tmemviz.families.smem.shapes import KIND, MAJORS, Swizzle
from tmemviz.values import MAX_DIGITS, clip, parse_int, too_long

_MAJOR = {"k": "K", "mn": "MN", "m": "MN", "n": "MN"}
_NOTATION = re.compile(r"^swizzle\s*<\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*>$", re.IGNORECASE)
_BASE32B = re.compile(r"128b?_?base_?32b?|sw128_32b?", re.IGNORECASE)
_DTYPE_ALIASES = {
    "fp16": "f16",
    "half": "f16",
    "float16": "f16",
    "bfloat16": "bf16",
    "fp32": "f32",
    "float32": "f32",
    "int8": "s8",
    "uint8": "u8",
    "int32": "s32",
    "float8_e4m3fn": "e4m3",
    "e4m3fn": "e4m3",
    "float8_e5m2": "e5m2",
}


def parse_major(text: str) -> str:
    """``K`` or ``MN`` from ``k``, ``K-major``, ``mn``, ``M``, ``N-major`` ...

    >>> parse_major("n-major"), parse_major("K")
    ('MN', 'K')
    """
    key = text.strip().lower().replace("-", "_").removesuffix("_major").removesuffix("major").strip("_")
    if key in ("row", "col", "column"):
        raise TmemvizError(
            f"major '{text}' is ambiguous (row-/column-major depends on the operand); use K or MN"
        )
    if key not in _MAJOR:
        raise TmemvizError(f"unknown major '{text}'; use K (K contiguous) or MN (M or N contiguous)")
    return _MAJOR[key]


def _split(text: str) -> tuple[str | None, str]:
    """(major named by a CuTe atom spelling or None, the rest): ``Layout_K_SW128_Atom`` -> (K, SW128)."""
    key = text.strip().replace("-", "_")
    low = key.lower()
    if low.startswith("umma::layouttype::"):
        key, low = key[18:], low[18:]
    if low.startswith("layout_") and low.endswith("_atom"):
        key, low = key[7:-5], low[7:-5]
    for prefix in ("mn_", "k_"):
        if low.startswith(prefix):
            return _MAJOR[prefix[:-1]], key[len(prefix) :]
    return None, key


def swizzle_name(found: Catalog, text: str) -> tuple[str | None, str]:
    """(major the spelling names or None, swizzle name), ``128B_base32B`` included (the descriptor
    knows it; the layouts do not).

    >>> from tmemviz.catalog import load_catalog
    >>> swizzle_name(load_catalog(), "Layout_K_SW128_Atom"), swizzle_name(load_catalog(), "swizzle<1,4,3>")
    (('K', '128B'), (None, '32B'))
    """
    if not text.strip():
        raise TmemvizError("the swizzle is empty; use none, 32B, 64B or 128B")
    known = found.shapes(KIND)
    m = _NOTATION.match(text.strip())
    if m:
        bits, base, shift = (int(g) for g in m.groups())
        for sw in known:
            if (sw.bits, sw.base, sw.shift) == (bits, base, shift):
                return None, sw.name
        if (bits, base, shift) == (2, 5, 2):
            return None, BASE32B[0]
        raise TmemvizError(f"{text.strip()} is not a tcgen05 swizzle; they are {_listing(known)}")
    major, rest = _split(text)
    if _BASE32B.fullmatch(rest.removeprefix("SWIZZLE_").removeprefix("swizzle_")):
        return major, BASE32B[0]
    shape = found.find(KIND, rest)
    if shape is not None:
        return major, shape.name
    if rest.strip().isdigit():
        raise TmemvizError(
            f"swizzle '{text}' is a bare number; write it with its unit, e.g. {rest.strip()}B "
            f"(known swizzles: {_listing(known)})"
        )
    raise TmemvizError(f"unknown swizzle '{text}'; known swizzles: {_listing(known)}")


def _listing(known: tuple[Swizzle, ...]) -> str:
    return ", ".join(f"{s.name} ({s.notation()})" for s in known)


def resolve_swizzle(found: Catalog, text: str, major: str | None) -> tuple[str, Swizzle]:
    """The major and swizzle mode of ``--major`` and ``--swizzle`` together.

    >>> from tmemviz.catalog import load_catalog
    >>> major, sw = resolve_swizzle(load_catalog(), "MN_SW64", None)
    >>> major, sw.name
    ('MN', '64B')
    """
    spelled, name = swizzle_name(found, text)
    given = parse_major(major) if major is not None else None
    if spelled is None and given is None:
        raise TmemvizError(f"--major is required: {' or '.join(MAJORS)}")
    if spelled is not None and given is not None and spelled != given:
        raise TmemvizError(f"--swizzle {text} names {spelled}-major, but --major says {given}")
    which = spelled or given or "K"
    if name == BASE32B[0]:
        raise TmemvizError(
            "128B_base32B (Swizzle<2,5,2>, descriptor code 1) is not drawn: the sources do not state its "
            "canonical layout exactly; 'tmemviz desc' encodes and decodes it"
        )
    return which, found.get(KIND, name)


def parse_dtype(text: str) -> str:
    """An element type of the issue's list (case-insensitive), or a common alias of one.

    >>> parse_dtype("BF16"), parse_dtype("float8_e4m3fn")
    ('bf16', 'e4m3')
    """
    key = text.strip().lower().lstrip(".")
    key = _DTYPE_ALIASES.get(key, key)
    if key not in DTYPE_BITS:
        raise TmemvizError(f"unknown dtype '{text}'; known dtypes: {', '.join(DTYPE_BITS)}")
    return key


def parse_descriptor(text: str) -> int:
    """A 64-bit descriptor in hex: ``0x4000404000010000``; ``_``, ``'`` and spaces are ignored.

    Without ``0x`` a string of decimal digits could be either base, so it is refused with both readings.

    >>> hex(parse_descriptor("0x4000_4040_0001_0000")), parse_descriptor("ff")
    ('0x4000404000010000', 255)
    """
    key = re.sub(r"[\s_']", "", text).lower()
    digits = key[2:] if key.startswith("0x") else key
    if not digits or not re.fullmatch(r"[0-9a-f]+", digits):
        raise TmemvizError(
            f"descriptor '{clip(text)}' is not a hexadecimal number such as 0x4000404000010000"
        )
    if len(digits) > MAX_DIGITS:
        raise TmemvizError(too_long("the descriptor", digits))
    if not key.startswith("0x") and digits.isdigit():
        raise TmemvizError(
            f"descriptor '{text}' has no 0x and no hex letters, so it could be hex or decimal; "
            f"write 0x{digits} if it is hex, or 0x{int(digits):x} if it is decimal"
        )
    value = int(digits, 16)
    if value >= 1 << 64:
        raise TmemvizError(f"descriptor '{text}' has more than 64 bits")
    return value


def resolve_layout(
    found: Catalog,
    *,
    major: str | None,
    swizzle: str | None,
    dtype: str | None,
    rows: int | None = None,
    cols: int | None = None,
    m: int | None = None,
    k: int | None = None,
    lbo: str | None = None,
    sbo: str | None = None,
) -> tuple[SmemLayout, bool]:
    """The layout the command-line options describe, and whether it is a dense tile.

    Either ``rows``/``cols`` (a dense CUTLASS-order tile) or ``m``/``k``/``lbo``/``sbo`` (the PTX
    formula with explicit offsets); mixing them, or leaving one of a pair out, is an error.

    >>> from tmemviz.catalog import load_catalog
    >>> layout, dense = resolve_layout(load_catalog(), major="MN", swizzle="32B", dtype="bf16",
    ...                                m=2, k=2, lbo="256", sbo="0x200")
    >>> layout.notation(), dense
    ('Swizzle<1,4,3> o ((8,2,2),(8,2)):((1,8,128),(16,256))', False)
    """
    tile = {"--rows": rows, "--cols": cols}
    formula = {"--m": m, "--k": k, "--lbo": lbo, "--sbo": sbo}
    given_tile = [name for name, value in tile.items() if value is not None]
    given_formula = [name for name, value in formula.items() if value is not None]
    if given_tile and given_formula:
        raise TmemvizError(
            f"{given_tile[0]} and {given_formula[0]} do not go together: give --rows and --cols (a dense "
            "tile) or --m, --k, --lbo and --sbo (the PTX formula)"
        )
    if not given_tile and not given_formula:
        raise TmemvizError(
            "give --rows and --cols (a dense tile) or --m, --k, --lbo and --sbo (the PTX formula)"
        )
    if swizzle is None:
        raise TmemvizError("--swizzle is required: none, 32B, 64B or 128B")
    if dtype is None:
        raise TmemvizError(f"--dtype is required: {', '.join(DTYPE_BITS)}")
    which, sw = resolve_swizzle(found, swizzle, major)
    kind = parse_dtype(dtype)
    if given_tile:
        missing = [name for name, value in tile.items() if value is None]
        if missing:
            raise TmemvizError(
                f"{given_tile[0]} needs {missing[0]}: a dense tile has both a size in M/N and in K"
            )
        assert rows is not None and cols is not None
        return dense_tile(which, sw, kind, rows, cols), True
    missing = [name for name in ("--m", "--k", "--sbo") if formula[name] is None]
    if missing:
        raise TmemvizError(
            f"the PTX formula needs {' and '.join(missing)} too (--m, --k: repeat counts; --sbo in bytes)"
        )
    assert m is not None and k is not None and sbo is not None
    lbo_bytes = parse_int(lbo, "--lbo") if lbo is not None else None
    return canonical(which, sw, kind, m, k, lbo_bytes, parse_int(sbo, "--sbo")), False


def parse_lbo_mode(text: str) -> int:
    """Descriptor bit 52: ``relative``/``0`` (a byte offset) or ``absolute``/``1`` (an address).

    >>> parse_lbo_mode("absolute"), parse_lbo_mode("0")
    (1, 0)
    """
    key = text.strip().lower()
    modes = {"0": 0, "relative": 0, "1": 1, "absolute": 1}
    if key not in modes:
        raise TmemvizError(f"--lbo-mode must be relative (0) or absolute (1), got '{text}'")
    return modes[key]


def resolve_descriptor(
    value: str | None,
    *,
    start_address: str | None = None,
    lbo: str | None = None,
    sbo: str | None = None,
    swizzle: str | None = None,
    base_offset: int | None = None,
    lbo_mode: str | None = None,
) -> tuple[Descriptor, tuple[str, ...]]:
    """The descriptor ``value`` decodes to, or the one the fields encode, with its notes.

    >>> resolve_descriptor(None, sbo="1024", swizzle="128B")[0].to_record()["hex"]
    '0x4000404000010000'
    """
    fields = {
        "--start-address": start_address,
        "--lbo": lbo,
        "--sbo": sbo,
        "--swizzle": swizzle,
        "--base-offset": base_offset,
        "--lbo-mode": lbo_mode,
    }
    given = [name for name, v in fields.items() if v is not None]
    if value is not None and given:
        raise TmemvizError(f"give either a descriptor to decode or fields to encode, not both ({given[0]})")
    if value is not None:
        return decode(parse_descriptor(value)), ()
    if sbo is None or swizzle is None:
        raise TmemvizError(
            "give a descriptor to decode (tmemviz desc 0x...) or, to encode one, --sbo and --swizzle"
        )
    _, name = swizzle_name(load_catalog(), swizzle)
    notes: tuple[str, ...] = ()
    if lbo is None:
        notes = ("LBO not given: encoded 1 (16 bytes), what CUTLASS puts in a field the layout does not use",)
    encoded = encode(
        parse_int(start_address, "--start-address") if start_address is not None else 0,
        parse_int(lbo, "--lbo") if lbo is not None else None,
        parse_int(sbo, "--sbo"),
        name,
        base_offset if base_offset is not None else 0,
        parse_lbo_mode(lbo_mode) if lbo_mode is not None else 0,
    )
    return decode(encoded), notes
