"""Size, time and peak memory of the largest figures in every format, and of a whole gallery.

Usage: python benchmarks/figures.py [--runs N] [--check] [--twice] [--only WORD] [--record]

Each row runs what a user runs, in its own process, as ``python -m tmemviz ... -o FILE``: the
largest ld/st layouts (auto = a schematic, and ``--detail all`` beside it), the largest
shared-memory tile, the 128x256 accumulator tile (through whatever ``tmemviz.tile`` draws
today), the busiest cp and decompression figures; each as PNG, SVG and HTML. Time is wall clock
of the whole process (start-up, imports, layout, drawing, writing; best of ``--runs``), memory the
process's peak resident set (``wait4``'s ``ru_maxrss``), size the file written. The gallery row
regenerates the whole gallery into a temporary directory once and reports its total size, its
largest file, time and peak memory; ``--twice`` regenerates it again and checks that every byte
is the same (determinism).

Targets (P13): a figure PNG <= 1 MB, SVG or HTML <= 2 MB, each written in <= 1.5 s with < 300 MB;
the gallery <= 25 MB in total, no file over 2 MB, regenerated in <= 30 s of CPU (P18: user + system
time, which a busy machine does not inflate as it does wall time). Rows drawn with
``--detail all`` are shown for comparison and have no target. ``--check`` exits 1 when a target
is missed; ``--record`` writes the results to ``benchmarks/results/figures.json`` (every row, so not
with ``--only``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Record, record_flag, tools  # noqa: E402

MB = 1024 * 1024
LIMIT_BYTES = {"png": 1 * MB, "svg": 2 * MB, "html": 2 * MB}
FIGURE_S = 1.5
FIGURE_MB = 300
GALLERY_BYTES = 25 * MB
GALLERY_FILE_BYTES = 2 * MB
GALLERY_S = 30.0
FORMATS = ("png", "svg", "html")
SMEM_TILE = ("smem", "--major", "K", "--swizzle", "128B", "--dtype", "bf16", "--rows", "128", "--cols", "64")
FIGURES: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    # (name, command line after "tmemviz", has targets)
    ("ld 16x256b.x32.pack", ("layout", "16x256b", "--num", "x32", "--pack"), True),
    ("ld 16x256b.x32.pack all", ("layout", "16x256b", "--num", "x32", "--pack", "--detail", "all"), False),
    ("ld 32x32b.x128", ("layout", "32x32b", "--num", "x128"), True),
    ("ld 16x32bx2.x128", ("layout", "16x32bx2", "--num", "x128"), True),
    ("smem K 128B bf16 128x64", SMEM_TILE, True),
    ("smem K 128B bf16 128x64 all", (*SMEM_TILE, "--detail", "all"), False),
    ("tile 128x256 16x256b", ("tile", "--m", "128", "--n", "256", "--shape", "16x256b"), True),
    (
        "scales B block16 N=256 K=2048 cta_group::2",
        ("scales", "--operand", "B", "--sf-vec", "16", "--n", "256", "--k", "2048", "--cta-group", "2"),
        True,
    ),
    (
        "tile 256x256 cta_group::2",
        ("tile", "--m", "256", "--cta-group", "2", "--n", "256", "--shape", "16x256b"),
        True,
    ),
    (
        "tile 128x256 all",
        ("tile", "--m", "128", "--n", "256", "--shape", "16x256b", "--detail", "all"),
        False,
    ),
    ("datapath B", ("datapath", "B"), True),
    ("cp 128x256b cta_group::2 row 70", ("cp", "128x256b", "--cta-group", "2", "--row", "70"), True),
    ("decompress b6x16_p32", ("decompress", "b6x16_p32"), True),
    ("desc 0x4000404000010000", ("desc", "0x4000404000010000"), True),
    ("idesc 0x08200010 f16", ("idesc", "0x08200010", "--kind", "f16"), True),
)


@dataclass
class Run:
    seconds: float
    cpu: float
    """User + system CPU seconds of the process: what a busy machine does not inflate."""
    peak_mb: float
    code: int
    stderr: str


def run(args: list[str]) -> Run:
    """One process, waited for with ``wait4`` so its own peak memory is known."""
    env = {k: v for k, v in os.environ.items() if k not in ("TMEMVIZ_LAYOUTS", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tmemviz", *args], stdout=subprocess.DEVNULL, stderr=err, env=env
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    peak = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / MB
    return Run(seconds, usage.ru_utime + usage.ru_stime, peak, proc.returncode, text)


def best(runs: int, args: list[str]) -> Run:
    results = [run(args) for _ in range(runs)]
    for r in results:
        if r.code != 0:
            raise SystemExit(f"tmemviz {' '.join(args)} failed ({r.code}): {r.stderr.strip()}")
    return min(results, key=lambda r: r.seconds)


def tree(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--runs", type=lambda s: max(1, int(s)), default=1, help="runs per figure (best kept)"
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--twice", action="store_true", help="regenerate the gallery twice, compare bytes")
    parser.add_argument("--only", default="", help="only rows whose name contains this")
    record_flag(parser)
    args = parser.parse_args(argv)
    if args.record and args.only:
        parser.error("--record writes every row: leave out --only")
    record = Record(
        "figures",
        sys.argv[1:] if argv is None else argv,
        {"runs": args.runs, "measure": "one `python -m tmemviz ... -o FILE` process per file, best of runs: "
         "wall and CPU (user + system) seconds, peak RSS (wait4), the file's bytes"},
    )  # fmt: skip

    rows: list[tuple[str, str, int, float, float, float, list[str]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, command, targeted in FIGURES:
            if args.only not in name:
                continue
            for fmt in FORMATS:
                out = Path(tmp) / f"figure.{fmt}"
                r = best(args.runs, [*command, "-o", str(out)])
                size = out.stat().st_size
                missed = []
                if targeted:
                    missed += [f"size > {LIMIT_BYTES[fmt] // MB} MB"] if size > LIMIT_BYTES[fmt] else []
                    missed += [f"time > {FIGURE_S} s"] if r.seconds > FIGURE_S else []
                    missed += [f"memory >= {FIGURE_MB} MB"] if r.peak_mb >= FIGURE_MB else []
                verdict = "-" if not targeted else ("PASS" if not missed else "OVER: " + ", ".join(missed))
                rows.append((name, fmt.upper(), size, r.seconds, r.cpu, r.peak_mb, [verdict]))
                key = f"{slug(name)}.{fmt}"
                what = f"tmemviz {' '.join(command)} -o figure.{fmt}"
                record.add(f"{key}.bytes", size, "bytes", f"size of {what}")
                record.add(f"{key}.s", r.seconds, "s wall", f"wall time of {what} (start-up included)")
                record.add(f"{key}.cpu_s", r.cpu, "s", f"CPU time of {what}")
                record.add(f"{key}.peak_mb", r.peak_mb, "MB", f"peak memory of {what}")
        gallery = None
        if "gallery" in args.only or not args.only:
            first = Path(tmp) / "g1"
            r = best(1, ["gallery", str(first)])
            files = tree(first)
            total = sum(len(b) for b in files.values())
            big_name, big = max(((n, len(b)) for n, b in files.items()), key=lambda t: t[1])
            missed = []
            missed += [f"total > {GALLERY_BYTES // MB} MB"] if total > GALLERY_BYTES else []
            missed += [f"{big_name} > {GALLERY_FILE_BYTES // MB} MB"] if big > GALLERY_FILE_BYTES else []
            missed += [f"CPU time > {GALLERY_S:g} s"] if r.cpu > GALLERY_S else []
            same = ""
            if args.twice:
                second = Path(tmp) / "g2"
                best(1, ["gallery", str(second)])
                differ = [n for n, b in tree(second).items() if files.get(n) != b]
                same = "identical twice" if not differ else f"NOT deterministic: {', '.join(differ[:5])}"
                missed += [] if not differ else ["not deterministic"]
            gallery = (len(files), total, big_name, big, r, missed, same)
            record.add("gallery.files", len(files), "count", "files of `tmemviz gallery DIR`")
            record.add("gallery.bytes", total, "bytes", "total size of the gallery")
            record.add("gallery.largest_bytes", big, "bytes", f"the gallery's largest file ({big_name})")
            record.add("gallery.cpu_s", r.cpu, "s", "CPU time of `tmemviz gallery DIR`")
            record.add("gallery.s", r.seconds, "s wall", "wall time of `tmemviz gallery DIR`")
            record.add("gallery.peak_mb", r.peak_mb, "MB", "peak memory of `tmemviz gallery DIR`")
            if args.twice:
                record.add("gallery.identical", "yes" if "identical" in same else "no", "",
                           "the gallery made twice is the same byte for byte")  # fmt: skip

    print("figures: one `python -m tmemviz ... -o FILE` process each (wall time incl. start-up; peak RSS)")
    print()
    width = max([len(r[0]) for r in rows] + [4])
    print(f"{'what':<{width}}  {'fmt':<4}  {'size':>9}  {'seconds':>7}  {'CPU s':>7}  {'peak MB':>7}  result")
    print(f"{'-' * width}  ----  {'-' * 9}  {'-' * 7}  {'-' * 7}  {'-' * 7}  ------")
    missed_any = False
    for name, fmt, size, seconds, cpu, peak, verdict in rows:
        missed_any |= verdict[0].startswith("OVER")
        print(
            f"{name:<{width}}  {fmt:<4}  {size / 1024:>7.0f}KB  {seconds:>7.2f}  {cpu:>7.2f}  {peak:>7.0f}"
            f"  {verdict[0]}"
        )
    if gallery is not None:
        count, total, big_name, big, r, missed, same = gallery
        missed_any |= bool(missed)
        print()
        print(
            f"whole gallery: {count} files, {total / MB:.1f} MB in total, largest {big_name} "
            f"{big / MB:.2f} MB, {r.seconds:.1f} s ({r.cpu:.1f} s CPU), peak {r.peak_mb:.0f} MB"
            + (f", {same}" if same else "")
            + ("  PASS" if not missed else "  OVER: " + ", ".join(missed))
        )
    record.targets(
        (
            ("png_bytes", LIMIT_BYTES["png"], "bytes", "a figure's PNG"),
            ("svg_bytes", LIMIT_BYTES["svg"], "bytes", "a figure's SVG or HTML"),
            ("figure_s", FIGURE_S, "s wall", "a figure's wall time"),
            ("figure_mb", FIGURE_MB, "MB", "a figure's peak memory"),
            ("gallery_bytes", GALLERY_BYTES, "bytes", "the gallery's total"),
            ("gallery_file_bytes", GALLERY_FILE_BYTES, "bytes", "the gallery's largest file"),
            ("gallery_cpu_s", GALLERY_S, "s", "the gallery's CPU time"),
        )
    )
    if args.record:
        record.write(tools(("matplotlib", "numpy", "pillow")))
    return 1 if args.check and missed_any else 0


def slug(name: str) -> str:
    """A row's result key: ``ld 16x256b.x32.pack all`` -> ``ld_16x256b_x32_pack_all``."""
    return "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_").replace("__", "_")


if __name__ == "__main__":
    sys.exit(main())
