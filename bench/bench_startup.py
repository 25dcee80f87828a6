"""Start-up and diagnostics rendering: `cardc check` as a designer runs it, in fresh processes.

    python3 bench/bench_startup.py                 # both tables
    python3 bench/bench_startup.py --cards 10000   # size of the synthetic file for the rendering table

1. `cardc check content` on the bundled content (issue 16.3: under 0.25 s).
2. `cardc check --show-provisional` against `cardc check -q` on the synthetic file of bench/gen_synthetic.py
   (every provisional and unknown value printed with its source line and caret, against errors only):
   rendering N diagnostics costs O(N + file size), so the two stay within 1.5x (issue 16.1).

Each command runs in a fresh process (`python -m cardc`), CPU time (user + system) of the child, median of
--repeat runs after one warm-up; wall-clock too, which on a shared machine mostly measures the others.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(CPU seconds of the child, wall seconds, bytes written on stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cardc", *argv], cwd=cwd, capture_output=True, check=False,
                          env={**os.environ, "NO_COLOR": "1"})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"cardc {' '.join(argv)} failed: {proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, len(proc.stderr)


def measure(argv: list[str], cwd: Path, repeat: int, warmup: bool = True) -> tuple[float, float, int]:
    if warmup:
        run_once(argv, cwd)  # warm-up: .pyc files, Lark's cached tables, the page cache
    runs = [run_once(argv, cwd) for _ in range(repeat)]
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[0][2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-warmup", action="store_true", help="no warm-up run (slow machines)")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # each row as soon as it is measured
    print("| command | CPU s (median) | wall s (median) | stderr bytes |")
    print("|---|---|---|---|")
    cpu, wall, size = measure(["check", "content"], ROOT, args.repeat)
    print(f"| `cardc check content` | {cpu:.3f} | {wall:.3f} | {size} |")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_synthetic.py"), str(args.cards), tmp], check=True)
        results = {}
        for flags in (["-q"], ["--show-provisional"]):
            cpu, wall, size = measure(["check", *flags, "."], Path(tmp), args.repeat, warmup=not args.no_warmup)
            results[flags[0]] = cpu
            print(f"| `cardc check {flags[0]}` ({args.cards} cards) | {cpu:.3f} | {wall:.3f} | {size} |")
        print(f"\n--show-provisional / -q (CPU): {results['--show-provisional'] / results['-q']:.2f}x")


if __name__ == "__main__":
    main()
