"""Stream a PTX module and find every tcgen05 instruction, with what a kernel engineer must be warned of.

Pure: takes an iterable of text lines, keeps per function only what the checks need, so a
million-line module costs one ``in`` test per line that mentions no tcgen05, mov, label or branch.

Checks (each a warning with its line number):

* ``tcgen05.ld.red`` in a module whose ``.target`` cannot run it (PTX 9.7.16.8.3 Target ISA notes);
* a ``tcgen05.ld`` not yet waited for (``tcgen05.wait::ld``) when the same straight-line block writes
  or frees Tensor Memory (tcgen05.st/mma/cp/shift/dealloc) or lets other threads go on (bar.sync,
  barrier.*, mbarrier.arrive). Reading the ld's registers before the wait is not flagged: the PTX
  memory model (9.7.16.6) orders a register's consumers after the load; what it does not order is the
  load's read of Tensor Memory against later writers, and Triton 3.9 itself reads before the wait;
* ``.cta_group::1`` and ``::2`` mixed in one kernel (PTX 9.7.16.9.3: "All tcgen05 instructions within
  a kernel must specify the same value for the .cta_group qualifier");
* and what each instruction's own explanation finds (vector length, alloc size, overlapping halves).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tmemviz.ptx.line import is_instruction, parse_immediate, strip_comment

_FUNCTION = re.compile(r"^\s*(?:\.(?:visible|extern|weak)\s+)*\.(entry|func)\b\s*(?:\([^)]*\)\s*)?([\w$.]+)?")
_TARGET = re.compile(r"^\s*\.target\s+([\w,\s]+)")
_LABEL = re.compile(r"^\s*([\w$.]+):")
_MOV = re.compile(r"^\s*mov\.[bus]32\s+(%[\w$.]+)\s*,\s*([^;]+?)\s*;")
_BRANCH = re.compile(r"^\s*(?:@!?%[\w$.]+\s+)?(?:bra|brx|ret|exit|trap)\b")


@dataclass
class Warning:
    line: int
    message: str

    def record(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}


@dataclass
class Function:
    """What the checks keep while inside one .entry/.func."""

    name: str | None
    movs: dict[str, int] = field(default_factory=dict)
    """Register -> the immediate last moved into it (for the idesc of tcgen05.mma)."""
    cta_group: tuple[int, int] | None = None
    """The first .cta_group seen, and its line."""
    pending: dict[str, int] = field(default_factory=dict)
    """tcgen05.ld instructions not yet waited for (by shape) -> the line of the last one."""


@dataclass
class Module:
    """One scanned file: its target, the tcgen05 instructions found, and warnings, in line order."""

    path: str
    target: str | None = None
    instructions: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)


Explainer = Callable[[int, str, Function, "Module"], "dict[str, Any] | None"]
"""Given (line number, statement, function state, module), the instruction's record (and warnings)."""


def scan(path: str, lines: Iterable[str], explain: Explainer) -> Module:
    """Find every tcgen05 statement of ``lines`` and explain it with ``explain``.

    >>> def note(n, text, fn, mod): return {"line": n, "ptx": text}
    >>> m = scan("k.ptx", [".target sm_100a", ".entry k()", "{", "tcgen05.wait::ld.sync.aligned;", "}"], note)
    >>> m.target, m.instructions
    ('sm_100a', [{'line': 4, 'ptx': 'tcgen05.wait::ld.sync.aligned;'}])
    """
    module = Module(path)
    fn = Function(None)
    for number, text, start in statements(lines):
        if "tcgen05" in text:
            # One line may hold several statements (inline asm: `{ setp...; tcgen05.mma ...; }`); a scope
            # brace may open it. A name that merely contains tcgen05 (`.func tcgen05_helper(`) is not one.
            pieces = (" ".join(p.split()).lstrip("{} ") for p in strip_comment(text)[0].split(";"))
            found = [p for p in pieces if is_instruction(p)]
            for statement in found:
                record = explain(start, statement + ";", fn, module)
                if record is None:
                    continue
                module.instructions.append(record)
                _after_tcgen05(record, statement, start, fn, module)
            if found:
                continue
        if fn.pending:
            _check_block(text, number, fn, module)
        if ".entry" in text or ".func" in text:
            m = _FUNCTION.match(text)
            if m:
                fn = Function(m.group(2))
                continue
        if "mov." in text:
            m = _MOV.match(text)
            if m:
                value = parse_immediate(m.group(2))
                if value is None:
                    fn.movs.pop(m.group(1), None)
                else:
                    fn.movs[m.group(1)] = value & 0xFFFFFFFF
                continue
        if module.target is None and ".target" in text:
            m = _TARGET.match(text)
            if m:
                module.target = m.group(1).split(",")[0].strip()
    return module


def statements(lines: Iterable[str]) -> Iterator[tuple[int, str, int]]:
    """(last line number, text, first line number): a tcgen05 statement joined across lines; others as is.

    >>> list(statements(["tcgen05.st [%r1], {%r2,", "  %r3};", "add.s32 %r4, %r4, 1;"]))
    [(2, 'tcgen05.st [%r1], {%r2,\\n  %r3};', 1), (3, 'add.s32 %r4, %r4, 1;', 3)]
    """
    held: list[str] = []
    first = 0
    number = 0
    for number, raw in enumerate(lines, 1):
        text = raw.rstrip("\r\n")
        if held:
            held.append(text)
            if ";" in strip_comment(text)[0]:
                yield number, "\n".join(held), first
                held = []
            continue
        if "tcgen05" in text and ";" not in strip_comment(text)[0] and is_instruction(text.lstrip("{ \t")):
            held, first = [text], number
            continue
        yield number, text, number
    if held:
        yield number, "\n".join(held), first


def _after_tcgen05(record: dict[str, Any], statement: str, line: int, fn: Function, module: Module) -> None:
    """Module- and function-wide checks that follow one tcgen05 instruction."""
    op = record.get("op")
    group = record.get("cta_group")
    if isinstance(group, int):
        if fn.cta_group is None:
            fn.cta_group = (group, line)
        elif fn.cta_group[0] != group:
            module.warnings.append(
                Warning(
                    line,
                    f".cta_group::{group} here, but line {fn.cta_group[1]} uses "
                    f".cta_group::{fn.cta_group[0]}: "
                    "all tcgen05 instructions of a kernel must use the same .cta_group (PTX 9.7.16.9.3)",
                )
            )
    if op == "wait::ld":
        fn.pending.clear()
    elif op in ("ld", "ld.red"):
        fn.pending[str(record.get("shape", "ld"))] = line
    elif fn.pending and op in TMEM_WRITERS:
        _hazard(f"tcgen05.{op}", line, fn, module)


TMEM_WRITERS = ("st", "mma", "cp", "shift", "dealloc")
"""tcgen05 instructions that write or free Tensor Memory; none is ordered after a tcgen05.ld of the same
thread (PTX 9.7.16.6.2 lists the pipelined pairs; ld is in none)."""
_RELEASES = ("bar.sync", "bar.arrive", "barrier.sync", "barrier.arrive", "bar.red", "barrier.red",
             "mbarrier.arrive")  # fmt: skip
"""Instructions that let other threads go on (and write or free Tensor Memory)."""


def _hazard(what: str, line: int, fn: Function, module: Module) -> None:
    first = min(fn.pending.values())
    module.warnings.append(
        Warning(
            line,
            f"{what} before tcgen05.wait::ld: the tcgen05.ld on line {first} may still be reading Tensor "
            "Memory; a register dependency orders only its registers, so wait first (PTX 9.7.16.6)",
        )
    )
    fn.pending.clear()


def _check_block(text: str, line: int, fn: Function, module: Module) -> None:
    """With a tcgen05.ld not waited for: warn at a barrier that releases other threads; a label or
    branch ends the straight-line block (what it reaches is not followed)."""
    code = strip_comment(text)[0].strip()
    if not code:
        return
    if _LABEL.match(code) or _BRANCH.match(code):
        fn.pending.clear()
        return
    body = code.split(None, 1)[1] if code.startswith("@") and " " in code else code
    if body.startswith(_RELEASES):
        _hazard(body.split(None, 1)[0], line, fn, module)
