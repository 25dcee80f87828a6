"""Time the full Karak odds table (every hero against every monster) under every combination of variants.

    python3 bench/bench_odds.py [--loadout all|none|typical] [--json]

Compiles content/, generates and imports the rule packages, then computes each table by exact
enumeration (the same code as `cardc odds --table` and the balance backend). Prints one line per
loadout and variant combination, then the totals. Timing only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardc.backends.python.balance import declarations, fight_table, fight_variants  # noqa: E402
from cardc.backends.python.loader import load_games  # noqa: E402
from cardc.frontend import compile_paths  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loadout", choices=("all", "none", "typical"), default="all")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-reuse", action="store_true", help="compute every fight under every combination, "
                        "even where a variant cannot change it (by default such fights are shared)")
    args = parser.parse_args()

    start = time.perf_counter()
    result = compile_paths([ROOT / "content"])
    rules = load_games(result.project)["karak"].ruleset()
    setup = time.perf_counter() - start

    decl = next(d for d in declarations(result.project, "karak") if d.opponent and d.loadouts)
    declared = decl.loadouts
    loadouts = {"all": declared, "none": declared[:1], "typical": declared[-1:]}[args.loadout]
    variants = rules.variant_ids()
    combos = [c for n in range(len(variants) + 1) for c in combinations(variants, n)]
    relevant = None if args.no_reuse else fight_variants(result.project, "karak", decl)
    cache: dict[object, object] = {}
    rows = []
    for loadout in loadouts:
        for combo in combos:
            t, cpu = time.perf_counter(), time.process_time()
            table = fight_table(rules, decl, combo, loadout.items, relevant, cache)
            rows.append({"loadout": loadout.label, "variants": list(combo), "fights": len(table["rows"]) *
                         len(table["opponents"]), "seconds": round(time.perf_counter() - t, 3),
                         "cpu_seconds": round(time.process_time() - cpu, 3)})
    total = sum(r["seconds"] for r in rows)
    cpu_total = sum(r["cpu_seconds"] for r in rows)
    fights = sum(r["fights"] for r in rows)
    summary = {"reuse": not args.no_reuse, "computed_fights": len(cache) if relevant is not None else fights,
               "python": platform.python_version(), "machine": platform.machine(), "setup_seconds": round(setup, 2),
               "tables": len(rows), "fights": fights, "seconds": round(total, 2), "cpu_seconds": round(cpu_total, 2),
               "ms_per_fight": round(1000 * total / max(1, fights), 2),
               "cpu_ms_per_fight": round(1000 * cpu_total / max(1, fights), 2)}
    if args.json:
        print(json.dumps({"summary": summary, "rows": rows}, indent=1))
        return 0
    for r in rows:
        print(f"{r['loadout']:<36} {', '.join(r['variants']) or '-':<58} {r['fights']:>4} fights "
              f"{r['seconds']:>7.2f} s wall {r['cpu_seconds']:>7.2f} s CPU")
    print(f"compile + generate + import: {summary['setup_seconds']} s; fights computed: "
          f"{summary['computed_fights']} (reuse of fights a variant cannot change: {summary['reuse']})")
    print(f"{summary['tables']} tables, {fights} fights: {summary['seconds']} s wall "
          f"({summary['ms_per_fight']} ms per fight), {summary['cpu_seconds']} s CPU "
          f"({summary['cpu_ms_per_fight']} ms per fight), Python {summary['python']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
