"""Packaging: the wheel ships the shape files, and an installed tmemviz runs from anywhere.

Builds a wheel of this checkout, checks its contents, installs it (without
dependencies) into a fresh virtual environment that borrows typer/rich/pyyaml
from the interpreter running the tests, and runs the ``tmemviz`` console script
from a directory outside the repository. Skipped, with the reason, when no
wheel can be built (no build backend available offline).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
OFFLINE_HINTS = (
    "Could not find a version that satisfies",
    "No matching distribution",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ProxyError",
)


def _clean_env() -> dict[str, str]:
    """The environment minus anything that would make the checkout importable or pick user shapes."""
    drop = ("PYTHONPATH", "PYTHONHOME", "TMEMVIZ_LAYOUTS", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["COLUMNS"] = "200"
    return env


def _run(cmd: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheelhouse")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out)]
    if importlib.util.find_spec("hatchling") is not None:
        cmd.append("--no-build-isolation")  # the backend is already here: no network needed
    done = _run([*cmd, str(REPO)], cwd=out)
    if done.returncode != 0:
        log = done.stdout + done.stderr
        if any(hint in log for hint in OFFLINE_HINTS):
            pytest.skip("cannot build a wheel offline: the build backend (hatchling) is not installed")
        pytest.fail(f"building the wheel failed:\n{log[-3000:]}")
    wheels = sorted(out.glob("tmemviz-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_contains_package_and_shape_files(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        shipped = sorted((REPO / "layouts").rglob("*.yaml"))
        assert {f"ldst/{shape}.yaml" for shape in SHAPES} <= {
            str(p.relative_to(REPO / "layouts")) for p in shipped
        }
        for path in shipped:
            member = f"tmemviz/layouts/{path.relative_to(REPO / 'layouts')}"
            assert member in names, f"{member} missing from {wheel.name}"
            assert archive.read(member) == path.read_bytes()
        for module in sorted((REPO / "tmemviz").rglob("*.py")):
            assert module.relative_to(REPO).as_posix() in names, f"{module.name} missing from {wheel.name}"
        for asset in sorted((REPO / "tmemviz" / "draw" / "page").iterdir()):
            # The interactive page's CSS and JS are package data, read with importlib.resources.
            member = f"tmemviz/draw/page/{asset.name}"
            assert member in names and archive.read(member) == asset.read_bytes(), member
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        assert "tmemviz = tmemviz.cli:main" in archive.read(entry_points).decode()
    assert not any(n.startswith(("tests/", "benchmarks/", "layouts/")) for n in names)


def _dependency_dirs() -> list[str]:
    """Where this interpreter finds the runtime dependencies the wheel was installed without."""
    dirs: list[str] = []
    for module in ("typer", "rich", "yaml"):
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin, f"{module} is not importable by the test interpreter"
        parent = str(Path(spec.origin).resolve().parents[1])
        if parent not in dirs:
            dirs.append(parent)
    return dirs


def test_installed_wheel_runs_outside_the_repo(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    done = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    # The test interpreter's pip installs into the new environment (pip >= 22.3 has --python).
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        cwd=tmp_path,
    )
    if done.returncode != 0 and "no such option: --python" in done.stderr:
        pytest.skip("this pip cannot install into another environment (needs pip >= 22.3)")
    assert done.returncode == 0, done.stdout + done.stderr

    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=tmp_path)
    purelib = Path(site.stdout.strip())
    (purelib / "_tmemviz_test_deps.pth").write_text("\n".join(_dependency_dirs()) + "\n")

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = _run(
        [str(python), "-c", "import tmemviz.catalog as c; print(c.__file__); print(c.builtin_dir())"],
        cwd=outside,
    )
    assert where.returncode == 0, where.stderr
    module_file, layouts = (Path(line) for line in where.stdout.splitlines())
    assert purelib in module_file.parents, f"imported {module_file}, not the installed wheel"
    assert layouts == purelib / "tmemviz" / "layouts", "the shapes must come from inside the package"

    script = bindir / ("tmemviz.exe" if os.name == "nt" else "tmemviz")
    assert script.exists(), "the console script was not installed"
    shapes = _run([str(script), "shapes"], cwd=outside, timeout=60)
    assert shapes.returncode == 0, shapes.stderr
    for shape in SHAPES:
        assert f".{shape}" in shapes.stdout
    listed = _run([str(script), "shapes", "--format", "json"], cwd=outside, timeout=60)
    assert [e["shape"] for e in json.loads(listed.stdout)] == list(SHAPES)

    which = _run([str(script), "which", "16x256b", "--num", "x4", "--lane", "9", "--col", "5"], cwd=outside)
    assert which.stdout == "lane 9, column 5 of 16x256b.x4 is held by thread 6, register r3\n"

    # The HTML page reads its CSS and JS from the installed package, not from the checkout.
    made = _run([str(script), "figure", "16x256b", "--num", "x4", "-o", "f.html"], cwd=outside, timeout=60)
    assert made.returncode == 0, made.stderr
    page = (outside / "f.html").read_text(encoding="utf-8")
    assert page.count('class="box cell"') == 16 * 32 and "<script>" in page
