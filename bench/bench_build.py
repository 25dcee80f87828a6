"""`cardc build` of the bundled content: the first build by backend, a rebuild with nothing changed, and a
rebuild after changing one card's name. Prints a Markdown table.

    python3 bench/bench_build.py [--content content]

The content is copied to a temporary folder (the edit never touches the repository). Each build is a real
`cardc build` process; CPU time is the child's user+system time (stable on a shared machine), wall-clock too.
Per-backend figures come from the build's own summary of the first build.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _build(content: Path, out: Path) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "cardc", "build", str(content), "--out", str(out)],
                         capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"cardc build failed:\n{run.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, run.stderr


def _per_backend(log: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^  (\w+)\s+.*?, (reused|[\d.]+ s): ", log, re.M)}


def _edit_one_card(content: Path) -> str:
    """Rename the first card of the first file that has an English name; return which file changed."""
    for path in sorted(content.rglob("*.cardc")):
        text = path.read_text(encoding="utf-8")
        match = re.search(r'(\bname: \{[^}]*\ben ")([^"]+)(")', text)
        if match and "\nkind " not in text:
            path.write_text(text[:match.start(2)] + match.group(2) + " II" + text[match.end(2):], encoding="utf-8")
            return path.relative_to(content).as_posix()
    raise SystemExit("no card to edit")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--content", type=Path, default=ROOT / "content")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cardc-bench-build-"))
    try:
        content = work / "content"
        shutil.copytree(args.content, content)
        out = work / "out"
        first = _build(content, out)
        noop = _build(content, out)
        assert "is up to date" in noop[2], noop[2]
        edited = _edit_one_card(content)
        edit = _build(content, out)
        images = re.search(r"^  print .*?(\d+) images(?: \((\d+) reused\))?", edit[2], re.M)
        total = int(images.group(1)) if images else 0
        redrawn = total - int(images.group(2) or 0) if images else 0
        rows = [("first build", first), ("no-op rebuild", noop), (f"one card renamed ({edited})", edit)]
        print("| build | CPU s | wall s |")
        print("|---|---|---|")
        for name, (cpu, wall, _) in rows:
            print(f"| {name} | {cpu:.2f} | {wall:.2f} |")
        print()
        print(f"card PNGs redrawn by the one-card edit: {redrawn} of {total}")
        print()
        first_by, edit_by = _per_backend(first[2]), _per_backend(edit[2])
        print("| backend | first build (wall) | one-card edit (wall) |")
        print("|---|---|---|")
        for name in first_by:
            print(f"| {name} | {first_by[name]} | {edit_by.get(name, '-')} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
