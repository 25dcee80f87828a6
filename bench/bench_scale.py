"""Scale benchmark: a synthetic expansion of N cards through the front end, schema validation and every backend.

    python3 bench/bench_scale.py [--sizes 1000 10000] [--only print export ...]

For each N and each stage a fresh Python process (so peak memory is the stage's own) generates the cards with
bench/gen_synthetic.py, runs the front end, then the one stage into a temporary folder, and reports the stage's
CPU time (time.process_time) and the process's peak resident memory. The per-card cost of each stage at every
size and the ratio of the largest to the smallest size's per-card cost show whether the stage is linear
(a ratio near 1.0).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def measure(n: int, stage: str) -> dict[str, float]:
    import gen_synthetic
    from cardc import backends
    from cardc.backends import BuildOptions
    from cardc.frontend import compile_paths

    with tempfile.TemporaryDirectory(prefix="cardc-scale-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        gen_synthetic.write(n, src)
        start = time.process_time()
        result = compile_paths([src])
        front = time.process_time() - start
        if not result.ok:
            raise SystemExit("synthetic content has errors")
        out = Path(tmp) / "out"
        out.mkdir()
        start = time.process_time()
        if stage == "schema":
            from cardc.schema import validate_project

            assert not validate_project(result.project)
        elif stage != "front":
            # `export-json`: the export backend without its Tabletop Simulator images (`tts_images: false`)
            backend = "export" if stage == "export-json" else stage
            write = dict(backends.BACKENDS)[backend]
            settings = {"tts_images": "false"} if stage == "export-json" else {}
            options = BuildOptions(only=frozenset({backend}), settings=settings, destination=out)
            errors = [d for d in write(result.project, out, options) if d.is_error]
            if errors:
                raise SystemExit(f"{stage}: {errors[0].render()}")
        took = front if stage == "front" else time.process_time() - start
        files = sum(1 for p in out.rglob("*") if p.is_file())
    return {"n": n, "stage": stage, "cpu": took, "files": files,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    from cardc import backends

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--only", nargs="+", help="stages to measure (default: front, schema, every backend)")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # internal: N STAGE, print JSON
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(int(args.one[0]), args.one[1])))
        return
    stages = args.only or ["front", "schema", *(name for name, _ in backends.BACKENDS), "export-json"]
    rows: dict[str, dict[int, dict[str, float]]] = {}
    for stage in stages:
        for n in args.sizes:
            proc = subprocess.run([sys.executable, __file__, "--one", str(n), stage], capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"{stage} at {n}: failed: {proc.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                continue
            rows.setdefault(stage, {})[n] = json.loads(proc.stdout)
            print(f"  {stage} {n}: {rows[stage][n]['cpu']:.2f} s", file=sys.stderr)
    sizes = args.sizes
    print(f"python {sys.version.split()[0]}; CPU seconds per stage, one process each")
    head = " | ".join(f"{n:,} cards: CPU s | ms/card | peak MiB" for n in sizes)
    print(f"| stage | {head} | per-card ratio {sizes[-1]:,}/{sizes[0]:,} |")
    print("|---|" + "---:|---:|---:|" * len(sizes) + "---:|")
    total = {n: 0.0 for n in sizes}
    for stage, by_n in rows.items():
        cells = []
        for n in sizes:
            r = by_n.get(n)
            cells.append(f"{r['cpu']:.2f} | {1000 * r['cpu'] / n:.2f} | {r['peak_mib']:.0f}" if r else "- | - | -")
            if r and stage != "front":
                total[n] += r["cpu"]
        first, last = by_n.get(sizes[0]), by_n.get(sizes[-1])
        ratio = (last["cpu"] / sizes[-1]) / (first["cpu"] / sizes[0]) if first and last and first["cpu"] else 0
        print(f"| {stage} | {' | '.join(cells)} | {ratio:.2f} |")
    front = rows.get("front", {})
    print("| **build (front end + every stage)** | " + " | ".join(
        f"{total[n] + front[n]['cpu'] if n in front else total[n]:.1f} | - | -" for n in sizes) + " | |")


if __name__ == "__main__":
    main()
