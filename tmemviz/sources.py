"""What a user holds, turned into what ``explain`` and ``check`` read: files by path, named texts, cubins.

A notebook holds a kernel in many forms: a path (``str`` or :class:`pathlib.Path`), the PTX or SASS
text itself (a compiler's string), cubin bytes, or a compiled kernel object whose ``asm`` mapping holds
``"ptx"`` and/or ``"cubin"`` (Triton's ``CompiledKernel``). Text is told from a path by its content
(a PTX directive, a tcgen05 statement, a SASS line), never by trying it as a file name, so a 170 KB
module is never opened as a name nor quoted whole in an error.

>>> given = held(".version 9.0\\n.target sm_100a\\n", for_check=False)
>>> given.paths, [name for name, _ in given.texts]
([], ['<text>'])
>>> held("kernel.ptx", for_check=False).paths
Traceback (most recent call last):
...
tmemviz.errors.TmemvizError: cannot read 'kernel.ptx': there is no such file; explain takes a path, ...
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tmemviz.errors import TmemvizError, quoted
from tmemviz.values import kind_of

ELF_MAGIC = b"\x7fELF"

_CODE = re.compile(
    r"^\s*(?:\.(?:version|target|address_size|entry|func|visible|weak|extern)\b|tcgen05\.|@!?%?\w+\s+tcgen05\."
    r"|code for sm_|Function\s*:|/\*[0-9a-fA-F]{4,}\*/)",
    re.MULTILINE,
)
"""A line only code starts with: a PTX directive or tcgen05 statement, a SASS listing's marks."""


@dataclass
class Held:
    """What the user gave, sorted: file paths (read as before), texts by their shown name, and cubins."""

    paths: list[str] = field(default_factory=list)
    texts: list[tuple[str, str]] = field(default_factory=list)
    cubins: list[tuple[str, bytes]] = field(default_factory=list)


def is_code(text: str) -> bool:
    """Whether a string is PTX or SASS text rather than a file name: it has a line break, or it is one
    line (words: a file named ``tcgen05.ptx`` stays a name) holding a PTX directive or tcgen05
    statement, or a SASS instruction.

    >>> is_code(".target sm_100a"), is_code("kernel.ptx"), is_code("  LDTM.x8 R4, tmem[UR4] ;")
    (True, False, True)
    >>> is_code("tcgen05.ptx"), is_code("tcgen05.wait::ld.sync.aligned;")
    (False, True)
    """
    if "\n" in text:
        return True
    if not any(c.isspace() or c == ";" for c in text.strip()):
        return False
    if _CODE.search(text):
        return True
    from tmemviz.sass.line import parse_sass

    return parse_sass(text) is not None


def held(given: Any, *, for_check: bool, text: str | None = None) -> Held:
    """Sort ``given`` (one thing or a list or tuple of them) and ``text`` into :class:`Held`."""
    out = Held()
    command = "check" if for_check else "explain"
    items = list(given) if isinstance(given, (list, tuple)) else [given]
    for item in items:
        _sort(item, out, command)
    if text is not None:
        out.texts.append(("<text>", text))
    if [n for n, _ in out.texts].count("<text>") > 1:  # numbered, so each record says which text it is
        numbers = iter(range(1, len(out.texts) + 1))
        out.texts = [(f"<text {next(numbers)}>" if n == "<text>" else n, t) for n, t in out.texts]
    return out


def _sort(item: Any, out: Held, command: str) -> None:
    allowed = (
        f"{command} takes a path, PTX or SASS text, cubin bytes or a compiled kernel "
        "(an object whose .asm holds 'ptx' or 'cubin', or with __ptx__)"
    )
    if isinstance(item, os.PathLike):
        out.paths.append(os.fspath(item))
    elif isinstance(item, str):
        if is_code(item):
            out.texts.append(("<text>", item))
        elif item != "-" and not os.path.exists(item):
            raise TmemvizError(f"cannot read {quoted(item)}: there is no such file; {allowed}")
        else:
            out.paths.append(item)
    elif isinstance(item, (bytes, bytearray, memoryview)):
        data = bytes(item)
        if data[:4] == ELF_MAGIC:
            out.cubins.append(("<cubin>", data))
        else:
            try:
                decoded = data.decode("utf-8")
            except UnicodeDecodeError:
                decoded = ""
            if not is_code(decoded):  # bytes are a cubin or a text; a file name is never given as bytes
                raise TmemvizError(f"the bytes are neither a cubin (ELF) nor PTX or SASS text; {allowed}")
            out.texts.append(("<text>", decoded))
    elif isinstance(getattr(item, "asm", None), Mapping):
        _compiled(item, item.asm, out, command)
    elif any(_artifact(item, a) is not None for a in DSL_ARTIFACTS.values()):
        # CuTe DSL's compiled function: __ptx__, __cubin__ (kept when compiled with CUTE_DSL_KEEP).
        _compiled(item, {k: _artifact(item, a) for k, a in DSL_ARTIFACTS.items()}, out, command)
    else:
        raise TmemvizError(f"{allowed}; got {kind_of(item)}")


DSL_ARTIFACTS = {"ptx": "__ptx__", "cubin": "__cubin__"}
"""Where a CuTe DSL compiled function keeps what its ``asm`` would hold (nvidia-cutlass-dsl 4.8)."""


def _artifact(item: Any, name: str) -> Any:
    try:
        found = getattr(item, name, None)
    except Exception:  # a property of someone else's object that fails: it has none
        return None
    return found if isinstance(found, (str, bytes)) else None


def _compiled(kernel: Any, asm: Mapping[str, Any], out: Held, command: str) -> None:
    """A compiled kernel: its PTX (what both commands read best), else its cubin (``explain`` only)."""
    name = _kernel_name(kernel)
    ptx = asm.get("ptx")
    if isinstance(ptx, (bytes, bytearray)):
        ptx = bytes(ptx).decode("utf-8", errors="replace")
    if isinstance(ptx, str) and ptx.strip():
        out.texts.append((f"<{name}.ptx>", ptx))
        return
    cubin = asm.get("cubin")
    if isinstance(cubin, (bytes, bytearray)) and bytes(cubin[:4]) == ELF_MAGIC:
        out.cubins.append((f"<{name}.cubin>", bytes(cubin)))
        return
    keys = ", ".join(quoted(str(k)) for k in list(asm)[:8]) or "nothing"
    raise TmemvizError(
        f"the {type(kernel).__name__}'s .asm holds no 'ptx' text or 'cubin' bytes (it holds {keys}); "
        f"{command} reads those"
    )


def _kernel_name(kernel: Any) -> str:
    """The kernel's name (Triton: ``.name`` or ``.metadata.name``; CuTe DSL: ``.function_name``), else
    its type's, kept short."""
    names = (getattr(kernel, "name", None), getattr(getattr(kernel, "metadata", None), "name", None))
    for value in (*names, getattr(kernel, "function_name", None)):
        if isinstance(value, str) and value:
            return value if len(value) <= 48 else value[:45] + "..."
    return type(kernel).__name__


def cubin_sources(cubins: Sequence[tuple[str, bytes]], folder: str) -> list[tuple[str, Any]]:
    """Each cubin written into ``folder`` (a temporary directory the caller removes once the records are
    made) and streamed through nvdisasm, as (shown name, lines); without nvdisasm, one sentence."""
    from tmemviz.sass.cubin import cubin_lines, find_nvdisasm

    if not cubins:
        return []
    tool = find_nvdisasm()
    if tool is None:
        raise TmemvizError(
            f"{cubins[0][0]} is a cubin; explaining it needs NVIDIA's nvdisasm: put it on PATH or install "
            "the pip package nvidia-cuda-nvdisasm (from a checkout of tmemviz: pip install '.[sass]'), "
            "or give the PTX (a Triton kernel's .asm['ptx'])"
        )
    out: list[tuple[str, Any]] = []
    for number, (name, data) in enumerate(cubins):
        path = os.path.join(folder, f"{number}.cubin")
        with open(path, "wb") as f:
            f.write(data)
        out.append((name, _named_errors(cubin_lines(path, tool), path, name)))
    return out


def _named_errors(lines: Any, path: str, name: str) -> Any:
    """nvdisasm's lines; its refusal names the cubin as the user knows it, not the temporary file."""
    try:
        yield from lines
    except TmemvizError as exc:
        raise TmemvizError(str(exc).replace(path, name)) from None


def explain_held(given: Any, text: str | None, catalog: Any) -> Any:
    """``tmemviz.explain``: the paths read as the command reads them, then the texts, then the cubins."""
    import tempfile

    from tmemviz.families.explain.source import explain_sources

    found = held(given, for_check=False, text=text)
    texts = [(name, t.splitlines()) for name, t in found.texts]
    if not found.cubins:
        doc = explain_sources(found.paths, None, catalog, named=texts)
    else:
        # Every record is made before explain_sources returns (the TMEM map reads no input again), so the
        # cubins' temporary files are not needed after it.
        with tempfile.TemporaryDirectory(prefix="tmemviz-") as folder:
            cubins = cubin_sources(found.cubins, folder)
            doc = explain_sources(found.paths, None, catalog, named=[*texts, *cubins])
    doc.notebook = ("instructions",)  # a notebook shows the per-instruction table above the TMEM map
    return doc


def check_held(given: Any, text: str | None, catalog: Any, sass: str | None = None) -> Any:
    """``tmemviz.check``: the paths (and directories) read as the command reads them, then the texts."""
    from tmemviz.families.check.document import check_document, status
    from tmemviz.families.check.sarif import Invocation
    from tmemviz.families.check.source import FOR_SASS, READS, check_file, check_sources

    found = held(given, for_check=True, text=text)
    if found.cubins:
        raise TmemvizError(f"{found.cubins[0][0]} is a cubin (an ELF file), {FOR_SASS}")
    run = Invocation()
    if sass is not None and found.texts:  # how many files: check_sources asks that, as for the command
        raise TmemvizError(
            "the SASS given pairs with the one PTX file it was made of; give one PTX file, not text"
        )
    checked = check_sources(found.paths, None, catalog, sass=sass) if found.paths or not found.texts else []
    for name, t in found.texts:
        if not t.strip():
            raise TmemvizError(f"{'the text' if name.startswith('<text') else name} is empty; {READS}")
        checked.append(check_file(name, t.splitlines(), catalog))
    run.status = status(checked)
    doc = check_document(checked, run)
    doc.notebook = ("findings",)  # a notebook shows the findings above the TMEM map
    return doc
