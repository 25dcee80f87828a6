"""Play many games: in this process, on a local process pool, or as Ray tasks; always the same games.

The unit of work is a batch of game indices of one cell (a `Job`: one game set-up). Each game's seed comes
from (S, index) alone, and the statistics ignore the order results arrive in, so the numbers do not depend
on the engine, the number of workers or how batches were scheduled.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardc.simulation.jobs import Job
from cardc.simulation.seeds import batch_size, batches, game_seed
from cardc.simulation.stats import GameRecord

Task = tuple[int, list[int]]  # (cell, game indices)
GAMES_YOUNG_THRESHOLD = 20_000  # gen-0 threshold while games play (CPython's default: 700)
OnBatch = Callable[[int, list[GameRecord]], None]


class SimulationError(Exception):
    """A run that cannot start (e.g. Ray is missing or cannot connect): one line for the user."""


@dataclass
class RunResult:
    records: dict[int, list[GameRecord]] = field(default_factory=dict)  # by cell
    interrupted: bool = False
    engine: str = "local"
    workers: int = 1

    def add(self, cell: int, records: list[GameRecord]) -> None:
        self.records.setdefault(cell, []).extend(records)

    @property
    def finished(self) -> int:
        return sum(len(r) for r in self.records.values())


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def play_batch(job: Job, seed: int, indices: Sequence[int]) -> list[GameRecord]:
    """Play the games `indices` of `job` in this process (the table is loaded once per process)."""
    return list(play_games(job, seed, indices))


def play_games(job: Job, seed: int, indices: Sequence[int]) -> Generator[GameRecord, None, None]:
    """The games `indices` of `job`, played in this process one at a time as they are asked for; the greedy
    bot's new exact odds go to the store once, after the last (or when the caller stops asking)."""
    from cardc.simulation.table import table_for

    table = table_for(job)
    # A game makes many short-lived objects that reference counting frees; a young collection every 700
    # allocations walked those still alive again and again (a few % of a game). Fewer, larger young
    # collections while the games play; the threshold is as it was between games handed out and afterwards.
    threshold = gc.get_threshold()
    raised = (max(threshold[0], GAMES_YOUNG_THRESHOLD), *threshold[1:])
    try:
        for i in indices:
            if threshold[0]:  # (0: the caller turned collections off; left so)
                gc.set_threshold(*raised)
            try:
                record = table.play(i, game_seed(seed, i))
            finally:
                gc.set_threshold(*threshold)
            yield record
    finally:
        table.keep_odds()


def make_tasks(jobs: Sequence[Job], games: int, workers: int) -> list[Task]:
    size = batch_size(games * len(jobs), workers)
    return [(cell, b) for cell in range(len(jobs)) for b in batches(range(games), size)]


def run(jobs: Sequence[Job], games: int, seed: int, *, workers: int | None = None, engine: str = "local",
        ray_address: str | None = None, on_batch: OnBatch | None = None) -> RunResult:
    """Play `games` games of every job; Ctrl-C stops the run and keeps the games that finished."""
    n = default_workers() if workers is None else max(1, workers)
    tasks = make_tasks(jobs, games, n)
    result = RunResult(engine=engine, workers=n)

    def done(cell: int, records: list[GameRecord]) -> None:
        result.add(cell, records)
        if on_batch is not None:
            on_batch(cell, records)

    try:
        if engine == "ray":
            from cardc.simulation.ray_engine import run_ray

            result.interrupted = run_ray(jobs, tasks, seed, n, ray_address, done)
        elif n == 1:
            for cell, indices in tasks:
                # Each game handed on as it ends, so Ctrl-C loses at most the game in progress; the odds kept
                # once a batch (kept after every game, they cost about 1% of a run).
                playing = play_games(jobs[cell], seed, indices)
                try:
                    for record in playing:
                        done(cell, [record])
                finally:
                    playing.close()  # (the odds of the games played kept now, also when Ctrl-C stops the run)
        else:
            result.interrupted = _run_pool(jobs, tasks, seed, n, done)
    except KeyboardInterrupt:
        result.interrupted = True
    return result


# ---- local process pool ----------------------------------------------------------------------------

_POOL_JOBS: Sequence[Job] = ()


def _init_worker(jobs: Sequence[Job]) -> None:
    """Workers ignore Ctrl-C (the parent stops them) and keep the jobs for the batches they are sent."""
    global _POOL_JOBS
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _POOL_JOBS = jobs


def _pool_batch(task: Task, seed: int) -> tuple[int, list[GameRecord]]:
    cell, indices = task
    return cell, play_batch(_POOL_JOBS[cell], seed, indices)


def _pool_context() -> Any:
    """fork where the platform has it (workers start at once and share the parent's loaded modules)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods and sys.platform != "darwin" else "spawn")


def _run_pool(jobs: Sequence[Job], tasks: list[Task], seed: int, workers: int,
              done: Callable[[int, list[GameRecord]], None]) -> bool:
    from functools import partial

    pool = _pool_context().Pool(workers, initializer=_init_worker, initargs=(list(jobs),))
    try:
        for cell, records in pool.imap_unordered(partial(_pool_batch, seed=seed), tasks):
            done(cell, records)
    except KeyboardInterrupt:
        pool.terminate()
        pool.join()
        return True
    pool.close()
    pool.join()
    return False
