"""Time whole-game playouts: 4-player Karak games (base + Regent) per second on one core, the speed-up with
2 workers, and the profile's top entries.

    python3 bench/bench_simulate.py [--games N] [--bot greedy|sensible|random] [--players 4] [--json]
    python3 bench/bench_simulate.py --games 3 --bot sensible --opcodes 3   # + opcodes per game, by function

Compiles content/, then plays the same games (seed 1, game seeds from (1, i)) with 1 worker in this process,
then with 2 worker processes, and profiles one more run of a few games with cProfile. Besides wall-clock
rates it reports games per CPU second (this process and its workers), the per-core figure that holds on a
shared machine. The 1- and 2-worker
runs must report the same statistics (the script says whether they did). `--opcodes N` also counts the Python
opcodes and calls of N games (seed 1) per function by tracing them: about 30x slower, but the same count on any
machine at any load (CPU seconds on a shared machine move by 10-20%). Timing only: nothing is asserted.
A bot's caches (the greedy bot's exact fight odds) warm up in each process: the first games are slower;
`warm_1_*` times the same games played again in the 1-worker process, every cache warm. The greedy bot's odds
kept between runs (`cardc.simulation.odds_store`) are not used unless `--odds-store` is given.
`--runtime compiled` plays on the runtime compiled by mypyc with the game's rules (built once and cached, as
`cardc simulate` does for 50,000 games or more; `--opcodes` then counts only what stays Python).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardc.frontend import compile_paths  # noqa: E402
from cardc.simulation.jobs import Job, package_files  # noqa: E402
from cardc.simulation.runner import play_batch, run  # noqa: E402
from cardc.simulation.stats import summarize  # noqa: E402
from cardc.simulation.table import validate  # noqa: E402


def _cpu() -> float:
    """User + system CPU seconds of this process and of its children that have ended."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def count_opcodes(job: Job, games: int, top_n: int = 15) -> tuple[dict[str, object], list[str]]:
    """Opcodes and calls of `games` games (seed 1) in all, per game, and the top functions by own opcodes."""
    from cardc.simulation.seeds import game_seed
    from cardc.simulation.table import table_for

    table = table_for(job)
    ops: Counter[CodeType] = Counter()
    calls: Counter[CodeType] = Counter()

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "opcode":
            ops[frame.f_code] += 1
        elif event == "call":
            calls[frame.f_code] += 1
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        return tracer

    sys.settrace(tracer)
    try:
        for i in range(games):
            table.play(i, game_seed(1, i))
    finally:
        sys.settrace(None)
    total = sum(ops.values())
    top = [f"{100 * n / total:5.1f}% {n / games:9.0f} opcodes {calls[code] / games:7.0f} calls  {code.co_name} "
           f"({Path(code.co_filename).name}:{code.co_firstlineno})" for code, n in ops.most_common(top_n)]
    return {"opcodes_per_game": round(total / games), "calls_per_game": round(sum(calls.values()) / games)}, top


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--bot", default="greedy")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--expansion", action="append", default=None)
    parser.add_argument("--profile-games", type=int, default=5)
    parser.add_argument("--odds-store", action="store_true",
                        help="let the greedy bot read and keep its exact odds in the user's cache (off by default: "
                             "every run starts without them, as a first run does)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--opcodes", type=int, default=0, metavar="N",
                        help="also count the opcodes of N games per function (deterministic, slow)")
    parser.add_argument("--top", type=int, default=15, help="functions listed with --opcodes (default 15)")
    parser.add_argument("--runtime", choices=("python", "compiled"), default="python",
                        help="the Python runtime (default) or the one compiled by mypyc (built once, cached)")
    args = parser.parse_args()
    project = compile_paths([ROOT / "content"]).project
    files, digest = package_files(project, "karak")
    if args.runtime == "compiled":  # before anything imports a runtime; the forked workers inherit it
        from cardc.backends.python.accel import ENV
        from cardc.backends.python.compiled_rules import compiled_runtime
        from cardc.simulation.jobs import package_name
        from cardc.simulation.training import trainer

        # (the build of the runtime with the game's rules, as a run of 50,000 games or more makes it: profile-guided)
        where = compiled_runtime(files, package_name("karak", digest), digest,
                                 lambda text: print(f"note: {text}", file=sys.stderr),
                                 trainer(Job("karak", files, digest, args.players,
                                             tuple(args.expansion if args.expansion is not None else ["regent"]),
                                             (), args.bot)))
        if where is None:
            return 1
        os.environ[ENV] = str(where)
    if not args.odds_store:  # (forked workers inherit it)
        from cardc.simulation import odds_store

        odds_store.path_for = lambda *_: None  # type: ignore[assignment]
    expansions = tuple(args.expansion if args.expansion is not None else ["regent"])

    start = time.perf_counter()
    job = validate(Job("karak", files, digest, args.players, expansions, (), args.bot))
    play_batch(job, 0, [])  # load the package and build the table before timing
    from cardc.backends.python.accel import is_compiled

    if args.runtime == "compiled" and not is_compiled():
        print("the compiled runtime did not load", file=sys.stderr)
        return 1
    setup = time.perf_counter() - start

    figures: dict[str, object] = {"games": args.games, "bot": args.bot, "players": args.players,
                                  "expansions": list(expansions), "setup_s": round(setup, 2),
                                  "python": platform.python_version(), "cpus": os.cpu_count(),
                                  "runtime": args.runtime}
    stats = {}
    for workers in (2, 1):  # 2 first: forked workers must not inherit caches warmed by the 1-worker run
        t0 = time.perf_counter()
        cpu0 = _cpu()
        result = run([job], args.games, 1, workers=workers)
        dt = time.perf_counter() - t0
        cpu = _cpu() - cpu0
        stats[workers] = summarize(result.records[0])
        figures[f"workers_{workers}_s"] = round(dt, 2)
        figures[f"workers_{workers}_games_per_s"] = round(args.games / dt, 3)
        # CPU seconds of this process and its finished workers: what a game costs a core, whatever else
        # the machine runs (wall-clock on a shared machine measures the other programs too)
        figures[f"workers_{workers}_cpu_s"] = round(cpu, 2)
        figures[f"workers_{workers}_games_per_cpu_s"] = round(args.games / cpu, 3) if cpu > 0 else None
    # the same games again in this process: every cache a bot keeps (the greedy bot's odds) is warm
    cpu0 = _cpu()
    play_batch(job, 1, list(range(args.games)))
    cpu = _cpu() - cpu0
    figures["warm_1_cpu_s"] = round(cpu, 2)
    figures["warm_1_games_per_cpu_s"] = round(args.games / cpu, 3) if cpu > 0 else None
    figures["speedup_2_workers"] = round(float(figures["workers_2_games_per_s"])  # type: ignore[arg-type]
                                         / float(figures["workers_1_games_per_s"]), 2)  # type: ignore[arg-type]
    figures["same_statistics"] = stats[1] == stats[2]
    figures["mean_turns"] = round(stats[1]["length"]["mean"], 1)
    figures["capped_share"] = round(stats[1]["turn_cap"]["share"], 3)

    profile = cProfile.Profile()
    profile.enable()
    play_batch(job, 2, list(range(args.profile_games)))
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(12)
    top: list[str] = []
    if args.opcodes:
        counts, top = count_opcodes(job, args.opcodes, args.top)
        figures.update(counts)
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        for key, value in figures.items():
            print(f"{key:>26}: {value}")
        print(f"\nprofile (internal time) of {args.profile_games} more games (seed 2), one process:")
        lines = text.getvalue().splitlines()
        start_at = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
        print("\n".join(lines[start_at:start_at + 13]))
        if top:
            print(f"\nown opcodes per game of {args.opcodes} games (seed 1), top functions:")
            print("\n".join(top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
