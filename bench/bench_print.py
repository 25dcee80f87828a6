"""Benchmark of the print backend: milliseconds per card for PDF sheets and for per-card PNGs.

Compares the backend (IR -> templates -> fitted, kerned text -> imposed PDF) with a bare reportlab
script that draws the same boxes and texts at the same positions (plain drawString lines, no
templates, no fitting, no kerning, no forms). Run from the repository root:

    python3 bench/bench_print.py [CONTENT] [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardc.backends import BuildOptions  # noqa: E402
from cardc.backends.print import run  # noqa: E402
from cardc.backends.print.fonts import font  # noqa: E402
from cardc.backends.print.settings import PrintSettings  # noqa: E402
from cardc.backends.print.sheets import Sheet, canvas  # noqa: E402
from cardc.backends.print.templates import parse_elements  # noqa: E402
from cardc.frontend import compile_paths  # noqa: E402
from reportlab.lib.units import mm  # noqa: E402
from reportlab.lib.utils import simpleSplit  # noqa: E402


def bare(sheets: list[Sheet], out: Path, s: PrintSettings) -> None:
    """The same cards drawn directly: every copy, every element, plain reportlab calls."""
    regular, bold = font("regular").name, font("bold").name
    for sheet in sheets:
        c = canvas(str(out / sheet.path.name))
        for page in sheet.pages:
            c.setPageSize((page.width * mm, page.height * mm))
            for p in page.placements:
                e = sheet.slots[p.slot]
                text = sheet.faces[e.key][0 if p.side == "front" else 1]
                if text is None:
                    continue
                ox, oy = (p.x - s.bleed) * mm, (p.y - s.bleed) * mm
                top = oy + (p.h + s.bleed) * mm
                left = ox + s.bleed * mm
                for el in parse_elements(text, e.kind):
                    x, y, w, h = el.num("x") * mm, el.num("y") * mm, el.num("w") * mm, el.num("h") * mm
                    if el.kind == "fill":
                        c.rect(ox, oy, (p.w + 2 * s.bleed) * mm, (p.h + 2 * s.bleed) * mm, stroke=0, fill=1)
                    elif el.kind in ("rect", "art"):
                        c.rect(left + x, top - y - h, w, h, stroke=1, fill=0)
                    elif el.kind == "circle":
                        c.circle(left + el.num("cx") * mm, top - el.num("cy") * mm, el.num("r") * mm)
                    elif el.kind == "line":
                        c.line(left + el.num("x1") * mm, top - el.num("y1") * mm, left + el.num("x2") * mm,
                               top - el.num("y2") * mm)
                    elif el.kind == "text":
                        size = el.num("size", 8)
                        name = bold if el.str("font") == "bold" else regular
                        c.setFont(name, size)
                        ty = top - y - size
                        for line in simpleSplit(el.str("text"), name, size, w):
                            c.drawString(left + x, ty, line)
                            ty -= size * 1.2
            for m in page.marks:
                c.line(m.x1 * mm, m.y1 * mm, m.x2 * mm, m.y2 * mm)
            c.showPage()
        c.save()


CLOCK = time.process_time  # CPU time of this process: stable on a shared machine; --wall for wall-clock


def main() -> int:
    global CLOCK
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("content", nargs="?", default="content")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--wall", action="store_true", help="measure wall-clock time instead of CPU time")
    args = ap.parse_args()
    if args.wall:
        CLOCK = time.perf_counter
    project = compile_paths([Path(args.content)]).project
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        pdf_times, png_times, bare_times = [], [], []
        sheets: list[Sheet] = []
        for i in range(args.runs + 1):  # the first run warms up (font loading, template compiling)
            t0 = CLOCK()
            _d, sheets = run(project, base / f"pdf{i}", BuildOptions(settings={"print.png": "no",
                                                                               "print.rulebook": "no"}))
            t1 = CLOCK()
            run(project, base / f"png{i}", BuildOptions(settings={"print.rulebook": "no"}))
            t2 = CLOCK()
            (base / f"bare{i}").mkdir()
            bare(sheets, base / f"bare{i}", PrintSettings())
            t3 = CLOCK()
            if i:
                pdf_times.append(t1 - t0)
                png_times.append((t2 - t1) - (t1 - t0))  # the PNG part alone
                bare_times.append(t3 - t2)
        copies = sum(len(s.slots) for s in sheets)
        faces = sum(len(s.faces) for s in sheets)
        pngs = len(list((base / "png1" / "print" / "png").rglob("*.png")))
        distinct_images = sum(len({t for f in s.faces.values() for t in f if t is not None}) for s in sheets)
        pdf, png, bare_t = (statistics.median(t) for t in (pdf_times, png_times, bare_times))
        rows.append(("cardc PDF (all sheets)", pdf, copies, "printed card (copies included)"))
        rows.append(("bare reportlab PDF, same boxes", bare_t, copies, "printed card (copies included)"))
        rows.append(("cardc PNG, 300 dpi", png, distinct_images, "distinct face rendered and encoded"))
    print(f"content: {args.content}: {len(sheets)} PDF files, {copies} printed cards, {faces} card/language "
          f"pairs, {distinct_images} distinct faces, {pngs} PNG files; median of {args.runs} runs, "
          f"{'wall-clock' if args.wall else 'CPU'} time")
    print("| what | total s | cards | ms per card | per |")
    print("|---|---|---|---|---|")
    for name, secs, n, per in rows:
        print(f"| {name} | {secs:.2f} | {n} | {secs / n * 1000:.2f} | {per} |")
    print(f"ratio cardc PDF / bare: {pdf / bare_t:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
