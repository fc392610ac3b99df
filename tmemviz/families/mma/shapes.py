"""Load and validate ``layouts/mma/sass.yaml``: how ptxas spells tcgen05.mma in SASS.

The file maps each SASS opcode to the ``.kind`` values it implements (plain, or block-scaled: the
form with a scale operand) and names the modifiers; every claim is checked against nvdisasm output by
tests/sass/test_evidence.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tmemviz.errors import TmemvizError
from tmemviz.families.mma.idesc import KINDS
from tmemviz.files import builtin_dir, check_fields, describe, read_yaml

FIELDS = {"tools": dict, "opcodes": dict, "modifiers": dict, "printed_on": dict, "collector": dict}
QUALIFIERS = (".cta_group::2", ".ws", ".ashift", ".block16")
"""What a SASS modifier of a UTC*MMA can stand for (layouts/mma/sass.yaml, ``modifiers``)."""
BUFFERS = ("a", "b0", "b1", "b2", "b3")
COLLECTOR_OPS = ("fill", "use", "lastuse", "discard")
FORMS = ("plain", "block_scale")


@dataclass(frozen=True)
class MmaSass:
    """opcode -> form -> kinds, and modifier word -> its meaning."""

    opcodes: tuple[tuple[str, str, tuple[str, ...]], ...]
    modifiers: tuple[tuple[str, str], ...]
    tools: tuple[tuple[str, str], ...]
    collector: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    """(PTX buffer, PTX op, the words the operand gains): ("b1", "use", ("B_REUSE", "B_KEEP", "BUFFER1"))."""
    printed_on: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(modifier, the targets that print it) for a modifier not printed on every target."""

    def qualifier(self, word: str) -> str | None:
        """The PTX qualifier a modifier stands for (None: no modifier of the table).

        >>> mma_sass().qualifier("BLOCK16"), mma_sass().qualifier("4X"), mma_sass().qualifier("X")
        ('.block16', '.block16', None)
        """
        return dict(self.modifiers).get(word)

    def word(self, qualifier: str, target: str) -> str | None:
        """The modifier ``target`` prints for ``qualifier``.

        >>> mma_sass().word(".block16", "sm_103a"), mma_sass().word(".ws", "sm_103a")
        ('BLOCK16', 'WS')
        """
        where = dict(self.printed_on)
        return next(
            (w for w, q in self.modifiers if q == qualifier and target in where.get(w, (target,))), None
        )

    def collector_of(self, operand: str, words: tuple[str, ...]) -> str | None:
        """The ``collector::<buffer>::<op>`` whose words the A or B operand carries (None: no words).

        >>> mma_sass().collector_of("B", ("B_REUSE", "BUFFER2"))
        'collector::b2::lastuse'
        """
        if not words:
            return None
        found = [f"collector::{b}::{o}" for b, o, w in self.collector if w and set(w) == set(words)]
        if len(found) != 1 or not found[0].split("::")[1].upper().startswith(operand):
            raise TmemvizError(
                f"operand words {'.'.join(words)} are in no collector of layouts/mma/sass.yaml"
            )
        return found[0]

    def kinds(self, opcode: str, block_scale: bool) -> tuple[str, ...]:
        """The kinds ``opcode`` implements in that form; () when it is no tcgen05.mma opcode.

        >>> mma_sass().kinds("UTCHMMA", False), mma_sass().kinds("UTCOMMA", True)
        (('f16', 'tf32'), ('mxf4', 'mxf4nvf4'))
        """
        form = FORMS[block_scale]
        return next((k for o, f, k in self.opcodes if o == opcode and f == form), ())

    def opcode(self, kind: str) -> str | None:
        """The SASS opcode of a .kind (both forms searched)."""
        return next((o for o, _, k in self.opcodes if kind in k), None)

    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(o for o, _, _ in self.opcodes))


@lru_cache(maxsize=1)
def mma_sass() -> MmaSass:
    """The shipped table (read once per process)."""
    path = builtin_dir() / "mma" / "sass.yaml"
    return parse_mma_sass(read_yaml(path), str(path))


def parse_mma_sass(doc: Any, source: str) -> MmaSass:
    """Validate a loaded ``sass.yaml``; every kind must be a tcgen05.mma .kind, given once."""
    check_fields(doc, source, FIELDS, ("opcodes", "modifiers"), "fields at the top level")
    rows: list[tuple[str, str, tuple[str, ...]]] = []
    seen: dict[str, str] = {}
    for opcode, forms in doc["opcodes"].items():
        where = f"opcodes.{opcode}"
        if not isinstance(opcode, str) or not opcode.startswith("UTC") or not opcode.isalnum():
            raise TmemvizError(
                f"{source}: field 'opcodes': expected an opcode such as UTCHMMA, got {describe(opcode)}"
            )
        check_fields(forms, f"{source}: field '{where}'", {f: list for f in FORMS}, ())
        for form, kinds in forms.items():
            for kind in kinds:
                if kind not in KINDS:
                    raise TmemvizError(
                        f"{source}: field '{where}.{form}': {describe(kind)} is not a tcgen05.mma .kind "
                        f"({', '.join(KINDS)})"
                    )
                if kind in seen:
                    raise TmemvizError(
                        f"{source}: field '{where}.{form}': kind {kind} is also under {seen[kind]}"
                    )
                seen[kind] = where
            rows.append((opcode, form, tuple(kinds)))
    modifiers = doc["modifiers"]
    for key, meaning in modifiers.items():
        if not isinstance(key, str) or not key.isalnum() or meaning not in QUALIFIERS:
            raise TmemvizError(
                f"{source}: field 'modifiers': expected WORD: one of {', '.join(QUALIFIERS)}, "
                f"got {describe(key)}: {describe(meaning)}"
            )
    printed_on = doc.get("printed_on") or {}
    for key, targets in printed_on.items():
        if (
            key not in modifiers
            or not isinstance(targets, list)
            or not all(isinstance(t, str) and t.startswith("sm_") for t in targets)
        ):
            raise TmemvizError(
                f"{source}: field 'printed_on.{key}': expected a modifier of 'modifiers' and a list of "
                f"targets such as [sm_100a], got {describe(targets)}"
            )
    tools = {str(k): str(v) for k, v in (doc.get("tools") or {}).items()}
    collector = _collector(doc["collector"], source) if "collector" in doc else ()
    return MmaSass(tuple(rows), tuple(modifiers.items()), tuple(tools.items()), collector,
                   tuple((k, tuple(v)) for k, v in printed_on.items()))  # fmt: skip


def _collector(doc: Any, source: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """The ``collector`` field: each (buffer, op) with the words its operand gains."""
    where = f"{source}: field 'collector'"
    check_fields(doc, where, {"operand": dict, "ops": dict, "buffer_word": dict}, ("operand", "ops"))
    letters, ops, extra = doc["operand"], doc["ops"], doc.get("buffer_word", {})
    if set(letters) != set(BUFFERS) or any(v not in ("A", "B") for v in letters.values()):
        raise TmemvizError(f"{where}.operand: expected {', '.join(BUFFERS)}, each A or B")
    if set(ops) != set(COLLECTOR_OPS) or not all(isinstance(v, list) for v in ops.values()):
        raise TmemvizError(f"{where}.ops: expected {', '.join(COLLECTOR_OPS)}, each a list of words")
    if not set(extra) <= set(BUFFERS):
        raise TmemvizError(f"{where}.buffer_word: keys must be among {', '.join(BUFFERS)}")
    out = []
    for b in BUFFERS:
        for o in COLLECTOR_OPS:
            words = [f"{letters[b]}_{w}" for w in ops[o]] + ([extra[b]] if b in extra else [])
            out.append((b, o, tuple(words)))
    return tuple(out)
