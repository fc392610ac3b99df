"""The 32-bit tcgen05.mma instruction descriptor (PTX ISA 9.7.16.4.2 "Instruction descriptor").

Its layout depends on ``.kind``. Dense kinds (PTX Table "Instruction descriptor format for .kind::tf32,
.kind::f16, .kind::f8f6f4 and .kind::i8"):

| bits  | field                                   | bits  | field                              |
|-------|-----------------------------------------|-------|------------------------------------|
| 0-1   | sparsity selector                       | 13/14 | negate A / negate B                |
| 2     | sparsity (dense 0, sparse 1)            | 15/16 | transpose A / B (0 = K-major)      |
| 3     | saturate (kind::i8 only)                | 17-22 | N >> 3                             |
| 4-5   | D type (F16 0, F32 1, S32 2)            | 23    | reserved                           |
| 6     | reserved                                | 24-28 | M >> 4                             |
| 7-9   | A type                                  | 29    | reserved                           |
| 10-12 | B type                                  | 30-31 | max shift of .ws (0, 8, 16, 32)    |

Block-scaled kinds (PTX Tables for .kind::mxf8f6f4 and .kind::mxf4/.kind::mxf4nvf4): bits 0-1, 3 and
6 reserved, 4-5 scale-factor ID of B, 23 scale type (UE4M3 0, UE8M0 1), 24-26 reserved, 27-28 M >> 7,
29-30 scale-factor ID of A, 31 reserved (mxf8f6f4) or K (0: dense K=64 / sparse K=128, 1: dense K=96);
for mxf4/mxf4nvf4 the B type is bits 10-11 and bit 12 is reserved. CUTLASS's ``InstrDescriptorBlockScaled``
writes M as bits 24-28 = M >> 4 instead; for the legal M (128, 256) the two give the same bits.

>>> hex(encode("f16", d_type="F32", a_type="F16", b_type="F16", m=128, n=128))  # Triton 3.9's 136314896
'0x8200010'
>>> d = decode(0x08200010, "f16"); (d.m, d.n, d.fields["d_type"], d.problems)
(128, 128, 'F32', ())
"""

from __future__ import annotations

from dataclasses import dataclass

from tmemviz.errors import TmemvizError

DENSE_KINDS = ("f16", "tf32", "f8f6f4", "i8")
SCALED_KINDS = ("mxf8f6f4", "mxf4", "mxf4nvf4")
KINDS = DENSE_KINDS + SCALED_KINDS

_F8F6F4 = {0: "E4M3", 1: "E5M2", 3: "E2M3", 4: "E3M2", 5: "E2M1"}
_AB_TYPES: dict[str, dict[int, str]] = {
    "f16": {0: "F16", 1: "BF16"},
    "tf32": {2: "TF32"},
    "f8f6f4": _F8F6F4,
    "i8": {0: "U8", 1: "S8"},
    "mxf8f6f4": _F8F6F4,
    "mxf4": {1: "E2M1"},
    "mxf4nvf4": {1: "E2M1"},
}
_D_TYPES: dict[str, dict[int, str]] = {
    "f16": {0: "F16", 1: "F32"},
    "tf32": {1: "F32"},
    "f8f6f4": {0: "F16", 1: "F32"},
    "i8": {2: "S32"},
}
"""D types per kind. For kind::f8f6f4 the PTX ISA's tables differ by version: the 9.7.16.4.2 table lists
F32 only, the later 9.7.17.4.2 one F16 = 0 and F32 = 1 (its Table 39 row lists .f16 and .f32 D too);
tmemviz follows the later table."""
_SCALE_TYPES = {"mxf8f6f4": {1: "UE8M0"}, "mxf4": {1: "UE8M0"}, "mxf4nvf4": {0: "UE4M3", 1: "UE8M0"}}
MAJORS = {0: "K", 1: "MN"}
MAX_SHIFTS = {0: 0, 1: 8, 2: 16, 3: 32}
M_VALUES = (32, 64, 128, 256)
"""M the tables of PTX 9.7.16.2.1 list (32 only with .ws; 256 only with .cta_group::2)."""


@dataclass(frozen=True)
class Field:
    """One field of the descriptor: its bits and how its code reads."""

    name: str
    first: int
    width: int
    label: str

    def get(self, value: int) -> int:
        return (value >> self.first) & ((1 << self.width) - 1)

    @property
    def bits(self) -> str:
        last = self.first + self.width - 1
        return str(self.first) if last == self.first else f"{self.first}-{last}"


def layout(kind: str) -> tuple[tuple[Field, ...], tuple[Field, ...]]:
    """The named fields and the reserved (must be 0) fields of ``kind``'s descriptor, in bit order."""
    kind = check_kind(kind)
    if kind in DENSE_KINDS:
        named = (
            Field("sparse_id", 0, 2, "sparsity selector"),
            Field("sparse", 2, 1, "sparsity"),
            Field("saturate", 3, 1, "saturate"),
            Field("d_type", 4, 2, "D type"),
            Field("a_type", 7, 3, "A type"),
            Field("b_type", 10, 3, "B type"),
            Field("negate_a", 13, 1, "negate A"),
            Field("negate_b", 14, 1, "negate B"),
            Field("a_major", 15, 1, "A major (transpose A)"),
            Field("b_major", 16, 1, "B major (transpose B)"),
            Field("n", 17, 6, "N >> 3"),
            Field("m", 24, 5, "M >> 4"),
            Field("max_shift", 30, 2, "max shift (.ws)"),
        )
        reserved = (Field("reserved", 6, 1, ""), Field("reserved", 23, 1, ""), Field("reserved", 29, 1, ""))
        return named, reserved
    fp4 = kind != "mxf8f6f4"
    named = (
        Field("sparse", 2, 1, "sparsity"),
        Field("sfb_id", 4, 2, "B scale-factor ID"),
        Field("a_type", 7, 3, "A type"),
        Field("b_type", 10, 2 if fp4 else 3, "B type"),
        Field("negate_a", 13, 1, "negate A"),
        Field("negate_b", 14, 1, "negate B"),
        Field("a_major", 15, 1, "A major (transpose A)"),
        Field("b_major", 16, 1, "B major (transpose B)"),
        Field("n", 17, 6, "N >> 3"),
        Field("scale_type", 23, 1, "scale type"),
        Field("m", 27, 2, "M >> 7"),
        Field("sfa_id", 29, 2, "A scale-factor ID"),
        *((Field("k", 31, 1, "K dimension"),) if fp4 else ()),
    )
    reserved = (
        Field("reserved", 0, 2, ""),
        Field("reserved", 3, 1, ""),
        Field("reserved", 6, 1, ""),
        *((Field("reserved", 12, 1, ""),) if fp4 else ()),
        Field("reserved", 24, 3, ""),
        *(() if fp4 else (Field("reserved", 31, 1, ""),)),
    )
    return named, reserved


@dataclass(frozen=True)
class Idesc:
    """A decoded instruction descriptor: every named field's code and meaning, and what is wrong."""

    value: int
    kind: str
    codes: dict[str, int]
    fields: dict[str, object]
    """Field name -> meaning: type names, 'K'/'MN', booleans, M, N, max shift, K, scale IDs."""
    problems: tuple[str, ...]

    @property
    def m(self) -> int:
        return int(self.fields["m"])  # type: ignore[call-overload]

    @property
    def n(self) -> int:
        return int(self.fields["n"])  # type: ignore[call-overload]

    @property
    def sparse(self) -> bool:
        return bool(self.fields["sparse"])

    @property
    def d_type(self) -> str:
        """D's element type; block-scaled kinds have no D field: D is F32 (PTX 9.7.16.10.7)."""
        return str(self.fields.get("d_type", "F32"))


def check_kind(kind: str) -> str:
    """``f16``, ``kind::f16`` or ``.kind::f16`` -> ``f16``."""
    key = kind.strip().lower().lstrip(".").removeprefix("kind::")
    if key not in KINDS:
        raise TmemvizError(f"unknown .kind '{kind}'; tcgen05.mma has {', '.join(KINDS)} (PTX 9.7.16.10.1)")
    return key


def decode(value: int, kind: str) -> Idesc:
    """Split ``value`` by ``kind``'s table; codes the table does not define are named and listed as problems.

    >>> decode(0x08200010, "tf32").problems[0]
    'A type code 0 is not defined for .kind::tf32 (defined: 2 = TF32)'
    """
    kind = check_kind(kind)
    if not 0 <= value < 1 << 32:
        raise TmemvizError(f"an instruction descriptor is 32 bits, got {value:#x}")
    named, reserved = layout(kind)
    codes = {f.name: f.get(value) for f in named}
    fields: dict[str, object] = {}
    problems: list[str] = []
    for f in named:
        code = codes[f.name]
        fields[f.name] = _meaning(kind, f, code, problems)
    if kind == "f16" and fields.get("d_type") == "F16" and "BF16" in (fields["a_type"], fields["b_type"]):
        problems.append("D F16 takes A and B F16 only; BF16 needs D F32 (PTX 9.7.16.2.1, kind::f16 shapes)")
    for f in reserved:
        if f.get(value):
            problems.append(f"bits {f.bits} are reserved and must be 0 for .kind::{kind}, got {f.get(value)}")
    return Idesc(value, kind, codes, fields, tuple(problems))


def _meaning(kind: str, f: Field, code: int, problems: list[str]) -> object:
    """What one field's code means; adds a sentence to ``problems`` where the table does not allow it."""
    table = {
        "a_type": _AB_TYPES[kind],
        "b_type": _AB_TYPES[kind],
        "d_type": _D_TYPES.get(kind, {}),
        "scale_type": _SCALE_TYPES.get(kind, {}),
        "a_major": MAJORS,
        "b_major": MAJORS,
    }.get(f.name)
    if table is not None:
        if code in table:
            if f.name.endswith("major") and code and kind in ("mxf4", "mxf4nvf4"):
                problems.append(f"{f.label}: .kind::{kind} allows only 0 (K-major)")
            return table[code]
        defined = ", ".join(f"{c} = {n}" for c, n in table.items())
        problems.append(f"{f.label} code {code} is not defined for .kind::{kind} (defined: {defined})")
        return f"undefined ({code})"
    if f.name == "n":
        if code == 0 or code > 32:
            problems.append(f"N = {code << 3}; tcgen05.mma's N is 8..256 (PTX 9.7.16.2.1)")
        return code << 3
    if f.name == "m":
        m = code << (7 if kind in SCALED_KINDS else 4)
        allowed = (128, 256) if kind in SCALED_KINDS else M_VALUES
        if m not in allowed:
            problems.append(
                f"M = {m} is not a tcgen05.mma M for .kind::{kind} ({', '.join(map(str, allowed))})"
            )
        return m
    if f.name == "max_shift":
        return MAX_SHIFTS[code]
    if f.name in ("sfa_id", "sfb_id"):
        if kind in ("mxf4", "mxf4nvf4") and code not in (0, 2):
            problems.append(f"{f.label} must be 0 or 2 for .kind::{kind}, got {code}")
        return code
    if f.name == "k":
        return 96 if code else 64
    if f.name == "saturate" and code and kind != "i8":
        problems.append(f"saturate applies to .kind::i8 only, not .kind::{kind}")
    if f.name.startswith("negate") and code and kind == "i8":
        problems.append(f"{f.label} must be 0 for .kind::i8")
    if f.name == "sparse_id":
        return code
    return bool(code)


def encode(kind: str, **given: object) -> int:
    """The descriptor with ``given`` fields (names as :func:`layout`, meanings as :func:`decode` gives).

    Types and majors are names (``F16``, ``K``); ``m``/``n`` the sizes; ``max_shift`` 0/8/16/32;
    ``k`` 64/96; flags booleans. Fields not given are 0, except D (F32; S32 for kind::i8) and M (128).

    >>> hex(encode("mxf4nvf4", a_type="E2M1", b_type="E2M1", scale_type="UE4M3", m=128, n=256))
    '0x8400480'
    """
    kind = check_kind(kind)
    named, _ = layout(kind)
    by_name = {f.name: f for f in named}
    if "d_type" in by_name and "d_type" not in given:
        given = {**given, "d_type": "S32" if kind == "i8" else "F32"}
    given = {"m": 128, **given}
    value = 0
    for name, meaning in given.items():
        if meaning is None:
            continue
        if name not in by_name:
            raise TmemvizError(f"the .kind::{kind} descriptor has no field '{name}'")
        f = by_name[name]
        code = _code(kind, f, meaning)
        if not 0 <= code < 1 << f.width:
            raise TmemvizError(f"{f.label} {meaning} does not fit bits {f.bits}")
        value |= code << f.first
    found = decode(value, kind)
    if found.problems:
        raise TmemvizError(found.problems[0])
    return value


def _code(kind: str, f: Field, meaning: object) -> int:
    """A field's code from its meaning (the inverse of :func:`_meaning`)."""
    table = {
        "a_type": _AB_TYPES[kind],
        "b_type": _AB_TYPES[kind],
        "d_type": _D_TYPES.get(kind, {}),
        "scale_type": _SCALE_TYPES.get(kind, {}),
        "a_major": MAJORS,
        "b_major": MAJORS,
    }.get(f.name)
    if table is not None:
        names = {n.lower(): c for c, n in table.items()}
        key = str(meaning).strip().upper().lstrip(".")
        if key.lower() not in names:
            raise TmemvizError(
                f"{f.label} must be {' or '.join(table.values())} for .kind::{kind}, got '{meaning}'"
            )
        return names[key.lower()]
    number = int(meaning)  # type: ignore[call-overload]
    if f.name == "n":
        if number % 8 or not 8 <= number <= 256:
            raise TmemvizError(f"N must be a multiple of 8 in 8..256, got {number}")
        return number >> 3
    if f.name == "m":
        shift = 7 if kind in SCALED_KINDS else 4
        allowed = (128, 256) if kind in SCALED_KINDS else M_VALUES
        if number not in allowed:
            raise TmemvizError(f"M must be {', '.join(map(str, allowed))} for .kind::{kind}, got {number}")
        return number >> shift
    if f.name == "max_shift":
        codes = {v: c for c, v in MAX_SHIFTS.items()}
        if number not in codes:
            raise TmemvizError(f"the .ws max shift must be 0, 8, 16 or 32, got {number}")
        return codes[number]
    if f.name == "k":
        if number not in (64, 96):
            raise TmemvizError(f"K must be 64 or 96 (bit 31) for .kind::{kind}, got {number}")
        return int(number == 96)
    return number
