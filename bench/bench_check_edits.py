"""`cardc check content` after an edit, this code against other code, alternating run by run (issue 16.3).

    python3 bench/bench_check_edits.py --against /tmp/before/pkg             # 11 runs of each, interleaved
    python3 bench/bench_check_edits.py --against /tmp/before/pkg --repeat 21
    python3 bench/bench_check_edits.py --against /tmp/before/pkg --cold     # and with the cache off

`--against` is a PYTHONPATH put first for the other code: a folder holding `cardc` (an export of an older commit's
`compiler/`, its `dsl/` linked in as `cardc/dsl`, as the README's sections describe). On a shared machine the CPU
time of one run depends on what the others do at that moment; running the two codes one after the other, edit by
edit, gives both the same moments, where two whole runs of bench_startup.py a minute apart do not.

Each side has its own copy of content/ and its own cache folder. For each kind of edit (`bench_startup.py` has
the same ones), one warm-up per side, then `--repeat` rounds of: edit this side's copy, check; edit the other's,
check. CPU time (user + system) of each child; the table gives the median and the least of each side.
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDITED = "content/karak/base/heroes.cardc"


def _edits(text: str) -> dict[str, Callable[[int], str] | None]:
    """Each kind of edit: the file's text before run `i` (None: left as it is)."""
    ability = text.split("ability ", 1)[1].split(" ", 1)[0]
    return {
        "nothing changed": None,
        "a comment appended": lambda i: f"{text}// edit {i}\n",
        "a value changed (its first `source:` text)": lambda i: text.replace('source: "', f'source: "edit {i}: ', 1),
        f"a name changed (`ability {ability}` renamed)":
            lambda i: text.replace(f"ability {ability}", f"ability {ability}_{i + 2}", 1),
        "two values changed (its first two `source:` texts: parsed)":
            lambda i: text.replace('source: "', f'source: "edit {i}: ', 2),
    }


def _check(folder: Path, pythonpath: str | None, cold: bool = False) -> float:
    """CPU seconds of one `cardc check content` in `folder` (`cold`: with the cache off)."""
    env = {**os.environ, "NO_COLOR": "1", "CARDC_CACHE_DIR": str(folder / "cache"),
           "PYTHONPYCACHEPREFIX": str(folder / "pyc")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode kept, as an installed wheel has it
    env.pop("CARDC_CACHE", None)
    if cold:
        env["CARDC_CACHE"] = "off"
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "cardc", "check", "content"], cwd=folder, capture_output=True,
                          env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"cardc check failed in {folder}: {proc.stderr.decode()[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", required=True, metavar="PYTHONPATH", help="where the other code's `cardc` is")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--cold", action="store_true", help="also `CARDC_CACHE=off` (a first check on a new machine)")
    parser.add_argument("--only-cold", action="store_true", help="only `CARDC_CACHE=off`")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # each row as soon as it is measured
    sides = {"this code": None, "--against": str(Path(args.against).resolve())}
    print(f"| `cardc check content`, `{EDITED}` edited before each run | this code: median | least "
          f"| --against: median | least |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        folders = {side: Path(tmp) / f"side{n}" for n, side in enumerate(sides)}
        for folder in folders.values():
            shutil.copytree(ROOT / "content", folder / "content")  # shown as content/...: the same cache keys
        text = (ROOT / EDITED).read_text(encoding="utf-8")
        rows = {} if args.only_cold else _edits(text)
        if args.cold or args.only_cold:
            rows["`CARDC_CACHE=off` (nothing cached)"] = None
        for label, edit in rows.items():
            times: dict[str, list[float]] = {side: [] for side in sides}
            for i in range(-1, args.repeat):
                for side, pythonpath in sides.items():
                    (folders[side] / EDITED).write_text(text if edit is None else edit(i), encoding="utf-8")
                    cpu = _check(folders[side], pythonpath, cold=label.startswith("`CARDC_CACHE=off`"))
                    if i >= 0:
                        times[side].append(cpu)
            cells = " | ".join(f"{statistics.median(t):.3f} | {min(t):.3f}" for t in times.values())
            print(f"| {label} | {cells} |")


if __name__ == "__main__":
    main()
