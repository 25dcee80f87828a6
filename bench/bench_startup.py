"""Start-up and diagnostics rendering: `cardc check` as a designer runs it, in fresh processes.

    python3 bench/bench_startup.py                 # both tables
    python3 bench/bench_startup.py --pyc           # with bytecode caches, as an installed cardc runs
    python3 bench/bench_startup.py --cards 10000   # size of the synthetic file for the rendering table

1. `cardc check content` on the bundled content (issue 16.3: under 0.25 s), seven ways: nothing changed since
   the last check (the usual case: the result comes from the on-disk cache, `cardc.checkcache`); a comment
   appended to one file before every run, and lines inserted at its top (the same tokens, moved: the stored
   diagnostics are moved with them, `checkcache.lookup_moved`; before that, the file was parsed again, and
   after inserted lines the whole content lowered and checked again); a value changed in that file before
   every run (its tree is made from the last one without parsing, `cardc.literal_edit`; only the edited
   entity is lowered and checked again, the other entities' diagnostics coming from the last run's trace,
   `cardc.recheck`); a name changed in it before every run (an ability renamed: the same, with the entities
   that looked the name up); two values changed in it before every run (two tokens apart: the tree is made
   from the last one a token at a time); and with the cache off (`CARDC_CACHE=off`: a first check on a new
   machine).
2. `cardc check --show-provisional` against `cardc check -q` on the synthetic file of bench/gen_synthetic.py
   (every provisional and unknown value printed with its source line and caret, against errors only):
   rendering N diagnostics costs O(N + file size), so the two stay within 1.5x (issue 16.1). Measured with
   the cache off, so that both runs parse and check the whole file.

Each command runs in a fresh process (`python -m cardc`), CPU time (user + system) of the child, median of
--repeat runs after one warm-up; wall-clock too, which on a shared machine mostly measures the others. The
cache lives in a temporary folder (`CARDC_CACHE_DIR`), never in the user's. Without `--pyc` the children
inherit the environment as it is (this machine sets PYTHONDONTWRITEBYTECODE=1, so every run compiles
cardc's modules again); with it they keep bytecode in a temporary folder, as pip's install does for a wheel.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


ENV: dict[str, str] = {**os.environ, "NO_COLOR": "1"}


def run_once(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(CPU seconds of the child, wall seconds, bytes written on stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cardc", *argv], cwd=cwd, capture_output=True, check=False,
                          env={**ENV, **(env or {})})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"cardc {' '.join(argv)} failed: {proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, len(proc.stderr)


def measure(argv: list[str], cwd: Path, repeat: int, warmup: bool = True, env: dict[str, str] | None = None,
            before: Callable[[int], None] | None = None) -> tuple[float, float, int]:
    """Median CPU and wall of `repeat` runs; `before(i)` runs before each (the warm-up is -1)."""
    runs = []
    for i in range(-1 if warmup else 0, repeat):
        if before is not None:
            before(i)
        result = run_once(argv, cwd, env)  # the warm-up fills .pyc files, Lark's tables, the page cache
        if i >= 0:
            runs.append(result)
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[0][2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-warmup", action="store_true", help="no warm-up run (slow machines)")
    parser.add_argument("--pyc", action="store_true", help="keep bytecode (in a temporary folder)")
    parser.add_argument("--only-content", action="store_true", help="only the `cardc check content` rows")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # each row as soon as it is measured
    with tempfile.TemporaryDirectory() as tmp:
        ENV["CARDC_CACHE_DIR"] = str(Path(tmp) / "cache")
        ENV.pop("CARDC_CACHE", None)
        if args.pyc:
            ENV.pop("PYTHONDONTWRITEBYTECODE", None)
            ENV["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
        print(f"bytecode caches: {'on' if 'PYTHONDONTWRITEBYTECODE' not in ENV else 'off (PYTHONDONTWRITEBYTECODE)'}")
        print()
        print("| command | CPU s (median) | wall s (median) | stderr bytes |")
        print("|---|---|---|---|")
        copy = Path(tmp) / "edit"
        shutil.copytree(ROOT / "content", copy / "content")  # shown as content/...: the same cache keys
        cpu, wall, size = measure(["check", "content"], copy, args.repeat)
        print(f"| `cardc check content` (nothing changed) | {cpu:.3f} | {wall:.3f} | {size} |")
        edited = sorted((copy / "content").rglob("*.cardc"))[0]
        text = edited.read_text(encoding="utf-8")

        def edit(i: int) -> None:
            edited.write_text(text + f"// edit {i} {time.time_ns()}\n", encoding="utf-8")

        def move(i: int) -> None:
            edited.write_text("\n" * (i + 3) + text, encoding="utf-8")

        if 'source: "' not in text:
            raise SystemExit(f"{edited}: no `source:` attribute to change")

        def change(i: int) -> None:  # a new value each run: the tree differs, nothing stored fits
            edited.write_text(text.replace('source: "', f'source: "edit {i}: ', 1), encoding="utf-8")

        name = edited.relative_to(copy).as_posix()
        cpu, wall, size = measure(["check", "content"], copy, args.repeat, before=edit)
        print(f"| `cardc check content` (a comment appended to `{name}` before each run: the same tokens) "
              f"| {cpu:.3f} | {wall:.3f} | {size} |")
        cpu, wall, size = measure(["check", "content"], copy, args.repeat, before=move)
        print(f"| `cardc check content` (lines inserted at the top of `{name}` before each run: every token in it "
              f"moves, none changes) | {cpu:.3f} | {wall:.3f} | {size} |")
        cpu, wall, size = measure(["check", "content"], copy, args.repeat, before=change)
        print(f"| `cardc check content` (a value changed in `{name}` before each run: its `source:` text; its tree "
              f"made from the last one, the entity lowered and checked again) | {cpu:.3f} | {wall:.3f} | {size} |")
        name_token = text.split("ability ", 1)[1].split(" ", 1)[0] if "ability " in text else None
        if name_token is None:
            raise SystemExit(f"{edited}: no `ability` to rename")

        def rename(i: int) -> None:  # a name is one token too: its tree is made from the last one
            edited.write_text(text.replace(f"ability {name_token}", f"ability {name_token}_{i + 2}", 1),
                              encoding="utf-8")

        cpu, wall, size = measure(["check", "content"], copy, args.repeat, before=rename)
        print(f"| `cardc check content` (a name changed in `{name}` before each run: `ability {name_token}` renamed; "
              f"its tree made from the last one, the entity lowered and checked again) | {cpu:.3f} | {wall:.3f} "
              f"| {size} |")
        if text.count('source: "') < 2:
            raise SystemExit(f"{edited}: fewer than two `source:` attributes")

        def change_two(i: int) -> None:  # two tokens, far apart: made a token at a time
            edited.write_text(text.replace('source: "', f'source: "edit {i}: ', 2), encoding="utf-8")

        cpu, wall, size = measure(["check", "content"], copy, args.repeat, before=change_two)
        print(f"| `cardc check content` (two values changed in `{name}` before each run: its first two `source:` "
              f"texts; its tree made from the last one a token at a time) | {cpu:.3f} | {wall:.3f} | {size} |")
        edited.write_text(text, encoding="utf-8")
        off = {"CARDC_CACHE": "off"}
        cpu, wall, size = measure(["check", "content"], copy, args.repeat, env=off)
        print(f"| `CARDC_CACHE=off cardc check content` (nothing cached) | {cpu:.3f} | {wall:.3f} | {size} |")
        if args.only_content:
            return
        synthetic = Path(tmp) / "synthetic"
        synthetic.mkdir()
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_synthetic.py"), str(args.cards), str(synthetic)],
                       check=True)
        results = {}
        for flags in (["-q"], ["--show-provisional"]):
            cpu, wall, size = measure(["check", *flags, "."], synthetic, args.repeat, warmup=not args.no_warmup,
                                      env=off)
            results[flags[0]] = cpu
            print(f"| `CARDC_CACHE=off cardc check {flags[0]}` ({args.cards} cards) | {cpu:.3f} | {wall:.3f} "
                  f"| {size} |")
        print(f"\n--show-provisional / -q (CPU): {results['--show-provisional'] / results['-q']:.2f}x")


if __name__ == "__main__":
    main()
