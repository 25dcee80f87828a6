"""Scale benchmark: a synthetic expansion of N cards through the front end, schema validation and every backend.

    python3 bench/bench_scale.py [--sizes 1000 10000] [--only print export ...]

For each N and each stage a fresh Python process (so peak memory is the stage's own) generates the cards with
bench/gen_synthetic.py, runs the front end, then the one stage into a temporary folder, and reports the stage's
CPU time (time.process_time) and the process's peak resident memory. The per-card cost of each stage at every
size and the ratio of the largest to the smallest size's per-card cost show whether the stage is linear
(a ratio near 1.0).

With `--fork` the front end runs once per size and each stage in a forked child of that process (CPU time and
peak memory from the child's own resource usage, `os.wait4`): the same figures without re-running the front
end for every stage, which is what makes 100,000 cards feasible on a shared machine. A child's peak memory
includes the front end's project it inherited, as in the default mode.

Stages beyond the backends: `schema` (the `check` validation), `export-json` (export without the Tabletop Simulator
images) and `print-rulebook` (print's plan and rulebook PDFs only, to measure the rulebook at 100,000 cards apart
from the sheets and PNGs).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# address space of one forked stage (--fork); CARDC_BENCH_CAP_GIB raises it for 100,000-card print runs
MEMORY_CAP = int(float(os.environ.get("CARDC_BENCH_CAP_GIB", "8")) * 1024**3)
sys.path.insert(0, str(ROOT / "bench"))


@contextlib.contextmanager
def _compiled(n: int) -> Iterator[tuple[Path, Any, float]]:
    """A temporary folder with an `n`-card synthetic expansion in `src/`, compiled: (folder, result, front CPU s)."""
    import gen_synthetic
    from as_built import backend_heap
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
        with backend_heap():  # as `cardc build` runs its backends
            yield Path(tmp), result, front


def measure(n: int, stage: str) -> dict[str, float]:
    with _compiled(n) as (tmp, result, front):
        out = tmp / "out"
        out.mkdir()
        start = time.process_time()
        _stage(result, stage, out)
        took = front if stage == "front" else time.process_time() - start
        files = sum(1 for p in out.rglob("*") if p.is_file())
    return {"n": n, "stage": stage, "cpu": took, "files": files,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _stage(result: object, stage: str, out: Path) -> None:
    from cardc import backends
    from cardc.backends import BuildOptions

    project = result.project  # type: ignore[attr-defined]
    if stage == "schema":
        from cardc.schema import validate_project

        assert not validate_project(project)
    elif stage == "print-rulebook":
        # the print backend's rulebooks alone (its plan, then the rulebook PDFs; no sheet PDFs or PNGs)
        from cardc.backends.print.rulebook import write_rulebooks
        from cardc.backends.print.settings import parse_settings
        from cardc.backends.print.sheets import PrintBuild

        settings, _ = parse_settings({})
        build = PrintBuild(project, settings)
        sheets = build.plan(out / "print")
        write_rulebooks(project, out / "print", settings, build.faces_of(sheets), [])
    elif stage != "front":
        # `export-json`: the export backend without its Tabletop Simulator images (`tts_images: false`)
        backend = "export" if stage == "export-json" else stage
        write = dict(backends.BACKENDS)[backend]
        settings = {"tts_images": "false"} if stage == "export-json" else {}
        options = BuildOptions(only=frozenset({backend}), settings=settings, destination=out)
        errors = [d for d in write(project, out, options) if d.is_error]
        if errors:
            raise SystemExit(f"{stage}: {errors[0].render()}")


def measure_forked(n: int, stages: list[str]) -> list[dict[str, float]]:
    """The front end once, then each stage in a forked child: CPU and peak memory from the child's rusage."""
    import os

    rows: list[dict[str, float]] = []
    with _compiled(n) as (tmp, result, front):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        rows.append({"n": n, "stage": "front", "cpu": front, "files": 0, "peak_mib": peak})
        print(f"  front {n}: {front:.2f} s, {peak:.0f} MiB", file=sys.stderr, flush=True)
        for stage in stages:
            if stage == "front":
                continue
            out = tmp / f"out-{stage}"
            out.mkdir()
            pid = os.fork()
            if pid == 0:
                code = 0
                # a stage that would need more than MEMORY_CAP fails with MemoryError instead of pushing a
                # shared machine into swap or the OOM killer
                resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
                try:
                    _stage(result, stage, out)
                except BaseException as exc:  # noqa: BLE001 - reported by the parent as a failed stage
                    print(f"{stage} at {n}: {exc!r}", file=sys.stderr)
                    code = 1
                os._exit(code)
            _, status, usage = os.wait4(pid, 0)
            if status != 0:
                print(f"  {stage} {n}: failed", file=sys.stderr, flush=True)
                continue
            cpu = usage.ru_utime + usage.ru_stime
            files = sum(1 for p in out.rglob("*") if p.is_file())
            rows.append({"n": n, "stage": stage, "cpu": cpu, "files": files, "peak_mib": usage.ru_maxrss / 1024})
            print(f"  {stage} {n}: {cpu:.2f} s, {usage.ru_maxrss / 1024:.0f} MiB", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    from cardc import backends

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--only", nargs="+", help="stages to measure (default: front, schema, every backend)")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # internal: N STAGE, print JSON
    parser.add_argument("--forked-size", nargs="+", help=argparse.SUPPRESS)  # internal: N STAGE..., print JSON
    parser.add_argument("--fork", action="store_true", help="front end once per size, each stage in a fork")
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(int(args.one[0]), args.one[1])))
        return
    if args.forked_size is not None:
        print(json.dumps(measure_forked(int(args.forked_size[0]), args.forked_size[1:])))
        return
    stages = args.only or ["front", "schema", *(name for name, _ in backends.BACKENDS), "export-json"]
    rows: dict[str, dict[int, dict[str, float]]] = {}
    if args.fork:
        for n in args.sizes:
            proc = subprocess.run([sys.executable, __file__, "--forked-size", str(n), *stages], stdout=subprocess.PIPE,
                                  text=True)
            lines = proc.stdout.strip().splitlines()  # the last line is the JSON (a stage may print before it)
            for r in json.loads(lines[-1] if lines else "[]"):
                rows.setdefault(str(r["stage"]), {})[n] = r
    for stage in stages if not args.fork else []:
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
