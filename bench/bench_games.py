"""Whole games in one process, by CPU time or by instructions: issue 10.7's figure, and one that holds on any day.

    python3 bench/bench_games.py --bot sensible --games 80               # games per CPU second, records digest
    python3 bench/bench_games.py --bot greedy --games 40 --again         # then the same games again, caches warm
    python3 bench/bench_games.py --bot sensible --games 10 --instructions  # instructions per game (valgrind)
    python3 bench/bench_games.py --bot greedy --games 10000 --seed 11 --chunk 1000  # the rate per 1,000 games

Compiles content/ and plays games FIRST .. FIRST+N-1 (seed 1: each game's seed from (1, index)) of 4-player
Karak with Regent in this process, by `play_batch`, as one worker of `cardc simulate` does (`--runtime
compiled`: on the build of the runtime with the game's rules that a run of 50,000 games or more makes,
compiled_rules.py; profile-guided where gcc allows it, trained on this bench's set-up if it makes the first such
build of a cardc version, pgo.py). It prints games per CPU second (user + system of this process, the table and
the package loaded before timing) and the sha256 of the records' `repr`: the same digest means the same games, so two
versions of the code can be compared on the same games. The greedy bot's exact odds kept between runs
(`cardc.simulation.odds_store`) are not used: each run starts without them, as a first run does.

On a shared or throttled virtual machine a CPU second is not a fixed amount of work (this project's machine has
run 2.3x slower on some mornings than on a quiet evening). `--instructions` counts instead the instructions the
games execute, under valgrind's callgrind: the same count on any day and at any load. With the compiled runtime
it counts inside `play_game` only (`--toggle-collect`); with the Python runtime it runs twice, with the games and
without them, and subtracts.

`--chunk N` prints the rate of each N games as well: the first chunks meet fights the greedy bot has not
weighed yet (its exact odds), the later ones settle at the rate of a long run, which `--again` (the same games
replayed, every answer already known) overstates. `machine_probe_s` is the CPU time of `sum(range(10**8))` in
this process, best of 3 (2.48 s on this project's machine on its slowest morning, 1.67-2.28 s later that day):
the day's speed, printed next to the figures so that runs of different days can be told apart. It measures the
interpreter's build too (0.75 s on Debian's CPython 3.11, 1.43 s on a pyenv build of it, side by side): `python`
names the interpreter that ran the games.

Timing only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAY_GAME = "CPyPy_engine___play_game"  # the compiled runtime's entry of `engine.play_game`


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def machine_probe() -> float:
    """CPU seconds of a fixed pure-Python loop, best of 3: how fast this machine runs today."""
    best = float("inf")
    for _ in range(3):
        t = _cpu()
        sum(range(10**8))
        best = min(best, _cpu() - t)
    return round(best, 2)


def interpreter() -> str:
    """The Python that ran the games: its build counts as much as the machine (the same games ran 29% faster
    on Debian's CPython 3.11, built with profile-guided optimisation, than on a pyenv build of 3.11 without it,
    on one machine at one time: bench/README)."""
    import platform

    return f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})"


def play(args: argparse.Namespace) -> dict[str, object]:
    """Play the games in this process; their CPU time, rate and digest (and a second round with `--again`)."""
    from cardc.frontend import compile_paths
    from cardc.simulation.jobs import Job, package_files, package_name

    project = compile_paths([Path(args.content)]).project
    files, digest = package_files(project, "karak")
    if args.runtime == "compiled":  # before anything imports a runtime: as `cardc simulate` does for a big run
        from cardc.backends.python.accel import ENV
        from cardc.backends.python.compiled_rules import compiled_runtime
        from cardc.simulation.training import trainer

        where = compiled_runtime(files, package_name("karak", digest), digest,
                                 lambda text: print(f"note: {text}", file=sys.stderr),
                                 trainer(Job("karak", files, digest, args.players,
                                             tuple(args.expansion or ["regent"]), (), args.bot)))
        if where is None:
            raise SystemExit("the compiled runtime could not be built")
        os.environ[ENV] = str(where)
    from cardc.simulation import odds_store

    odds_store.path_for = lambda *_: None  # every run starts without kept odds
    from cardc.backends.python.accel import is_compiled
    from cardc.simulation.runner import play_batch
    from cardc.simulation.table import validate

    job = validate(Job("karak", files, digest, args.players, tuple(args.expansion or ["regent"]), (), args.bot))
    play_batch(job, 0, [])  # the package loaded and the table built before timing
    if is_compiled() != (args.runtime == "compiled"):
        raise SystemExit(f"asked for the {args.runtime} runtime, got the other one")
    indices = list(range(args.first, args.first + args.games))
    out: dict[str, object] = {"bot": args.bot, "games": args.games, "first": args.first,
                              "runtime": args.runtime, "players": args.players, "python": interpreter()}
    for round_ in range(2 if args.again else 1):
        cpu = _cpu()
        if args.chunk:  # (the same games in the same order, timed a chunk at a time)
            records, rates = [], []
            for at in range(0, len(indices), args.chunk):
                chunk, part = indices[at:at + args.chunk], _cpu()
                records += play_batch(job, args.seed, chunk)
                rates.append(round(len(chunk) / max(_cpu() - part, 1e-9), 1))
            out[f"{'warm_' if round_ else ''}chunk_games_per_cpu_s"] = rates
        else:
            records = play_batch(job, args.seed, indices)
        cpu = _cpu() - cpu
        name = "warm_" if round_ else ""
        out[f"{name}cpu_s"] = round(cpu, 3)
        out[f"{name}games_per_cpu_s"] = round(args.games / cpu, 1) if cpu > 0 else None
        out[f"{name}digest"] = hashlib.sha256(repr(records).encode()).hexdigest()[:16]
    return out


def _callgrind(argv: list[str], toggle: str | None) -> int:
    """Instructions callgrind counted running this script with `argv` (inside `toggle` only, if given)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        if toggle:
            cmd.append(f"--toggle-collect={toggle}")
        env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same set orders, the same count every run
        proc = subprocess.run([*cmd, sys.executable, __file__, *argv], capture_output=True, text=True, env=env,
                              check=False)
        if proc.returncode != 0:
            raise SystemExit(f"the run under valgrind failed:\n{proc.stderr[-2000:]}")
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        if found is None:
            raise SystemExit("callgrind wrote no total")
        return int(found.group(1))


def count_instructions(args: argparse.Namespace) -> dict[str, object]:
    """Instructions per game, under callgrind; the games' digest from the same run without valgrind."""
    base = ["--bot", args.bot, "--first", str(args.first), "--seed", str(args.seed), "--players", str(args.players),
            "--runtime", args.runtime, "--content", args.content, "--json"]
    for e in args.expansion or []:
        base += ["--expansion", e]
    if args.runtime == "compiled":
        subprocess.run([sys.executable, __file__, *base, "--games", "0"], check=True, capture_output=True)  # build
        total = _callgrind([*base, "--games", str(args.games)], PLAY_GAME)
    else:
        total = (_callgrind([*base, "--games", str(args.games)], None)
                 - _callgrind([*base, "--games", "0"], None))
    return {"bot": args.bot, "games": args.games, "first": args.first, "runtime": args.runtime,
            "instructions": total, "instructions_per_game_M": round(total / args.games / 1e6, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="sensible")
    parser.add_argument("--games", type=int, default=80)
    parser.add_argument("--first", type=int, default=0, help="index of the first game (default 0)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--expansion", action="append", help="default: regent")
    parser.add_argument("--runtime", choices=("compiled", "python"), default="compiled")
    parser.add_argument("--content", default=str(ROOT / "content"))
    parser.add_argument("--again", action="store_true", help="then play the same games again (caches warm)")
    parser.add_argument("--instructions", action="store_true", help="count instructions under valgrind")
    parser.add_argument("--probe", action="store_true", help="also time sum(range(10**8)): the day's speed")
    parser.add_argument("--chunk", type=int, default=0,
                        help="also print the rate of each chunk of this many games (new games after the first "
                             "chunks: the rate a long run settles at)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.games < 0:
        parser.error("--games must be 0 or more")
    figures = count_instructions(args) if args.instructions else play(args)
    if args.probe:
        figures["machine_probe_s"] = machine_probe()
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>24}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
