"""`--engine ray`: the same batches as Ray tasks, on a local Ray or the cluster at `--ray-address`.

Ray is an optional extra (`pip install -e '.[ray]'`). Every node needs cardc installed; the rule package
travels with the job, so the content folder does not. Results equal the local ones for the same seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cardc.simulation.jobs import Job
from cardc.simulation.stats import GameRecord

Task = tuple[int, list[int]]


def _ray() -> Any:
    from cardc.simulation.runner import SimulationError

    try:
        import ray
    except ImportError:
        raise SimulationError("--engine ray needs Ray: pip install -e '.[ray]' (or pip install ray)") from None
    return ray


_STARTED = [False]  # whether this process started the Ray it is connected to


# What `ray.init` raises for an unreachable cluster or a local Ray that cannot start.
_START_ERRORS: tuple[type[BaseException], ...] = (OSError, RuntimeError, ValueError, TimeoutError)


def _ray_errors(ray: Any) -> tuple[type[BaseException], ...]:
    base = getattr(getattr(ray, "exceptions", None), "RayError", None)
    return (base,) if isinstance(base, type) and issubclass(base, BaseException) else ()


def start_ray(address: str | None, workers: int, **local: Any) -> Any:
    """Connect to the cluster at `address`, or start a local Ray with `workers` CPUs (a Ray this process is
    already connected to is used as it is)."""
    ray = _ray()
    from cardc.simulation.runner import SimulationError

    if ray.is_initialized():
        return ray
    try:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, **local)
            _STARTED[0] = True
    except (*_START_ERRORS, *_ray_errors(ray)) as e:  # Ray's own errors and what its start-up raises
        where = f"connect to Ray at {address}" if address else "start a local Ray"
        raise SimulationError(f"could not {where}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
            from None
    return ray


def stop_local_ray() -> None:
    """Shut down the Ray this process started (a cluster, or a Ray someone else started, keeps running)."""
    if _STARTED[0]:
        import ray

        ray.shutdown()
        _STARTED[0] = False


def _batch(job: Job, seed: int, cell: int, indices: list[int]) -> tuple[int, list[GameRecord]]:
    from cardc.simulation.runner import play_batch

    return cell, play_batch(job, seed, indices)


def run_ray(jobs: Sequence[Job], tasks: list[Task], seed: int, workers: int, address: str | None,
            done: Callable[[int, list[GameRecord]], None]) -> bool:
    """Submit every batch, collect them as they finish; Ctrl-C cancels what is still pending."""
    ray = start_ray(address, workers)
    remote = ray.remote(num_cpus=1)(_batch)
    refs = [ray.put(job) for job in jobs]  # each package crosses the wire once
    pending = [remote.remote(refs[cell], seed, cell, indices) for cell, indices in tasks]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                cell, records = ray.get(ref)
                done(cell, records)
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref, force=True)
        return True
    return False
