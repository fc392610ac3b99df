"""Does the SASS confirm ``check``'s wait-ld warnings? For each warning of a PTX module: assemble the module
with ptxas 13.5 (each instruction tagged with its own PTX line through ``.loc``, so ``nvdisasm -g`` names
it), then look at the machine code between the load and the instruction flagged.

Usage: python benchmarks/waits_in_sass.py MODULE.ptx... [--json OUT] [--ptxas PATH] [--nvdisasm PATH]

* A tcgen05.ld overtaken (a release, a write, a dealloc): the LDTM of the load's line sets a write
  scoreboard; an instruction waiting on it (its wait mask, in the control bits as shared/spec
  ordering-facts §1 decodes them) orders what follows after the load. **confirmed** when no instruction
  from the LDTM up to and including the flagged one waits on it; **ordered** when one does.
* A tcgen05.ld of cells a tcgen05.st wrote, or an arrive that lets another warp touch them: **confirmed**
  when no ``FENCE.VIEW.ASYNC.T`` (what ``tcgen05.wait::st`` becomes) lies between the STTM and the LDTM
  (the arrive: ``SYNCS.ARRIVE``, ``tcgen05.commit``'s ``UTCBAR``) in the code's order (wrapping round the
  function's end for a loop's next round); **ordered** otherwise.
* **unclear** when the instructions cannot be found (ptxas duplicated or dropped them).

The straight walk in address order is what the warning's own path is in the kernels seen (a load, its
copies, the release, all in one block or a fall-through chain); a branch between them is said (``via a
branch``). A development aid: what it prints goes into benchmarks/corpus-allowed.json by hand, with why.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tmemviz.sass.control import NONE, control

_LOC = re.compile(r"^\s*\.(loc|file)\b")
_LINE = re.compile(r'//## File "k\.ptx", line (\d+)')
_CODE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*/\*\s*0x([0-9a-f]{16})\s*\*/")
_HI = re.compile(r"^\s*/\*\s*0x([0-9a-f]{16})\s*\*/")
_FUNCTION = re.compile(r"^\s*\.text\.(\S+):")
_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
_TARGET = re.compile(r"`\((\.L_x_\d+)\)")


def tagged(text: str) -> str:
    """The module with its own debug lines: ``.loc 1 N 1`` before each instruction of a function body."""
    out = []
    depth = 0
    inside = False  # a statement continues on this line (a call's operands, a long vector)
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0].strip()
        if _LOC.match(line):
            out.append("")
            continue
        starts = not inside and code and not code.startswith((".", "{", "}", "$")) and not code.endswith(":")
        out.append(f".loc 1 {number} 1 {line}" if depth > 0 and starts else line)
        if code and not code.startswith((".", "{", "}")) and not code.endswith(":"):
            inside = not code.endswith(";")
        if code.startswith(".address_size"):
            out[-1] = f'{line}\n.file 1 "k.ptx"'
        depth += line.count("{") - line.count("}")
    return "\n".join(out) + "\n"


def listing(ptx: str, ptxas: str, nvdisasm: str, target: str) -> list[dict[str, Any]]:
    """Every SASS instruction: function, PTX line, opcode text, control word (the high 64 bits)."""
    with tempfile.TemporaryDirectory() as tmp:
        source, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        source.write_text(tagged(ptx))
        subprocess.run([ptxas, f"-arch={target}", "-lineinfo", str(source), "-o", str(cubin)], check=True)
        text = subprocess.run([nvdisasm, "-g", "-hex", "-c", str(cubin)], check=True, capture_output=True,
                              text=True).stdout  # fmt: skip
    out: list[dict[str, Any]] = []
    function, line = None, None
    lines = text.splitlines()
    labels: list[str] = []
    for i, raw in enumerate(lines):
        m = _FUNCTION.match(raw)
        if m:
            function = m.group(1)
            continue
        m = _LABEL.match(raw)
        if m:
            labels.append(m.group(1))
            continue
        m = _LINE.search(raw)
        if m:
            line = int(m.group(1))
            continue
        m = _CODE.match(raw)
        if m and i + 1 < len(lines):
            hi = _HI.match(lines[i + 1])
            if hi:
                text_ = m.group(2)
                out.append({"function": function, "line": line, "sass": text_, "hi": int(hi.group(1), 16),
                            "labels": labels})  # fmt: skip
                labels = []
    return out


def successors(code: list[dict[str, Any]]) -> list[list[int]]:
    """Where control may go after each instruction: the next one, and a branch's label."""
    at = {label: k for k, c in enumerate(code) for label in c["labels"]}
    out = []
    for k, c in enumerate(code):
        text = c["sass"]
        opcode = text.split()[1] if text.startswith("@") else text.split()[0]
        # A branch is conditional under a guard (``@P0 BRA``) or with a predicate operand before its
        # target (``BRA.U !UP0, `(.L_x_0)``, a uniform branch): then it also falls through.
        guarded = text.startswith("@") or bool(re.search(r"BRA\S*\s+!?U?P\w*\s*,", text))
        nxt = [k + 1] if k + 1 < len(code) and code[k + 1]["function"] == c["function"] else []
        if opcode.startswith("BRA"):
            m = _TARGET.search(text)
            jump = [at[m.group(1)]] if m and m.group(1) in at else []
            out.append(jump + (nxt if guarded else []))
        elif opcode.startswith(("EXIT", "RET")) and not guarded:
            out.append([])
        else:
            out.append(nxt)
    return out


_SUCCESSORS: dict[int, tuple[list[dict[str, Any]], list[list[int]]]] = {}


def reaches(code: list[dict[str, Any]], start: int, goal: Any, stops: Any) -> bool:
    """Whether some path from after ``start`` reaches an instruction ``goal`` accepts without passing one
    ``stops`` accepts (which includes the goal itself when it stops)."""
    key = id(code)
    if _SUCCESSORS.get(key, (None,))[0] is not code:  # worked out once per listing, not per question
        _SUCCESSORS.clear()
        _SUCCESSORS[key] = (code, successors(code))
    succ = _SUCCESSORS[key][1]
    seen, stack = set(), list(succ[start])
    while stack:
        k = stack.pop()
        if k in seen:
            continue
        seen.add(k)
        if stops(code[k]):
            continue
        if goal(code[k]):
            return True
        stack.extend(succ[k])
    return False


def verdict(code: list[dict[str, Any]], warning: dict[str, Any]) -> tuple[str, str]:
    flagged, source = warning["line"], warning["source"]
    if warning["kind"] == "st":
        stores = [k for k, c in enumerate(code) if c["line"] == source and c["sass"].startswith("STTM")]
        if not stores:
            return "unclear", "no STTM of that line"
        fence = lambda c: c["sass"].startswith("FENCE.VIEW.ASYNC.T")  # noqa: E731
        # The read back (an LDTM of the flagged line), or the arrive that lets another warp read them.
        what = "the arrive" if warning.get("release") else "the LDTM"
        kinds = ("SYNCS.ARRIVE", "UTCBAR", "BAR.") if warning.get("release") else ("LDTM",)
        goal = lambda c: c["line"] == flagged and c["sass"].startswith(kinds)  # noqa: E731
        if any(reaches(code, k, goal, fence) for k in stores):
            return "confirmed", f"a path from the STTM reaches {what} with no FENCE.VIEW.ASYNC.T"
        return "ordered", f"every path from the STTM to {what} passes a FENCE.VIEW.ASYNC.T"
    loads = [k for k, c in enumerate(code) if c["line"] == source and c["sass"].startswith("LDTM")]
    if not loads:
        return "unclear", "no LDTM of that line"
    for k in loads:
        board = control(code[k]["hi"]).write
        if board == NONE:
            return "unclear", "the LDTM sets no scoreboard"
        waited = lambda c, b=board: bool(control(c["hi"]).wait >> b & 1)  # noqa: E731
        at = lambda c: c["line"] == flagged  # noqa: E731
        if reaches(code, k, at, waited):
            return "confirmed", "a path reaches it on which nothing waits on the LDTM"
    return "ordered", "every path to it waits on the LDTM's scoreboard first"


_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\b")


def entries(text: str) -> list[tuple[int, int]]:
    """Each kernel's first and last line (1-based) in the module."""
    lines = text.splitlines()
    out = []
    for start, line in enumerate(lines):
        if not _ENTRY.match(line):
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            depth += lines[end].count("{") - lines[end].count("}")
            opened = opened or "{" in lines[end]
            if opened and depth == 0:
                out.append((start + 1, end + 1))
                break
    return out


def alone(text: str, span: tuple[int, int], spans: list[tuple[int, int]]) -> str:
    """The module with every other kernel's lines blank: ptxas assembles one kernel (minutes less on a
    module of many), and every line keeps its number."""
    lines = text.splitlines()
    for first, last in spans:
        if (first, last) != span:
            lines[first - 1 : last] = [""] * (last - first + 1)
    return "\n".join(lines) + "\n"


def warnings_of(path: Path) -> list[dict[str, Any]]:
    command = [sys.executable, "-m", "tmemviz", "check", str(path), "-f", "json", "--select", "wait-ld"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    found = json.loads(done.stdout)["files"][0]["findings"]
    out = []
    for f in found:
        if f["severity"] != "warning":
            continue
        m = re.search(r"tcgen05\.(ld|st) on line (\d+)", f["message"])
        if m:
            source, kind = int(m.group(2)), m.group(1)
            release = "lets other threads go on" in f["message"]
            out.append({"line": f["line"], "source": source, "kind": kind, "message": f["message"],
                        "release": release})  # fmt: skip
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--ptxas", default="ptxas")
    parser.add_argument("--nvdisasm", default="nvdisasm")
    args = parser.parse_args()
    report = []
    for path in args.modules:
        text = path.read_text()
        found = warnings_of(path)
        if not found:
            continue
        target = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
        spans = entries(text)
        kernels: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for w in found:
            span = next((sp for sp in spans if sp[0] <= w["line"] <= sp[1]), (0, 0))
            kernels.setdefault(span, []).append(w)
        for span, group in kernels.items():
            one = alone(text, span, spans) if span != (0, 0) else text
            code = listing(one, args.ptxas, args.nvdisasm, target.group(1) if target else "sm_100a")
            for w in group:
                _say(report, path, w, code)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


def _say(report: list[dict[str, Any]], path: Path, w: dict[str, Any], code: list[dict[str, Any]]) -> None:
    status, why = verdict(code, w)
    report.append({"file": str(path), "line": w["line"], "source": w["source"], "kind": w["kind"],
                   "status": status, "why": why})  # fmt: skip
    print(f"{path.name}:{w['line']}  ({w['kind']} on line {w['source']})  {status}: {why}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
