"""Benchmark of printing distinct cards: every card different, as in a real expansion (issue 16.2).

For each N, `bench/gen_synthetic.py` writes N distinct poker cards with effects (two languages, so 2N
card faces, each with its own rules text) and this script measures, in one process, CPU time:

- **cardc PDF**: the `print` backend from the checked IR to finished PDFs (templates, rules text, kerned
  text fitted to its box, imposition, marks, duplex backs); no PNGs, no rulebook;
- **bare reportlab**: `bench_print.bare`, a plain reportlab script drawing the same elements of every
  printed face at the same positions (text wrapped by `simpleSplit` at a fixed size, no kerning, no
  fitting, no templates, no forms), on the same pages;

and the size of the PDFs each writes. Run from the repository root:

    python3 bench/bench_print_distinct.py                  # N = 1,000 and 10,000
    python3 bench/bench_print_distinct.py --sizes 500 --runs 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_print import bare  # noqa: E402
from cardc.backends import BuildOptions  # noqa: E402
from cardc.backends.print import run  # noqa: E402
from cardc.backends.print.settings import PrintSettings  # noqa: E402
from cardc.frontend import compile_paths  # noqa: E402
from gen_synthetic import write  # noqa: E402

CLOCK = time.process_time
SETTINGS = {"print.png": "false", "print.rulebook": "false"}


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*.pdf") if not p.name.startswith("calibration"))


def measure(n: int, runs: int, tmp: Path) -> dict[str, float]:
    src = tmp / f"synth{n}"
    write(n, src)
    result = compile_paths([src])
    assert result.ok, [d.render() for d in result.diagnostics if d.is_error][:3]
    cardc_t, bare_t = [], []
    cards = 0
    cardc_bytes = bare_bytes = 0
    for i in range(runs):
        out = tmp / f"out{n}-{i}"
        t0 = CLOCK()
        diags, sheets = run(result.project, out, BuildOptions(settings=dict(SETTINGS)))
        t1 = CLOCK()
        errors = [d for d in diags if d.is_error]
        assert not errors, errors[0].render()
        (tmp / f"bare{n}-{i}").mkdir()
        bare(sheets, tmp / f"bare{n}-{i}", PrintSettings())
        t2 = CLOCK()
        cardc_t.append(t1 - t0)
        bare_t.append(t2 - t1)
        cards = sum(len(s.slots) for s in sheets)
        cardc_bytes, bare_bytes = size_of(out / "print"), size_of(tmp / f"bare{n}-{i}")
    c, b = statistics.median(cardc_t), statistics.median(bare_t)
    return {"n": n, "cards": cards, "cardc": c, "bare": b, "cardc_bytes": cardc_bytes, "bare_bytes": bare_bytes}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=1, help="runs per size (median); each run is a fresh build")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            rows.append(measure(n, args.runs, Path(tmp)))
    print(f"distinct cards, CPU time (time.process_time), median of {args.runs} run(s); sizes exclude the "
          "calibration page")
    print("| cards in content | printed faces | cardc PDF s | bare reportlab s | time ratio | cardc ms/face "
          "| bare ms/face | cardc MB | bare MB | size ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['n']:,} | {r['cards']:,} | {r['cardc']:.2f} | {r['bare']:.2f} | {r['cardc'] / r['bare']:.2f}x "
              f"| {r['cardc'] / r['cards'] * 1000:.2f} | {r['bare'] / r['cards'] * 1000:.2f} "
              f"| {r['cardc_bytes'] / 1e6:.2f} | {r['bare_bytes'] / 1e6:.2f} "
              f"| {r['cardc_bytes'] / r['bare_bytes']:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
