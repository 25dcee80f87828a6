"""CPU time of the steps of a first `cardc build` that draw no image, one fresh process per run.

    python3 bench/bench_steps.py --repeat 3                  # front end, schema, python, balance, reference, export
    python3 bench/bench_steps.py --only balance --repeat 3
    python3 bench/bench_steps.py --cold                      # with an empty on-disk cache (a new machine)

(bench/bench_backends.py measures every backend, images included, each in a forked process; this script
adds the schema step, the export without its sprite sheets, and the on-disk caches of `cardc.diskcache`.)

What `cardc build -j 1` does, without the build cache of the output folder (every backend really runs):
the front end (`compile_paths`), schema validation of the IR, then each backend into a fresh temporary
folder. `export` runs with `tts_images=false`: its JSON only (the saved objects and the engine-neutral
export), since the sprite sheets belong to the image work and reuse the print backend's PNGs. `balance`
includes the whole-game win rates, which come from their cache when the rules are unchanged (as in
`cardc build`); `--cold` points the caches (CARDC_CACHE_DIR) at an empty folder, so they are replayed.

Each run is a fresh process that does every step once, in build order (so each pays its imports and finds
the caches as a first build does); each figure is the median over --repeat such processes. To compare two
versions of cardc, run the script with each on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))  # as_built
STEPS = ("front", "schema", "python", "balance", "reference", "export")


def measure_once(wanted: list[str], tmp: Path) -> dict[str, float]:
    """Each step once, in this process, in build order: a first build's figures."""
    from as_built import backend_heap
    from cardc.backends import BACKENDS, BuildOptions
    from cardc.frontend import compile_paths

    def schema(project: Any) -> Any:
        import cardc

        # (asked of the package folder: an editable install's finder would lend an older cardc the newer module)
        if (Path(cardc.__file__).parent / "checkcache.py").is_file():
            from cardc.checkcache import schema_diagnostics  # with its on-disk verdict
        else:  # cardc before the cache
            from cardc.schema import validate_project as schema_diagnostics
        return schema_diagnostics(project)

    out: dict[str, float] = {}
    t = time.process_time()
    result = compile_paths([Path("content")])  # imports and caches as a build finds them
    out["front"] = time.process_time() - t
    for step in wanted:
        if step == "front":
            continue
        t = time.process_time()
        if step == "schema":
            schema(result.project)
        else:
            settings = {"tts_images": "false"} if step == "export" else {}
            folder = tmp / step
            with backend_heap():  # as `cardc build` runs its backends
                dict(BACKENDS)[step](result.project, folder, BuildOptions(only=frozenset({step}), settings=settings,
                                                                          destination=folder))
        out[step] = time.process_time() - t
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=STEPS, help="steps to measure (repeatable)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes (median)")
    parser.add_argument("--cold", action="store_true", help="empty on-disk caches (CARDC_CACHE_DIR)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child: print JSON
    args = parser.parse_args()
    wanted = args.only or list(STEPS)
    tmp = Path(tempfile.mkdtemp(prefix="cardc-bench-backends-"))
    os.chdir(ROOT)
    if args.one:
        print(json.dumps(measure_once(wanted, tmp)))
        return
    env = dict(os.environ)
    runs: list[dict[str, float]] = []
    for i in range(args.repeat):
        if args.cold:
            env["CARDC_CACHE_DIR"] = str(tmp / f"cache-{i}")
        argv = [sys.executable, __file__, "--one", *(f"--only={w}" for w in wanted)]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    where = subprocess.run([sys.executable, "-c", "import cardc; print(cardc.__file__)"], env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    cache = "empty (--cold)" if args.cold else env.get("CARDC_CACHE_DIR", "the user cache folder")
    print(f"cardc from {Path(where).parent}; on-disk cache: {cache}")
    print()
    print("| step | CPU s (median) | runs |")
    print("|---|---:|---:|")
    for step in wanted:
        label = "export (JSON only, tts_images=false)" if step == "export" else step
        print(f"| {label} | {statistics.median(r[step] for r in runs):.2f} | {len(runs)} |")


if __name__ == "__main__":
    main()
