"""Build a corpus of real Blackwell kernels from registry packages and this project's own kernel sources.

    python benchmarks/corpus.py [DIR] [--venvs PATH] [--only PROJECT[,PROJECT]] [--retry]

DIR (default ``.corpus/`` at the repository root, which git ignores) receives one folder per project, the
scratch virtual environments the compilers are installed in (``DIR/venvs``, or ``--venvs``; nothing is
installed into the environment running this script), and ``manifest.json``: one entry per file with its
project, compiler and version, how it was made, its source and what kind of kernel it is (and, for a
kernel that keeps a bug on purpose, ``expected_findings``: the check rules that must report it). Every
PTX gets a cubin assembled by ptxas 13.5 (pip ``nvidia-cuda-nvcc``: ``ptxas -arch=sm_100a -lineinfo``,
``sm_103a`` where the PTX targets it) and that cubin's ``nvdisasm -c -g`` listing (``.sass``); a compiler
that writes cubins only (cuTile) gets the listing of its cubin.

Resumable: a job whose outputs are recorded is skipped; a job that failed is recorded with the reason
and tried again only with ``--retry``. One failure never stops the others. Jobs run one at a time (the
compilers are heavy and the machine small). The corpus is never committed; tests/check/test_corpus.py
reads it when it is there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus_cutlass as cutlass
import corpus_jobs as ours

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ["nvidia-cuda-nvcc==13.5.37", "nvidia-cuda-nvdisasm==13.5.37"]
VENVS: dict[str, list[str]] = {
    "tools": TOOLS,
    "cutlass": [cutlass.PACKAGE, "nvidia-curand"],
    "dsl": [ours.DSL],
    "triton": [ours.TRITON],
    "quack": [ours.DSL, ours.QUACK],
    "cutile": [ours.CUTILE],
}
"""Each scratch environment and the packages (pinned) it holds."""


@dataclass
class Job:
    name: str
    project: str
    venv: str
    build: Callable[[Context, Path], list[dict[str, Any]]]
    """Writes the job's files under the given folder; returns one entry (``file`` relative to it, plus
    kind, persistent, warp_specialized, source, made) per PTX or cubin written."""
    meta: dict[str, str] = field(default_factory=dict)
    inputs: tuple[Path, ...] = ()
    """This project's files the job compiles: a job is built again when they change."""

    def digest(self) -> str:
        """A hash of the inputs ('' for a job that has none: a pinned registry package's own sources)."""
        if not self.inputs:
            return ""
        h = hashlib.sha256()
        for path in self.inputs:
            h.update(path.name.encode() + b"\0" + path.read_bytes())
        return h.hexdigest()


class Context:
    """The corpus folder, its scratch environments and the assembler/disassembler."""

    def __init__(self, root: Path, venvs: Path) -> None:
        self.root, self.venvs = root, venvs
        self.ready: set[str] = set()

    def python(self, name: str) -> Path:
        """The named scratch environment's interpreter, made (and its packages installed) at first use."""
        venv = self.venvs / name
        marker = venv / "corpus-packages.txt"
        spec = "\n".join(VENVS[name])
        if name not in self.ready and not (marker.is_file() and marker.read_text() == spec):
            if not (venv / "bin" / "python").exists():
                subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            log(f"installing {', '.join(VENVS[name])} into {venv}")
            subprocess.run(
                [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *VENVS[name]],
                check=True, stdout=subprocess.DEVNULL,
            )  # fmt: skip
            marker.write_text(spec)
        self.ready.add(name)
        return venv / "bin" / "python"

    def site(self, name: str) -> Path:
        python = self.python(name)
        found = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return Path(found.stdout.strip())

    def tool(self, name: str) -> Path:
        return self.site("tools") / "nvidia" / "cu13" / "bin" / name

    def version(self, venv: str, package: str) -> str:
        python = self.python(venv)
        code = f"import importlib.metadata as m; print(m.version({package!r}))"
        return subprocess.run([str(python), "-c", code], capture_output=True, text=True).stdout.strip()


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def nvcc_version() -> str:
    out = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    found = re.search(r"release ([\d.]+), V([\d.]+)", out)
    return found.group(2) if found else "unknown"


def cutlass_jobs() -> list[Job]:
    jobs = []
    for example, target, kind, persistent, ws in cutlass.EXAMPLES:

        def build(ctx: Context, out: Path, example=example, target=target) -> list[dict[str, Any]]:
            site = ctx.site("cutlass")
            ptx = out / (Path(example).stem + ".ptx")
            curand = cutlass.curand_headers(site, ctx.venvs / "curand-include")
            made = cutlass.build(cutlass.source_root(site), curand, example, target, ptx, timeout=3600)
            return [{"file": ptx.name, "source": f"nvidia-cutlass {cutlass.PACKAGE.split('==')[1]}: "
                     f"cutlass_library/source/examples/{example}", **made}]  # fmt: skip

        meta = {"kind": kind, "persistent": persistent, "warp_specialized": ws}
        jobs.append(Job(f"cutlass/{Path(example).stem}", "CUTLASS C++ examples", "cutlass", build, meta))
    return jobs


def all_jobs() -> list[Job]:
    jobs = cutlass_jobs()
    return jobs + [Job(s.name, s.project, s.venv, s.build, inputs=s.inputs) for s in ours.JOBS]


def compiler_of(ctx: Context, job: Job) -> dict[str, str]:
    """The compiler that made the job's PTX, and its version."""
    if job.venv == "cutlass" or job.venv == "nvcc":
        return {"compiler": "nvcc (CUDA)", "compiler_version": nvcc_version()}
    if job.venv == "triton":
        return {"compiler": "triton", "compiler_version": ctx.version("triton", "triton")}
    if job.venv == "cutile":
        return {"compiler": "cuda-tile (tileiras)", "compiler_version": ctx.version("cutile", "cuda-tile")}
    return {"compiler": "nvidia-cutlass-dsl", "compiler_version": ctx.version(job.venv, "nvidia-cutlass-dsl")}


def describe(path: Path) -> dict[str, Any]:
    """What the PTX itself says: its target, the .cta_group values of its tcgen05 instructions, how many
    tcgen05 instructions and entries it holds."""
    text = path.read_text(errors="replace")
    target = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
    groups = sorted({int(g) for g in re.findall(r"tcgen05\.[\w.:]*cta_group::([12])", text)})
    return {
        "target": target.group(1) if target else None,
        "cta_group": groups,
        "tcgen05": len(re.findall(r"^\s*(?:@!?%?\w+\s+)?tcgen05\.", text, re.M)),
        "entries": len(re.findall(r"\.entry\s", text)),
    }


def assemble(ctx: Context, ptx: Path, entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The cubin (ptxas 13.5) and its listing (nvdisasm -c -g) of one PTX, as manifest entries."""
    arch = "sm_103a" if (entry.get("target") or "").startswith("sm_103") else "sm_100a"
    cubin = ptx.with_suffix(".cubin")
    rel = str(ptx.relative_to(ctx.root))
    base = {k: entry[k] for k in ("project", "compiler", "compiler_version", "kind", "persistent",
                                  "warp_specialized", "cta_group", "source") if k in entry}  # fmt: skip
    out = []
    if not cubin.exists():
        ptxas = [str(ctx.tool("ptxas")), f"-arch={arch}", "-lineinfo", str(ptx), "-o", str(cubin)]
        done = subprocess.run(ptxas, capture_output=True, text=True, timeout=3600)
        if done.returncode != 0:
            cubin.unlink(missing_ok=True)
            return [{**base, "path": str(cubin.relative_to(ctx.root)), "from": rel,
                     "error": f"ptxas: {cutlass.tail(done.stderr)}"}]  # fmt: skip
    out.append({**base, "path": str(cubin.relative_to(ctx.root)), "from": rel,
                "made": f"ptxas 13.5.37 -arch={arch} -lineinfo"})  # fmt: skip
    return [*out, listing(ctx, cubin, base)]


def listing(ctx: Context, cubin: Path, base: dict[str, Any]) -> dict[str, Any]:
    """The ``nvdisasm -c -g`` listing of a cubin, as a manifest entry."""
    sass = cubin.with_suffix(".sass")
    if not sass.exists():
        done = subprocess.run([str(ctx.tool("nvdisasm")), "-c", "-g", str(cubin)],
                              capture_output=True, text=True, timeout=3600)  # fmt: skip
        if done.returncode != 0:
            return {**base, "path": str(sass.relative_to(ctx.root)), "error": cutlass.tail(done.stderr)}
        sass.write_text(done.stdout)
    return {**base, "path": str(sass.relative_to(ctx.root)), "from": str(cubin.relative_to(ctx.root)),
            "made": "nvdisasm 13.5.37 -c -g"}  # fmt: skip


def run(ctx: Context, job: Job, retry: bool) -> dict[str, Any]:
    """One job, skipped when its state says it was built from the same inputs (and its files are there)."""
    state = ctx.root / "state" / (job.name.replace("/", "--") + ".json")
    digest = job.digest()
    if state.is_file():
        old = json.loads(state.read_text())
        same = old.get("inputs", "") == digest
        built = same and "error" not in old and all((ctx.root / e["path"]).exists() for e in old["entries"])
        if built or (same and "error" in old and not retry):
            return old
    out = ctx.root / job.name
    if out.exists():  # built again from scratch: no cubin or listing of an older PTX is kept
        shutil.rmtree(out)
    out.mkdir(parents=True)
    log(f"{job.name} ...")
    start = time.monotonic()
    record: dict[str, Any] = {"job": job.name, "project": job.project, "inputs": digest}
    try:
        made = job.build(ctx, out)
        compiler = compiler_of(ctx, job)
        entries = []
        for item in made:
            path = out / item.pop("file")
            entry = {"path": str(path.relative_to(ctx.root)), "project": job.project, **compiler,
                     **job.meta, **item}  # fmt: skip
            entries.append(entry)
            if path.suffix == ".ptx":
                entry.update(describe(path))
                entries.extend(assemble(ctx, path, entry))
            elif path.suffix == ".cubin":  # a compiler that writes no PTX (cuTile): only its listing
                base = {k: v for k, v in entry.items() if k not in ("path", "made")}
                entries.append(listing(ctx, path, base))
        record["entries"] = entries
        log(f"{job.name}: {len(entries)} files in {time.monotonic() - start:.0f} s")
    except Exception as e:
        record["error"] = f"{type(e).__name__}: {e}"[:3000]
        record["entries"] = []
        log(f"{job.name}: FAILED: {record['error'][:300]}")
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps(record, indent=1))
    return record


def manifest(ctx: Context, jobs: list[Job]) -> dict[str, Any]:
    """Every job's state (those of this run and those built before) as one document."""
    files, failed = [], []
    names = {job.name for job in jobs}
    for state in sorted((ctx.root / "state").glob("*.json")):
        record = json.loads(state.read_text())
        if record["job"] not in names:
            continue
        files.extend(record["entries"])
        if "error" in record:
            failed.append({"job": record["job"], "project": record["project"], "error": record["error"]})
        failed.extend({"job": record["job"], "path": e["path"], "error": e["error"]}
                      for e in record["entries"] if "error" in e)  # fmt: skip
    files = [e for e in files if "error" not in e]
    not_built = [{"example": k, "why": v} for k, v in sorted(cutlass.NOT_BUILT.items())]
    return {"files": files, "failed": failed, "not_built": not_built}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", nargs="?", type=Path, default=ROOT / ".corpus")
    parser.add_argument("--venvs", type=Path, help="where the scratch environments go (default DIR/venvs)")
    parser.add_argument("--only", default="", help="job name prefixes, comma-separated (cutlass,dsl,...)")
    parser.add_argument("--retry", action="store_true", help="try again the jobs that failed before")
    args = parser.parse_args(argv)
    root = args.dir.resolve()
    root.mkdir(parents=True, exist_ok=True)
    ctx = Context(root, (args.venvs or root / "venvs").resolve())
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    jobs = all_jobs()
    chosen = [j for j in jobs if not args.only or any(j.name.startswith(p) for p in args.only.split(","))]
    if not chosen:
        print(f"no job matches --only {args.only}; jobs: {', '.join(j.name for j in jobs)}", file=sys.stderr)
        return 2
    for job in chosen:
        run(ctx, job, args.retry)
    doc = manifest(ctx, jobs)
    (root / "manifest.json").write_text(json.dumps(doc, indent=1) + "\n")
    log(f"manifest: {len(doc['files'])} files, {len(doc['failed'])} failures -> {root / 'manifest.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
