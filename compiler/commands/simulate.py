"""`cardc simulate`: play many whole games with bots and report win rates, game length, lives, items.

Each game's seed derives from (--seed, game index), so the figures are identical for any --workers and for
--engine local or ray. Ctrl-C stops the run and reports the games that finished.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from cardc.diagnostics import did_you_mean

EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A value on the command line that the content or the engine does not accept (exit 2)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", required=True, help="the id of the game to play, as its `game` declaration names it")
    p.add_argument("--players", type=int, default=None, help="players per game (default 2, or as many as --heroes)")
    p.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="run seed; game i plays with a seed derived from (seed, i)")
    p.add_argument("--expansion", action="extend", nargs="+", default=[], metavar="ID",
                   help="expansions in play besides the base game (repeatable)")
    p.add_argument("--variant", action="extend", nargs="+", default=[], metavar="ID",
                   help="variants switched on (repeatable)")
    p.add_argument("--bot", default="greedy", help="the bot every player uses: a registered name (random, greedy) "
                   "or module:Class / path/to/file.py:Class (default greedy)")
    p.add_argument("--heroes", metavar="ID,ID", help="the heroes in play (default: drawn for each game by its seed)")
    p.add_argument("--turn-cap", type=int, help="turns (all players counted) after which a game is stopped and "
                   "counted as capped (default 400)")
    p.add_argument("--workers", type=int, help="processes (default: every core)")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local process pool (default) or Ray tasks")
    p.add_argument("--ray-address", metavar="ADDR", help="a running Ray cluster (default: start a local Ray)")
    p.add_argument("--sweep", action="append", default=[], metavar="KEY=VALUES",
                   help="a grid axis: players=2..5, variant=none,critical_hits, expansion=none,regent, "
                   "bot=random,greedy (repeatable; one table per cell)")
    p.add_argument("--content", type=Path, default=Path("content"), help="content folder (default: content/)")
    p.add_argument("--runtime", choices=("auto", "compiled", "python"), default=None,
                   help="the engine's code: `compiled` compiles it with mypyc once (about a minute; every built-in "
                   "bot, 1.5-2 times as fast, the same games), `python` never uses that build, `auto` uses it once "
                   "built and builds it for 5,000 games or more (default: $CARDC_RUNTIME, else auto)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from cardc.cli import _front, _report
    from cardc.simulation.runner import SimulationError

    result = _front([args.content])
    if _report([d for d in result.diagnostics if d.is_error], result.sources):
        return 1
    from cardc.backends.python import compiled_rules
    from cardc.backends.python.accel import ENV

    before = {name: os.environ.get(name) for name in (ENV, compiled_rules.ENV)}
    try:
        use_runtime(args, _package(result.project, args.game))
        try:
            jobs, cells = make_jobs(result.project, args)
        except UsageError as e:
            print(f"cardc simulate: error: {e}", file=sys.stderr)
            return 2
        try:
            data, interrupted = simulate(jobs, cells, args)
        except SimulationError as e:
            print(f"cardc simulate: error: {e}", file=sys.stderr)
            return 2
    finally:  # (the compiled runtime's folder and the rules' switch are for this run's own processes)
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    if args.json:
        sys.stdout.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render(data))
    if interrupted:
        print(f"interrupted: {data['finished']} of {data['requested']} games finished and are reported above",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _package(project: Any, game: str) -> tuple[tuple[tuple[str, str], ...], str] | None:
    """The game's generated files and their digest, if the content has the game (else make_jobs says so)."""
    from cardc.simulation.jobs import package_files

    return package_files(project, game) if game in project.games else None


def use_runtime(args: argparse.Namespace, package: tuple[tuple[tuple[str, str], ...], str] | None = None) -> None:
    """Choose the runtime of this run (`--runtime`) before anything imports one; the processes the run starts
    find the compiled one's folder in the environment. A run that cannot use it plays on the Python runtime
    (the same games), with a note when one was asked for or would be worth it. On the compiled runtime the
    game's rules (`package`: its files and digest) are compiled with it where a build of both is there, or
    built for a run of `compiled_rules.BUILD_FROM` games or more (compiled_rules.py; unless
    `CARDC_COMPILED_RULES` says otherwise)."""
    from cardc.backends.python import compiled_rules
    from cardc.backends.python.accel import ENV, MODES, choose, is_compiled, may_compile
    from cardc.backends.python.loader import ensure_runtime
    from cardc.simulation.jobs import Job, package_name
    from cardc.simulation.sweep import SweepError, parse_axis
    from cardc.simulation.training import trainer

    def note(text: str) -> None:
        print(f"cardc simulate: note: {text}", file=sys.stderr)

    bots, cells = {args.bot}, 1
    try:
        for axis in map(parse_axis, args.sweep):
            cells *= len(axis.values)
            if axis.key == "bot":
                bots = set(axis.values)
    except SweepError:
        pass  # (reported by make_jobs)
    mode = args.runtime or os.environ.get("CARDC_RUNTIME", "auto")
    if mode not in MODES:
        note(f"CARDC_RUNTIME={mode!r} is not one of {', '.join(MODES)}: auto")
        mode = "auto"
    compiled = may_compile(mode, bots)
    if compiled and compiled_rules.ENV not in os.environ:
        os.environ[compiled_rules.ENV] = "build" if args.games * cells >= compiled_rules.BUILD_FROM else "cached"
    where: Path | None = None
    if package is not None and compiled:
        # the build with the rules first: it holds the runtime, so a run that makes it (or finds it) does not
        # also compile the runtime alone, a minute for nothing; the runtime alone when it cannot be had. A build
        # made here is profile-guided, trained on games of this run's set-up (training.py)
        files, digest = package
        train = trainer(Job(args.game, files, digest, args.players or 0, tuple(args.expansion),
                            tuple(args.variant), args.bot, args.turn_cap, _heroes(args)))
        where = compiled_rules.runtime_for(files, package_name(args.game, digest), digest, note, train)
    if where is None:
        where = choose(mode, bots, args.games * cells, note)
    if where is None:
        return
    os.environ[ENV] = str(where)
    ensure_runtime()
    if not is_compiled() and mode == "compiled":
        note("this process imported the Python runtime before: playing on it")


def _heroes(args: argparse.Namespace) -> tuple[str, ...]:
    """The heroes `--heroes` names (none: drawn for each game)."""
    return tuple(h.strip() for h in (args.heroes or "").split(",") if h.strip())


def _check(kind: str, ident: str, known: list[str]) -> None:
    if ident not in known:
        hint = did_you_mean(ident, known)
        raise UsageError(f"unknown {kind} `{ident}`" + (f"; {hint}" if hint else f"; known: {', '.join(known)}"))


def make_jobs(project: Any, args: argparse.Namespace) -> tuple[list[Any], list[dict[str, str]]]:
    """One job per sweep cell (one job without --sweep), every name checked against the content."""
    from cardc.simulation.bots_loader import bot_names, check_bot
    from cardc.simulation.jobs import Job, package_files
    from cardc.simulation.sweep import SweepError, cells, parse_axis, switched
    from cardc.simulation.table import TableError, validate

    if args.game not in project.games:
        _check("game", args.game, sorted(project.games))
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.ray_address and args.engine != "ray":
        raise UsageError("--ray-address needs --engine ray")
    try:
        grid = cells([parse_axis(a) for a in args.sweep]) if args.sweep else [{}]
    except SweepError as e:
        raise UsageError(str(e)) from None
    files, digest = package_files(project, args.game)
    heroes = _heroes(args)
    jobs = []
    for cell in grid:
        bot = cell.get("bot", args.bot)
        try:
            check_bot(bot)
        except LookupError as e:
            raise UsageError(f"{e}; registered bots: {', '.join(bot_names())}") from None
        job = Job(args.game, files, digest, int(cell.get("players", args.players or 0)),
                  tuple(dict.fromkeys([*args.expansion, *switched(cell.get("expansion", "none"))])),
                  tuple(dict.fromkeys([*args.variant, *switched(cell.get("variant", "none"))])),
                  bot, args.turn_cap, heroes, ", ".join(f"{k}={v}" for k, v in cell.items()))
        try:
            jobs.append(validate(job))
        except TableError as e:
            raise UsageError(str(e)) from None
    return jobs, grid


def simulate(jobs: list[Any], grid: list[dict[str, str]], args: argparse.Namespace) -> tuple[dict[str, Any], bool]:
    """Run every cell with a progress bar; the JSON-ready report and whether Ctrl-C stopped it."""
    from cardc.backends.python.accel import is_compiled
    from cardc.simulation.runner import run
    from cardc.simulation.stats import summarize
    from cardc.simulation.table import names_of

    total = args.games * len(jobs)
    started = time.perf_counter()
    with _progress(total, not args.no_progress) as advance:
        outcome = run(jobs, args.games, args.seed, workers=args.workers, engine=args.engine,
                      ray_address=args.ray_address, on_batch=lambda cell, recs: advance(len(recs)))
    elapsed = time.perf_counter() - started
    if args.engine == "ray":
        from cardc.simulation.ray_engine import stop_local_ray

        stop_local_ray()
    out_cells = []
    for i, (job, cell) in enumerate(zip(jobs, grid, strict=True)):
        summary = summarize(outcome.records.get(i, []), requested=args.games)
        out_cells.append({"cell": cell, "setup": job.describe(), **summary})
    data = {"game": args.game, "seed": args.seed, "requested": total, "finished": outcome.finished,
            "interrupted": outcome.interrupted, "engine": outcome.engine, "workers": outcome.workers,
            "seconds": round(elapsed, 3), "runtime": "compiled" if is_compiled() else "python",
            "names": names_of(jobs[0]), "cells": out_cells}
    return data, outcome.interrupted


def render(data: dict[str, Any]) -> str:
    from cardc.simulation.stats import render_text

    parts = []
    for cell in data["cells"]:
        setup = cell["setup"]
        title = (f"{data['game']}: {setup['players']} players, expansions: {', '.join(setup['expansions']) or 'none'}"
                 f", variants: {', '.join(setup['variants']) or 'none'}, bot: {setup['bot']}, seed {data['seed']}")
        if cell["cell"]:
            title = f"[{', '.join(f'{k}={v}' for k, v in cell['cell'].items())}] " + title
        parts.append(render_text(cell, title, data["names"]))
    rate = data["finished"] / data["seconds"] if data["seconds"] else 0.0
    parts.append(f"{data['finished']} games in {data['seconds']:.1f} s ({rate:.{0 if rate >= 10 else 2}f} games/s, "
                 f"{data['engine']}, "
                 f"{data['workers']} worker{'s' if data['workers'] != 1 else ''}"
                 f"{', compiled runtime' if data.get('runtime') == 'compiled' else ''})\n")
    return "\n".join(parts)


class _progress:
    """A rich progress bar on stderr with the rate and the time left; nothing when off or not a terminal."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.show = total, show and sys.stderr.isatty()
        self.bar: Any = None

    def __enter__(self) -> Any:
        if not self.show:
            return lambda n: None
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(TextColumn("playing"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
                            TextColumn("{task.fields[rate]}"),
                            TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                            console=Console(stderr=True), transient=True)
        self.bar.start()
        task = self.bar.add_task("games", total=self.total, rate="")
        started = time.perf_counter()

        def advance(n: int) -> None:
            done = self.bar.tasks[0].completed + n
            rate = done / max(1e-9, time.perf_counter() - started)
            self.bar.update(task, advance=n, rate=f"{rate:,.0f} games/s")
        return advance

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
