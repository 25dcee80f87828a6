"""The print backend's phases, one fresh process per run: CPU of each and how many faces PDFium rasterized.

    python3 bench/bench_print_phases.py                             # the bundled content, 3 runs
    python3 bench/bench_print_phases.py --synthetic 1000 --repeat 1  # a bench/gen_synthetic.py expansion
    python3 bench/bench_print_phases.py --before /tmp/old --repeat 3 # also older code, runs alternated

Phases, as `print.sheets.run` goes: `plan` (card templates rendered and parsed), `sheets` (the sheet PDFs),
`pngs` (the per-card PNGs and, where the code makes them, the 150 dpi screen faces: faces drawn into in-memory
PDFs, rasterized, compressed, written) and, with
`--rulebook`, `rulebooks`. Rasterized: `faces` (a face's PNG made), of which `whole` were drawn without a
shared frame, and `frames` (a frame rasterized once for the faces drawn over it). No build cache (a first
build); the on-disk cache (`CARDC_CACHE_DIR`, compiled templates) is the user's unless set.

`--before DIR` runs the same in processes whose `cardc` is imported from DIR (e.g. `compiler/` of an older
commit copied to DIR/cardc, with that commit's `dsl/` as DIR/cardc/dsl), alternating with the current code,
and prints the medians side by side.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
PHASES = ("plan", "sheets", "pngs", "rulebooks")


def measure(content: str, rulebook: bool) -> dict[str, float]:
    """CPU seconds of each phase and the rasterization counts, for `content` (a folder or a number of cards)."""
    from as_built import backend_heap
    from cardc.backends.print import sheets as print_sheets
    from cardc.backends.print.settings import parse_settings
    from cardc.frontend import compile_paths

    counts: Counter[str] = Counter()
    real_png, real_rows = print_sheets.render_png, print_sheets.render_rows

    def png(page: object, dpi: int, under: object = None, *rest: object) -> bytes:
        counts["faces"] += 1
        counts["whole"] += under is None
        return real_png(page, dpi, under, *rest)  # type: ignore[arg-type]

    def rows(page: object, dpi: int, *rest: object) -> bytearray:
        counts["frames"] += 1
        return real_rows(page, dpi, *rest)  # type: ignore[arg-type]

    print_sheets.render_png, print_sheets.render_rows = png, rows  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="cardc-print-phases-") as tmp:
        import gen_synthetic

        src = gen_synthetic.source(content, Path(tmp))
        result = compile_paths([src])
        if not result.ok:
            raise SystemExit("the content has errors")
        out = Path(tmp) / "out" / "print"
        settings = parse_settings({})[0]
        times: dict[str, float] = {}
        with backend_heap():
            b = print_sheets.PrintBuild(result.project, settings)
            start = time.process_time()
            sheets = b.plan(out)
            times["plan"] = time.process_time() - start
            start = time.process_time()
            for sheet in sheets:
                b.write_sheet(sheet)
            times["sheets"] = time.process_time() - start
            start = time.process_time()
            jobs = [(sheet, out / "png" / sheet.path.stem, out / "screen" / sheet.path.stem)
                    for sheet in sheets if sheet.pages]
            params = inspect.signature(b.write_pngs).parameters
            screens = "screen" in params  # older code: no screen faces
            if "screens" in params:  # the screen faces inside the PNGs
                b.write_all_pngs([(sheet, png) for sheet, png, _screen in jobs], screens=True)
            elif hasattr(b, "write_all_pngs"):  # older code: screen faces in files of their own
                b.write_all_pngs(jobs)
            else:  # older code: sheet by sheet
                for sheet, folder, screen in jobs:
                    b.write_pngs(sheet, folder, *([screen] if screens else []))
            times["pngs"] = time.process_time() - start
            if rulebook:
                from cardc.backends.print.rulebook import write_rulebooks

                start = time.process_time()
                write_rulebooks(result.project, out, settings, b.faces_of(sheets), [])
                times["rulebooks"] = time.process_time() - start
    return {**times, **{k: float(v) for k, v in counts.items()}}


def run_child(content: str, pythonpath: str | None, rulebook: bool) -> dict[str, float]:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, __file__, "--one", content, *(["--rulebook"] if rulebook else [])]
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"{content}: {proc.stderr.strip()[-2000:]}")
    data: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--synthetic", type=int, help="a synthetic expansion of N cards (default: content/)")
    parser.add_argument("--content", default=str(ROOT / "content"))
    parser.add_argument("--before", help="a folder holding an older `cardc` package, measured alternately")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each code (median)")
    parser.add_argument("--rulebook", action="store_true", help="also lay out the rulebooks")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one content, print JSON
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(args.one, args.rulebook)))
        return
    content = str(args.synthetic) if args.synthetic else args.content
    codes = [("before", args.before), ("after", None)] if args.before else [("current", None)]
    runs: dict[str, list[dict[str, float]]] = {label: [] for label, _ in codes}
    for _ in range(args.repeat):
        for label, path in codes:
            runs[label].append(run_child(content, path, args.rulebook))
            print(label, {k: round(v, 2) for k, v in runs[label][-1].items()}, file=sys.stderr, flush=True)
    phases = [p for p in PHASES if p in runs[codes[-1][0]][0]]
    print(f"| code | {' | '.join(f'{p} s' for p in phases)} | total s | faces | whole | frames |")
    print("|---|" + "---|" * (len(phases) + 4))
    for label, _path in codes:
        med = {p: statistics.median(r[p] for r in runs[label]) for p in phases}
        total = statistics.median(sum(r[p] for p in phases) for r in runs[label])
        last = runs[label][-1]
        print(f"| {label} | " + " | ".join(f"{med[p]:.2f}" for p in phases) + f" | **{total:.2f}** | "
              f"{int(last.get('faces', 0))} | {int(last.get('whole', 0))} | {int(last.get('frames', 0))} |")


if __name__ == "__main__":
    main()
