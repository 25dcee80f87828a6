"""`cardc simulate --engine ray`: the same games as Ray tasks on a local Ray give the local numbers.

A local Ray with two CPUs is started once for this module; the tests are skipped, saying why, only when Ray
is not installed (`pip install -e '.[ray]'`) or cannot start on this machine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from cardc.frontend import FrontEndResult
from cardc.simulation.jobs import Job, package_files
from cardc.simulation.runner import run
from cardc.simulation.stats import summarize
from cardc.simulation.table import validate
from test_cli import run as cli


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    try:
        import ray
    except ImportError:
        pytest.skip("Ray is not installed (pip install -e '.[ray]')")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=100 * 1024 * 1024)
    except Exception as e:  # noqa: BLE001 - whatever keeps Ray from starting here is the reason to skip
        pytest.skip(f"Ray cannot start on this machine: {type(e).__name__}: {e}")
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def jobs(bundled: FrontEndResult) -> list[Job]:
    files, digest = package_files(bundled.project, "karak")
    base = validate(Job("karak", files, digest, 2, bot="sensible", turn_cap=60))
    return [base, validate(base.with_(players=3, variants=("critical_hits",)))]


def test_ray_gives_the_local_numbers(ray_local: Any, jobs: list[Job]) -> None:
    remote = run(jobs, 6, 13, workers=2, engine="ray")
    local = run(jobs, 6, 13, workers=1)
    assert remote.engine == "ray" and not remote.interrupted and remote.finished == 12
    for cell in range(len(jobs)):
        assert summarize(remote.records[cell]) == summarize(local.records[cell])


def test_sweep_on_ray_from_the_command_line(ray_local: Any) -> None:
    args = ["simulate", "--game", "karak", "--games", "3", "--seed", "4", "--turn-cap", "60", "--bot", "random",
            "--no-progress", "--json", "--sweep", "players=2..3"]
    code, out, err = cli([*args, "--engine", "ray"])
    assert code == 0, err
    code, local_out, err = cli([*args, "--workers", "1"])
    assert code == 0, err
    on_ray, here = json.loads(out), json.loads(local_out)
    assert on_ray["engine"] == "ray" and len(on_ray["cells"]) == 2
    for a, b in zip(on_ray["cells"], here["cells"], strict=True):
        assert {k: v for k, v in a.items()} == b
    assert ray_local.is_initialized()  # the command left the Ray it did not start running
