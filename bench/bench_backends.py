"""CPU time of each step of a first `cardc build` of the bundled content, measured in one process, step by step.

    python3 bench/bench_backends.py                          # front end, schema, python, balance, reference, export
    python3 bench/bench_backends.py --only balance --repeat 3
    python3 bench/bench_backends.py --cold                   # with an empty on-disk cache (a new machine)

What `cardc build -j 1` does, without the build cache of the output folder (every backend really runs):
the front end (`compile_paths`), schema validation of the IR, then each backend into a fresh temporary
folder. `export` runs with `tts_images=false`: its JSON only (the saved objects and the engine-neutral
export), since the sprite sheets belong to the image work and reuse the print backend's PNGs. `balance`
includes the whole-game win rates, which come from their cache when the rules are unchanged (as in
`cardc build`); `--cold` points the caches (CARDC_CACHE_DIR) at an empty folder, so they are replayed.

Each figure is the median of --repeat runs of that step in this process (the first import of a module is
paid by the first run). To compare two versions of cardc, run the script with each on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STEPS = ("front", "schema", "python", "balance", "reference", "export")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=STEPS, help="steps to measure (repeatable)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--cold", action="store_true", help="empty on-disk caches (CARDC_CACHE_DIR)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cardc-bench-backends-"))
    if args.cold:
        os.environ["CARDC_CACHE_DIR"] = str(tmp / "cache")
    os.chdir(ROOT)
    from cardc import __file__ as where
    from cardc.backends import BACKENDS, BuildOptions
    from cardc.frontend import compile_paths

    def schema(project: Any) -> Any:
        try:
            from cardc.checkcache import schema_diagnostics  # with its on-disk verdict
        except ImportError:  # cardc before the cache
            from cardc.schema import validate_project as schema_diagnostics
        return schema_diagnostics(project)

    wanted = args.only or list(STEPS)
    print(f"cardc from {Path(where).parent}; cache: {os.environ.get('CARDC_CACHE_DIR', 'the user cache folder')}")
    print()
    print("| step | CPU s (median) | runs |")
    print("|---|---:|---:|")
    t = time.process_time()
    result = compile_paths([Path("content")])  # the first run of `front`: imports and caches as a build finds them
    first = time.process_time() - t
    for step in wanted:
        times = [first] if step == "front" else []
        for i in range(len(times), args.repeat):
            out = tmp / f"{step}-{i}"
            t = time.process_time()
            if step == "front":
                result = compile_paths([Path("content")])
            elif step == "schema":
                schema(result.project)
            else:
                settings = {"tts_images": "false"} if step == "export" else {}
                options = BuildOptions(only=frozenset({step}), settings=settings, destination=out)
                dict(BACKENDS)[step](result.project, out, options)
            times.append(time.process_time() - t)
        label = "export (JSON only, tts_images=false)" if step == "export" else step
        print(f"| {label} | {statistics.median(times):.2f} | {len(times)} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
