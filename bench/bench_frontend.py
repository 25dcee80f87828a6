"""Front-end benchmark: parse, check and dump of a synthetic expansion, next to a bare Lark parse.

    python3 bench/bench_frontend.py [--sizes 1000 10000] [--repeat 3]

For each N, a fresh Python process generates N cards (bench/gen_synthetic.py) and measures the CPU
time (time.process_time: steady on a busy machine, unlike wall time), best of
`--repeat` runs:
  bare    Lark LALR parse of the same text with the same grammar, no transformer, the cyclic GC paused as the
          front end pauses it (the fair baseline); `bare+gc` is the same parse with the GC running
  parse   reading the files and parsing them with the inline transformer into syntax nodes
  check   everything else of the front end: kinds, lowering to the typed IR, all checks
  front   parse + check, the two halves of `compile_paths` (what `cardc check` costs, minus start-up)
  dump    the IR to JSON text, streamed one entity at a time (`cardc dump`)
  schema  validating the IR against the JSON Schemas, as a first `cardc build` does (`checkcache.schema_diagnostics`
          with an empty cache folder, the validators compiled afresh)
and the process's peak resident memory (ru_maxrss, Python and Lark included) after one front-end
run, and after one dump as well. One process per N, so the peak of the small run does not hide in
the big one.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _best(fn, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    """The least CPU time of `repeat` calls, each starting from a collected heap (no earlier result alive)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        result = None
        gc.collect()
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def _schema_step(project, tmp: Path, first: bool = True):  # type: ignore[no-untyped-def]
    """What `cardc build` runs after the front end, as a first build does it: `checkcache.schema_diagnostics`
    (the IR's JSON, the cache key, validation) with an empty cache folder and no compiled validator kept from
    an earlier call. Not `first`: as a build after an edit, the validators' code in the cache but no verdict
    for this IR. A cardc without that step: `schema.validate_project`."""
    import shutil

    try:
        from cardc import schemafast
        from cardc.checkcache import schema_diagnostics
    except ImportError:
        from cardc.schema import validate_project

        return validate_project(project)
    schemafast._compiled.clear()
    folder = tmp / "schema-cache"
    shutil.rmtree(folder if first else folder / "schema", ignore_errors=True)
    saved = {k: os.environ.pop(k, None) for k in ("CARDC_CACHE", "CARDC_CACHE_DIR")}
    os.environ["CARDC_CACHE_DIR"] = str(folder)
    try:
        return schema_diagnostics(project)
    finally:
        del os.environ["CARDC_CACHE_DIR"]
        os.environ.update({k: v for k, v in saved.items() if v is not None})


def _dump(project, iter_project_json) -> int:  # type: ignore[no-untyped-def]
    """What `cardc dump` does after the front end: the IR as JSON text, streamed to a file."""
    size = 0
    with open(os.devnull, "w", encoding="utf-8") as sink:
        for chunk in iter_project_json(project):
            sink.write(chunk)
            size += len(chunk)
    return size


def measure(n: int, repeat: int) -> dict[str, float]:
    """Time every stage for N cards in this process."""
    import gen_synthetic
    from cardc.catalogue import default_catalogue
    from cardc.diagnostics import DiagnosticSink
    from cardc.frontend import FrontEndResult, compile_paths
    from cardc.irjson import iter_project_json
    from cardc.loader import load
    from cardc.lower import Lowering
    from cardc.parser import bare_parser, parse_text
    from cardc.textcheck import check_hand_texts

    os.environ["CARDC_CACHE"] = "off"  # the front end parses every file: no parse remembered by an earlier run
    with tempfile.TemporaryDirectory(prefix="cardc-bench-") as tmp:
        cards = gen_synthetic.write(n, Path(tmp))
        text = cards.read_text(encoding="utf-8")
        default_catalogue()
        bare = bare_parser()
        parse_text("module x", "warm.cardc", DiagnosticSink())  # build the LALR tables outside the timing

        # Peak memory first, from one run of each stage, before the timing repeats keep two IRs alive.
        result = compile_paths([Path(tmp)])
        peak_front = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        _dump(result.project, iter_project_json)
        peak_dump = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        del result

        t_bare_gc, _ = _best(lambda: bare.parse(text), repeat)

        def bare_nogc() -> object:
            gc.disable()
            try:
                return bare.parse(text)
            finally:
                gc.enable()

        t_bare, _ = _best(bare_nogc, repeat)

        def front() -> tuple[float, float, FrontEndResult]:
            """compile_paths in two timed halves: load (read + parse), then everything else."""
            gc.disable()  # as compile_paths does
            try:
                start = time.process_time()
                sink = DiagnosticSink()
                sources = load([Path(tmp)], sink)
                mid = time.process_time()
                project = Lowering(sources, default_catalogue(), sink).run()
                sink.items.extend(check_hand_texts(project))
                res = FrontEndResult(project, sink.sorted(), sources.texts)
                return mid - start, time.process_time() - mid, res
            finally:
                gc.enable()

        runs = []
        for _ in range(repeat):
            gc.collect()
            runs.append(front())
        t_parse = min(r[0] for r in runs)
        t_check = min(r[1] for r in runs)
        t_front = min(r[0] + r[1] for r in runs)
        result = runs[-1][2]
        del runs
        errors = [d for d in result.diagnostics if d.is_error]
        if errors:
            raise SystemExit(f"synthetic content has errors: {errors[0].render()}")
        project = result.project
        t_dump, out = _best(lambda: _dump(project, iter_project_json), repeat)
        t_schema, found = _best(lambda: _schema_step(project, Path(tmp)), repeat)
        if found:
            raise SystemExit("synthetic content fails schema validation")
        t_schema_later, _ = _best(lambda: _schema_step(project, Path(tmp), first=False), repeat)
    entities = len(project.entities)
    return {
        "n": n, "entities": entities, "bytes": len(text.encode("utf-8")), "dump_bytes": out,
        "bare": t_bare, "bare_gc": t_bare_gc, "schema": t_schema, "schema_later": t_schema_later,
        "parse": t_parse, "check": t_check,
        "front": t_front, "dump": t_dump,
        "peak_front_mib": peak_front, "peak_dump_mib": peak_dump,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: measure one size, print JSON
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(args.one, args.repeat)))
        return
    rows = []
    for n in args.sizes:
        proc = subprocess.run([sys.executable, __file__, "--one", str(n), "--repeat", str(args.repeat)],
                              capture_output=True, text=True, check=True)
        rows.append(json.loads(proc.stdout))
    print(f"python {sys.version.split()[0]}, best of {args.repeat}")
    print("| cards | source | bare parse (GC off) | bare parse (GC on) | parse | check | front end (parse+check) "
          "| front / bare (GC off) | dump | schema, first build | schema / front | schema, after an edit "
          "| schema / front | cards/s (front) | peak RSS: front end | peak RSS: + dump |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['n']:,} | {r['bytes'] / 1e6:.1f} MB | {r['bare']:.2f} s | {r['bare_gc']:.2f} s "
              f"| {r['parse']:.2f} s | {r['check']:.2f} s | {r['front']:.2f} s | {r['front'] / r['bare']:.2f}x "
              f"| {r['dump']:.2f} s | {r['schema']:.2f} s | {r['schema'] / r['front']:.2f}x "
              f"| {r.get('schema_later', r['schema']):.2f} s | {r.get('schema_later', r['schema']) / r['front']:.2f}x "
              f"| {r['n'] / r['front']:,.0f} | {r['peak_front_mib']:.0f} MiB | {r['peak_dump_mib']:.0f} MiB |")
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        scale = b["n"] / a["n"]
        print(f"\n{b['n']:,} vs {a['n']:,} cards ({scale:.0f}x): front end {b['front'] / a['front']:.1f}x, "
              f"bare parse {b['bare'] / a['bare']:.1f}x, dump {b['dump'] / a['dump']:.1f}x")


if __name__ == "__main__":
    main()
