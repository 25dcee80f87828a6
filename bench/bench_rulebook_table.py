"""One rulebook page holding one table of N rows, laid out as one table and in TABLE_CHUNK chunks (CPU seconds).

    python3 bench/bench_rulebook_table.py 2500 10000 20000

reportlab builds the rest of a table anew at each page split, so one table of n rows costs O(n^2 / rows per page);
the rulebook lays long tables out in chunks (issue 11.7: found in the 100,000-card rulebook's profile).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from cardc.backends.print import rulebook
from cardc.backends.print.settings import parse_settings


def _page(n: int) -> dict[str, object]:
    rows = [[[{"t": f"row {i}"}], [{"t": str(i)}]] for i in range(n)]
    table = {"type": "table", "head": ["Name", "Value"], "rows": rows}
    return {"title": "List", "stem": "list", "sections": [{"id": "s", "title": "", "blocks": [table]}]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int, nargs="+")
    args = parser.parse_args()
    settings, _ = parse_settings({})
    chunk = rulebook.TABLE_CHUNK
    print("| rows | layout | CPU s | ms per row | pages |")
    print("|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.rows:
            for size, label in ((n + 1, "one table"), (chunk, f"chunks of {chunk}")):
                rulebook.TABLE_CHUNK = size
                start = time.process_time()
                pages = rulebook.Rulebook({}, {}, settings).write(Path(tmp) / "t.pdf", "Long", [_page(n)], {})
                took = time.process_time() - start
                print(f"| {n:,} | {label} | {took:.2f} | {took / n * 1000:.3f} | {pages} |", flush=True)
    rulebook.TABLE_CHUNK = chunk


if __name__ == "__main__":
    main()
