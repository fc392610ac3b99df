"""Shared fixtures for the exactness suite.

Any test that takes a ``combo`` argument runs once for each of the 74 legal
(shape, num, pack) combinations of the facts file ("tcgen05.ld / tcgen05.st
register layouts": 5 shapes x legal .num x {unpacked, packed}).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The tests import the independent oracle (ldst/oracle.py) that sits beside them.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Derived files (the shipped shape documents' cache) go to a directory of the test run's own, so the
# tests neither read a developer's cache nor leave files in it; subprocesses inherit it.
os.environ["TMEMVIZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="tmemviz-test-cache-")

from ldst.oracle import combinations

from tmemviz.catalog import Catalog, load_catalog
from tmemviz.cli.options import KINDS
from tmemviz.families.ldst.layout import Instruction, make_instruction
from tmemviz.families.ldst.shapes import KIND as LDST
from tmemviz.families.ldst.shapes import Shape

Combo = tuple[str, int, bool]

COMBOS: list[Combo] = combinations()


def combo_id(combo: Combo) -> str:
    name, num, pack = combo
    return f"{name}.x{num}{'.pack' if pack else ''}"


PLUGIN_PACKAGES = ("hypothesis", "_hypothesis_ftz_detector", "_hypothesis_globals", "xdist", "platformdirs")
"""Installed packages that ship a pytest plugin, whose own modules pytest would assertion-rewrite."""


def pytest_configure(config: pytest.Config) -> None:
    """The package byte-compiled once, as an installed wheel is: many tests start ``python -m tmemviz``
    in a subprocess, and with ``PYTHONDONTWRITEBYTECODE`` set (or an editable install's sources newer
    than their .pyc) each would compile every module it imports again.

    pytest marks every installed package that ships a plugin for assertion rewriting; with no bytecode
    written, every process (each worker and the controller) rewrote all of hypothesis's modules again
    on importing it, about two CPU seconds each, for asserts that are hypothesis's own, not the tests'.
    The test modules and conftest files are rewritten as before."""
    import compileall

    import tmemviz

    compileall.compile_dir(Path(tmemviz.__file__).parent, quiet=1)
    marked = getattr(getattr(config.pluginmanager, "rewrite_hook", None), "_must_rewrite", None)
    if isinstance(marked, set):
        marked.difference_update(PLUGIN_PACKAGES)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject's addopts): every core for the whole suite, one process for named tests.

    The whole suite is thousands of tests, worth a worker per core; a few named files or tests are
    done before two workers have started, and leave the other cores to whoever shares the machine.
    ``-n N`` (or ``PYTEST_XDIST_AUTO_NUM_WORKERS``) still decides when given.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist reads it
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        return 0
    return None  # xdist's own count: the usable cores


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (every test item, module and parameter: thousands of objects that live
    until the end) is set aside from the garbage collector, which otherwise walks it again at each full
    collection, and the tile, scales and layout sweeps allocate millions of tuples (about a fifth of
    their time). Cycles the tests make are still collected.

    Full collections are made ten times rarer than CPython's default (every 100 collections of the
    middle generation instead of 10): a sweep case holds containers of tens of thousands of elements
    (a 256 x 256 tile's elements, the sets it compares), and every full collection walks each of their
    items. With the default, collection took half the tile sweeps' time (220 full collections of about
    70 ms in tests/tile/test_layouts_a_to_g.py). The young generations are collected as often as
    before, so cycles still go early; those that reach the oldest generation (matplotlib figures drawn
    in a long test) wait longer, about 200 MB more per process at the peak."""
    import gc

    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)


@pytest.hookimpl(trylast=True)  # after -m and -k have chosen
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A ``sample`` test runs only when no ``slow`` sweep does (the sweep covers it): the whole suite
    compiles each kind of code once; ``-m 'not slow'`` still compiles the sample."""
    if not any(item.get_closest_marker("slow") for item in items):
        return
    samples = [item for item in items if item.get_closest_marker("sample")]
    if samples:
        config.hook.pytest_deselected(items=samples)
        items[:] = [item for item in items if not item.get_closest_marker("sample")]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "combo" in metafunc.fixturenames:
        metafunc.parametrize("combo", COMBOS, ids=[combo_id(c) for c in COMBOS])


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog((), KINDS)


@pytest.fixture(scope="session")
def all_combos() -> list[Combo]:
    """The 74 (shape, num, pack) combinations, as a list."""
    return list(COMBOS)


@pytest.fixture(scope="session")
def build(catalog: Catalog) -> Callable[..., Instruction]:
    """``build(shape_name, num, pack, **kwargs)`` -> a tmemviz Instruction."""

    def _build(shape_name: str, num: int, pack: bool = False, **kwargs: object) -> Instruction:
        shape: Shape = catalog.get(LDST, shape_name)
        return make_instruction(shape, num, pack=pack, **kwargs)  # type: ignore[arg-type]

    return _build


@pytest.fixture
def plain_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A wide, colorless, non-interactive terminal and no user shape directories."""
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "TMEMVIZ_LAYOUTS", "LINES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    yield


def _tool(name: str) -> str:
    """An NVIDIA tool from CUDA 13 (on every machine, CI's included); tests that need it skip without it."""
    exe = shutil.which(name)
    if exe is None:
        pytest.skip(f"{name} (CUDA 12.8 or newer, for sm_100a) is not on PATH")
    return exe


@pytest.fixture(scope="session")
def ptxas() -> str:
    """NVIDIA's assembler."""
    return _tool("ptxas")


@pytest.fixture(scope="session")
def nvcc() -> str:
    """NVIDIA's CUDA compiler."""
    return _tool("nvcc")
