"""tcgen05.mma names in: a whole PTX line (PTX 9.7.16.10.9), descriptor values and field options.

Syntax, by form (operands in braces are optional)::

    tcgen05.mma{.sp}.cta_group.kind{.ashift}{.collector_usage}
        [d], a, b, {[sp-meta],} idesc, {{disable-output-lane},} enable-input-d {, scale-input-d};
    tcgen05.mma{.sp}.cta_group.kind.block_scale{.scale_vec}{.collector_usage}
        [d], a, b, {[sp-meta],} idesc, [scale-A], [scale-B], enable-input-d;
    tcgen05.mma.ws{.sp}.cta_group::1.kind{.collector_usage}
        [d], a, b, {[sp-meta],} idesc, enable-input-d {, zero-column-mask-desc};

``a`` is a shared-memory descriptor register, or ``[a-tmem]`` when A is in Tensor Memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tmemviz.errors import TmemvizError
from tmemviz.families.mma.idesc import KINDS, SCALED_KINDS, Idesc, check_kind, decode, encode
from tmemviz.ptx.line import Address, PtxLine, parse_address, parse_immediate, parse_line
from tmemviz.values import MAX_DIGITS, clip, parse_int

_COLLECTOR = re.compile(r"^collector::(a|b[0-3])::(fill|use|lastuse|discard)$")
_SCALE_VEC = re.compile(r"^(scale_vec::(1x|2x|4x)|block16|block32)$")


@dataclass(frozen=True)
class MmaLine:
    """One tcgen05.mma statement, its qualifiers and operands named."""

    kind: str
    cta_group: int
    sparse: bool
    ws: bool
    block_scale: bool
    scale_vec: str | None
    collector: tuple[str, ...]
    """Collector-usage qualifiers as written, e.g. ('collector::a::fill',)."""
    ashift: bool
    d: Address
    a: str
    """A's operand: a descriptor register, or ``[a-tmem]`` when A is in Tensor Memory."""
    b: str
    idesc: str
    """The instruction-descriptor operand: a register such as ``%r6``, or an immediate."""
    sp_meta: Address | None = None
    scale_a: Address | None = None
    scale_b: Address | None = None
    disable_output_lane: tuple[str, ...] | None = None
    enable_input_d: str | None = None
    guard: str | None = None
    scale_input_d: int | None = None
    """The immediate after enable-input-d (dense, not .ws): D = A x B + D x 2^-scale-input-d."""
    zero_column_mask: str | None = None
    """.ws: the zero-column mask descriptor after enable-input-d."""

    @property
    def a_in_tmem(self) -> bool:
        return self.a.startswith("[")

    @property
    def mnemonic(self) -> str:
        parts = ["tcgen05", "mma"]
        parts += ["ws"] if self.ws else []
        parts += ["sp"] if self.sparse else []
        parts += [f"cta_group::{self.cta_group}", f"kind::{self.kind}"]
        parts += ["block_scale"] if self.block_scale else []
        parts += [self.scale_vec] if self.scale_vec else []
        parts += ["ashift"] if self.ashift else []
        return ".".join(parts + list(self.collector))


def parse_mma(text: str | PtxLine) -> MmaLine:
    """Read a tcgen05.mma line as compilers print it.

    >>> m = parse_mma("@%p1 tcgen05.mma.cta_group::1.kind::f16 [ %r149 + 0 ], %rd6, %rd7, %r6, %p2;")
    >>> m.kind, m.cta_group, m.d, m.idesc, m.enable_input_d, m.guard
    ('f16', 1, Address(base='%r149', offset=0), '%r6', '%p2', '%p1')
    >>> parse_mma("tcgen05.mma.cta_group::1.kind::f16 [tmem_acc], %rd1, %rd2, idesc, 1, 8;").scale_input_d
    8
    """
    line = text if isinstance(text, PtxLine) else parse_line(text)
    tokens = [t.lower() for t in line.qualifiers]
    if tokens[:2] != ["tcgen05", "mma"]:
        raise TmemvizError(f"'{line.opcode}' is not a tcgen05.mma instruction")
    kind = cta_group = scale_vec = None
    sparse = ws = block_scale = ashift = False
    collector: list[str] = []
    for token in tokens[2:]:
        if token == "sp":
            sparse = True
        elif token == "ws":
            ws = True
        elif token.startswith("cta_group::"):
            cta_group = {"cta_group::1": 1, "cta_group::2": 2}.get(token)
            if cta_group is None:
                raise TmemvizError(f".{token} is not a CTA group; use .cta_group::1 or .cta_group::2")
        elif token.startswith("kind::"):
            kind = check_kind(token)
        elif token in ("block_scale",):
            block_scale = True
        elif _SCALE_VEC.match(token):
            scale_vec = token
        elif token == "ashift":
            ashift = True
        elif _COLLECTOR.match(token):
            collector.append(token)
        else:
            raise TmemvizError(f"'.{token}' is not a qualifier of tcgen05.mma (PTX 9.7.16.10.9)")
    if kind is None:
        raise TmemvizError(f"'{line.opcode}' names no .kind; tcgen05.mma needs one of {', '.join(KINDS)}")
    if cta_group is None:
        raise TmemvizError("tcgen05.mma needs .cta_group::1 or .cta_group::2 (PTX 9.7.16.10.9)")
    if block_scale != (kind in SCALED_KINDS):
        raise TmemvizError(
            f".kind::{kind} {'needs' if kind in SCALED_KINDS else 'takes no'} .block_scale (PTX 9.7.16.10.9)"
        )
    if ws and cta_group != 1:
        raise TmemvizError("tcgen05.mma.ws takes only .cta_group::1 (PTX 9.7.16.10.9)")
    ops = list(line.operands)
    minimum = 5 + sparse + (2 if block_scale else 0)
    if len(ops) < minimum:
        raise TmemvizError(
            f"'{line.text}' has {len(ops)} operands; this tcgen05.mma form needs {minimum} or more"
        )
    d = parse_address(ops[0])
    a, b = ops[1], ops[2]
    rest = ops[3:]
    sp_meta = parse_address(rest.pop(0)) if sparse else None
    idesc = rest.pop(0)
    scale_a = scale_b = None
    if block_scale:
        scale_a, scale_b = parse_address(rest.pop(0)), parse_address(rest.pop(0))
    lanes = None
    if rest and rest[0].startswith("{"):
        lanes = tuple(x.strip() for x in rest.pop(0)[1:-1].split(","))
    enable = rest.pop(0) if rest else None
    scale_d = mask = None
    if rest and ws:
        mask = rest.pop(0)
    elif rest and not block_scale:
        scale_d = parse_immediate(rest[0])
        if scale_d is None:
            raise TmemvizError(
                f"'{rest[0]}' after enable-input-d is no scale-input-d: tcgen05.mma takes an integer "
                "immediate there, 0..15 (D = A x B + D x 2^-scale-input-d, PTX 9.7.16.10.9)"
            )
        rest.pop(0)
    if rest:
        raise TmemvizError(
            f"'{line.text}' has {len(ops) - len(rest)} operands before '{rest[0]}': this tcgen05.mma form "
            "takes none after "
            + ("the zero-column mask" if ws else "enable-input-d" if block_scale else "scale-input-d")
            + " (PTX 9.7.16.10.9)"
        )
    return MmaLine(
        kind, cta_group, sparse, ws, block_scale, scale_vec, tuple(collector), ashift, d, a, b, idesc,
        sp_meta, scale_a, scale_b, lanes, enable, line.guard, scale_d, mask,
    )  # fmt: skip


def parse_idesc_value(text: str | int) -> int:
    """``0x08200010``, ``136314896`` or a PTX immediate such as ``0x08200010U``.

    >>> parse_idesc_value("136314896") == parse_idesc_value("0x08200010")
    True
    """
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        if not isinstance(text, str) or len(text.strip()) > MAX_DIGITS:
            value = parse_int(text, "the instruction descriptor")  # refuses what no descriptor is
        found = parse_immediate(text)
        value = found if found is not None else parse_int(text, "the instruction descriptor")
    if not 0 <= value < 1 << 32:
        raise TmemvizError(f"an instruction descriptor is a 32-bit value, got {clip(str(text))}")
    return value


def parse_flag(text: str | bool | int | None, option: str) -> bool | None:
    """``yes``/``no``, ``1``/``0``, ``true``/``false`` as a boolean; None stays None."""
    if text is None or isinstance(text, bool):
        return text
    key = str(text).strip().lower()
    if key in ("1", "yes", "true", "on"):
        return True
    if key in ("0", "no", "false", "off"):
        return False
    raise TmemvizError(f"{option} takes yes or no (1 or 0), got '{text}'")


FIELD_OPTIONS = {
    "d_type": "--d-type",
    "a_type": "--a-type",
    "b_type": "--b-type",
    "a_major": "--a-major",
    "b_major": "--b-major",
    "negate_a": "--negate-a",
    "negate_b": "--negate-b",
    "m": "--m",
    "n": "--n",
    "sparse": "--sparse",
    "sparse_id": "--sparse-id",
    "saturate": "--saturate",
    "max_shift": "--max-shift",
    "sfa_id": "--sfa-id",
    "sfb_id": "--sfb-id",
    "scale_type": "--scale-type",
    "k": "--k",
}
"""Descriptor field -> the ``idesc`` option that sets it when encoding."""

_FLAGS = ("negate_a", "negate_b", "sparse", "saturate")
_NUMBERS = ("m", "n", "sparse_id", "max_shift", "sfa_id", "sfb_id", "k")


def resolve_idesc(value: str | int | None, kind: str | None, fields: dict[str, object]) -> Idesc:
    """Decode ``value``, or encode ``fields`` (option spellings allowed), for ``kind``.

    >>> resolve_idesc(None, "f16", {"m": "128", "n": "128", "a_type": "f16", "b_type": "f16"}).value
    136314896
    """
    unknown = [k for k in fields if k not in FIELD_OPTIONS]
    if unknown:
        raise TmemvizError(f"idesc has no field '{unknown[0]}'; its fields are {', '.join(FIELD_OPTIONS)}")
    given = {k: v for k, v in fields.items() if v is not None}
    if kind is None:
        raise TmemvizError(
            f"give --kind ({', '.join(KINDS)}): the instruction descriptor's layout depends on it"
        )
    if value is not None:
        if given:
            option = FIELD_OPTIONS.get(next(iter(given)), next(iter(given)))
            raise TmemvizError(f"give either a descriptor to decode or fields to encode, not both ({option})")
        return decode(parse_idesc_value(value), kind)
    if "n" not in given:
        raise TmemvizError(
            "give a descriptor to decode (tmemviz idesc 0x... --kind K) or, to encode one, --n"
        )
    meanings: dict[str, object] = {}
    for name, raw in given.items():
        option = FIELD_OPTIONS.get(name, name)
        if name in _FLAGS:
            meanings[name] = int(bool(parse_flag(raw, option)))  # type: ignore[arg-type]
        elif name in _NUMBERS:
            meanings[name] = parse_int(str(raw), option)
        else:
            meanings[name] = raw
    meanings.setdefault("m", 128)
    return decode(encode(kind, **meanings), kind)
