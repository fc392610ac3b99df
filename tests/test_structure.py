"""The shape of the package: one folder per family, presentation apart, data flowing one way.

These checks read the source (imports found with ``ast``), so a new module that
breaks a rule fails here before a reviewer has to notice.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tmemviz"
FAMILY_DIR = PACKAGE / "families"
FAMILIES = tuple(sorted(p.name for p in FAMILY_DIR.iterdir() if (p / "__init__.py").is_file()))
ALLOWED = {
    ("tile", "ldst"),
    ("scales", "cp"),
    ("tile", "datapath"),
    ("explain", "ldst"),
    ("explain", "cp"),
    ("explain", "mma"),
    ("explain", "shift"),
    ("explain", "datapath"),
    ("check", "explain"),
}
"""Family -> family imports allowed: a tile is many ld instructions, each placed by the ldst mapper
itself (never a copy of it), so ``tile`` builds on ``ldst``; and its D sits where the tcgen05.mma
data-path layout (A-G) puts it, so ``tile`` builds on ``datapath``; nothing depends on ``tile``. Scale
factors reach TMEM by tcgen05.cp, each copy placed by the cp mapper itself, so ``scales`` builds on ``cp``.
``explain`` reads whole kernels and answers each instruction with its own family's code (ld/st, cp,
mma's descriptor, shift, the data-path letter), never a copy. ``check`` lints whole kernels from what
``explain`` reads and proves (its records, the allocation tracker, the regions each access touches, the
one wait-ld rule of follow/pending.py), so ``check`` builds on ``explain``; the TMEM map is explain's
figure, which ``check -o`` draws too. Nothing depends on ``check``."""
PRESENTATION = ("typer", "rich", "matplotlib")
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@cache
def imports(path: Path) -> frozenset[str]:
    """Every module ``path`` imports, at the top or inside a function (each file parsed once: several
    tests ask about every module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(found)


def family_of(module: str) -> str:
    """``tmemviz.families.cp.layout`` -> ``cp``; other modules -> their first part under ``tmemviz``.

    >>> family_of("tmemviz.families.cp.layout"), family_of("tmemviz.cli.cp"), family_of("tmemviz")
    ('cp', 'cli', '')
    """
    parts = [*module.split("."), "", ""]
    return parts[2] if parts[1] == "families" else parts[1]


def internal(path: Path) -> set[str]:
    return {m for m in imports(path) if m in MODULES and m != module_name(path)}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_stay_small(name: str) -> None:
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines; split it by what it holds"


@pytest.mark.parametrize("name", [m for m in sorted(MODULES) if m.split(".")[1:2] != ["cli"]])
def test_only_the_cli_and_draw_import_presentation_libraries(name: str) -> None:
    if name.startswith("tmemviz.draw."):
        pytest.skip("draw is where presentation lives")
    used = {m.split(".")[0] for m in imports(MODULES[name])} & set(PRESENTATION)
    assert not used, f"{name} imports {sorted(used)}; family code and the core stay presentation-free"


@pytest.mark.parametrize("name", [m for m in sorted(MODULES) if m.startswith("tmemviz.draw")])
def test_draw_knows_no_family(name: str) -> None:
    families = {m for m in internal(MODULES[name]) if family_of(m) in (*FAMILIES, "cli", "gallery")}
    assert not families, f"{name} imports {sorted(families)}"


def test_families_do_not_import_each_other_or_the_cli() -> None:
    for name, path in MODULES.items():
        family = family_of(name)
        if family not in FAMILIES:
            continue
        for dep in internal(path):
            other = family_of(dep)
            allowed = other == family or (family, other) in ALLOWED
            assert other not in FAMILIES or allowed, f"{name} imports {dep}"
            assert other not in ("cli", "gallery"), f"{name} imports {dep}"


def test_no_import_cycles() -> None:
    graph = {name: {d for d in internal(path) if d != name} for name, path in MODULES.items()}
    # A package's __init__ is imported on the way to its modules; that is not a cycle of ours.
    for name in graph:
        graph[name] = {d for d in graph[name] if not name.startswith(d + ".")}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycle = [*trail[trail.index(dep) :], dep] if dep in trail else [node, dep]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep, [*trail, dep])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_no_file_names_its_family_in_a_suffix() -> None:
    suffixed = [
        str(p.relative_to(PACKAGE.parent))
        for p in [*PACKAGE.rglob("*.py"), *(PACKAGE.parent / "tests").rglob("*.py")]
        if any(p.stem.endswith(f"_{family}") for family in FAMILIES)
    ]
    assert not suffixed, f"family code belongs in its folder, not in a suffix: {suffixed}"


def test_no_file_holds_a_machine_path() -> None:
    """No tracked text names a folder of the machine it was made on (a benchmark's corpus is ``DIR``)."""
    import re
    import subprocess

    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are not known")
    machine = re.compile(r"(?:^|[^\w.])/(?:work|home|root|Users|tmp|opt|mnt)/[\w.-]")
    found = []
    for name in listed.stdout.splitlines():
        path = root / name
        if path.suffix in (".png", ".cubin", ".ipynb") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{name}: {m.group(0)!r}" for m in machine.finditer(text)]
    assert found == []
